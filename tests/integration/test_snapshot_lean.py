"""Lean looks through the public API (issue 30): locators kept by the host, link targets only
where the name does not tell them, grep, a look written to a file, the header once per round,
and a new document printed against the previous one. In-process host, real Chromium.
"""

from __future__ import annotations

import os
from pathlib import Path
import re

import pytest

from ego_browser import InvalidArgument, StaleRef

REF = re.compile(r"\[ref=([0-9]+)")


def body(text: str) -> str:
    return text.split("\n", 1)[1] if "\n" in text else ""


def line_of(text: str, needle: str) -> str:
    for line in text.splitlines():
        if needle in line:
            return line
    raise AssertionError(f"{needle!r} not in snapshot:\n{text}")


FORM = """
<h1>Account</h1>
<input id=email aria-label=Email> <button type=button>Send</button> <button type=button>Send</button>
<a href="/o/1/edit">Edit</a> <a href="/o/2/edit">Edit</a> <a href="/terms">Terms</a>
<a href="http://other.example/help">Help</a> <a href="/icon"><img alt=""></a>
"""


async def test_default_look_has_refs_and_the_host_keeps_the_locators(task, server):
    page = task.page("p1")
    await page.goto(server.page("/lean-form", FORM))
    text = await page.snapshot()
    assert "loc=" not in text and re.search(r'textbox "Email" \[ref=\d+\]$', line_of(text, '"Email"'))
    located = await page.snapshot(locators=True)
    assert re.search(r'textbox "Email" \[ref=\d+, loc=css:#email\]', located)
    email = int(REF.search(line_of(text, '"Email"')).group(1))
    terms = int(REF.search(line_of(text, '"Terms"')).group(1))
    sel = await page.locator_of(f"@{email}")
    assert sel == "loc=css:#email"
    await page.fill(sel, "ann@example.com")  # the locator names the element the ref did
    assert await page.evaluate("document.querySelector('#email').value") == "ann@example.com"
    assert await page.locator_of(f"@{terms}") == "loc=href:/terms"
    # a button whose role and name are unique gets a role locator; two alike have none
    send = int(REF.search(line_of(text, '"Send"')).group(1))
    assert await page.locator_of(f"@{send}") is None
    assert await page.locator_of("h1 ~ a[href='/terms']") == "loc=href:/terms"  # any selector naming one element
    await page.goto(server.page("/lean-other", "<p>Elsewhere</p>"))
    with pytest.raises(StaleRef):
        await page.locator_of(f"@{email}")  # its document is gone


async def test_a_link_target_is_printed_only_where_its_name_does_not_tell_it(task, server):
    page = task.page("p1")
    await page.goto(server.page("/lean-links", FORM))
    b = body(await page.snapshot())
    edits = [ln for ln in b.splitlines() if 'link "Edit"' in ln]
    assert len(edits) == 2 and "url=/o/1/edit]" in edits[0] and "url=/o/2/edit]" in edits[1]
    assert re.search(r'link "Terms" \[ref=\d+\]$', line_of(b, '"Terms"'))
    assert "url=other.example]" in line_of(b, '"Help"')  # it leaves the site: where to, in short
    assert "url=/icon]" in line_of(b, "/icon")  # no name
    # with locators asked for, a link's target is there wherever its locator is not its href
    assert "loc=href:/terms" in line_of(await page.snapshot(locators=True), '"Terms"')


LONG = "".join(f"<h2>Section {i}</h2><p>Paragraph {i} text.</p><button type=button>Act {i}</button>"
               for i in range(40)) + "<h2>Payment</h2><label>Card number <input id=card></label>"


async def test_grep_prints_only_the_matches_with_their_headings_and_refs(task, server):
    page = task.page("p1")
    await page.goto(server.page("/lean-grep", LONG))
    full = body(await page.snapshot(scope="full_page"))
    found = body(await page.snapshot(scope="full_page", grep="card"))
    lines = found.splitlines()
    assert lines[0] == "root" and ' heading "Payment" [level=2]' in lines
    assert re.search(r'textbox "Card number" \[ref=\d+\]', found)
    assert lines[-1] == f"[grep card: 1 of {len(full.splitlines())} lines match]"
    assert len(found) * 10 < len(full)
    rx = body(await page.snapshot(scope="full_page", grep='/Act (7|17)"/'))
    assert 'heading "Section 7"' in rx and 'heading "Section 17"' in rx and 'heading "Section 8"' not in rx
    assert rx.splitlines()[-1].startswith('[grep /Act (7|17)"/: 2 of')
    none = body(await page.snapshot(grep="no such words"))
    assert none.startswith("[grep no such words: no line matches;")
    with pytest.raises(InvalidArgument, match="grep"):
        await page.snapshot(grep="/(unclosed/")


