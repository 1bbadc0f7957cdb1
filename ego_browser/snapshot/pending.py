"""Pending backend ids of one page: issued by captures, settled by their background fetch.

A first snapshot of a document does not wait for backend node ids (see ``capture``
"Deferred ids"): a new ref-bearing element gets a *pending id* (a negative number) and a
background call learns the real backend id right after the text is returned. The ledger
then swaps pending keys for real ones (``RefLedger.rebind``).

The answers live here, one store per page (its ledger owns it), and only until the ledger
has rebound them: the engine drops the ids of a fetch as soon as the rebind after that fetch
has run. They used to sit in one process-wide map capped at 200,000 entries (~20 MB): a
host running for days filled it at ~180 entries a round and its RSS grew ~2.8 MB per 100
rounds (benchmarks/soak.py, issue 9). Now what a page's store holds is bounded by what its
fetches still have in flight, and the store goes with the page.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from typing import Any

__all__ = ["NOT_YET", "PendingIds"]

#: ``PendingIds.get``: the fetch of this id has not ended yet
NOT_YET: Any = object()

# negative numbers, unique in this process: a world's node map holds pending ids of captures
# made for any page, and an id must never name two nodes (a counter, not a growing structure)
_counter = itertools.count(1)

#: settled answers one store keeps at most: a safety net for ids no rebind ever consumes
#: (a snapshot that failed after its capture started a fetch); oldest dropped first
MAX_SETTLED = 20_000


class PendingIds:
    """Pending id -> backend id answers of one page's captures."""

    __slots__ = ("settled", "unresolved", "waiters")

    def __init__(self) -> None:
        #: pending id -> backend id (None: the node could not be resolved)
        self.settled: dict[int, int | None] = {}
        self.unresolved: set[int] = set()
        #: pending id -> future, created only when someone waits
        self.waiters: dict[int, asyncio.Future[int | None]] = {}

    def new(self) -> int:
        pid = -next(_counter)
        self.unresolved.add(pid)
        return pid

    def settle(self, pid: int, bid: int | None) -> None:
        self.unresolved.discard(pid)
        settled = self.settled
        settled[pid] = bid
        if len(settled) > MAX_SETTLED:
            for k in list(itertools.islice(settled, MAX_SETTLED // 10)):
                del settled[k]
        fut = self.waiters.pop(pid, None)
        if fut is not None and not fut.done():
            fut.set_result(bid)

    def get(self, pid: int) -> Any:
        """Backend id of a pending id: an int, None (gone / unknown), or ``NOT_YET``."""
        settled = self.settled
        if pid in settled:
            return settled[pid]
        if pid in self.unresolved:
            return NOT_YET
        return None

    async def wait(self, pid: int, timeout: float = 30.0) -> int | None:
        """Wait until a pending id is resolved; its backend id, or None if the node is gone."""
        r = self.get(pid)
        if r is not NOT_YET:
            bid: int | None = r
            return bid
        fut = self.waiters.get(pid)
        if fut is None:
            fut = self.waiters[pid] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except asyncio.TimeoutError:
            return None  # the fetch's own deadline settles the id and pops the future

    def drop(self, pids: Iterable[int]) -> None:
        """Forget answers the ledger has rebound (nothing refers to these ids any more)."""
        settled = self.settled
        for pid in pids:
            settled.pop(pid, None)

    def __len__(self) -> int:
        return len(self.settled) + len(self.unresolved)
