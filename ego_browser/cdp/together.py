"""Commands sent at once, answered in order.

Chromium runs a session's commands in the order they arrive, so commands whose order matters
(a binding before the script that calls it) can still go out together: one round trip for the
set instead of one each. Every command is waited for, and the first failure is raised then, so
none is left running unobserved against a page the caller gives up on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

__all__ = ["together"]


async def together(*aws: Awaitable[Any]) -> list[Any]:
    """Await ``aws`` concurrently (started in the order given); their results, or the first
    exception (in the order given) once all have ended."""
    results = await asyncio.gather(*aws, return_exceptions=True)
    for outcome in results:
        if isinstance(outcome, BaseException):
            raise outcome
    return results
