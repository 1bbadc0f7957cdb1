"""Typed CDP errors against a real Chromium: each situation the driver recovers from is
answered with the type it catches (``ego_browser/cdp/errors.py``).

If a Chromium update rewords one of these replies, the test names the situation, the
message it now gets, and the type that was expected: add the new wording to the table.
"""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.cdp import errors as t
from ego_browser.errors import CdpError, from_wire, to_wire


@pytest.fixture
async def tab(host, task, server):
    """A space's page (no stray tab for the host to notice), driven through its raw session."""
    page = task.page("p1")
    await page.goto(server.page("/cdp-errors-start", "<p>start</p>"))
    target_id = (await task.tabs())[0]["target_id"]
    return host.browser.conn, host.drivers[target_id].session, target_id


async def _error(call) -> CdpError:
    with pytest.raises(CdpError) as info:
        await call
    return info.value


async def test_lost_documents_nodes_and_frames_have_types(tab, server):
    conn, session, _ = tab
    # a world whose document goes away: an iframe's, removed (a navigation may keep the old
    # document alive in the back/forward cache)
    await session.send("Runtime.evaluate", {"expression": """new Promise(r => {
        const f = document.createElement('iframe'); f.srcdoc = '<p>inner</p>'; f.onload = r;
        document.body.append(f); })""", "awaitPromise": True})
    tree = await session.send("Page.getFrameTree")
    child = tree["frameTree"]["childFrames"][0]["frame"]["id"]
    world = await session.send("Page.createIsolatedWorld", {"frameId": child})
    context_id = world["executionContextId"]
    body = await session.send("Runtime.evaluate", {"expression": "document.body", "contextId": context_id})
    object_id = body["result"]["objectId"]
    await session.send("Runtime.evaluate", {"expression": "document.querySelector('iframe').remove()"})

    cases = {
        "an object of a removed document": lambda: session.send(
            "Runtime.callFunctionOn", {"functionDeclaration": "function(){}", "objectId": object_id}),
        "the context of a removed document": lambda: session.send(
            "Runtime.evaluate", {"expression": "1", "contextId": context_id}),
        "a backend node id the document does not have": lambda: session.send(
            "DOM.resolveNode", {"backendNodeId": 987654321}),
        "its box model": lambda: session.send("DOM.getBoxModel", {"backendNodeId": 987654321}),
        "the removed frame's world": lambda: session.send("Page.createIsolatedWorld", {"frameId": child}),
        "the removed frame's owner element": lambda: session.send("DOM.getFrameOwner", {"frameId": child}),
        "a dialog that is not showing": lambda: session.send("Page.handleJavaScriptDialog", {"accept": True}),
        "a URL Chromium cannot parse": lambda: session.send("Page.navigate", {"url": "http://exa mple.com:99999"}),
        "a target that is gone": lambda: conn.send("Target.getTargetInfo", {"targetId": "0" * 32}),
        "a session that is gone": lambda: conn.send("Runtime.evaluate", {"expression": "1"}, session_id="0" * 32),
        "a method that does not exist": lambda: session.send("DOM.noSuchMethod"),
    }
    expected = {
        "an object of a removed document": t.ContextDestroyed,
        "the context of a removed document": t.ContextDestroyed,
        "a backend node id the document does not have": t.NodeNotFound,
        "its box model": t.NodeNotFound,
        "the removed frame's world": t.FrameNotFound,
        "the removed frame's owner element": t.FrameNotFound,
        "a dialog that is not showing": t.NoDialog,
        "a URL Chromium cannot parse": t.InvalidUrl,
        "a target that is gone": t.TargetNotFound,
        "a session that is gone": t.SessionNotFound,
        "a method that does not exist": t.MethodNotFound,
    }
    wrong = []
    for situation, call in cases.items():
        try:
            await call()
        except CdpError as exc:
            if not isinstance(exc, expected[situation]):
                wrong.append(f"{situation}: {exc.cdp_code} {exc.cdp_message!r} is {type(exc).__name__}, "
                             f"expected {expected[situation].__name__}")
        else:
            wrong.append(f"{situation}: no error")
    assert not wrong, "\n".join(wrong)


async def test_released_object_and_pending_promise_of_a_replaced_document(tab):
    _, session, _ = tab
    obj = await session.send("Runtime.evaluate", {"expression": "({a: 1})"})
    await session.send("Runtime.releaseObject", {"objectId": obj["result"]["objectId"]})
    exc = await _error(session.send(
        "Runtime.callFunctionOn", {"functionDeclaration": "function(){}", "objectId": obj["result"]["objectId"]}))
    assert isinstance(exc, t.ObjectNotFound), exc

    pending = asyncio.ensure_future(session.send(
        "Runtime.evaluate", {"expression": "new Promise(() => {})", "awaitPromise": True}))
    # the evaluation is in the page before it navigates: a second command on the session is
    # answered after it (commands of one session are handled in order)
    await session.send("Runtime.evaluate", {"expression": "1"})
    await session.send("Page.reload")
    exc = await _error(pending)
    assert isinstance(exc, t.NavigatedAway) and isinstance(exc, t.ContextDestroyed), exc


async def test_typed_errors_keep_every_detail_and_cross_the_wire_as_cdp_error(tab):
    _, session, _ = tab
    exc = await _error(session.send("Runtime.evaluate", {"expression": 5}))
    assert isinstance(exc, t.InvalidParams)
    assert exc.method == "Runtime.evaluate" and exc.cdp_code == -32602 and exc.cdp_message == "Invalid parameters"
    assert exc.data and "expression" in exc.data and exc.session_id == session.session_id
    assert str(exc) == f"Runtime.evaluate: Invalid parameters ({exc.data})"
    # rounds see what they always saw: the documented class and fields
    again = from_wire(to_wire(exc))
    assert type(again) is CdpError and again.code == "EGO_CDP_ERROR"
    assert (again.method, again.cdp_code, again.cdp_message) == (exc.method, exc.cdp_code, exc.cdp_message)
