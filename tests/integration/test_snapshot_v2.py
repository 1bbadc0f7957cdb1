"""Snapshot v2 through the public API (issue 12): state and value on every line, the leaner
format's rules, refs only where a pointer can act, the modes (interactive, root selector,
max_length, changes) and the state fields of ``find`` rows. In-process host, real Chromium.
"""

from __future__ import annotations

import re

import pytest

from ego_browser import SelectorAmbiguous, SelectorNotFound

REF = re.compile(r"\[ref=([0-9]+)")


def body(text: str) -> str:
    return text.split("\n", 1)[1] if "\n" in text else ""


def line_of(text: str, needle: str) -> str:
    for line in text.splitlines():
        if needle in line:
            return line
    raise AssertionError(f"{needle!r} not in snapshot:\n{text}")


FORM = """
<h1>Profile</h1><h3>Details</h3>
<form id=profile>
 <label for=title>Title</label> <input id=title value="old attribute">
 <label>Remember me <input type=checkbox id=remember></label>
 <input type=checkbox id=mixed aria-label=Partly>
 <input type=password id=pw aria-label=Password>
 <textarea id=notes aria-label=Notes></textarea>
 <select id=colour aria-label=Colour><option>Red</option><option>Green</option></select>
 <input type=range id=vol aria-label=Volume min=0 max=10 value=4>
 <input id=req aria-label=Code required> <input id=ro aria-label=Fixed readonly value=fixed>
 <button type=button id=off disabled>Off</button>
 <button type=button id=menu aria-expanded=false onclick="this.setAttribute('aria-expanded', 'true')">Menu</button>
 <button type=button aria-pressed=true>Bold</button>
 <div role=tablist><div role=tab aria-selected=true tabindex=0>One</div><div role=tab tabindex=-1>Two</div></div>
</form>
<script>document.getElementById('mixed').indeterminate = true;</script>
"""


