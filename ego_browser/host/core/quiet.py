"""Background work waits for a pause in the agents' requests before it competes with them.

The host's background work (the spare tab, the round worker's process) costs CPU that a
2-core machine takes from the agent's calls when both run at once. Agents' rounds follow each
other within milliseconds inside a task and seconds apart between turns, so a short pause with
no request running is the moment to do it; ``latest`` bounds the wait for a host that never
pauses (many agents at once).
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["QuietHost", "until_quiet"]


class QuietHost(Protocol):
    #: requests being served, and when the last one began or ended (``time.monotonic``)
    busy: int
    last_request: float


async def until_quiet(host: QuietHost, *, quiet: float, latest: float, hurry: asyncio.Event | None = None,
                      since: float | None = None) -> None:
    """Return once no request has run for ``quiet`` seconds (counted from ``since`` at the
    earliest, a ``time.monotonic()``), when ``hurry`` is set, or after ``latest`` seconds,
    whichever comes first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + latest
    hurry = hurry or asyncio.Event()
    while not hurry.is_set() and loop.time() < deadline:
        quiet_for = time.monotonic() - max(host.last_request, since or 0.0)
        if host.busy == 0 and quiet_for >= quiet:
            return
        # a bounded look again: the host's requests set no event (one per request would cost
        # every call a wake-up for work that runs once)
        pause = quiet - quiet_for if host.busy == 0 else quiet
        try:
            await asyncio.wait_for(hurry.wait(), max(0.01, min(pause, deadline - loop.time())))
        except TimeoutError:
            pass
