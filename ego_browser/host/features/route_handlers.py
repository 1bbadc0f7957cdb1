"""Routes whose Python handler runs in a round (``page.route(url, handler)``).

A round's function cannot run in the host, so a paused request waits here while the round
fetches it (``route.poll``, a long poll its background task keeps open) and answers
(``route.decide``). Such a route lives while its round does: the round's poll is its lease.
When no poll has come for ``LEASE`` seconds (the round ended, or stopped polling), the next
paused request drops the route and continues; a request handed to a round that then says
nothing for ``DECISION_TIMEOUT`` seconds continues unchanged.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

__all__ = ["HandlerQueue", "LEASE", "DECISION_TIMEOUT"]

#: seconds without a poll after which the round is taken for gone
LEASE = 5.0
#: seconds a request handed to the round waits for its answer
DECISION_TIMEOUT = 30.0
_pause_ids = itertools.count(1)


class HandlerQueue:
    """The paused requests of one handler route, as its round fetches and answers them."""

    def __init__(self, registry: dict[int, HandlerQueue]) -> None:
        self.route_id = 0  # set once the route has its id
        self._registry = registry
        self._waiting: list[tuple[int, dict[str, Any]]] = []
        self._answers: dict[int, asyncio.Future[dict[str, Any] | None]] = {}
        self._arrived = asyncio.Event()
        self.polling = 0
        self.last_poll = time.monotonic()
        self.gone = False

    def alive(self) -> bool:
        return not self.gone and (self.polling > 0 or time.monotonic() - self.last_poll < LEASE)

    async def decide(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The round's decision on ``request`` (None: continue unchanged)."""
        if not self.alive():
            self.close()
            return None
        pause_id = next(_pause_ids)
        fut: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self._answers[pause_id] = fut
        entry = (pause_id, request)
        self._waiting.append(entry)
        self._arrived.set()
        try:
            # a round that died before fetching it: known once its lease ran out
            await asyncio.wait({fut}, timeout=LEASE)
            if not fut.done() and entry in self._waiting and not self.alive():
                self.close()
                return None
            return await asyncio.wait_for(fut, DECISION_TIMEOUT)
        except asyncio.TimeoutError:
            return None
        finally:
            self._answers.pop(pause_id, None)

    async def poll(self, timeout: float) -> dict[str, Any]:
        self.polling += 1
        try:
            if not self._waiting and not self.gone:
                self._arrived.clear()
                try:
                    await asyncio.wait_for(self._arrived.wait(), timeout)
                except asyncio.TimeoutError:
                    pass
            taken, self._waiting = self._waiting, []
            return {"gone": self.gone, "paused": [{"pause_id": pid, "request": req} for pid, req in taken]}
        finally:
            self.polling -= 1
            self.last_poll = time.monotonic()

    def answer(self, pause_id: int, decision: dict[str, Any] | None) -> bool:
        fut = self._answers.get(pause_id)
        if fut is None or fut.done():
            return False
        fut.set_result(decision)
        return True

    def close(self) -> None:
        """The route is removed: what waits continues unchanged, the round's poll ends."""
        self.gone = True
        self._registry.pop(self.route_id, None)
        for fut in self._answers.values():
            if not fut.done():
                fut.set_result(None)
        self._arrived.set()
