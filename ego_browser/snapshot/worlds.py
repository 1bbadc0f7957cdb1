"""The snapshot walker's isolated worlds of one page: one per (session, frame), per document.

A world is where the walker runs (``Page.createIsolatedWorld``) and what it learned there: the
walker's local ids mapped to backend node ids, and whether backend ids are fetched after the
capture (see ``capture`` "Deferred ids"). The page's ledger owns its :class:`Worlds`, so a
closed page's worlds go with its driver. They used to live in one process-wide map bounded at
512 worlds, from which a closed page's had to be removed by hand (issue 10 point 4).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

__all__ = ["MAX_WORLDS", "World", "Worlds"]

#: worlds one page keeps at most, oldest dropped first: frames come and go (ads, OOPIF
#: sessions renewed by navigations) while the page lives; a dropped world is only re-created
MAX_WORLDS = 256


@dataclass
class World:
    loader_id: str | None
    context_id: int
    token: str = ""
    #: walker local id -> backend node id (negative: pending, see ``capture``)
    lids: dict[int, int] = field(default_factory=dict)
    doc_loader: str = ""
    #: None until the first capture decides: True = backend ids are fetched after the snapshot
    defer: bool | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: made by the page's new-document script with the walker in it (no install needed)
    preloaded: bool = False


class Worlds:
    """(session id, frame id) -> :class:`World` of one page, bounded at ``MAX_WORLDS``."""

    __slots__ = ("_by_frame",)

    def __init__(self) -> None:
        self._by_frame: OrderedDict[tuple[str, str], World] = OrderedDict()

    def __len__(self) -> int:
        return len(self._by_frame)

    def keys(self) -> list[tuple[str, str]]:
        return list(self._by_frame)

    def get(self, session_id: str, frame_id: str) -> World | None:
        return self._by_frame.get((session_id, frame_id))

    def put(self, session_id: str, frame_id: str, world: World) -> None:
        key = (session_id, frame_id)
        self._by_frame.pop(key, None)
        self._by_frame[key] = world
        while len(self._by_frame) > MAX_WORLDS:
            self._by_frame.popitem(last=False)

    def forget_frame(self, frame_id: str) -> None:
        """Drop the worlds of a frame that went away (any session that owned it)."""
        for key in [k for k in self._by_frame if k[1] == frame_id]:
            del self._by_frame[key]

    def forget_session(self, session_id: str) -> None:
        """Drop the worlds of a session that went away (an out-of-process frame detached)."""
        for key in [k for k in self._by_frame if k[0] == session_id]:
            del self._by_frame[key]
