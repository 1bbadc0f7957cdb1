"""One page of one task space, as the page driver's parts see the host (``driver/sites.py``).

The driver never imports the host: a call that needs the ref ledger's storage, the host's
background tasks or the space's popups gets a :class:`PageSite`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .ledgers import LedgerHost, ledger_for, save_ledger
from .page_ctx import PageCtx

if TYPE_CHECKING:
    from ...snapshot.ledger import RefLedger

__all__ = ["PageSite", "SiteHost"]


class SiteHost(LedgerHost, Protocol):
    """What a page's site needs of the ``Host`` (``core`` is above it)."""

    def background(self, task: asyncio.Task[Any]) -> None: ...

    def watch_popups(self, listener: Any) -> Any: ...

    def labels_for_targets(self, space_id: int, target_ids: list[str]) -> list[tuple[str, str]]: ...

    async def activate(self, space_id: int, target_id: str) -> None: ...


class PageSite:
    """The host's side of one page (``RefBook`` and ``ActionSite`` of ``driver/sites.py``)."""

    __slots__ = ("host", "ctx")

    def __init__(self, host: SiteHost, ctx: PageCtx) -> None:
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
