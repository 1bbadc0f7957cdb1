"""``check``/``uncheck``/``set_checked`` and the element reads on ``Page`` (issue 13, point 5)."""

from __future__ import annotations

from typing import Any, cast

from ..schema import validated
from .models import ActionReceipt
from .proc import PROC

__all__ = ["StateMixin"]


class StateMixin:
    async def _act(self, op: str, **args: Any) -> ActionReceipt:
        return ActionReceipt.from_wire(await self._call(op, proc=PROC, **args))  # type: ignore[attr-defined]

    @validated("Page.check")
    async def check(self, selector: str, *, position: dict[str, float] | None = None, force: bool = False,
                    timeout: float = 3000, label: str | None = None) -> ActionReceipt:
        return await self._act("page.check", selector=selector, position=position, force=force, timeout=timeout,
                               label=label)

    @validated("Page.uncheck")
    async def uncheck(self, selector: str, *, position: dict[str, float] | None = None, force: bool = False,
                      timeout: float = 3000, label: str | None = None) -> ActionReceipt:
        return await self._act("page.uncheck", selector=selector, position=position, force=force, timeout=timeout,
                               label=label)

    @validated("Page.set_checked")
    async def set_checked(self, selector: str, checked: bool, *, position: dict[str, float] | None = None, force: bool = False,
                          timeout: float = 3000, label: str | None = None) -> ActionReceipt:
        return await self._act("page.set_checked", selector=selector, checked=checked, position=position,
                               force=force, timeout=timeout, label=label)

    @validated("Page.is_checked")
    async def is_checked(self, selector: str, *, timeout: float = 3000) -> bool:
        result: Any = await self._call("page.is_checked", selector=selector, timeout=timeout)  # type: ignore[attr-defined]
        return cast(bool, result)

    @validated("Page.is_enabled")
    async def is_enabled(self, selector: str, *, timeout: float = 3000) -> bool:
        result: Any = await self._call("page.is_enabled", selector=selector, timeout=timeout)  # type: ignore[attr-defined]
        return cast(bool, result)

    @validated("Page.is_visible")
    async def is_visible(self, selector: str) -> bool:
        result: Any = await self._call("page.is_visible", selector=selector)  # type: ignore[attr-defined]
        return cast(bool, result)

    @validated("Page.input_value")
    async def input_value(self, selector: str, *, timeout: float = 3000) -> str:
        result: Any = await self._call("page.input_value", selector=selector, timeout=timeout)  # type: ignore[attr-defined]
        return cast(str, result)

    @validated("Page.text_content")
    async def text_content(self, selector: str, *, timeout: float = 3000) -> str | None:
        result: Any = await self._call("page.text_content", selector=selector, timeout=timeout)  # type: ignore[attr-defined]
        return cast('str | None', result)

    @validated("Page.inner_text")
    async def inner_text(self, selector: str, *, timeout: float = 3000) -> str:
        result: Any = await self._call("page.inner_text", selector=selector, timeout=timeout)  # type: ignore[attr-defined]
        return cast(str, result)

    @validated("Page.get_attribute")
    async def get_attribute(self, selector: str, name: str, *, timeout: float = 3000) -> str | None:
        result: Any = await self._call("page.get_attribute", selector=selector, name=name,  # type: ignore[attr-defined]
                                        timeout=timeout)
        return cast('str | None', result)
