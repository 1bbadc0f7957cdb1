"""Which space a browser target belongs to: one answer for the allowlists' interception
(``guard_book.py``) and the dashboard's event log (``dashboard/activity.py``)."""

from __future__ import annotations

from typing import Any

from .store import OPEN, UNMANAGED

__all__ = ["space_of_target"]

#: how many openers up a popup's chain is followed (a popup's popup's ...)
_OPENER_DEPTH = 5


def space_of_target(host: Any, target_id: str) -> int | None:
    """The open space one of whose pages (listed or not) is ``target_id``; a popup not adopted
    yet belongs to its opener's space (its first requests come before its adoption)."""
    store = host.store
    if store is None:
        return None
    for _ in range(_OPENER_DEPTH + 1):
        for row in store.pages_of_target(target_id):
            if row.state in (OPEN, UNMANAGED):
                return int(row.space_id)
        opener = (host.browser.targets.get(target_id) or {}).get("openerId")
        if not opener:
            return None
        target_id = opener
    return None
