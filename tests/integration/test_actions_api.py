"""Element actions through the public API and the host: refs, selectors, receipts, frames.

Pages record what they receive (with ``event.isTrusted``) so the tests check outcomes a
user would check: what was clicked, how often, and whether the input was trusted.
"""

from __future__ import annotations

import re

import pytest

from ego_browser import (
    InvalidSelector,
    NotActionable,
    SelectorAmbiguous,
    SelectorNotFound,
    StaleRef,
    UnknownRef,
)

LOG = """
<script>
window.log = [];
document.addEventListener('click', e => {
  const t = e.target.closest('[data-k]');
  if (t) log.push(t.dataset.k + (e.isTrusted ? '' : ':untrusted'));
}, true);
</script>
"""


def refs(snapshot: str) -> dict[str, int]:
    """``name -> ref`` for the lines of a snapshot that carry a ref."""
    out = {}
    for line in snapshot.splitlines():
        m = re.search(r'^\s*\S+ "([^"]*)"(?: \[[a-z]+(?:=[^\]]*)?\])* \[ref=(\d+)', line)  # state marks between
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


async def test_b52_b76_ref_forms_select_the_same_element(task, server):
    url = server.page("/a-refs", LOG + "<button data-k=one>One</button><button data-k=two>Two</button>")
    page = task.page("p1")
    await page.goto(url)
    r = refs(await page.snapshot())
    n = r["Two"]
    for form in (f"@{n}", f"ref={n}", f"{n}"):
        receipt = await page.click(form)
        assert receipt.popups == [] and receipt.dialog is None
    assert await page.evaluate("log") == ["two", "two", "two"]
    with pytest.raises(UnknownRef, match="Unknown ref: 999999"):
        await page.click("@999999")
    # "[ref=N]" is CSS, not a ref: the browser's CSS parser judges it (a digit is not an
    # identifier), and the quoted form is valid CSS that matches nothing
    with pytest.raises(InvalidSelector):
        await page.click(f"[ref={n}]", timeout=200)
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.click(f'[ref="{n}"]', timeout=200)


async def test_b72_refs_go_stale_after_navigation(task, server):
    url = server.page("/a-stale", LOG + "<button data-k=x>X</button>")
    page = task.page("p1")
    await page.goto(url)
    n = refs(await page.snapshot())["X"]
    # a node that survives the navigation (same landmarks, role, name, target) keeps its
    # number (issue 30 point 2)
    await page.goto(url + "?again")
    assert refs(await page.snapshot())["X"] == n
    # one that does not survive is stale
    other = server.page("/a-stale-other", LOG + "<button data-k=y>Y</button>")
    await page.goto(other)
    with pytest.raises(StaleRef, match=f'Stale ref: @{n} was button "X"; take a new snapshot'):
        await page.click(f"@{n}")
    assert "X" not in refs(await page.snapshot())
    assert await page.evaluate("log") == []


async def test_b72_refs_belong_to_one_page(task, server):
    url = server.page("/a-pages", LOG + "<button data-k=a>A</button>")
    a = task.page("p1")
    b = await task.new_page()
    await a.goto(url)
    await b.goto(url)
    n = refs(await a.snapshot())["A"]
    with pytest.raises(UnknownRef):
        await b.click(f"@{n}")
    assert await b.evaluate("log") == []


async def test_b87_ambiguous_css_and_single_usable_duplicate(task, server):
    url = server.page("/a-amb", LOG + (
        "<button class=d data-k=1>Go</button><button class=d data-k=2>Go</button>"
        "<button class=h data-k=h1 style=display:none>H</button><button class=h data-k=h2>H</button>"
    ))
    page = task.page("p1")
    await page.goto(url)
    with pytest.raises(SelectorAmbiguous, match="matched 2 elements"):
        await page.click(".d")
    await page.click(".h")
    assert await page.evaluate("log") == ["h2"]


async def test_b70_failed_actions_do_not_poison_refs(task, server):
    url = server.page("/a-fail", LOG + "<button class=d data-k=1>A</button><button class=d data-k=2>B</button>"
                                       "<input id=f aria-label=Field>")
    page = task.page("p1")
    await page.goto(url)
    r = refs(await page.snapshot())
    with pytest.raises(SelectorAmbiguous, match="matched 2 elements"):
        await page.click(".d")
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.fill("loc=css:#missing", "x", timeout=300)
    await page.click(f"@{r['B']}")
    await page.fill(f"@{r['Field']}", "typed")
    assert await page.evaluate("log") == ["2"]
    assert await page.evaluate("document.querySelector('#f').value") == "typed"


