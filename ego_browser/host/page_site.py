"""One page of one task space, as the page driver's parts see the host (``driver/sites.py``).

The driver never imports the host: a call that needs the ref ledger's storage, the host's
background tasks or the space's popups gets a :class:`PageSite`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .ledgers import ledger_for, save_ledger

if TYPE_CHECKING:
    from ..snapshot.ledger import RefLedger
    from .core import Host, PageCtx

__all__ = ["PageSite"]


class PageSite:
    """The host's side of one page (``RefBook`` and ``ActionSite`` of ``driver/sites.py``)."""

    __slots__ = ("host", "ctx")

    def __init__(self, host: Host, ctx: PageCtx) -> None:
        self.host = host
        self.ctx = ctx

    def ledger(self) -> RefLedger:
        ledger: RefLedger = ledger_for(self.host, self.ctx)
        return ledger

    def save(self) -> None:
        save_ledger(self.host, self.ctx.driver)

    def background(self, task: asyncio.Task[Any]) -> None:
        self.host.background(task)

    def watch_popups(self, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        off: Callable[[], None] = self.host.watch_popups(listener)
        return off

    def popup_labels(self, target_ids: list[str]) -> list[tuple[str, str]]:
        return self.host.labels_for_targets(self.ctx.space.id, target_ids)

    async def activate(self) -> None:
        await self.host.activate(self.ctx.space.id, self.ctx.driver.target_id)
