"""Input into iframes: same-process and out-of-process (B159, B160).

Finding (Chromium 156): input is dispatched on the TOP page session in top-level viewport
coordinates; Chromium routes trusted mouse, key and insertText events into an out-of-process
iframe by itself. The handle carries the OOPIF's own session and utility world for the checks
and the frame viewport offset for the coordinates.
"""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.driver import actions, handles, form_actions

from tests.input_harness import browser, declared, tab  # noqa: F401

pytestmark = pytest.mark.asyncio(loop_scope="session")

CHILD = ("<button id=cb style='width:120px;height:40px' onclick=\"document.title='clicked:'+event.isTrusted\">Child</button>"
         "<input id=field>")


async def frame_handles(tab, frame_session, frame_id, css):
    """Utility world in the frame + element + an offset callable (iframe content box in the top page)."""
    w = await frame_session.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "ego_util_f"})
    ctx_id = w["executionContextId"]
    r = await frame_session.send("Runtime.evaluate", {"expression": f"document.querySelector({css!r})", "contextId": ctx_id})

    async def offset():
        v = await tab.js("(() => { const f = document.querySelector('iframe'); const r = f.getBoundingClientRect();"
                         " return [r.left + f.clientLeft, r.top + f.clientTop]; })()")
        return (v[0], v[1])

    return [handles.ElementHandle(frame_session, ctx_id, r["result"]["objectId"], offset)]


async def test_b160_same_process_iframe(tab):
    child = tab.server.url("/child.html")
    tab.server.route("/child.html", "<!doctype html>" + CHILD)
    await tab.goto(f"<div style='height:1200px'></div><iframe src='{child}' style='width:300px;height:150px'></iframe>"
                   "<div style='height:1200px'></div>")
    tree = await tab.session.send("Page.getFrameTree")
    fid = tree["frameTree"]["childFrames"][0]["frame"]["id"]

    async def resolve_btn():
        return await frame_handles(tab, tab.session, fid, "#cb")

    async def resolve_field():
        return await frame_handles(tab, tab.session, fid, "#field")

    await actions.click(tab.ctx("#cb"), resolve_btn, **declared("Page.click"))
    await form_actions.fill(tab.ctx("#field", "page.fill"), resolve_field, **declared("Page.fill", value="in frame"))
    ctx_id = (await resolve_field())[0].context_id
    v = await tab.session.send("Runtime.evaluate", {"expression": "[document.title, field.value]", "contextId": ctx_id, "returnByValue": True})
    assert v["result"]["value"] == ["clicked:true", "in frame"]


async def test_b159_out_of_process_iframe(browser, tab):
    child = tab.server.url("/oopif.html", host="localhost")
    tab.server.route("/oopif.html", "<!doctype html>" + CHILD)
    attached = asyncio.get_running_loop().create_future()
    off = tab.session.on("Target.attachedToTarget", lambda p, s: attached.done() or attached.set_result(p))
    await tab.session.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True})
    try:
        await tab.goto(f"<div style='height:1600px'></div><iframe src='{child}' style='width:300px;height:150px'></iframe>"
                       "<div style='height:600px'></div><script>addEventListener('wheel',e=>__rec(e),true)</script>")
        info = await asyncio.wait_for(attached, 10)
    finally:
        off()
    assert info["targetInfo"]["type"] == "iframe", "expected an out-of-process iframe"
    fs = tab.conn.session(info["sessionId"])
    await fs.send("Page.enable")
    await fs.send("Runtime.runIfWaitingForDebugger")
    fid = info["targetInfo"]["targetId"]
    for _ in range(50):  # wait for the frame's document
        r = await fs.send("Runtime.evaluate", {"expression": "document.readyState + !!document.querySelector('#cb')", "returnByValue": True})
        if r["result"]["value"] == "completetrue":
            break
        await asyncio.sleep(0.05)

    async def resolve_btn():
        return await frame_handles(tab, fs, fid, "#cb")

    async def resolve_field():
        return await frame_handles(tab, fs, fid, "#field")

    await actions.click(tab.ctx("#cb"), resolve_btn, **declared("Page.click"))
    await form_actions.fill(tab.ctx("#field", "page.fill"), resolve_field, **declared("Page.fill", value="oopif value"))
    v = await fs.send("Runtime.evaluate", {"expression": "[document.title, field.value]", "returnByValue": True})
    assert v["result"]["value"] == ["clicked:true", "oopif value"]
    wheels = await tab.log("wheel")
    assert wheels and all(w["trusted"] for w in wheels)