async def test_b73_ref_to_a_disabled_button_is_refused(task, server):
    url = server.page("/a-dis", LOG + "<button disabled data-k=d>Disabled</button>")
    page = task.page("p1")
    await page.goto(url)
    n = refs(await page.snapshot())["Disabled"]
    with pytest.raises(NotActionable, match="element is disabled"):
        await page.click(f"@{n}", timeout=150)
    assert await page.evaluate("log") == []


async def test_b66_evaluate_keeps_refs_valid(task, server):
    url = server.page("/a-eval", LOG + "<div id=box><button data-k=keep>Keep</button><p id=gone>x</p></div>")
    page = task.page("p1")
    await page.goto(url)
    n = refs(await page.snapshot())["Keep"]
    await page.evaluate("document.title")
    await page.evaluate("document.querySelector('#gone').replaceWith(document.createElement('span'))")
    await page.click(f"@{n}")
    assert await page.evaluate("log") == ["keep"]


async def test_b67_a_replaced_node_is_never_matched_by_its_old_ref(task, server):
    url = server.page("/a-clone", LOG + "<button id=b data-k=orig>Same</button>")
    page = task.page("p1")
    await page.goto(url)
    n = refs(await page.snapshot())["Same"]
    # another name at its place: never acted on (issue 29 findings 2 and 3)
    await page.evaluate("(() => { const b = document.querySelector('#b'); const c = b.cloneNode(true);"
                        " c.dataset.k = 'clone'; c.textContent = 'Other'; b.replaceWith(c); })()")
    with pytest.raises(StaleRef, match='at its place now: button "Other"'):
        await page.click(f"@{n}", timeout=300)
    assert await page.evaluate("log") == []


async def test_b67_a_node_replaced_by_an_identical_one_is_followed(task, server):
    url = server.page("/a-clone-same", LOG + "<button id=b data-k=orig>Same</button>")
    page = task.page("p1")
    await page.goto(url)
    n = refs(await page.snapshot())["Same"]
    await page.evaluate("(() => { const b = document.querySelector('#b'); const c = b.cloneNode(true);"
                        " c.dataset.k = 'clone'; b.replaceWith(c); })()")
    await page.click(f"@{n}", timeout=2000)
    assert await page.evaluate("log") == ["clone"]


async def test_b153_popup_from_a_click_is_in_the_receipt(task, server):
    server.page("/a-child", "child", title="Child")
    url = server.page("/a-pop", "<a id=o target=_blank href='/a-child'>open</a>")
    page = task.page("p1")
    await page.goto(url)
    receipt = await page.click("#o")
    assert len(receipt.popups) == 1
    label = receipt.popups[0]["label"]
    assert label == "p2"
    child = task.page(label)
    await child.wait_for_load_state()
    assert await child.url() == server.url("/a-child")
    tabs = {t["label"]: t for t in await task.tabs()}
    assert tabs[label]["opened_by"] == "agent"


async def test_b58_frame_refs_act_in_their_frame(task, server):
    server.page("/a-inner", "<button onclick=\"document.body.dataset.s='clicked'\">Inner</button>")
    outer = server.page("/a-outer", "<h1>Host</h1><iframe src='/a-inner' width=300 height=100></iframe>")
    cross = server.page(
        "/a-outer-x",
        f"<h1>Host</h1><iframe src='{server.url('/a-inner', host='localhost')}' width=300 height=100></iframe>",
    )
    page = task.page("p1")
    for url in (outer, cross):
        await page.goto(url)
        await page.wait_for_load_state()
        snap = await page.snapshot()
        assert any(line.strip().startswith("iframe [ref=") for line in snap.splitlines()), snap
        n = refs(snap)["Inner"]
        await page.click(f"@{n}")
        state = await page.evaluate(
            "new Promise(r => { const f = document.querySelector('iframe');"
            " try { r(f.contentDocument.body.dataset.s) } catch (e) { r('cross-origin') } })"
        )
        if url == outer:
            assert state == "clicked"
        else:
            # cross-origin: read the frame's state through a selector that runs inside it
            found = await page.find("body[data-s=clicked]")
            assert len(found) == 1 and found[0]["frame"] == server.url("/a-inner", host="localhost")


