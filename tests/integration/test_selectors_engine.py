"""The selector engine against a real Chromium: frames, handles, describe, role, href, retarget.

One Chromium per module, driven by our Connection; pages come from the suite's 127.0.0.1
server (``localhost`` for a cross-site, out-of-process iframe).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import Any

import pytest

from ego_browser.errors import InvalidSelector
from ego_browser.selectors import engine
from ego_browser.selectors.engine import Match
from ego_browser.selectors.standalone import PageFrames, StandaloneFrame, open_page

if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("needs /usr/bin/chromium", allow_module_level=True)


class Browser:
    def __init__(self) -> None:
        self.proc = None

    async def start(self) -> None:
        from ego_browser.browser.launcher import launch_chromium
        from ego_browser.cdp.connection import Connection

        self.proc = launch_chromium(tempfile.mkdtemp(prefix="ego-sel-engine-"))
        self.conn = await Connection.connect(self.proc.ws_url)

    async def close(self) -> None:
        await self.conn.close()
        self.proc.terminate()


class Tab:
    """A page session with a same-process frame tree plus any out-of-process child frames."""

    def __init__(self, conn: Any, session: Any) -> None:
        self.conn = conn
        self.session = session
        self.local = PageFrames(session)
        self.oopifs: list[StandaloneFrame] = []

    async def frames(self) -> list[Any]:
        return [*(await self.local.frames()), *self.oopifs]

    async def goto(self, url: str) -> None:
        loaded = asyncio.get_running_loop().create_future()
        off = self.session.on("Page.loadEventFired", lambda p, s: loaded.done() or loaded.set_result(True))
        try:
            await self.session.send("Page.navigate", {"url": url})
            await asyncio.wait_for(loaded, 10)
        finally:
            off()

    async def js(self, expression: str) -> Any:
        r = await self.session.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        return r["result"].get("value")


@pytest.fixture(scope="module")
async def browser():
    b = Browser()
    await b.start()
    yield b
    await b.close()


@pytest.fixture
async def tab(browser):
    session, target_id = await open_page(browser.conn)
    await session.send("Page.enable")
    t = Tab(browser.conn, session)
    yield t
    await browser.conn.send("Target.closeTarget", {"targetId": target_id})


async def eid_of(m: Match) -> str | None:
    r = await m.frame.session.send(
        "Runtime.callFunctionOn",
        {"objectId": m.object_id, "functionDeclaration": "function() { return this.id; }", "returnByValue": True},
    )
    return r["result"].get("value")


async def ids(tab: Tab, selector: str, **kw: Any) -> list[str | None]:
    return [await eid_of(m) for m in await engine.query_all(tab, selector, **kw)]


PAGE = """
<button id=save>Save   <span id=savespan>changes</span></button>
<button id=hidden style="display:none">Hidden</button>
<div id=long>""" + "word " * 100 + """</div>
<label id=lab>Email <input id=email></label>
<a id=rel href="/terms">Terms</a>
<a id=frag href="/terms#part">Terms part</a>
<a id=abs href="https://example.test/x">Abs</a>
<div id=host></div>
<script>
  const sr = document.getElementById('host').attachShadow({mode: 'open'});
  sr.innerHTML = '<div id=inner><button id=deep>Deep action</button></div>';
  sr.getElementById('inner').attachShadow({mode: 'open'}).innerHTML = '<button id=deeper>Deeper</button>';
