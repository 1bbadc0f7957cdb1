"""Element actions and ``find`` on ``Page`` (mixed into the class in ``client/page.py``)."""

from __future__ import annotations

from typing import Any

from ..schema import validated
from .models import ActionReceipt
from .proc import PROC

__all__ = ["ActionsMixin"]


class ActionsMixin:
    """Clicks, typing and form filling with trusted input; every call checks the target first."""

    async def _act(self, op: str, **args: Any) -> ActionReceipt:
        return ActionReceipt.from_wire(await self._call(op, proc=PROC, **args))

    @validated("Page.click")
    async def click(self, selector: str, *, button: str = "left", click_count: int = 1, delay: float = 0,
                    position: dict | None = None, force: bool = False, timeout: float = 3000,
                    label: str | None = None, no_wait_after: bool = False) -> ActionReceipt:
        return await self._act("page.click", selector=selector, button=button, click_count=click_count,
                               delay=delay, position=position, force=force, timeout=timeout, label=label,
                               no_wait_after=no_wait_after)

    @validated("Page.dblclick")
    async def dblclick(self, selector: str, *, button: str = "left", delay: float = 0, position: dict | None = None,
                       force: bool = False, timeout: float = 3000, label: str | None = None,
                       no_wait_after: bool = False) -> ActionReceipt:
        return await self._act("page.dblclick", selector=selector, button=button, delay=delay, position=position,
                               force=force, timeout=timeout, label=label, no_wait_after=no_wait_after)

    @validated("Page.hover")
    async def hover(self, selector: str, *, position: dict | None = None, force: bool = False, timeout: float = 3000,
                    label: str | None = None) -> ActionReceipt:
        return await self._act("page.hover", selector=selector, position=position, force=force, timeout=timeout,
                               label=label)

    @validated("Page.drag_and_drop")
    async def drag_and_drop(self, source: str, target: str, *, button: str = "left",
                            source_position: dict | None = None, target_position: dict | None = None,
                            force: bool = False, timeout: float = 3000, label: str | None = None) -> ActionReceipt:
        return await self._act("page.drag_and_drop", source=source, target=target, button=button,
                               source_position=source_position, target_position=target_position, force=force,
                               timeout=timeout, label=label)

    @validated("Page.fill")
    async def fill(self, selector: str, value: str, *, clear_first: bool = True, timeout: float = 3000) -> ActionReceipt:
        return await self._act("page.fill", selector=selector, value=value, clear_first=clear_first, timeout=timeout)

    @validated("Page.select_option")
    async def select_option(self, selector: str, value: Any, *, timeout: float = 3000) -> list[str]:
        return await self._call("page.select_option", proc=PROC, selector=selector, value=value, timeout=timeout)

    @validated("Page.focus")
    async def focus(self, selector: str, *, timeout: float = 3000) -> ActionReceipt:
        return await self._act("page.focus", selector=selector, timeout=timeout)

    @validated("Page.press")
    async def press(self, selector: str, key: str, *, delay: float = 0, timeout: float = 3000,
                    no_wait_after: bool = False) -> ActionReceipt:
        return await self._act("page.press", selector=selector, key=key, delay=delay, timeout=timeout,
                               no_wait_after=no_wait_after)

    @validated("Page.find")
    async def find(self, selector: str, *, limit: int = 100) -> list[dict[str, Any]]:
        return await self._call("page.find", selector=selector, limit=limit)