async def test_b159_b160_selectors_reach_into_frames(task, server):
    server.page("/a-f-in", "<button onclick=\"this.textContent='clicked:true'\">Press me</button>"
                           "<input id=field aria-label=Field>")
    cross = server.url("/a-f-in", host="localhost")
    url = server.page("/a-f-out", f"<div style='height:1600px'>tall</div><iframe src='{cross}'></iframe>")
    page = task.page("p1")
    await page.goto(url)
    await page.wait_for_load_state()
    await page.click('loc=role:button[name="Press me"]')
    await page.fill("loc=css:#field", "in the frame")
    found = await page.find("button")
    assert [f["text"] for f in found] == ["clicked:true"]
    assert (await page.info())["sy"] > 0, "the outer document was scrolled to reach the frame"
    values = await page.find("#field")
    assert values and values[0]["frame"] == cross


async def test_find_returns_every_match_with_usable_refs(task, server):
    url = server.page("/a-find", LOG + "<ul>" + "".join(
        f"<li><button data-k={i}>Item {i}</button></li>" for i in range(5)) + "</ul><span hidden>Item 9</span>")
    page = task.page("p1")
    await page.goto(url)
    rows = await page.find("text=item")
    assert [r["text"] for r in rows] == [f"Item {i}" for i in range(5)] + ["Item 9"]
    assert [r["visible"] for r in rows] == [True] * 5 + [False]
    assert all(set(r) == {"ref", "tag", "id", "role", "name", "text", "visible", "frame",
                          "value", "checked", "disabled", "expanded", "selected"} for r in rows)
    assert rows[0]["disabled"] is False and rows[0]["checked"] is None and rows[0]["value"] is None
    assert rows[2]["role"] == "button" and rows[2]["name"] == "Item 2" and rows[2]["frame"] is None
    assert rows[3]["ref"].startswith("@")
    await page.click(rows[3]["ref"])
    assert await page.evaluate("log") == ["3"]
    assert len(await page.find("button", limit=2)) == 2
    with pytest.raises(InvalidSelector):
        await page.find("#123")


async def test_mouse_and_keyboard_are_trusted(task, server):
    url = server.page("/a-input", "<input id=t autofocus><script>window.keys=[];"
                                  "document.addEventListener('keydown', e => keys.push(e.key + (e.isTrusted ? '' : '!')));"
                                  "window.clicks=[]; document.addEventListener('click', e => clicks.push([e.clientX, e.clientY, e.isTrusted]));"
                                  "</script>")
    page = task.page("p1")
    await page.goto(url)
    await page.focus("#t")
    await page.keyboard.type("Hi!")
    await page.keyboard.press("Backspace")
    await page.mouse.click(40, 50)
    assert await page.evaluate("document.querySelector('#t').value") == "Hi"
    # Shift is pressed for the shifted characters, as a US keyboard does
    assert await page.evaluate("keys") == ["Shift", "H", "i", "Shift", "!", "Backspace"]
    assert await page.evaluate("clicks") == [[40, 50, True]]


async def test_receipts_of_fill_and_hover_without_an_extra_flush(task, server):
    """fill and hover end with an in-page call on the page session after their last input,
    which stands in for the receipt's flush: what they opened is still in the receipt."""
    server.page("/f-child", "child", title="Child")
    url = server.page(
        "/f-pop",
        "<input id=i oninput=\"window.open('/f-child')\">"
        "<input id=d oninput=\"alert('typed ' + this.value)\">"
        "<span id=h onmouseenter=\"window.__hovered = (window.__hovered || 0) + 1\">hover me</span>",
    )
    page = task.page("p1")
    await page.goto(url)
    receipt = await page.fill("#i", "x")
    assert len(receipt.popups) == 1 and receipt.dialog is None
    await task.page(receipt.popups[0]["label"]).close()
    receipt = await page.fill("#d", "y")
    assert receipt.dialog is not None and "typed y" in receipt.dialog["message"]
    await page.accept_dialog()
    receipt = await page.hover("#h")
    assert receipt.popups == [] and receipt.dialog is None
    assert await page.evaluate("window.__hovered") == 1
    assert await page.evaluate("document.querySelector('#d').value") == "y"
