"""Trusted mouse input through ``Input.dispatchMouseEvent``.

Position and held buttons live here (one per Page, in viewport CSS px of the top-level page);
modifiers come from the Page's :class:`~ego_browser.driver.keyboard.Keyboard`. ``send`` is the
top page session's ``send`` (the host may wrap it, e.g. to race JS dialogs: a
``mouseReleased`` that opens ``alert()`` is answered by Chromium only once the dialog closes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from .input_pair import send_all, send_pair
from .keyboard import Keyboard
from .outcomes import drop_outcome

__all__ = ["Mouse", "BUTTONS"]

Send = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]

BUTTONS = {"left": 1, "right": 2, "middle": 4, "back": 8, "forward": 16}


class Mouse:
    def __init__(self, send: Send, keyboard: Keyboard) -> None:
        self._send = send
        self._keyboard = keyboard
        self.x = 0.0
        self.y = 0.0
        self.buttons: set[str] = set()
        self._last_button = "none"

    def _buttons_mask(self) -> int:
        mask = 0
        for b in self.buttons:
            mask |= BUTTONS[b]
        return mask

    async def move(self, x: float, y: float, *, steps: int) -> None:
        assert steps >= 1, "the schema checks the steps"
        fx, fy = self.x, self.y
        self.x, self.y = float(x), float(y)
        for i in range(1, steps + 1):
            await self._send(
                "Input.dispatchMouseEvent",
                {
                    "type": "mouseMoved",
                    "x": fx + (x - fx) * (i / steps),
                    "y": fy + (y - fy) * (i / steps),
                    "button": self._last_button,
                    "buttons": self._buttons_mask(),
                    "modifiers": self._keyboard.modifiers,
                    **({"force": 0.5} if self.buttons else {}),
                },
            )

    async def down(self, *, button: str, click_count: int) -> None:
        assert button in BUTTONS, "the schema checks the button"
        self._last_button = button
        self.buttons.add(button)
        await self._button_event("mousePressed", button, click_count, force=0.5)

    async def up(self, *, button: str, click_count: int) -> None:
        assert button in BUTTONS, "the schema checks the button"
        self._last_button = "none"
        self.buttons.discard(button)
        await self._button_event("mouseReleased", button, click_count)

    async def _button_event(self, kind: str, button: str, click_count: int, *, force: float | None = None) -> None:
        params = {
            "type": kind,
            "x": self.x,
            "y": self.y,
            "button": button,
            "buttons": self._buttons_mask(),
            "clickCount": click_count,
            "modifiers": self._keyboard.modifiers,
        }
        if force is not None:
            params["force"] = force
        await self._send("Input.dispatchMouseEvent", params)

    async def click(self, x: float, y: float, *, button: str, click_count: int, delay: float) -> None:
        """Move to (x, y), then ``click_count`` press/release pairs (clickCount 1..n)."""
        assert button in BUTTONS, "the schema checks the button"
        await self.move(x, y, steps=1)
        await self.press_here(button=button, click_count=click_count, delay=delay)

    async def click_from_move(self, x: float, y: float, *, button: str, click_count: int) -> None:
        """The move to (x, y) and ``click_count`` press/release pairs, all in flight at once (see
        ``driver/actions._click_in_one_go``); the state is as after ``click``."""
        assert button in BUTTONS, "the schema checks the button"
        steps: list[Coroutine[Any, Any, None]] = [self.move(x, y, steps=1)]
        for cc in range(1, click_count + 1):
            steps += [self.down(button=button, click_count=cc), self.up(button=button, click_count=cc)]
        try:
            await send_all(*steps)
        except BaseException:
            if button in self.buttons:  # stopped between a press and its release: release
                release = asyncio.ensure_future(self.up(button=button, click_count=click_count))
                release.add_done_callback(drop_outcome)
            raise

    async def press_here(self, *, button: str, click_count: int, delay: float) -> None:
        for cc in range(1, click_count + 1):
            if not delay:
                # press and release back to back: one wait for the renderer instead of two
                try:
                    await send_pair(self.down(button=button, click_count=cc), self.up(button=button, click_count=cc))
                except BaseException:
                    if button in self.buttons:  # stopped between the two: release, as below
                        release = asyncio.ensure_future(self.up(button=button, click_count=cc))
                        release.add_done_callback(drop_outcome)
                    raise
                continue
            try:
                await self.down(button=button, click_count=cc)
                if delay:
                    await asyncio.sleep(delay / 1000)  # the caller asked for this pause
            except BaseException:
                if button in self.buttons:
                    # cancelled (the host's deadline) or failed while the press is in the page:
                    # release anyway, so this round's next action does not start as a drag
                    release = asyncio.ensure_future(self.up(button=button, click_count=cc))
                    release.add_done_callback(drop_outcome)
                raise
            await self.up(button=button, click_count=cc)
            if delay and cc < click_count:
                await asyncio.sleep(delay / 1000)

    async def wheel(self, delta_x: float, delta_y: float) -> None:
        """A trusted wheel event at the current position."""
        await self._send(
            "Input.dispatchMouseEvent",
            {
                "type": "mouseWheel",
                "x": self.x,
                "y": self.y,
                "deltaX": delta_x,
                "deltaY": delta_y,
                "modifiers": self._keyboard.modifiers,
            },
        )
