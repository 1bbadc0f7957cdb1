"""Futures the driver lets run on without anyone awaiting them (a release after a failure, a
liveness check a dropped handle never read, an answer a navigation made moot): their outcome
is retrieved and dropped, so asyncio does not report it as never retrieved."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["drop_outcome"]


def drop_outcome(fut: asyncio.Future[Any]) -> None:
    """A done callback: whoever awaits ``fut`` still gets its result or error."""
    if not fut.cancelled():
        fut.exception()
