"""Renderer round trips an action waits for (issue 11, tool time): a press and its release are
in flight together, and the action helpers are installed in the call that needs them.

The fake ``send`` withholds the answer to a press until its release has been sent: an action
that waits for the press's answer before sending the release never gets it (bounded here)."""

from __future__ import annotations

import asyncio
from typing import Any

from ego_browser.driver.actions import ElementHandle, call
from ego_browser.driver.keyboard import Keyboard
from ego_browser.driver.mouse import Mouse

#: the bound of a wait that only a sequential sender would run into
STUCK = 10.0


class PairedSend:
    """Answers a press only after its release is on the wire (what pipelining allows)."""

    def __init__(self, press: str, release: str) -> None:
        self.press, self.release = press, release
        self.sent: list[str] = []
        self.release_sent = asyncio.Event()

    async def __call__(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        kind = (params or {}).get("type", "")
        self.sent.append(kind)
        if kind == self.release:
            self.release_sent.set()
        elif kind == self.press:
            await self.release_sent.wait()
        return {}


async def test_a_click_sends_its_release_before_the_press_is_answered():
    send = PairedSend("mousePressed", "mouseReleased")
    mouse = Mouse(send, Keyboard(send))
    await asyncio.wait_for(mouse.click(10, 20, click_count=2), STUCK)
    assert send.sent == ["mouseMoved", "mousePressed", "mouseReleased", "mousePressed", "mouseReleased"]
    assert not mouse.buttons  # nothing is left held


async def test_a_key_press_sends_its_key_up_before_the_key_down_is_answered():
    send = PairedSend("keyDown", "keyUp")
    keyboard = Keyboard(send)
    await asyncio.wait_for(keyboard.press("Enter"), STUCK)
    assert send.sent == ["keyDown", "keyUp"]


async def test_a_press_that_fails_still_has_its_release_sent_and_raises():
    sent: list[str] = []

    async def send(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        sent.append((params or {}).get("type", ""))
        if sent[-1] == "mousePressed":
            raise RuntimeError("a dialog blocks the page")
        return {}

    mouse = Mouse(send, Keyboard(send))
    try:
        await mouse.press_here()
    except RuntimeError as exc:
        assert "dialog" in str(exc)
    else:
        raise AssertionError("the press's failure was swallowed")
    assert sent == ["mousePressed", "mouseReleased"] and not mouse.buttons


class HelperSession:
    """A utility world without the action helpers: the first call says so."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.calls.append((method, params or {}))
        if len(self.calls) == 1:
            return {"result": {"value": {"__ego_missing": True}}}
        return {"result": {"value": "checked"}}


async def test_the_first_action_helper_call_of_a_document_installs_and_calls_in_one_more_round_trip():
    session = HelperSession()
    handle = ElementHandle(session, 7, "obj-1")  # type: ignore[arg-type]  # a fake session
    assert await call(handle, "check", "click") == "checked"
    assert [m for m, _ in session.calls] == ["Runtime.callFunctionOn", "Runtime.callFunctionOn"]
    second = session.calls[1][1]
    assert "__egoActions =" in second["functionDeclaration"] and second["objectId"] == "obj-1"
    assert second["arguments"] == [{"value": "check"}, {"value": "click"}]
