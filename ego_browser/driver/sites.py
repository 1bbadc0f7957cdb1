"""What the page driver needs from whoever hosts it, as small typed interfaces.

The driver never imports the host: the host hands these in with each call that needs them
(``host/core/page_site.py`` implements both for one page of one task space).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..snapshot.ledger import RefLedger

__all__ = ["RefBook", "ActionSite"]


class RefBook(Protocol):
    """The page's ref ledger where it is kept: the host loads it from its store the first
    time it sees the page and saves it after each change (a restarted host keeps the refs)."""

    def ledger(self) -> RefLedger: ...

    def save(self) -> None: ...


class ActionSite(RefBook, Protocol):
    """The page's place in the host, as an action and its receipt see it: the tasks it keeps
    running after answering, the popups of the browser and the front tab of the task space."""

    def background(self, task: asyncio.Task[Any]) -> None:
        """Keep ``task`` running after the call returns (the host reports its failure)."""

    def watch_popups(self, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``listener(target_info)`` for every new page target until the returned off()."""

    def popup_labels(self, target_ids: list[str]) -> list[tuple[str, str]]:
        """``(target id, label)`` of the given new targets the task space adopted."""

    async def activate(self) -> None:
        """Make the page the front tab of its window."""