async def test_state_and_live_values_on_lines(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-state", FORM))
    await page.fill("#title", "Harbor of Lanterns")
    await page.click("#remember")
    await page.fill("#pw", "hunter2")
    await page.fill("#notes", "line one\nline two")
    await page.select_option("#colour", "Green")
    await page.click("#menu")
    await page.focus("#req")
    text = await page.snapshot(scope="full_page", locators=True)
    b = body(text)
    assert ' heading "Profile" [level=1]' in b and ' heading "Details" [level=3]' in b
    # the live value (what was typed), not the attribute
    assert line_of(b, 'textbox "Title"').endswith(": Harbor of Lanterns")
    assert "old attribute" not in b
    assert re.search(r'checkbox "Remember me" \[checked\] \[ref=\d+', b)
    assert re.search(r'checkbox "Partly" \[checked=mixed\] \[ref=\d+', b)
    # a password is never printed: only that something is there
    assert "hunter2" not in b and line_of(b, 'textbox "Password"').endswith(": ***")
    assert line_of(b, 'textbox "Notes"').endswith(": line one line two")
    assert re.search(r'combobox "Colour" \[collapsed\] \[ref=\d+, loc=css:#colour\]: Green$', line_of(b, 'combobox "Colour"'))
    assert line_of(b, 'option "Green"').strip() == 'option "Green" [selected]'
    assert line_of(b, 'slider "Volume"').endswith(": 4")
    assert '[required] [focused] [ref=' in line_of(b, 'textbox "Code"')
    assert '[readonly] [ref=' in line_of(b, 'textbox "Fixed"') and line_of(b, 'textbox "Fixed"').endswith(": fixed")
    assert re.search(r'button "Off" \[disabled\] \[ref=\d+', b)
    assert re.search(r'button "Menu" \[expanded\] \[ref=\d+', b)
    assert re.search(r'button "Bold" \[pressed\] \[ref=\d+', b)
    assert re.search(r'tab "One" \[selected\] \[ref=\d+', b) and "[selected]" not in line_of(b, 'tab "Two"')


async def test_value_is_cut_with_an_ellipsis(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-long", "<input id=long aria-label=Long>"))
    await page.fill("#long", "y" * 300)
    line = line_of(await page.snapshot(), 'textbox "Long"')
    value = line.split(": ", 1)[1]
    assert len(value) == 100 and value.endswith("…") and value[:-1] == "y" * 99


async def test_find_rows_carry_state(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-find", FORM))
    await page.fill("#title", "Typed")
    await page.click("#remember")
    rows = {r["id"]: r for r in await page.find("input, button, select")}
    assert rows["title"]["value"] == "Typed" and rows["title"]["checked"] is None
    assert rows["remember"]["checked"] is True and rows["remember"]["value"] is None
    assert rows["mixed"]["checked"] == "mixed"
    assert rows["off"]["disabled"] is True and rows["title"]["disabled"] is False
    assert rows["menu"]["expanded"] is False
    assert rows["colour"]["value"] == "Red" and rows["colour"]["expanded"] is False
    assert rows["pw"]["value"] == ""
    [one] = await page.find(rows["remember"]["ref"])  # a ref row too
    assert one["checked"] is True and one["disabled"] is False


LEAN = """
<main>
<p>Welcome, <b>admin</b>. <span>Last <i>login</i> today</span></p>
<label for=email>Email</label> <input id=email>
<label>Name <input id=name></label>
<div><div><div><span>Deep text</span></div></div></div>
<table><tr><td><a href="/item/1">Item 1</a></td><td>Text cell</td><td></td><td><button>A</button><button>B</button></td></tr></table>
<ul><li><a href="/home">Home</a></li><li>Plain item</li></ul>
<p>Line one<br>Line two</p>
<a href="/far" id=zero style="display:inline-block;width:0;height:0;overflow:hidden">Zero link</a>
<a href="/icon"><img src="/missing.png" alt="" width=0 height=0></a>
<a href="http://other.example/x">Elsewhere</a>
</main>
"""


async def test_lean_format_rules(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-lean", LEAN))
    b = body(await page.snapshot(scope="full_page", locators=True))
    lines = b.splitlines()
    # adjacent inline text runs are one line
    assert re.search(r'^ +"Welcome, admin\. Last login today"$', b, re.M)  # a quoted string alone is text
    # a label that only repeats its control's name is not printed twice
    assert sum('"Email"' in ln for ln in lines) == 1 and re.search(r'textbox "Email" \[ref=', b)
    assert sum('"Name"' in ln for ln in lines) == 1
    # ... but a subtree rooted at the label, where the control does not print, keeps the text
    assert body(await page.snapshot(scope="subtree", root="label[for=email]")) == '"Email"'
    # unnamed wrappers with one child add no line and no level
    deep = line_of(b, "Deep text")
    assert deep == '  "Deep text"'  # root > main > text
    # a lone cell / list item prints its child in place; named, empty and multi-child cells stay
    row = lines.index(line_of(b, " row"))
    assert lines[row + 1].strip().startswith('link "Item 1" [ref=')
    assert lines[row + 2].strip() == 'cell "Text cell"' and lines[row + 3].strip() == "cell"
    assert lines[row + 4].strip() == "cell" and lines[row + 5].strip().startswith('button "A"')
    assert re.search(r'\n   link "Home" \[ref=\d+, loc=href:/home\]', b)
    assert re.search(r'^   "Plain item"$', b, re.M)
    # a line break keeps two lines
    assert re.search(r'^ +"Line one"$', b, re.M) and re.search(r'^ +"Line two"$', b, re.M)
    # one space per level
    assert all((len(ln) - len(ln.lstrip(" "))) <= (len(prev) - len(prev.lstrip(" "))) + 1
               for prev, ln in zip(lines, lines[1:]))
    # same-origin URLs are paths; other origins stay whole
    assert "url=http://127.0.0.1" not in b and "loc=href:/item/1" in b
    assert "url=http://other.example/x" in line_of(b, '"Elsewhere"') or "loc=href:http://other.example/x" in b


async def test_zero_size_boxes_keep_their_line_but_get_no_ref(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-zero", LEAN))
    b = body(await page.snapshot(scope="full_page"))
    zero = line_of(b, '"Zero link"')
    assert "ref=" not in zero
    located = line_of(body(await page.snapshot(scope="full_page", locators=True)), '"Zero link"')
    assert "ref=" not in located and ("url=/far" in located or "loc=href:/far" in located)
    icon = line_of(b, "url=/icon")
    assert "ref=" not in icon
    found = await page.find("#zero")  # still reachable by a selector, and find says where it is
    assert len(found) == 1


MODES = """
<header><nav aria-label=Main><a href="/a">Alpha</a> <a href="/b">Beta</a></nav></header>
<main>
<h1>Orders</h1>
<p>Long prose that an agent does not act on, repeated to weigh something. Lorem ipsum dolor sit amet.</p>
<p>More prose, more prose, more prose, more prose, more prose, more prose, more prose.</p>
<form id=search aria-label=Search><input aria-label=Query><button type=button>Go</button></form>
<table><tr><td>Order 17</td><td><button type=button>Cancel</button></td></tr>
<tr><td>Order 18</td><td><button type=button>Cancel</button></td></tr></table>
<section id=box><h2>Box</h2><p>Inside the box</p><button type=button>In box</button></section>
<div class=twin>twin</div><div class=twin>twin</div>
<form id=f2><label><input type=checkbox id=agree> Agree</label>
<button type=button id=add onclick="const p=document.createElement('p');p.textContent='Added line';document.getElementById('box').appendChild(p)">Add</button></form>
</main>
"""


async def test_interactive_mode_keeps_actions_and_what_locates_them(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-modes", MODES))
    full = await page.snapshot(scope="full_page")
    inter = await page.snapshot(scope="full_page", interactive=True)
    b = body(inter)
    assert len(inter) < len(full)
    assert "Long prose" not in b and "Inside the box" not in b
    # every ref of the full snapshot is there, with the same number
    assert set(REF.findall(full)) == set(REF.findall(inter))
    for needle in ('navigation "Main"', 'heading "Orders" [level=1]', 'form "Search"', 'heading "Box" [level=2]'):
        assert needle in b
    # a row is located by its named cells
    assert 'cell "Order 17"' in b and 'cell "Order 18"' in b
    assert line_of(b, 'cell "Order 17"').startswith("   ")


async def test_root_accepts_any_selector(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-root", MODES))
    sub = body(await page.snapshot(scope="subtree", root="#box"))
    assert sub.splitlines()[0].startswith("container") or sub.splitlines()[0].startswith("region")
    assert "Inside the box" in sub and "Orders" not in sub and "Alpha" not in sub
    sub2 = body(await page.snapshot(scope="subtree", root="text=Inside the box"))
    assert sub2.strip() == '"Inside the box"'  # the paragraph of one text prints as that text
    with pytest.raises(SelectorAmbiguous, match="matched 2 elements"):
        await page.snapshot(scope="subtree", root=".twin")
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.snapshot(scope="subtree", root="#nothing-here")
    # a ref still works, and the root's ref is the one find() gives
    [box] = await page.find("#box button")
    again = body(await page.snapshot(scope="subtree", root=box["ref"]))
    assert again.startswith(f'button "In box" [ref={box["ref"][1:]}')


async def test_max_length_ends_with_a_clear_marker(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-cut", MODES))
    text = await page.snapshot(scope="full_page", max_length=300)
    assert len(text) <= 300
    last = text.splitlines()[-1]
    assert re.fullmatch(r"\[… cut \d+ chars, \d+ lines; to see more: root=<selector>, interactive=True or a larger "
                        r"max_length\]", last), last


async def test_changes_shows_only_what_changed_with_ancestors(task, server):
    page = task.page("p1")
    await page.goto(server.page("/v2-changes", MODES))
    first = await page.snapshot(scope="full_page", changes=True)
    assert body(first).startswith("[changes: no previous snapshot")  # nothing to compare with yet
    none = await page.snapshot(scope="full_page", changes=True)
    assert body(none) == "[changes: none since the previous snapshot]"
    add_ref = int(REF.search(line_of(first, 'button "Add"')).group(1))
    await page.click(f"@{add_ref}")
    await page.click("#agree")
    diff = await page.snapshot(scope="full_page", changes=True)
    lines = body(diff).splitlines()
    assert lines[0] == "[changes: 1 added (+), 0 removed (-), 1 changed (~)]", lines
    # root > main > container (the section) > the new paragraph, printed as its one text
    assert '+    "Added line"' in lines
    assert any(ln.startswith('~    checkbox "Agree" [checked] [focused] [ref=') for ln in lines)
    # each change under the chain of ancestors that locates it, unchanged lines otherwise left out
    assert lines[1:4] == ["  root", "   main", "    container"] and "    form" in lines
    assert "Long prose" not in diff and "Orders" not in diff
    full = await page.snapshot(scope="full_page")
    assert len(body(diff)) * 3 < len(body(full))  # bytes follow the change, not the page
    # refs are kept: the changed checkbox line carries its number from the full snapshot
    agree = int(REF.search(line_of(full, 'checkbox "Agree"')).group(1))
    assert f"ref={agree}" in line_of(diff, 'checkbox "Agree"')
    # removal
    await page.evaluate("document.querySelector('#box p').remove()")
    gone = body(await page.snapshot(scope="full_page", changes=True)).splitlines()
    assert "[changes: 0 added (+), 1 removed (-), 0 changed (~)]" == gone[0], gone
    assert gone[1:] == ["  root", "   main", "    container", '-    "Inside the box"']
