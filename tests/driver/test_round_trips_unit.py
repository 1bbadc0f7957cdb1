"""Renderer round trips an action waits for (issue 11, tool time): a press and its release are
in flight together (the helpers' install in the call that needs them: test_lost_context_unit).

The fake ``send`` withholds the answer to a press until its release has been sent: an action
that waits for the press's answer before sending the release never gets it (bounded here)."""

from __future__ import annotations

import asyncio
from typing import Any

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
    await asyncio.wait_for(mouse.click(10, 20, button="left", click_count=2, delay=0), STUCK)
    assert send.sent == ["mouseMoved", "mousePressed", "mouseReleased", "mousePressed", "mouseReleased"]
    assert not mouse.buttons  # nothing is left held


async def test_a_click_in_one_go_sends_its_press_before_the_move_is_answered():
    """A move is answered at the renderer's next animation frame; ``click_from_move`` has the
    press and release on the wire before that answer (the fake answers the move only then)."""
    send = PairedSend("mouseMoved", "mouseReleased")
    mouse = Mouse(send, Keyboard(send))
    await asyncio.wait_for(mouse.click_from_move(30, 40, button="left", click_count=2), STUCK)
    assert send.sent == ["mouseMoved", "mousePressed", "mouseReleased", "mousePressed", "mouseReleased"]
    assert (mouse.x, mouse.y) == (30.0, 40.0) and not mouse.buttons


async def test_a_key_press_sends_its_key_up_before_the_key_down_is_answered():
    send = PairedSend("keyDown", "keyUp")
    keyboard = Keyboard(send)
    await asyncio.wait_for(keyboard.press("Enter", delay=0), STUCK)
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
        await mouse.press_here(button="left", click_count=1, delay=0)
    except RuntimeError as exc:
        assert "dialog" in str(exc)
    else:
        raise AssertionError("the press's failure was swallowed")
    assert sent == ["mousePressed", "mouseReleased"] and not mouse.buttons


class HelperSession:
    """Answers every helper call; records the order of what was sent."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def send(self, method: str, params: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        self.log.append("helper")
        return {"result": {"value": None}}


async def test_a_refs_liveness_check_is_awaited_with_its_first_helper_call():
    """Locator.handle_for_ref(confirm_later=True) leaves the check pending on the handle: the
    first helper call sends its own command first, then waits for both; a detached element
    still raises StaleRef there, before any input."""
    from ego_browser.driver.actions import call
    from ego_browser.driver.handles import ElementHandle
    from ego_browser.errors import StaleRef

    log: list[str] = []

    async def stale() -> None:
        log.append("confirm")
        raise StaleRef("Stale ref: @3; take a new snapshot", ref=3)

    handle = ElementHandle(HelperSession(log), 7, "obj-1")  # type: ignore[arg-type]  # a fake session
    handle.confirm = stale
    try:
        await call(handle, "checkThen", "click", "pointerPrep", "click", None, False)
    except StaleRef:
        pass
    else:
        raise AssertionError("a detached ref's action went on")
    assert log == ["helper", "confirm"] and handle.confirm is None

    async def alive() -> None:
        log.append("confirm")

    log.clear()
    handle.confirm = alive
    await call(handle, "check", "click")
    await call(handle, "check", "click")  # confirmed once, not again
    assert log == ["helper", "confirm", "helper"]


async def test_a_page_closing_on_the_click_before_the_press_is_answered_is_the_clicks_outcome():
    """The release forgiven by the sender (page gone after input was sent) makes the press's
    'target closed' the same outcome; any other press failure still raises."""
    from ego_browser.cdp.errors import TargetClosed

    async def gone(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if (params or {}).get("type") == "mousePressed":
            raise TargetClosed("Target closed", cdp_code=-32000, cdp_message="Target closed", method=method)
        return {}  # the release: forgiven, as act.input_state's sender does for a closed page

    mouse = Mouse(gone, Keyboard(gone))
    await asyncio.wait_for(mouse.press_here(button="left", click_count=1, delay=0), STUCK)
    assert not mouse.buttons