</script>
"""


async def test_backend_ids_and_describe(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/basic", PAGE))
    res = await engine.resolve(tab, "button")
    assert res.total == 4 and len(res.matches) == 4
    for m in res.matches:
        assert isinstance(m.backend_node_id, int)
        r = await tab.session.send("DOM.resolveNode", {"backendNodeId": m.backend_node_id})
        same = await tab.session.send(
            "Runtime.callFunctionOn",
            {"objectId": r["object"]["objectId"], "functionDeclaration": "function() { return this.id; }", "returnByValue": True},
        )
        assert same["result"]["value"] == await eid_of(m)
        assert m.frame_id == (await tab.frames())[0].frame_id and m.loader_id
    save, hidden, deep, deeper = res.matches
    state = {"value": None, "checked": None, "disabled": False, "expanded": None, "selected": None}
    assert save.info == {"tag": "button", "id": "save", "role": "button", "name": "Save changes",
                         "text": "Save changes", "visible": True, **state}
    assert hidden.info["visible"] is False
    assert (deep.info["id"], deeper.info["id"]) == ("deep", "deeper")
    row = save.find_dict(5)
    assert row == {"ref": 5, "tag": "button", "id": "save", "role": "button", "name": "Save changes",
                   "text": "Save changes", "visible": True, "frame": None, **state}
    (long,) = await engine.query_all(tab, "#long")
    assert len(long.info["text"]) == 200 and long.info["id"] == "long"
    (email,) = await engine.query_all(tab, "#email")
    assert email.info["role"] == "textbox" and email.info["name"] == "Email"


async def test_fill_backend_ids_later(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/lazyids", PAGE))
    res = await engine.resolve(tab, "button", backend_ids=False)
    assert [m.backend_node_id for m in res.matches] == [None] * 4
    await engine.fill_backend_ids(res.matches[1:2])
    assert res.matches[0].backend_node_id is None and isinstance(res.matches[1].backend_node_id, int)
    full = await engine.resolve(tab, "button")
    await engine.fill_backend_ids(res.matches)
    assert [m.backend_node_id for m in res.matches] == [m.backend_node_id for m in full.matches]


async def test_limit_count_and_release(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/limit", PAGE))
    res = await engine.resolve(tab, "button", limit=2, object_group="mine")
    assert res.total == 4 and len(res.matches) == 2
    assert await engine.count(tab, "button") == 4
    assert await engine.count(tab, "button >> nth=-1") == 1
    assert await engine.count(tab, "button >> nth=9") == 0
    # not in the AX tree: the display:none button, and #deep (a light child of a shadow host without a slot)
    assert await engine.count(tab, "loc=role:button") == 2
    await tab.session.send("Runtime.releaseObjectGroup", {"objectGroup": "mine"})
    with pytest.raises(Exception):
        await eid_of(res.matches[0])


async def test_shadow_text_and_css(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/shadow", PAGE))
    assert await ids(tab, "text=deep action") == ["deep"]
    assert await ids(tab, "#deeper") == ["deeper"]
    # combinators cross shadow hosts: #deep is #inner's light child, #deeper its shadow child
    assert await ids(tab, "#host #inner > button") == ["deep", "deeper"]
    assert await ids(tab, "loc=css:#host button") == ["deep", "deeper"]
    assert await ids(tab, 'text="Deeper"') == ["deeper"]
    # XPath does not enter shadow roots
    assert await ids(tab, "xpath=//button") == ["save", "hidden"]
    assert await ids(tab, '//button[@id="deep"]') == []


async def test_invalid_css_and_xpath_from_the_browser(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/invalid", PAGE))
    for bad in ["a:nosuchpseudo", "div::nosuch", "a[=x]", "xpath=//a[", "xpath=!!"]:
        with pytest.raises(InvalidSelector) as info:
            await engine.resolve(tab, bad)
        assert info.value.selector == bad and info.value.detail
        with pytest.raises(InvalidSelector):
            await engine.count(tab, bad)
    with pytest.raises(TypeError):
        await engine.resolve(tab, "@12")


async def test_page_scripts_cannot_tamper(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/tamper", PAGE + """<script>
      Element.prototype.querySelectorAll = () => [];
      Document.prototype.querySelectorAll = () => [];
      Element.prototype.matches = () => false;
      document.evaluate = () => { throw new Error('nope'); };
      window.__egoSel = {run: () => 'hijacked'};
      String.prototype.toLowerCase = () => 'x';
    </script>"""))
    assert await ids(tab, "button") == ["save", "hidden", "deep", "deeper"]
    assert await ids(tab, "text=SAVE CHANGES") == ["save"]
    assert await ids(tab, "xpath=//a") == ["rel", "frag", "abs"]


async def test_href(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/href", PAGE))
    assert await ids(tab, "loc=href:/terms") == ["rel", "frag"]
    assert await ids(tab, "loc=href:/terms#part") == ["frag"]
    assert await ids(tab, f"loc=href:{server.url('/terms')}") == ["rel", "frag"]
    assert await ids(tab, "loc=href:terms") == []  # resolved against /sel/href: /sel/terms
    assert await ids(tab, "loc=href:../terms") == ["rel", "frag"]
    assert await ids(tab, "loc=href:https://example.test/x") == ["abs"]
    assert await ids(tab, "loc=href:/terms >> nth=-1") == ["frag"]
    assert await ids(tab, "loc=href:/nope") == []


ROLE_PAGE = """
<button>Save</button><button>save</button><button>Save draft</button>
<button aria-label="Increment counter">+</button>
<span id=lbl>Labelled</span><button aria-labelledby=lbl id=lb>x</button>
<button aria-hidden=true>Gone</button><div hidden><button>Hidden too</button></div>
<input type=checkbox id=cb><label for=cb>Accept</label>
<img alt="Logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
"""


async def test_role_uses_chromium_names(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/role", ROLE_PAGE))
    res = await engine.resolve(tab, 'loc=role:button[name="Save"]')
    assert [m.info["name"] for m in res.matches] == ["Save"]  # B91: not "save", not "Save draft"
    res = await engine.resolve(tab, 'loc=role:button[name*="increment COUNTER"]')  # B85
    assert [m.info["name"] for m in res.matches] == ["Increment counter"]
    assert [m.info["id"] for m in await engine.query_all(tab, 'loc=role:button[name="Labelled"]')] == ["lb"]
    names = [m.info["name"] for m in await engine.query_all(tab, "loc=role:button")]
    assert names == ["Save", "save", "Save draft", "Increment counter", "Labelled"]
    assert [m.info["name"] for m in await engine.query_all(tab, "loc=role:checkbox")] == ["Accept"]
    (img,) = await engine.query_all(tab, "loc=role:img")
    assert (img.info["tag"], img.info["role"], img.info["name"]) == ("img", "img", "Logo")
    last = await engine.query_all(tab, "loc=role:button >> nth=-1")
    assert [m.info["name"] for m in last] == ["Labelled"]
    assert all(isinstance(m.backend_node_id, int) for m in last)


FRAME_CHILD = "<button id=inner>Pay</button><p>dup</p><p>dup</p>"


async def test_top_first_and_frames(tab: Tab, server) -> None:
    server.page("/sel/child", FRAME_CHILD)
    await tab.goto(server.page("/sel/parent", '<p>dup</p><button id=top>Top</button><iframe src="/sel/child"></iframe>'))
    frames = await tab.frames()
    assert len(frames) == 2 and frames[0].is_main and not frames[1].is_main
    # the top document has a match: only it counts
    assert await ids(tab, "text=dup") == [""]
    assert await engine.count(tab, "text=dup") == 1
    # no match at the top: the frames are searched
    res = await engine.resolve(tab, "text=pay")
    assert [m.info["id"] for m in res.matches] == ["inner"] and res.matches[0].frame is frames[1]
    assert res.matches[0].find_dict(3)["frame"] == server.url("/sel/child")
    # find: every frame, top first
    res = await engine.resolve(tab, "text=dup", mode="all")
    assert res.total == 3 and [m.frame.is_main for m in res.matches] == [True, False, False]
    assert await engine.count(tab, "text=dup", mode="all") == 3
    # nth counts over all frames, top document first
    for nth, expect in [(0, True), (1, False), (2, False), (-1, False)]:
        (m,) = await engine.query_all(tab, f"text=dup >> nth={nth}")
        assert m.frame.is_main is expect
    assert await engine.query_all(tab, "text=dup >> nth=3") == []
    assert await engine.count(tab, "text=dup >> nth=2") == 1
    (m,) = await engine.query_all(tab, "loc=role:button[name=\"Pay\"]")
    assert m.info["id"] == "inner" and m.frame is frames[1]


async def test_engine_survives_navigation_and_document_replacement(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/nav1", "<b id=one>one</b>"))
    assert await ids(tab, "b") == ["one"]
    await tab.goto(server.page("/sel/nav2", "<b id=two>two</b>"))
    assert await ids(tab, "b") == ["two"]
    frame = (await tab.frames())[0]
    await tab.session.send("Page.setDocumentContent", {"frameId": frame.frame_id, "html": "<b id=three>3</b>"})
    assert await ids(tab, "b") == ["three"]
    # a stale cached context id is retried with a fresh one
    frame._ctx = 987654
    assert await ids(tab, "b") == ["three"]


async def test_retarget(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/retarget", PAGE))
    (span,) = await engine.query_all(tab, "#savespan")
    button = await engine.retarget(span)
    assert button.info["id"] == "save" and button.backend_node_id != span.backend_node_id
    (lab,) = await engine.query_all(tab, "#lab")
    assert (await engine.retarget(lab, "follow-label")).info["id"] == "email"
    assert (await engine.retarget(lab, "no-follow-label")) is lab
    (save,) = await engine.query_all(tab, "#save")
    assert (await engine.retarget(save)) is save


async def test_wait_for_dom_change(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/mutation", "<div id=box></div>"))
    frame = (await tab.frames())[0]
    assert await engine.wait_for_dom_change(frame, 50) is False
    waiter = asyncio.ensure_future(engine.wait_for_dom_change(frame, 5000))
    await asyncio.sleep(0.05)
    await tab.js("document.getElementById('box').textContent = 'x'")
    assert await asyncio.wait_for(waiter, 5) is True


async def test_out_of_process_iframe(browser, tab: Tab, server) -> None:
    """The engine works in a child session (cross-site iframe) the host attached to, even off
    screen, where Accessibility.queryAXTree would hang (render-throttled frame)."""
    attached: asyncio.Future = asyncio.get_running_loop().create_future()

    def on_attached(params: dict, session_id: str | None) -> None:
        if params["targetInfo"]["type"] == "iframe" and not attached.done():
            attached.set_result(params)

    off = browser.conn.on("Target.attachedToTarget", on_attached)
    try:
        await tab.session.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True})
        server.page("/sel/oopif-child", "<button id=far>Far away</button>")
        child_url = server.url("/sel/oopif-child", host="localhost")
        await tab.goto(server.page("/sel/oopif", f'<button id=near>Near</button><div style="height:1600px"></div><iframe src="{child_url}"></iframe>'))
        try:
            params = await asyncio.wait_for(attached, 5)
        except asyncio.TimeoutError:
            pytest.skip("this Chromium kept the iframe in-process")
    finally:
        off()
    child = browser.conn.session(params["sessionId"])
    info = params["targetInfo"]
    frame = StandaloneFrame(child, info["targetId"], None, info["url"], False)
    for _ in range(50):  # the child document loads on its own
        r = await child.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        if r["result"]["value"] == "complete":
            break
        await asyncio.sleep(0.02)
    frame.url = child_url
    tab.oopifs.append(frame)
    (m,) = await engine.query_all(tab, "text=far away")
    assert m.frame is frame and m.info["id"] == "far" and isinstance(m.backend_node_id, int)
    (m,) = await engine.query_all(tab, 'loc=role:button[name="Far away"]')
    assert m.frame is frame
    assert await engine.count(tab, "loc=role:button", mode="all") == 2
    assert await engine.count(tab, "loc=role:generic", mode="all") >= 1  # whole-document path
    assert [m.info["id"] for m in await engine.query_all(tab, "button", mode="all")] == ["near", "far"]
    assert m.find_dict(1)["frame"] == child_url


PREFILTER_PAGE = """
<script>
  class XButton extends HTMLElement {
    constructor() { super(); const i = this.attachInternals(); i.role = 'button'; i.ariaLabel = 'Internals save'; }
  }
  customElements.define('x-button', XButton);
