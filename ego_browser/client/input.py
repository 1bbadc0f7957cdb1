"""``MouseBase`` and ``KeyboardBase``: the plumbing of ``page.mouse`` and ``page.keyboard``.

Every member of ``Mouse`` and ``Keyboard`` is generated from the declarations
(``client/_generated.py``). Position, held buttons and held keys last one round: the host
keeps them per round token, which every page request carries.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MouseBase", "KeyboardBase"]


class _Input:
    def __init__(self, page: Any) -> None:
        self._page = page

    async def _call(self, op: str, **args: Any) -> Any:
        return await self._page._call(op, **args)


class MouseBase(_Input):
    pass


class KeyboardBase(_Input):
    pass
