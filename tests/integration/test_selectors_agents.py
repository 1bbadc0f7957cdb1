"""Selectors agents write, through the public API on real Chromium (issue 13, points 4 and 5).

What the differential oracle cannot show: that these forms drive real actions (a trusted click
lands on the element meant), that ``get_by_*`` strings work in actions, and that an ambiguity
error lists its candidates with refs the next call can use.
"""

from __future__ import annotations

import re

import pytest

from ego_browser import InvalidArgument, SelectorAmbiguous
from tests.integration.test_behaviours_selectors import LOG, open_page


async def test_playwright_role_text_regex_and_chains_drive_clicks(task, server):
    page = await open_page(task, server, "/agents-forms", (
        "<section class=card><h3>Dune</h3><button data-k=dune-add>Add to cart</button>"
        "<button data-k=dune-save aria-pressed=true>Saved</button></section>"
        "<section class=card><h3>Emma</h3><button data-k=emma-add>Add to cart</button>"
        "<button data-k=emma-save aria-pressed=false>Save</button></section>"
        "<p data-k=count>Showing 12 books</p>"
        "<table><tr><td data-k=c1>Alpha</td><td data-k=c2>10</td></tr><tr><td data-k=c3>Beta</td><td data-k=c4>20</td></tr></table>"
    ))
    await page.click('role=button[name="Save"]')  # exact and case-sensitive: not "Saved"
    await page.click("role=button[pressed]")  # the one pressed
    await page.click('.card:has-text("emma") >> role=button[name*="cart" i]')
    await page.click("text=/\\d+ books?/")
    await page.click('role=cell[name="Beta"]')  # a table without headers has cells
    await page.click("role=row >> nth=1 >> role=cell >> nth=-1")
    await page.click('section:has(h3:text-is("Dune")) button:text("add")')
    assert await page.evaluate("log") == ["emma-save", "dune-save", "emma-add", "count", "c3", "c4", "dune-add"]


async def test_get_by_strings_work_in_actions(task, server):
    page = await open_page(task, server, "/agents-get-by", (
        "<label>Email <input id=email></label>"
        "<input id=search placeholder='Search the store'>"
        "<button data-k=go data-testid=go-button>Go</button>"
        "<button data-k=gone>Go on</button>"
    ))
    assert page.get_by_role("button", name="go", exact=False) == 'role=button[name*="go" i]'
    await page.fill(page.get_by_label("email"), "ann@example.com")
    await page.fill(page.get_by_placeholder("search the"), "kettle")
    await page.click(page.get_by_role("button", name="Go", exact=True))
    await page.click(page.get_by_test_id("go-button"))
    await page.click(page.get_by_text("go on"))
    await page.click(page.get_by_role("button", name=re.compile("^go on$", re.I)))
    assert await page.evaluate("[email.value, search.value]") == ["ann@example.com", "kettle"]
    assert await page.evaluate("log") == ["go", "go", "gone", "gone"]
    with pytest.raises(SelectorAmbiguous):
        await page.click(page.get_by_role("button", name="go"), timeout=500)  # both contain "go"
    with pytest.raises(InvalidArgument, match="name"):
        page.get_by_role("button", name=3)


async def test_ambiguity_lists_five_candidates_with_refs_to_act_on(task, server):
    buttons = "".join(f"<button data-k=b{i} aria-label='Save {i}'>Save</button>" for i in range(7))
    page = await open_page(task, server, "/agents-ambiguous", buttons)
    with pytest.raises(SelectorAmbiguous) as info:
        await page.click("text=Save", timeout=500)
    err = info.value
    assert err.count == 7 and "matched 7 elements" in str(err)
    assert len(err.candidates) == 5 and "and 2 more" in str(err)
    assert [c["role"] for c in err.candidates] == ["button"] * 5
    assert [c["name"] for c in err.candidates] == [f"Save {i}" for i in range(5)]
    assert all(c["frame"] is None for c in err.candidates)
    for c in err.candidates:
        assert c["ref"] in str(err)
    assert await page.evaluate("log") == []
    # the listed refs are real: the third one clicks the third button
    await page.click(err.candidates[2]["ref"])
    assert await page.evaluate("log") == ["b2"]