</script>
<style>ol { counter-reset: step; } li.c::before { counter-increment: step; content: "Step " counter(step); }</style>
<x-button id=xb>?</x-button>
<ol><li class=c><button id=cnt></button></li></ol>
<style>#cb2::before { content: "Step " counter(step); }</style><button id=cb2></button>
<button id=many>""" + "".join(f"<span>w{i}</span> " for i in range(30)) + """</button>
<button id=quoted><q>hi</q> there</button>
<style>@media screen { #late::after { content: " later"; } }</style><button id=late>Now</button>
<input id=val type=button>
<script>document.getElementById('val').value = 'Set by script';</script>
<div id=sh></div>
<script>document.getElementById('sh').attachShadow({mode: 'open'}).innerHTML = '<span id=l2>Shadow label</span><button aria-labelledby=l2>x</button>';</script>
"""


async def test_role_prefilter_keeps_every_chromium_match(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/prefilter", PREFILTER_PAGE))
    # a custom element whose role and name come from ElementInternals (no attributes at all)
    (m,) = await engine.query_all(tab, 'loc=role:button[name="Internals save"]')
    assert m.info["id"] == "xb"
    # a name made by CSS counters: the haystack cannot know it, the element stays a candidate
    names = [m.info["name"] for m in await engine.query_all(tab, "loc=role:button")]
    counter_named = [n for n in names if n.startswith("Step")]
    for name in counter_named:
        assert len(await engine.query_all(tab, f'loc=role:button[name="{name}"]')) >= 1
    assert [m.info["id"] for m in await engine.query_all(tab, 'loc=role:button[name*="w29"]')] == ["many"]
    assert [m.info["id"] for m in await engine.query_all(tab, 'loc=role:button[name="Set by script"]')] == ["val"]
    for m in await engine.query_all(tab, "loc=role:button"):  # every name finds its element
        if m.info["name"]:
            found = await engine.query_all(tab, 'loc=role:button[name="%s"]' % m.info["name"].replace('"', '\\"'))
            assert m.backend_node_id in [f.backend_node_id for f in found], m.info
    assert [m.info["id"] for m in await engine.query_all(tab, 'loc=role:button[name*="now LATER"]')] == ["late"]
    (m,) = await engine.query_all(tab, 'loc=role:button[name="Shadow label"]')
    assert m.info["tag"] == "button"


# the in-page role classification (selectors/role.py) against Chromium's AX tree: elements the
# page calls sure must be exactly what queryAXTree/getPartialAXTree would give
CLASSIFY_PAGE = """
<button>plain</button><button aria-pressed="true">pressed</button><button aria-haspopup="menu">popup</button>
<button disabled>disabled</button><button style="display:none">none</button>
<div style="display:none"><button>in none</button></div>
<button style="visibility:hidden">vis hidden</button>
<div style="visibility:hidden"><button style="visibility:visible">vis again</button></div>
<button style="opacity:0">transparent</button>
<div aria-hidden="true"><button>aria hidden parent</button><a href="/h">aria hidden link</a></div>
<div inert><button>inert parent</button><a href="/i">inert link</a><input aria-label="inert text"></div>
<button><span role=button>nested role</span></button><a href="/x"><button>button in link</button></a>
<div role=img><button>in img role</button></div>
<details><summary>sum</summary><button>closed details</button></details>
<div role=button>div btn</div><div role="BUTTON">upper role</div><div role="link button">link first</div>
<div role="foo button">invalid first</div><span role="none button">none first</span>
<button role=link>button as link</button><a href="/y" role=button>link as button</a>
<input type=button value="in button"><input type=submit><input type=reset>
<input type=hidden value=h><input type=text aria-label="t1"><input aria-label="t2">
<input type=password aria-label="pw"><input type=foo aria-label="bad type">
<input type=text role=button aria-label="text as button">
<input type=search aria-label="s1"><input type=search list=dl aria-label="s2"><datalist id=dl><option value=a></datalist>
<input type=number aria-label="n1"><input type=range aria-label="r1"><input type=checkbox aria-label="c1">
<input type=checkbox switch aria-label="sw1"><input type=radio aria-label="rd1"><input type=date aria-label="d1">
<textarea aria-label="ta"></textarea><div contenteditable>editable</div>
<select aria-label="sel1"><option>a</option></select><select multiple aria-label="sel2"><option>a</option></select>
<h1>h one</h1><h6>h six</h6><div role=heading aria-level=2>div heading</div>
<a href="/z">link z</a><a>no href</a><svg><a href="/svg"><text>svg link</text></a></svg>
<div id=sh></div>
<script>document.getElementById('sh').attachShadow({mode: 'open'}).innerHTML = '<button>shadow btn</button><slot></slot>';</script>
"""

CLASSIFY_ROLES = ("button", "link", "textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider",
                  "checkbox", "switch", "radio", "heading", "img", "tab")


async def _role_both_ways(tab: Tab, sel: str) -> tuple[list, list, int, int]:
    """(classified path, Chromium-only path) backend ids in match order, and both counts."""
    from ego_browser.selectors import role

    fast = [m.backend_node_id for m in await engine.query_all(tab, sel, describe=False)]
    fast_n = await engine.count(tab, sel)
    saved = role._ROLE_TAGS
    role._ROLE_TAGS = {}  # every role takes the Chromium-only path
    try:
        slow = [m.backend_node_id for m in await engine.query_all(tab, sel, describe=False)]
        slow_n = await engine.count(tab, sel)
    finally:
        role._ROLE_TAGS = saved
    return fast, slow, fast_n, slow_n


async def test_role_classification_agrees_with_chromium(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/classify", CLASSIFY_PAGE))
    for r in CLASSIFY_ROLES:
        fast, slow, fast_n, slow_n = await _role_both_ways(tab, f"loc=role:{r}")
        assert fast == slow, r
        # (the Chromium-only *count* also counts a date input's user-agent picker button, which
        # no selector resolves to; the classified count agrees with what resolves)
        assert fast_n == len(slow), r
    # a modal dialog makes the rest of the document inert: every candidate is unsure
    await tab.session.send("Runtime.evaluate", {"expression": "(() => { const d = document.createElement('dialog');"
                                                " d.innerHTML = '<button>in dialog</button>';"
                                                " document.body.append(d); d.showModal(); })()"})
    for r in ("button", "link", "textbox"):
        fast, slow, fast_n, slow_n = await _role_both_ways(tab, f"loc=role:{r}")
        assert fast == slow and fast_n == len(slow), r
    assert len((await _role_both_ways(tab, "loc=role:button"))[0]) == 1


async def test_role_classified_matches_carry_ids_and_names(tab: Tab, server) -> None:
    await tab.goto(server.page("/sel/classify2", "<button id=a>Alpha</button><div role=button id=b>Beta</div>"
                                                   "<button id=c aria-pressed=true>Gamma</button>"))
    ms = await engine.query_all(tab, "loc=role:button")  # describe + backend ids by default
    assert [(m.info["id"], m.info["role"], m.info["name"]) for m in ms] == [
        ("a", "button", "Alpha"), ("b", "button", "Beta"), ("c", "button", "Gamma")]
    assert all(isinstance(m.backend_node_id, int) for m in ms)
    assert await engine.count(tab, "loc=role:button") == 3
    assert await engine.count(tab, "loc=role:button >> nth=2") == 1
    assert await engine.count(tab, "loc=role:button >> nth=3") == 0
