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
