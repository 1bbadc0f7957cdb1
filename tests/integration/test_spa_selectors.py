"""Selectors on a code editor's page (issue 29 points 5 and 9): highlighted code, contenteditable
editors, links whose names are split over inline elements, header cells in rows of data.
The same shapes are in the differential oracle against Playwright (tests/selector_cases.py,
fixture "spa"); these tests check them as an agent meets them, after the page redraws."""

from __future__ import annotations

EDITOR = """
<div id=cell class=cell>
  <pre id=src class=cm-content contenteditable=true>print(base + x)</pre>
</div>
<div id=rich contenteditable=true role=textbox aria-label="Notes"><p>first line</p><p>second <b>bold</b></p></div>
<nav><a href="#nf" id=nf onclick="window.hit = 'nf'"><span class=i>New</span><span class=t>Folder</span></a>
<a href="#up" id=up onclick="window.hit = 'up'"><span>Up</span><span>load</span></a></nav>
<table id=props><tr><td>1</td><th>Owner</th><th>Mode</th></tr><tr><td>a</td><td>me</td><td>rw</td></tr></table>
<script>
// the highlighter runs a moment after the editor shows, and splits the line into spans
setTimeout(() => {
  document.getElementById('src').innerHTML =
    '<span class="tok-k">print</span>(<span class="tok-v">base</span> <span class="tok-o">+</span> x)';
  document.body.dataset.highlighted = '1';
}, 50);
</script>"""


async def _editor(task, server, path: str):
    page = task.page("p1")
    await page.goto(server.page(path, EDITOR))
    await page.wait_for_selector("body[data-highlighted]", state="attached", timeout=5000)
    return page


async def test_exact_text_matches_highlighted_code(task, server):
    page = await _editor(task, server, "/spa-sel-code")
    assert await page.evaluate("document.querySelectorAll('#src span').length") == 3
    # the smallest element whose whole text is the string, whatever spans split it
    rows = await page.find('text="print(base + x)"')
    assert [r["id"] for r in rows] == ["src"]
    assert [r["id"] for r in await page.find(':text-is("print(base + x)")')] == ["src"]
    assert [r["id"] for r in await page.find('pre:text-is("print(base + x)")')] == ["src"]
    await page.click('text="print(base + x)"')
    assert await page.evaluate("document.activeElement.id") == "src"
    # the immediate-text rule still holds: one token of the line
    assert [r["text"] for r in await page.find('text="print"')] == ["print"]


async def test_find_reports_a_contenteditable_editors_text_as_its_value(task, server):
    page = await _editor(task, server, "/spa-sel-value")
    (row,) = await page.find("#src")
    assert row["value"] == "print(base + x)"
    (rich,) = await page.find("#rich")
    assert rich["value"] == "first line second bold"
    # an element inside the editor is not an editor of its own
    assert (await page.find("#rich b"))[0]["value"] is None
    await page.click("#src")
    await page.keyboard.press("End")
    await page.keyboard.type(" # done")
    assert (await page.find("#src"))[0]["value"] == "print(base + x) # done"


async def test_link_name_split_over_inline_elements(task, server):
    page = await _editor(task, server, "/spa-sel-link")
    await page.click('role=link[name="NewFolder"]')
    assert await page.evaluate("window.hit") == "nf"
    await page.click('role=link[name="Upload"]')
    assert await page.evaluate("window.hit") == "up"
    assert await page.find('role=link[name="New Folder"]') == []


async def test_th_role_follows_its_row_as_playwright(task, server):
    page = await _editor(task, server, "/spa-sel-th")
    # "Owner" follows a data cell: a row header; "Mode" sits between a header and nothing: a column header
    assert [r["name"] for r in await page.find("#props >> role=rowheader")] == ["Owner"]
    assert [r["name"] for r in await page.find("#props >> role=columnheader")] == ["Mode"]
    assert len(await page.find('role=columnheader[name="Mode"]')) == 1
    assert await page.find('role=rowheader[name="Mode"]') == []
