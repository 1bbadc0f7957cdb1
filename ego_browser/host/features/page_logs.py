"""Host features that follow pages and popups without needing the host itself: each page's
navigations (``driver/navigation.py``'s tracker, made when the page is attached) and the
browser-wide log of popups that ``page.wait_popup`` reads (``host/ops/wait_ops.py``).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

from ...driver import navigation
from ...driver.page import PageDriver

__all__ = ["NavigationTracking", "PopupLog"]


class PopupLog:
    """Popups the browser opened, in order, for ``page.wait_popup`` (one per host)."""

    def __init__(self, watch_popups: Callable[[Callable[[dict[str, Any]], None]], Callable[[], None]]) -> None:
        self.seq = itertools.count(1)
        self.last = 0
        #: (seq, opener target id, popup target id)
        self.entries: list[tuple[int, str, str]] = []
        self.changed = asyncio.Event()
        self.stopped = False
        self.off = watch_popups(self._popup)

    def on_driver(self, driver: PageDriver) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True
        self.off()
        self.changed.set()

    def _popup(self, info: dict[str, Any]) -> None:
        self.last = next(self.seq)
        self.entries.append((self.last, info.get("openerId") or "", info["targetId"]))
        del self.entries[:-256]
        self.changed.set()


class NavigationTracking:
    """Follows each page's navigations from the moment it is attached (actions and waits use it)."""

    def on_driver(self, driver: PageDriver) -> None:
        navigation.tracker(driver)

    def stop(self) -> None:
        pass