async def test_ambiguity_in_a_frame_names_the_frame(task, server):
    frame_url = server.page("/agents-amb-frame", LOG + "<button data-k=f1>Pay</button><button data-k=f2>Pay</button>")
    page = await open_page(task, server, "/agents-amb-top", "<iframe src='/agents-amb-frame' width=300 height=100></iframe>")
    await page.wait_for_load_state()
    with pytest.raises(SelectorAmbiguous) as info:
        await page.click('text="Pay"', timeout=500)
    rows = info.value.candidates
    assert len(rows) == 2 and {r["frame"] for r in rows} == {frame_url}
    assert frame_url in str(info.value)
    await page.click(rows[1]["ref"])
    assert await page.evaluate("document.querySelector('iframe').contentWindow.log") == ["f2"]


# -- every strict path lists its candidates (issue 13 point 5): one helper builds them all ---------


def _assert_lists(err, count: int, names: list[str], role: str, found: str | None = None) -> None:
    assert err.count == count and (found or f"matched {count} elements") in str(err)
    assert [c["role"] for c in err.candidates] == [role] * len(names)
    assert [c["name"] for c in err.candidates] == names
    assert all(c["frame"] is None and c["ref"] in str(err) for c in err.candidates)
    if count > 5:
        assert f"and {count - 5} more" in str(err)


async def test_wait_for_selector_ambiguity_lists_candidates(task, server):
    buttons = "".join(f"<button data-k=w{i} aria-label='Wait {i}'>Wait</button>" for i in range(6))
    page = await open_page(task, server, "/agents-amb-wait", buttons)
    with pytest.raises(SelectorAmbiguous) as info:
        await page.wait_for_selector("text=Wait", timeout=2000, strict=True)
    _assert_lists(info.value, 6, [f"Wait {i}" for i in range(5)], "button")
    await page.click(info.value.candidates[4]["ref"])  # the listed refs act on the one meant
    assert await page.evaluate("log") == ["w4"]


async def test_snapshot_root_ambiguity_lists_candidates(task, server):
    page = await open_page(task, server, "/agents-amb-root", (
        "<nav aria-label='Main'><a href='#a'>A</a></nav><nav aria-label='Footer'><a href='#b'>B</a></nav>"))
    with pytest.raises(SelectorAmbiguous) as info:
        await page.snapshot(scope="subtree", root="nav")
    _assert_lists(info.value, 2, ["Main", "Footer"], "navigation")
    text = await page.snapshot(scope="subtree", root=info.value.candidates[1]["ref"])
    assert 'link "B"' in text and 'link "A"' not in text


async def test_set_input_files_ambiguity_lists_candidates(task, server, tmp_path):
    f = tmp_path / "one.txt"
    f.write_text("1")
    page = await open_page(task, server, "/agents-amb-files", (
        "<input type=file aria-label='Photo'><input type=file aria-label='Scan'><input type=file aria-label='Proof'>"))
    with pytest.raises(SelectorAmbiguous) as info:
        await page.set_input_files("input[type=file]", str(f), timeout=2000)
    _assert_lists(info.value, 3, ["Photo", "Scan", "Proof"], "button")
    await page.set_input_files(info.value.candidates[1]["ref"], str(f))
    assert await page.evaluate("[...document.querySelectorAll('input')].map(i => i.files.length)") == [0, 1, 0]


async def test_a_wrapper_of_several_file_inputs_lists_them(task, server, tmp_path):
    f = tmp_path / "two.txt"
    f.write_text("2")
    page = await open_page(task, server, "/agents-amb-wrap", (
        "<div id=wrap><input type=file aria-label='Front'><input type=file aria-label='Back'></div>"))
    with pytest.raises(SelectorAmbiguous) as info:
        await page.set_input_files("#wrap", str(f), timeout=2000)
    err = info.value
    _assert_lists(err, 2, ["Front", "Back"], "button", found="contains multiple file inputs (2)")
    await page.set_input_files(err.candidates[1]["ref"], str(f))
    assert await page.evaluate("[...document.querySelectorAll('input')].map(i => i.files.length)") == [0, 1]


async def test_a_wrapper_of_several_fillable_fields_lists_them(task, server):
    page = await open_page(task, server, "/agents-amb-fill", (
        "<div id=form><input aria-label='First name'><textarea aria-label='Message'></textarea></div>"))
    with pytest.raises(SelectorAmbiguous) as info:
        await page.fill("#form", "x", timeout=2000)
    err = info.value
    _assert_lists(err, 2, ["First name", "Message"], "textbox", found="holds multiple fillable fields (2)")
    await page.fill(err.candidates[1]["ref"], "hello")
    assert await page.evaluate("[...document.querySelectorAll('input, textarea')].map(e => e.value)") == ["", "hello"]
