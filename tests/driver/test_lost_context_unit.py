"""What the driver does when the browser says a document, world or object went away:
the typed errors of ``cdp/errors.py`` against a scripted browser (no Chromium)."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.cdp.errors import NavigatedAway, NodeNotFound
from ego_browser.driver import actions, handles, evaluate
from ego_browser.errors import CdpError, PageScriptError
from ego_browser.selectors import _core
from ego_browser.testing import FakeBrowser

from .kit import SESSION, attached, close


@pytest.mark.parametrize("message", [
    "Cannot find context with specified id",
    "Could not find object with given id",
    # an awaited helper whose document navigated: also the page changing under the action
    "Inspected target navigated or closed",
])
async def test_an_action_helper_whose_element_went_away_is_retried(message):
    browser = FakeBrowser()
    browser.fail("Runtime.callFunctionOn", message)
    conn = await browser.connect()
    try:
        handle = handles.ElementHandle(conn.session(SESSION), 7, "obj-1")
        with pytest.raises(handles.Transient):
            await actions.call(handle, "checkVisible")
    finally:
        await conn.close()


async def test_an_action_helper_failing_otherwise_is_not_retried():
    browser = FakeBrowser()
    browser.fail("Runtime.callFunctionOn", "No node with given id found")
    conn = await browser.connect()
    try:
        handle = handles.ElementHandle(conn.session(SESSION), 7, "obj-1")
        with pytest.raises(NodeNotFound):
            await actions.call(handle, "checkVisible")
    finally:
        await conn.close()


async def test_action_helpers_missing_in_a_new_world_are_installed_then_called():
    browser = FakeBrowser()
    browser.reply("Runtime.callFunctionOn", {"result": {"value": {"__ego_missing": True}}}, once=True)
    browser.reply("Runtime.callFunctionOn", {"result": {"value": "visible"}})
    conn = await browser.connect()
    try:
        handle = handles.ElementHandle(conn.session(SESSION), 7, "obj-1")
        assert await actions.call(handle, "checkVisible") == "visible"
        # the repeat installs and calls in one round trip (no separate install: issue 11)
        assert browser.sent("Runtime.evaluate") == []
        calls = browser.sent("Runtime.callFunctionOn")
        assert [c.params["objectId"] for c in calls] == ["obj-1", "obj-1"]
        assert "__egoActions =" not in calls[0].params["functionDeclaration"]
        assert "__egoActions =" in calls[1].params["functionDeclaration"]
        assert calls[1].params["arguments"] == [{"value": "checkVisible"}]
    finally:
        await conn.close()


async def test_evaluate_tells_a_navigation_from_a_script_error():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.fail("Runtime.evaluate", "Cannot find context with specified id", once=True)
        with pytest.raises(PageScriptError, match="navigated while the script ran"):
            await evaluate.evaluate(driver, "() => 1")
        browser.fail("Runtime.evaluate", "Object reference chain is too long", once=True)
        with pytest.raises(PageScriptError, match="cannot be returned"):
            await evaluate.evaluate(driver, "() => window")
        # the page itself went away: not the script's doing, the browser's error as it is
        browser.fail("Runtime.evaluate", "Inspected target navigated or closed", once=True)
        with pytest.raises(NavigatedAway):
            await evaluate.evaluate(driver, "() => new Promise(() => {})")
        browser.fail("Runtime.evaluate", "Session with given id not found.", code=-32001, once=True)
        with pytest.raises(CdpError) as info:
            await evaluate.evaluate(driver, "() => 1")
        assert not isinstance(info.value, PageScriptError)
    finally:
        await close(driver)


class _Frame:
    """The selector engine's view of a frame: a session and a utility world that can be renewed."""

    frame_id = "F1"

    def __init__(self, session) -> None:
        self.session = session
        self.context = 1
        self.invalidated = 0
        self.installed: set[str] = set()

    async def utility_context(self) -> int:
        return self.context

    def invalidate_utility_context(self) -> None:
        self.invalidated += 1
        self.context += 1
        self.installed = set()


async def test_the_selector_engine_moves_to_the_new_world_when_its_context_is_destroyed():
    browser = FakeBrowser()
    browser.fail("Runtime.evaluate", "Execution context was destroyed.", once=True)
    browser.reply("Runtime.evaluate", {"result": {"type": "boolean", "value": True}})
    conn = await browser.connect()
    try:
        frame = _Frame(conn.session("S-sel"))
        seen = []

        async def call(ctx: int):
            seen.append(ctx)
            return {"result": {"value": 1}}

        assert await _core._with_context(frame, call, timeout=5) == {"result": {"value": 1}}
        assert frame.invalidated == 1 and seen == [2]
        assert [c.params["contextId"] for c in browser.sent("Runtime.evaluate")] == [1, 2]
    finally:
        await conn.close()
