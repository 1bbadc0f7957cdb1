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


async def _navigate(session, url: str) -> None:
    loaded = asyncio.get_running_loop().create_future()
    off = session.on("Page.loadEventFired", lambda _p, _s: loaded.done() or loaded.set_result(None))
    try:
        await session.send("Page.navigate", {"url": url})
        await asyncio.wait_for(loaded, 10)
    finally:
        off()


async def test_lost_documents_nodes_and_frames_have_types(tab, server):
    conn, session, _ = tab
    await _navigate(session, server.page("/cdp-errors", "<p>one</p>"))
    element = await session.send("Runtime.evaluate", {"expression": "document.documentElement"})
    object_id = element["result"]["objectId"]
    described = await session.send("DOM.describeNode", {"objectId": object_id})
    backend = described["node"]["backendNodeId"]
    await _navigate(session, server.page("/cdp-errors-two", "<p>two</p>"))

    cases = {
        "an object of a replaced document": (
            session.send("Runtime.callFunctionOn", {"functionDeclaration": "function(){}", "objectId": object_id}),
            t.ContextDestroyed),
        "a context id that is gone": (
            session.send("Runtime.evaluate", {"expression": "1", "contextId": 987654}), t.ContextDestroyed),
        "a backend node of a replaced document": (
            session.send("DOM.resolveNode", {"backendNodeId": backend}), t.NodeNotFound),
        "its box model": (session.send("DOM.getBoxModel", {"backendNodeId": backend}), t.NodeNotFound),
        "a frame id that is gone": (
            session.send("Page.createIsolatedWorld", {"frameId": "0" * 32}), t.FrameNotFound),
        "its owner element": (session.send("DOM.getFrameOwner", {"frameId": "0" * 32}), t.FrameNotFound),
        "a dialog that is not showing": (
            session.send("Page.handleJavaScriptDialog", {"accept": True}), t.NoDialog),
        "a URL Chromium cannot parse": (session.send("Page.navigate", {"url": "http://exa mple.com:99999"}), t.InvalidUrl),
        "a target that is gone": (conn.send("Target.getTargetInfo", {"targetId": "0" * 32}), t.TargetNotFound),
        "a session that is gone": (conn.send("Runtime.evaluate", {"expression": "1"}, session_id="0" * 32),
                                   t.SessionNotFound),
        "a method that does not exist": (session.send("DOM.noSuchMethod"), t.MethodNotFound),
    }
    wrong = []
    for situation, (call, expected) in cases.items():
        exc = await _error(call)
        if not isinstance(exc, expected):
            wrong.append(f"{situation}: {exc.cdp_code} {exc.cdp_message!r} is {type(exc).__name__}, "
                         f"expected {expected.__name__}")
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
