"""Snapshot engine against real Chromium: format, frames/OOPIFs, shadow DOM, scopes, refs, fidelity.

Fidelity oracle: Chromium's own accessibility tree (``Accessibility.getFullAXTree``) for the
role and name of every ref-bearing node. No timing assertions here.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile

import pytest

from ego_browser.browser.launcher import launch_chromium
from ego_browser.cdp.connection import Connection
from ego_browser.errors import InvalidArgument, StaleRef, UnknownRef
from ego_browser.snapshot import CdpSnapshotTarget, RefLedger, resolve_object, resolve_ref, take_snapshot
from ego_browser.snapshot import fidelity
from ego_browser.snapshot.engine import settle
from ego_browser.snapshot.twin import parse_snapshot

from tests import snapshot_pages

REF = re.compile(r"\[ref=([0-9]+)")


@pytest.fixture(scope="module")
def site():
    with snapshot_pages.serve() as s:
        yield s


@pytest.fixture(scope="module")
async def conn():
    with tempfile.TemporaryDirectory() as profile:
        bp = launch_chromium(profile)
        try:
            c = await Connection.connect(bp.ws_url)
            yield c
            await c.close()
        finally:
            bp.terminate()


@pytest.fixture
async def page(conn):
    t = await CdpSnapshotTarget.new_page(conn)
    yield t
    await t.close()


async def open_page(page: CdpSnapshotTarget, url: str) -> None:
    await page.goto(url)
    # frames (and OOPIF sessions) attach around the load event: wait until their documents report loaded
    for _ in range(200):
        await page.refresh()
        ok = True
        for f in page.frames():
            try:
                r = await f.session.send("Runtime.evaluate", {"expression": "document.readyState"})
            except Exception:
                ok = False
                break
            if r["result"].get("value") != "complete":
                ok = False
        if ok and len(page.frames()) >= _expected_frames(url):
            return
        await asyncio.sleep(0.05)


def _expected_frames(url: str) -> int:
    return {"/frames": 6, "/compact": 2}.get("/" + url.rsplit("/", 1)[-1], 1)


async def snap(page, ledger, **kw):
    return await take_snapshot(page, ledger, header="[p1 \"T\" | space \"s\"(1)]", **kw)


async def click_ref(page, ledger, ref: int) -> None:
    r, obj = await resolve_object(page, ledger, ref)
    await r.session.send("Runtime.callFunctionOn", {"functionDeclaration": "function(){this.click()}", "objectId": obj})


# -- format ----------------------------------------------------------------------------------


async def test_format_header_indent_and_metadata(page, site):
    await open_page(page, site.url("/forms"))
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page")
    lines = text.split("\n")
    assert lines[0].startswith('[p1 "T" | space "s"(1)')
    assert lines[1] == "root"
    # one space per level: a line is at most one level deeper than the line before it
    prev = 0
    for line in lines[2:]:
        indent = len(line) - len(line.lstrip(" "))
        assert 1 <= indent <= prev + 1
        prev = indent
    assert '   textbox "Email" [ref=' in text and "loc=css:#email]" in text
    # a unique href is the link's locator, and then says where it goes: no url= repeat
    assert re.search(r'link "Unique link" \[ref=\d+, loc=href:/unique\?x=1\]', text)
    # links sharing an href: no loc, the resolved url instead
    same = [ln for ln in lines if 'link "Same link"' in ln]
    # (same-origin: printed as a path)
    assert len(same) == 2 and all("loc=" not in ln and re.search(r"url=/same\]", ln) for ln in same)
    # role locators are implied by a ref line's own role and name: printed only without refs
    assert "loc=role:" not in text
    nomarks = await snap(page, led, scope="full_page", include_action_marks=False)
    assert 'loc=role:button[name="Disabled action"]' in nomarks or "loc=role:" in nomarks
    assert re.search(r'link "Unique link" \[loc=href:/unique\?x=1\]', nomarks)
    assert 'button "Disabled action" [disabled] [ref=' in text  # disabled controls keep refs
    assert "hidden" not in text and "token" not in text
    plain = await snap(page, led, scope="full_page", include_action_marks=False, include_stable_locator=False)
    assert "ref=" not in plain and "loc=" not in plain and "url=" in plain


async def test_invalid_arguments_and_unknown_root(page, site):
    await open_page(page, site.url("/forms"))
    led = RefLedger("b")
    with pytest.raises(InvalidArgument, match="subtree scope requires root"):
        await snap(page, led, scope="subtree")
    with pytest.raises(InvalidArgument, match="root is only supported when scope is subtree"):
        await snap(page, led, scope="full_page", root=1)
    with pytest.raises(UnknownRef, match="Unknown ref: 999999"):
        await snap(page, led, scope="subtree", root=999999)


async def test_compaction_fixture_and_second_capture_identical(page, site):
    await open_page(page, site.url("/compact"))
    led = RefLedger("b")
    first = await snap(page, led, scope="full_page")
    second = await snap(page, led, scope="full_page")
    assert first == second
    body = first.split("\n", 1)[1]
    assert body.split("\n")[:2] == ["root", ' heading "Wrapped heading" [level=2]']
    assert "\u200b" not in body and all(ln.strip() != '" "' for ln in body.split("\n"))
    groups = [i for i, ln in enumerate(body.split("\n")) if ln == " container"]
    assert len(groups) == 2  # two sibling groups stay distinct
    for needle in ('img "Logo"', " svg", " canvas", "   cell\n", 'cell "Cell"', 'iframe "Inner A" [ref='):
        assert needle in body
    again = parse_snapshot(body)
    from ego_browser.snapshot.engine import render_tree
    assert render_tree(*again[:9], again[9], 10**6, True, True)[0] == body


# -- frames, shadow DOM, scopes ----------------------------------------------------------------


async def test_frames_oopif_nested_lazy(page, site):
    await open_page(page, site.url("/frames"))
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page")
    for needle in ("Inner A text", "Inner B text", "Nest one text", "Nest two text", "Deepest text",
                   "Bottom text far below"):
        assert needle in text
    assert "Lazy content" not in text and "Lazy frame" not in text
    assert site.hits.get("/inner_lazy", 0) == 0
    # every iframe line is followed by its root
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if ln.lstrip().startswith("iframe "):
            assert "[ref=" in ln
            assert lines[i + 1].strip() == "root"
            assert len(lines[i + 1]) - len(lines[i + 1].lstrip()) == len(ln) - len(ln.lstrip()) + 1
    # refs of the frames' buttons act in their own frame, distinct numbers across renderers
    runs = [int(m) for m in re.findall(r'button "Run" \[ref=(\d+)', text)]
    assert len(runs) == 2 and runs[0] != runs[1]
    ra = await resolve_ref(page, led, runs[0])
    rb = await resolve_ref(page, led, runs[1])
    assert ra.frame_id != rb.frame_id and rb.session is not page.main_session  # OOPIF session
    await click_ref(page, led, runs[0])
    inner_a = next(f for f in page.frames() if f.frame_id == ra.frame_id)
    w = await inner_a.session.send("Page.createIsolatedWorld", {"frameId": inner_a.frame_id, "worldName": "t"})
    r = await inner_a.session.send("Runtime.evaluate", {"expression": "document.getElementById('frame-btn').textContent",
                                                         "contextId": w["executionContextId"]})
    assert r["result"]["value"] == "clicked"
    # viewport scope: text far below is gone
    vp = await snap(page, led)
    assert "Bottom text far below" not in vp and "Inner A text" in vp
    # subtree of the cross-origin iframe: the iframe line and its content, no host siblings
    iframe_b = int(re.search(r'iframe "Cross origin" \[ref=(\d+)', text).group(1))
    sub = await snap(page, led, scope="subtree", root=iframe_b)
    body = sub.split("\n", 1)[1]
    assert body.startswith('iframe "Cross origin"') and "Inner B text" in body
    assert "Host button" not in body and "Inner A text" not in body
    # the nested subtree contains the inner iframes; the inner one excludes outer content
    nest2 = int(re.search(r'iframe "Nest two" \[ref=(\d+)', text).group(1))
    sub2 = await snap(page, led, scope="subtree", root=nest2)
    assert "Deepest text" in sub2 and "Nest one text" not in sub2
    # subtree snapshots merge: the other refs stay valid
    assert (await resolve_ref(page, led, runs[1])).frame_id == rb.frame_id
    # the clicked button reads "clicked" now: a ref names one role and name, so it has a new
    # number and the old one is stale (issue 29 finding 2)
    clicked = int(re.search(r'button "clicked" \[ref=(\d+)', vp).group(1))
    assert clicked != runs[0] and (await resolve_ref(page, led, clicked)).frame_id == ra.frame_id
    with pytest.raises(StaleRef, match='was button "Run"; it is now button "clicked"'):
        await resolve_ref(page, led, runs[0])


async def test_lazy_iframe_loads_when_scrolled(page, site):
    await open_page(page, site.url("/frames"))
    led = RefLedger("b")
    await page.evaluate("document.getElementById('lazy').scrollIntoView()")
    for _ in range(200):
        await page.refresh()
        text = await snap(page, led)
        if "Lazy content" in text:
            break
        await asyncio.sleep(0.05)
    assert "Lazy button" in text and site.hits.get("/inner_lazy") == 1


async def test_shadow_dom_nested_twice(page, site):
    await open_page(page, site.url("/shadow"))
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page")
    for needle in ("Outer shadow text", 'button "Outer shadow button" [ref=', 'textbox "Deep field" [ref=',
                   'button "Deep shadow button" [ref='):
        assert needle in text
    ref = int(re.search(r'button "Deep shadow button" \[ref=(\d+)', text).group(1))
    await click_ref(page, led, ref)


async def test_refs_stable_partial_merge_full_replace_and_staleness(page, site):
    await open_page(page, site.url("/catalog"))
    led = RefLedger("b")
    full = await snap(page, led, scope="full_page")
    vp = await snap(page, led)
    for line in vp.split("\n"):
        m = REF.search(line)
        if m:
            assert line in full  # same node, same number (and same line)
    last = int(re.search(r'button "Add 499" \[ref=(\d+)', full).group(1))
    first = int(re.search(r'button "Add 0" \[ref=(\d+)', full).group(1))
    assert f"ref={last}" not in vp
    assert (await resolve_ref(page, led, last)).backend_node_id  # viewport merged: still valid
    sub = await snap(page, led, scope="subtree", root=first)
    assert sub.split("\n")[1] == f'button "Add 0" [ref={first}]'
    # replace a node within its document: the old ref is stale, the clone gets a new number
    await page.evaluate("const b=document.querySelector('[data-row=\"0\"]'); b.replaceWith(b.cloneNode(true))")
    with pytest.raises(StaleRef, match="Stale ref"):
        await resolve_object(page, led, first)
    again = await snap(page, led, scope="full_page")
    new_first = int(re.search(r'button "Add 0" \[ref=(\d+)', again).group(1))
    assert new_first > last
    # navigation: the document changed, old refs are stale
    await open_page(page, site.url("/forms"))
    with pytest.raises(StaleRef):
        await resolve_ref(page, led, new_first)
    with pytest.raises(StaleRef):
        await snap(page, led, scope="subtree", root=new_first)


async def test_max_length_cuts_at_line_boundary(page, site):
    await open_page(page, site.url("/catalog"))
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page", max_length=2000)
    assert len(text) <= 2000
    assert re.search(r"cut \d+ chars, \d+ lines", text.rsplit("\n", 1)[1])


# -- fidelity ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", snapshot_pages.PAGES)
async def test_fidelity_against_chromium_ax_tree(page, site, path):
    """Role+name of every ref, its state (checked/disabled/expanded/selected/value) and every
    heading's level agree with Chromium's AX tree; all visible text shows; controls have refs."""
    await open_page(page, site.url(path))
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page")
    await settle(led)  # backend ids of a first snapshot arrive just after its text
    m = await fidelity.measure(page, led, text.split("\n", 1)[1])
    assert m["role_total"] > 0
    print(f"fidelity {path}: roles {m['role_agree']}/{m['role_total']}, states {m['state_agree']}/{m['state_total']}")
    assert m["role_agree"] / m["role_total"] >= 0.99, m["role_misses"][:10]
    assert m["state_agree"] / m["state_total"] >= 0.995, m["state_misses"][:10]
    assert m["text_found"] == m["text_total"], m["text_misses"][:10]
    assert m["controls_bound"] == m["controls_total"], (path, m["control_misses"])


# -- no text lost: random DOMs ------------------------------------------------------------------

_WORDS = ["alpha", "Beta", "gamma delta", "  spaced \n out ", "x", "Ünï cödé", "a\u00a0b", "1.5", "tail.",
          "say \"hi\"", "back\\slash", " ", "Welcome,", "admin"]
_TAGS = ["div", "span", "b", "p", "a", "button", "label", "li", "em", "section", "h2", "strong", "code", "ul",
         "small", "br"]


def _html(node) -> str:
    import html as h

    if isinstance(node, str):
        return h.escape(node)
    tag, kids = node
    if tag == "br":
        return "<br>"
    attrs = ' href="/x"' if tag == "a" else ""
    return f"<{tag}{attrs}>" + "".join(_html(k) for k in kids) + f"</{tag}>"


def _doms():
    from hypothesis import strategies as st

    return st.lists(
        st.recursive(st.sampled_from(_WORDS),
                     lambda kids: st.tuples(st.sampled_from(_TAGS), st.lists(kids, max_size=4)), max_leaves=30),
        min_size=1, max_size=5)


def _given_doms():
    from hypothesis import HealthCheck, given, settings

    return lambda f: settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))(
        given(dom=_doms())(f))


@_given_doms()
async def test_every_text_node_string_is_in_the_output(page, site, dom):
    """Merging inline runs, dropping label repeats, hoisting wrappers: no text string is lost."""
    if not page.frames() or not (page.frames()[0].url or "").startswith(site.base):
        await open_page(page, site.url("/compact"))
    html = "".join(_html(n) for n in dom)
    await page.evaluate(f"document.body.innerHTML = {json.dumps(html)}")
    texts = await page.evaluate(r"""(() => { const out = [];
      const it = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = it.nextNode(); n; n = it.nextNode()) {
        const t = n.data.replace(/[\s\u00a0]+/g, ' ').trim(); if (t) out.push(t); }
      return out; })()""")
    text = await snap(page, RefLedger("b"), scope="full_page")
    table = parse_snapshot(text.split("\n", 1)[1])
    shown = " ".join(table[2]) + " " + " ".join(table[8])
    for t in texts:
        assert t in shown, (t, html, text)


async def test_a_button_in_its_label_keeps_both_texts(page, site):
    """Found by the property above: the label's text was dropped as the button's name while the
    button printed its own text (a single text child took a shortcut that ignored the label)."""
    if not page.frames() or not (page.frames()[0].url or "").startswith(site.base):
        await open_page(page, site.url("/compact"))
    for html in ("<label>Beta<button>alpha</button></label>", "<label for=b>Beta</label><button id=b>alpha</button>"):
        await page.evaluate(f"document.body.innerHTML = {json.dumps(html)}")
        text = await snap(page, RefLedger("b"), scope="full_page")
        assert 'button "Beta"' in text and '"alpha"' in text, (html, text)