async def test_to_file_writes_the_look_and_prints_its_path_and_a_summary(task, server):
    page = task.page("p1")
    await page.goto(server.page("/lean-file", LONG, title="Long"))
    out = await page.snapshot(scope="full_page", to_file=True)
    head, note = out.split("\n")
    assert head.startswith('[p1 "Long"') or head == "[p1]"
    m = re.fullmatch(r"\[snapshot saved to (\S+): (\d+) lines, [\d.]+ K?B, (\d+) refs, (\d+) headings, \d+ landmarks; "
                     r"search it with open\(\), or use grep=\]", note)
    assert m, note
    path = m.group(1)
    try:
        saved = Path(path).read_text(encoding="utf-8")
        assert saved.startswith('[p1 "Long"')  # the file has the whole header, whatever the round printed
        assert 'textbox "Card number" [ref=' in saved and 'heading "Section 39"' in saved
        assert int(m.group(3)) == saved.count("[ref=") == 41 and int(m.group(4)) == 41
        assert body(saved) == body(await page.snapshot(scope="full_page"))
    finally:
        os.unlink(path)


async def test_the_header_prints_its_space_part_when_it_changed(task, server):
    page = task.page("p1")
    await page.goto(server.page("/lean-head", "<button>Go</button>", title="Once"))
    first = (await page.snapshot()).split("\n", 1)[0]
    assert first.startswith('[p1 "Once"')
    assert (await page.snapshot()).split("\n", 1)[0] == "[p1]"
    await page.evaluate("document.title = 'Twice'")
    # a new title: the page part prints; the space part has not changed since the last look
    assert (await page.snapshot()).split("\n", 1)[0] == '[p1 "Twice"]'
    # a later round: the title, not the space again
    page._round.token = "a later round"
    assert (await page.snapshot()).split("\n", 1)[0] == '[p1 "Twice"]'
    # a second page in the space changes the space part: printed whole
    p2 = await task.new_page()
    assert re.fullmatch(r'\[p1 "Twice" \| space "[^"]+"\(\d+\) with p2 "[^"]*"(?: \| budget 2/3)?\]',
                        (await page.snapshot()).split("\n", 1)[0])
    await p2.close()


def _site(main: str) -> str:
    nav = "".join(f'<a href="/lean-nav/{i}">Section {i}</a> ' for i in range(12))
    return (f'<header><a href="/">Acme admin</a> <a href="/me">Profile</a> <button>Sign out</button></header>'
            f'<nav aria-label=Sidebar>{nav}</nav><main>{main}</main>'
            '<footer><p>© Acme 2026</p><a href="/about">About</a> <a href="/privacy">Privacy</a></footer>')


async def test_changes_after_a_navigation_collapse_what_the_previous_document_printed_alike(task, server):
    page = task.page("p1")
    await page.goto(server.page("/lean-nav/a", _site("<h1>Orders</h1><a href='/o/1'>Order 1</a>")))
    before = await page.snapshot(scope="full_page", changes=True)
    await page.goto(server.page("/lean-nav/b", _site("<h1>Order 1</h1><input aria-label=Note><button>Save</button>")))
    delta = await page.snapshot(scope="full_page", changes=True)
    full = await page.snapshot(scope="full_page")
    lines = body(delta).splitlines()
    assert lines[0].startswith("[changes: a new document; 3 landmarks as before (= unchanged)]"), lines
    nav = line_of(delta, 'navigation "Sidebar"')
    m = re.fullmatch(r' navigation "Sidebar" = unchanged \(13 lines, @(\d+)-@(\d+)(?: were @(\d+)-@(\d+))?\)', nav)
    assert m, nav
    # the range holds the refs the sidebar has now: the first is "Section 0" in the full look
    assert int(m.group(1)) == int(REF.search(line_of(full, '"Section 0"')).group(1))
    assert int(m.group(2)) == int(REF.search(line_of(full, '"Section 11"')).group(1))
    if m.group(3):  # renumbered: the k-th ref of the range is the k-th of the old one
        assert int(m.group(3)) == int(REF.search(line_of(before, '"Section 0"')).group(1))
    # the changed part prints in full; no text of the sidebar is reprinted
    assert 'heading "Order 1" [level=1]' in delta and re.search(r'button "Save" \[ref=\d+\]', delta)
    assert "Section 5" not in delta and len(body(delta)) * 3 < len(body(full)) * 2
    # a ref in a collapsed range acts on the node it names
    await page.click(f"@{int(m.group(1)) + 3}")
    await page.wait_for_url("**/lean-nav/3")
