"""Snapshots and refs through the public API (BEHAVIOURS.md section C, parts without actions).

Every test runs against the in-process host (``host``/``task`` fixtures) except B65, which
uses separate rounds against a background host. Click-based parts (B52, B58 click, B64
clicks, B67, B69, B70, B73) live with the action tests.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from ego_browser import InvalidArgument, InvalidSelector, StaleRef, UnknownRef

REF = re.compile(r"\[ref=([0-9]+)")


def ref_of(text: str, needle: str) -> int:
    """The ref number on the first line containing ``needle``."""
    for line in text.splitlines():
        if needle in line:
            m = REF.search(line)
            assert m, line
            return int(m.group(1))
    raise AssertionError(f"{needle!r} not in snapshot:\n{text}")


def line_of_text(text: str, needle: str) -> str:
    return next(ln for ln in text.splitlines() if needle in ln)


def body(text: str) -> str:
    """The node lines (the header is the first line)."""
    return text.split("\n", 1)[1] if "\n" in text else ""


async def until(fn, timeout: float = 10.0):
    """Retry ``fn()`` (async, returns a truthy value when done) until it succeeds."""
    deadline = asyncio.get_running_loop().time() + timeout
    last = None
    while True:
        try:
            last = await fn()
            if last:
                return last
        except AssertionError:
            if asyncio.get_running_loop().time() > deadline:
                raise
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met in {timeout}s; last: {last!r}")
        await asyncio.sleep(0.1)


# -- header, scopes, locators ---------------------------------------------------------------


async def test_b50_header_then_tree(task, server, space_name):
    url = server.page("/s50", "<h1>Hello</h1><button>Go</button>", title="Fifty")
    page = task.page("p1")
    await page.goto(url)
    text = await page.snapshot()
    assert isinstance(text, str)
    header, rest = text.split("\n", 1)
    assert header.startswith('[p1 "Fifty"') and f'space "{space_name}"' in header
    assert rest.split("\n")[0] == "root"
    assert ' heading "Hello" [level=1]' in rest and re.search(r'button "Go" \[ref=\d+\]', rest)


async def test_b51_default_scope_is_the_viewport(task, server):
    url = server.page("/s51", "<p>Top text</p>")
    page = task.page("p1")
    await page.goto(url)
    await page.evaluate(
        "document.body.insertAdjacentHTML('beforeend', '<div style=\"height:4000px\"></div><p>Far below the fold</p>')"
    )
    default = await page.snapshot()
    assert "Top text" in default and "Far below the fold" not in default
    assert "Far below the fold" in await page.snapshot(scope="full_page")


async def test_b53_b74_locators_and_marks(task, server):
    url = server.page(
        "/s53",
        '<a href="/shared">Shared one</a> <a href="/shared">Shared two</a> '
        '<a href="/path?x=unique">Unique</a> <input id=email aria-label="Email"> <button>Send</button>',
    )
    page = task.page("p1")
    await page.goto(url)
    text = await page.snapshot(locators=True)  # locators are asked for (issue 30)
    shared = [ln for ln in text.splitlines() if "Shared" in ln]
    assert len(shared) == 2 and all(", loc=" not in ln and "loc=" not in ln for ln in shared)
    assert all(re.search(r"url=/shared\]", ln) for ln in shared)  # same-origin: a path
    unique = next(ln for ln in text.splitlines() if '"Unique"' in ln)
    assert "loc=href:/path?x=unique" in unique
    assert re.search(r'textbox "Email" \[ref=\d+, loc=css:#email\]', text)
    # B74
    no_marks = await page.snapshot(include_action_marks=False, locators=True)
    assert "ref=" not in no_marks and "loc=css:#email" in no_marks
    older = await page.snapshot(include_action_marks=False, include_stable_locator=True)  # the older name
    assert body(older) == body(no_marks)
    no_locs = await page.snapshot()
    assert "loc=" not in no_locs and "ref=" in no_locs
    # the default look: a link's target only where its name does not tell it (two names share /shared,
    # but each name has one target, and "Unique" is unique)
    assert re.search(r'link "Unique" \[ref=\d+\]$', line_of_text(no_locs, '"Unique"'))


async def test_b53_printed_href_locator_is_accepted_by_wait_for_selector(task, server):
    url = server.page("/s53w", '<a href="/path?x=unique">Unique</a> <a href="/other">Other</a>')
    page = task.page("p1")
    await page.goto(url)
    line = next(ln for ln in (await page.snapshot(locators=True)).splitlines() if '"Unique"' in ln)
    loc = re.search(r"loc=(href:[^,\]]+)", line).group(1)
    assert loc == "href:/path?x=unique"
    assert await page.wait_for_selector(f"loc={loc}", state="attached", timeout=2000)


async def test_b54_canvas_drawing_is_absent(task, server):
    url = server.page(
        "/s54",
        "<p>Before canvas</p><canvas id=c width=300 height=80></canvas>"
        "<script>const x=document.getElementById('c').getContext('2d');x.font='20px sans-serif';"
        "x.fillText('Painted button', 10, 40);</script>",
    )
    page = task.page("p1")
    await page.goto(url)
    text = await page.snapshot(scope="full_page")
    assert "Before canvas" in text and "canvas" in text
    assert "Painted button" not in text


async def test_b55_subtree_of_a_button(task, server):
    url = server.page(
        "/s55",
        "<h2>Section heading</h2><button>Before</button>"
        "<button aria-label='Save the file'>Save <b>now</b></button><button>After</button>",
    )
    page = task.page("p1")
    await page.goto(url)
    n = ref_of(await page.snapshot(), '"Save the file"')
    sub = body(await page.snapshot(scope="subtree", root=f"@{n}"))
    assert sub.splitlines()[0] == f'button "Save the file" [ref={n}]'
    assert "Save" in sub and "now" in sub
    for other in ("Section heading", "Before", "After"):
        assert other not in sub


async def test_b56_invalid_arguments(task, server):
    page = task.page("p1")
    await page.goto(server.page("/s56", "<button>x</button>"))
    with pytest.raises(InvalidArgument, match="subtree scope requires root"):
        await page.snapshot(scope="subtree")
    with pytest.raises(InvalidArgument, match="root is only supported when scope is subtree"):
        await page.snapshot(scope="full_page", root="@1")
    # root takes a ref or any selector (issue 12): a bad selector is InvalidSelector, a non-string
    # or empty root is InvalidArgument
    with pytest.raises(InvalidSelector, match="css:#x"):
        await page.snapshot(scope="subtree", root="css:#x")
    with pytest.raises(InvalidArgument, match="root"):
        await page.snapshot(scope="subtree", root="")


async def test_b57_b76_old_and_unknown_roots(task, server):
    page = task.page("p1")
    await page.goto(server.page("/s57a", "<button>Old</button>"))
    n = ref_of(await page.snapshot(), '"Old"')
    await page.goto(server.page("/s57b", "<button>New</button>"))
    with pytest.raises(StaleRef, match="ref"):
        await page.snapshot(scope="subtree", root=f"@{n}")
    with pytest.raises(UnknownRef, match="Unknown ref: 999999"):
        await page.snapshot(scope="subtree", root="@999999")


# -- frames ---------------------------------------------------------------------------------


async def test_b58_b63_same_and_cross_origin_frames(task, server):
    inner_same = server.page("/s58-same", "<p>Same origin body</p><button>Same button</button>")
    inner_cross = server.page("/s58-cross", "<p>Cross origin body</p><button>Cross button</button>")
    cross_url = server.url("/s58-cross", host="localhost")
    assert inner_cross
    url = server.page(
        "/s58",
        f"<p>Host text</p><iframe title=same src='{inner_same}' width=400 height=120></iframe>"
        f"<iframe title=cross src='{cross_url}' width=400 height=120></iframe><p>Host tail</p>",
    )
    page = task.page("p1")
    await page.goto(url)

    async def complete():
        t = await page.snapshot()
        return t if "Same button" in t and "Cross button" in t else None

    text = await until(complete)
    assert "Host text" in text and "Same origin body" in text and "Cross origin body" in text
    for title, inside, outside in (("same", "Same button", "Cross button"), ("cross", "Cross button", "Same button")):
        line = next(ln for ln in text.splitlines() if ln.lstrip().startswith(f'iframe "{title}"'))
        n = int(REF.search(line).group(1))
        sub = body(await page.snapshot(scope="subtree", root=f"@{n}"))
        lines = sub.splitlines()
        assert lines[0].startswith(f'iframe "{title}" [ref={n}') and lines[1].strip() == "root"
        assert inside in sub and outside not in sub and "Host text" not in sub and "Host tail" not in sub
        # a button inside the frame has a ref of its own
        assert re.search(rf'button "{inside}" \[ref=\d+\]', sub)
    # B63: the cross-origin frame is its own target
    targets = (await task.cdp("Target.getTargets"))["targetInfos"]
    assert any(t["type"] == "iframe" and t["url"].startswith(cross_url) for t in targets)


async def test_b59_lazy_iframe(task, server):
    inner = server.page("/s59-inner", "<button>Lazy inside</button>")
    url = server.page(
        "/s59",
        "<p>Top of page</p><div style='height:6000px'></div>"
        f"<iframe title=lazy loading=lazy src='{inner}' width=300 height=100></iframe>"
        "<div style='height:3000px'></div>",
    )
    page = task.page("p1")
    await page.goto(url)
    assert 'iframe "lazy"' not in await page.snapshot()
    assert server.count("/s59-inner") == 0
    await page.evaluate("document.querySelector('iframe').scrollIntoView()")

    async def shown():
        t = await page.snapshot()
        return t if "Lazy inside" in t else None

    text = await until(shown)
    assert server.count("/s59-inner") == 1
    n = ref_of(text, 'iframe "lazy"')
    assert "Lazy inside" in await page.snapshot(scope="subtree", root=f"@{n}")
    await page.evaluate("window.scrollTo(0, 0)")
    away = await page.snapshot()
    assert 'iframe "lazy"' not in away and "Top of page" in away
    assert "Lazy inside" in await page.snapshot(scope="full_page")
    await page.evaluate("document.querySelector('iframe').scrollIntoView()")
    assert "Lazy inside" in await page.snapshot()
    assert server.count("/s59-inner") == 1


async def test_b60_sibling_frames(task, server):
    a = server.page("/s60-a", "<p>Frame A text</p><button>A button</button>")
    b = server.page("/s60-b", "<p>Frame B text</p><button>B button</button>")
    url = server.page(
        "/s60", f"<iframe title=fa src='{a}' width=300 height=100></iframe><iframe title=fb src='{b}' width=300 height=100></iframe>"
    )
    page = task.page("p1")
    await page.goto(url)

    async def complete():
        t = await page.snapshot()
        return t if "A button" in t and "B button" in t else None

    text = await until(complete)
    lines = body(text).splitlines()
    frames = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("iframe ")]
    assert len(frames) == 2
    for i in frames:  # each iframe line is followed by its own root
        assert lines[i + 1].strip() == "root"
    na, nb = ref_of(text, 'iframe "fa"'), ref_of(text, 'iframe "fb"')
    sa = await page.snapshot(scope="subtree", root=f"@{na}")
    assert "Frame A text" in sa and "Frame B text" not in sa
    sb = await page.snapshot(scope="subtree", root=f"@{nb}")  # still valid after A's subtree
    assert "Frame B text" in sb and "Frame A text" not in sb
    assert ref_of(sb, 'iframe "fb"') == nb


async def test_b61_nested_frames(task, server):
    inner = server.page("/s61-inner", "<p>Inner text</p><button>Inner button</button>")
    outer = server.page("/s61-outer", f"<p>Outer text</p><iframe title=inner src='{inner}' width=300 height=100></iframe>")
    url = server.page("/s61", f"<p>Top text</p><iframe title=outer src='{outer}' width=400 height=200></iframe>")
    page = task.page("p1")
    await page.goto(url)

    async def complete():
        t = await page.snapshot()
        return t if "Inner button" in t else None

    text = await until(complete)
    assert "Top text" in text and "Outer text" in text and "Inner text" in text
    n_out, n_in = ref_of(text, 'iframe "outer"'), ref_of(text, 'iframe "inner"')
    so = await page.snapshot(scope="subtree", root=f"@{n_out}")
    assert 'iframe "inner"' in so and "Inner text" in so and "Outer text" in so and "Top text" not in so
    si = await page.snapshot(scope="subtree", root=f"@{n_in}")
    assert "Inner text" in si and "Outer text" not in si and "Top text" not in si


async def test_b62_replaced_iframe_gets_a_new_root(task, server):
    one = server.page("/s62-one", "<button>First frame button</button>")
    two = server.page("/s62-two", "<button>Second frame button</button>")
    url = server.page("/s62", f"<div id=box><iframe title=f src='{one}' width=300 height=100></iframe></div>")
    page = task.page("p1")
    await page.goto(url)

    async def first():
        t = await page.snapshot()
        return t if "First frame button" in t else None

    text = await until(first)
    old_frame = ref_of(text, 'iframe "f"')
    old_button = ref_of(text, '"First frame button"')
    await page.evaluate(
        f"document.getElementById('box').innerHTML = \"<iframe title=f src='{two}' width=300 height=100></iframe>\"; 1"
    )

    async def second():
        t = await page.snapshot()
        return t if "Second frame button" in t else None

    text = await until(second)
    assert "First frame button" not in text
    new_frame = ref_of(text, 'iframe "f"')
    assert new_frame != old_frame
    assert "Second frame button" in await page.snapshot(scope="subtree", root=f"@{new_frame}")
    with pytest.raises(StaleRef, match="ref"):
        await page.snapshot(scope="subtree", root=f"@{old_button}")


# -- numbering, merging, staleness ----------------------------------------------------------

ROWS = "".join(f"<div style='height:60px'><button>Row {i}</button></div>" for i in range(40))


async def test_b64_partial_snapshots_reprint_the_same_numbers(task, server):
    url = server.page("/s64", f"<div id=group><button>Alpha</button><button>Beta</button></div>{ROWS}")
    page = task.page("p1")
    await page.goto(url)
    full = await page.snapshot(scope="full_page")
    alpha, last = ref_of(full, '"Alpha"'), ref_of(full, '"Row 39"')
    view = await page.snapshot()
    assert ref_of(view, '"Alpha"') == alpha and "Row 39" not in view
    sub = await page.snapshot(scope="subtree", root=f"@{alpha}")
    assert ref_of(sub, '"Alpha"') == alpha
    # the row left out by the partial snapshots is still bound
    assert "Row 39" in await page.snapshot(scope="subtree", root=f"@{last}")
    again = await page.snapshot(scope="full_page")
    assert ref_of(again, '"Alpha"') == alpha and ref_of(again, '"Row 39"') == last


async def test_b66_b68_evaluate_does_not_stale_navigation_does(task, server):
    url = server.page("/s66", "<button id=a>Keep A</button><button id=b>Replace B</button><button>Keep C</button>")
    after = server.page("/s66-next", "<p>Next page</p>")
    page = task.page("p1")
    await page.goto(url)
    text = await page.snapshot()
    a, b, c = ref_of(text, '"Keep A"'), ref_of(text, '"Replace B"'), ref_of(text, '"Keep C"')
    assert await page.evaluate("document.title") == "Test"  # read-only
    assert "Keep A" in await page.snapshot(scope="subtree", root=f"@{a}")
    await page.evaluate("const o=document.getElementById('b'); o.replaceWith(o.cloneNode(true)); 1")
    assert "Keep A" in await page.snapshot(scope="subtree", root=f"@{a}")
    assert "Keep C" in await page.snapshot(scope="subtree", root=f"@{c}")
    # an identical node at the same place: the ref follows it (issue 29 finding 3)
    assert "Replace B" in await page.snapshot(scope="subtree", root=f"@{b}")
    # a node that is not the same (another name): stale, and the error says what is there now
    await page.evaluate("{const o=document.getElementById('b'); const n=o.cloneNode(); n.textContent='Other B';"
                        " o.replaceWith(n);} 1")
    with pytest.raises(StaleRef, match='Stale ref: @[0-9]+ was button "Replace B"; its node is gone'):
        await page.snapshot(scope="subtree", root=f"@{b}")
    # B68: navigation through evaluate + wait_for_url
    await page.evaluate(f"location.href = {after!r}; 1")
    await page.wait_for_url(after)
    with pytest.raises(StaleRef, match="Stale ref"):
        await page.snapshot(scope="subtree", root=f"@{a}")


async def test_b72_refs_belong_to_one_page(task, server):
    many = server.page("/s72a", "".join(f"<button>A{i}</button>" for i in range(6)))
    one = server.page("/s72b", "<button>Only B</button>")
    a = task.page("p1")
    await a.goto(many)
    b = await task.new_page()
    await b.goto(one)
    ta, tb = await a.snapshot(), await b.snapshot()
    a5 = ref_of(ta, '"A5"')
    nb = ref_of(tb, '"Only B"')
    assert nb <= a5  # B numbers its own nodes from its own start
    with pytest.raises(UnknownRef, match=f"Unknown ref: {a5}"):
        await b.snapshot(scope="subtree", root=f"@{a5}")
    assert "Only B" in await b.snapshot(scope="subtree", root=f"@{nb}")
    await a.goto(one)
    with pytest.raises(StaleRef):
        await a.snapshot(scope="subtree", root=f"@{a5}")


COMPACT = """
<div><div><div><button>Deep button</button></div></div></div>
<div>   </div><div>&nbsp;</div><div>&#8203;&#8204;</div><div><span></span></div>
<div class=g1><p>Group one first</p><p>Group one second</p></div>
<div class=g2><p>Group two first</p><p>Group two second</p></div>
<table><tr><td>Filled</td><td></td></tr></table>
<img alt="Logo image" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width=10 height=10>
<svg width=10 height=10><rect width=10 height=10></rect></svg>
<canvas width=10 height=10></canvas>
"""


async def test_b75_header_budget_and_compaction(task, server):
    page = task.page("p1")
    await page.goto(server.page("/s75", COMPACT))
    alone = (await page.snapshot()).split("\n", 1)[0]
    # a page alone in its space: its label, title and space, nothing said twice
    assert re.fullmatch(r'\[p1 "[^"]*" \| space "[^"]+"\(\d+\)\]', alone), alone
    p2 = await task.new_page()
    await p2.goto(server.page("/s75b", "<p>second</p>"))
    text = await page.snapshot(scope="full_page")
    header = text.split("\n", 1)[0]
    assert re.search(r' with p2 "[^"]*" \| budget 2/3\]$', header), header
    lines = body(text).splitlines()
    # whitespace-only / zero-width text and empty unnamed wrappers never appear
    for ln in lines:
        assert "\u200b" not in ln and "\xa0" not in ln and ln.strip() != '" "'
    # the unnamed wrappers around the button are replaced by it
    deep = next(i for i, ln in enumerate(lines) if '"Deep button"' in ln)
    assert lines[deep].startswith(' button "Deep button"')
    # two sibling groups stay distinct
    g1 = next(i for i, ln in enumerate(lines) if "Group one first" in ln)
    g2 = next(i for i, ln in enumerate(lines) if "Group two first" in ln)
    # (each paragraph of one text prints as that text, under its group's container)
    for g in (g1, g2):
        assert lines[g - 1].strip() == "container" and lines[g + 1].strip() == f'"Group {"one" if g == g1 else "two"} second"'
    assert g2 - g1 == 3 and lines[g1 - 1] == lines[g2 - 1]
    # an empty table cell, an image, an SVG and a canvas remain
    cells = [ln.strip() for ln in lines if ln.strip().startswith("cell")]
    assert 'cell "Filled"' in cells and "cell" in cells
    assert any(ln.strip() == 'img "Logo image"' for ln in lines)
    assert any(ln.strip() == "svg" for ln in lines) and any(ln.strip() == "canvas" for ln in lines)
    # no empty containers: every container line has children
    for i, ln in enumerate(lines):
        if ln.strip() == "container":
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            assert len(nxt) - len(nxt.lstrip()) > len(ln) - len(ln.lstrip())
    again = await page.snapshot(scope="full_page")
    # the same tree; the unchanged header prints once per round (issue 30)
    assert body(again) == body(text) and again.split("\n", 1)[0] == "[p1]"


# -- rounds ---------------------------------------------------------------------------------


def test_b65_refs_survive_into_the_next_round(rounds, server):
    url = server.page("/s65", "<button>Round button</button><input aria-label='Round field'>")
    first = rounds.run(
        "task = await task_space('snapshot-rounds')\n"
        "page = task.page('p1')\n"
        f"await page.goto({url!r})\n"
        "print(await page.snapshot())\n"
    )
    assert first.returncode == 0, first.stderr
    n = ref_of(first.stdout, '"Round button"')
    m = ref_of(first.stdout, '"Round field"')
    second = rounds.run(
        "from ego_browser import UnknownRef\n"
        "task = await task_space('snapshot-rounds')\n"
        "page = task.page('p1')\n"
        f"print(await page.snapshot(scope='subtree', root='@{n}'))\n"
        "print(await page.snapshot())\n"
        "try:\n"
        "    await page.snapshot(scope='subtree', root='@999999')\n"
        "except UnknownRef as e:\n"
        "    print('UNKNOWN', e)\n"
    )
    assert second.returncode == 0, second.stderr
    assert re.search(rf'button "Round button" \[ref={n}\]', second.stdout)
    assert re.search(rf'textbox "Round field" \[ref={m}\]', second.stdout)
    assert "UNKNOWN Unknown ref: 999999" in second.stdout
