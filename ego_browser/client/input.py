"""``page.mouse`` and ``page.keyboard``: trusted input at coordinates and keys.

Position, held buttons and held keys last one process (the round); the host keeps them per
round token. Mouse events carry the modifiers held through ``keyboard.down``.
"""

from __future__ import annotations

from typing import Any

from ..schema import validated
from .models import ActionReceipt
from .proc import PROC

__all__ = ["Mouse", "Keyboard"]


class _Input:
    def __init__(self, page: Any) -> None:
        self._page = page

    async def _call(self, op: str, **args: Any) -> Any:
        return await self._page._call(op, proc=PROC, **args)


class Mouse(_Input):
    """Trusted mouse input in viewport CSS px."""

    @validated("Page.mouse.click")
    async def click(self, x: float, y: float, *, button: str = "left", click_count: int = 1, delay: float = 0,
                    label: str | None = None, no_wait_after: bool = False) -> ActionReceipt:
        res = await self._call("mouse.click", x=x, y=y, button=button, click_count=click_count, delay=delay, label=label,
                               no_wait_after=no_wait_after)
        return ActionReceipt.from_wire(res)

    @validated("Page.mouse.move")
    async def move(self, x: float, y: float, *, steps: int = 1, label: str | None = None) -> None:
        await self._call("mouse.move", x=x, y=y, steps=steps, label=label)

    @validated("Page.mouse.down")
    async def down(self, *, button: str = "left", click_count: int = 1) -> None:
        await self._call("mouse.down", button=button, click_count=click_count)

    @validated("Page.mouse.up")
    async def up(self, *, button: str = "left", click_count: int = 1) -> None:
        await self._call("mouse.up", button=button, click_count=click_count)

    @validated("Page.mouse.wheel")
    async def wheel(self, delta_x: float, delta_y: float, *, label: str | None = None) -> None:
        await self._call("mouse.wheel", delta_x=delta_x, delta_y=delta_y, label=label)


class Keyboard(_Input):
    """Trusted keyboard input; key names follow Playwright."""

    @validated("Page.keyboard.down")
    async def down(self, key: str) -> None:
        await self._call("keyboard.down", key=key)

    @validated("Page.keyboard.up")
    async def up(self, key: str) -> None:
        await self._call("keyboard.up", key=key)

    @validated("Page.keyboard.press")
    async def press(self, key: str, *, delay: float = 0, no_wait_after: bool = False) -> ActionReceipt:
        return ActionReceipt.from_wire(await self._call("keyboard.press", key=key, delay=delay,
                                                        no_wait_after=no_wait_after))

    @validated("Page.keyboard.type")
    async def type(self, text: str, *, delay: float = 0) -> None:
        await self._call("keyboard.type", text=text, delay=delay)

    @validated("Page.keyboard.insert_text")
    async def insert_text(self, text: str) -> None:
        await self._call("keyboard.insert_text", text=text)

    @validated("Page.keyboard.paste")
    async def paste(self, content: Any) -> ActionReceipt:
        return ActionReceipt.from_wire(await self._call("keyboard.paste", content=content))
