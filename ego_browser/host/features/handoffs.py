"""Hand-offs that wait (issue 32, point 3): the open asks and the calls waiting for a space to
come back (``host.handoffs``); the operations are in ``handoff_ops.py``.

``task.ask_human(reason)`` hands the space over (``agentDelegatedToUser``, reason ``needs_you``,
the reason as the space's status, so ``spaces`` and the dashboard say "needs you"), sends a
desktop notification where ``notify-send`` exists, and waits on an event (never a poll) until
the person gives the space back (``spaces give-back ID --note``, the dashboard's Give back) or
the call's own ``timeout``; the request's deadline follows that ``timeout`` (``ops.request_deadline``),
so a wait outlives the usual request deadline. ``wait=False`` returns at once and a later round
waits with ``task.wait_for_control()``, the same wait.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any  # the host is Any here: core builds this, below it

from ...errors import EgoTimeout
from ...states import Ownership

if TYPE_CHECKING:
    from ..core.store import SpaceRow

__all__ = ["HandOffs", "Ask", "NEEDS_YOU", "where"]

#: the reason a space handed over by ask_human carries (``spaces`` shows it)
NEEDS_YOU = "needs_you"


@dataclass
class Ask:
    reason: str
    url: str
    title: str
    since: float = field(default_factory=time.time)


class HandOffs:
    """The open asks (space id -> what the agent asked, and where the page was) and the calls
    waiting for each space to come back to the agent."""

    def __init__(self) -> None:
        self.asks: dict[int, Ask] = {}
        self._waiters: dict[int, list[asyncio.Future[dict[str, Any]]]] = {}

    def asked(self, space_id: int) -> str | None:
        ask = self.asks.get(space_id)
        return ask.reason if ask else None

    def waiting(self, space_id: int) -> bool:
        return any(not f.done() for f in self._waiters.get(space_id, ()))

    async def came_back(self, host: Any, space_id: int, note: str | None) -> bool:
        """The space is the agent's again: wake its waiting calls with the note and what changed.
        True if a call took the note (it need not wait for the next round's report)."""
        ask = self.asks.pop(space_id, None)
        if space_id not in self.asks and not self.waiting(space_id):
            return False
        url, title = await where(host, space_id)
        now = {"url": url, "title": title}
        before = {"url": ask.url, "title": ask.title} if ask else None
        result = {
            "note": note, "url": url, "title": title,
            "before": before,
            "changed": [k for k in ("url", "title") if before is not None and before[k] != now[k]],
            "held_ms": round((time.time() - ask.since) * 1000) if ask else None,
            "given_back_at": time.time(),
        }
        woken = False
        for fut in self._waiters.pop(space_id, ()):
            if not fut.done():
                fut.set_result(result)
                woken = True
        return woken

    async def wait(self, host: Any, space: SpaceRow, timeout_ms: float, api: str) -> dict[str, Any]:
        if space.ownership == Ownership.AGENT:
            url, title = await where(host, space.id)
            note = host.features.dashboard.notes.pop(space.id, None)
            return {"note": note, "url": url, "title": title, "before": None, "changed": [], "held_ms": 0,
                    "given_back_at": None}
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(space.id, []).append(fut)
        try:
            result = await asyncio.wait_for(asyncio.shield(fut), timeout_ms / 1000)
        except TimeoutError:
            raise EgoTimeout(
                f"{api}: the person has not given task space {space.id} (\"{space.name}\") back within "
                f"{round(timeout_ms)}ms; it stays theirs: wait again with task.wait_for_control()",
                api=api, timeout_ms=round(timeout_ms), input_dispatched=False,
            ) from None
        finally:
            waiters = self._waiters.get(space.id)
            if waiters is not None and fut in waiters and not fut.done():
                waiters.remove(fut)
                fut.cancel()
        given = result.pop("given_back_at", None)
        result["resumed_after_ms"] = round((time.time() - given) * 1000) if given else 0
        return result


async def where(host: Any, space_id: int) -> tuple[str, str]:
    """The URL and title of the space's active tab (what the person saw last), asked of the
    browser: Chromium does not report every title change."""
    target = host.active.get(space_id)
    if target is None and host.store is not None:
        rows = [r for r in host.store.pages(space_id) if r.target_id]
        target = rows[-1].target_id if rows else None
    info = host.browser.targets.get(target or "") or {}
    if target and host.browser.conn is not None:
        try:
            res = await host.browser.conn.send("Target.getTargetInfo", {"targetId": target}, timeout=5.0)
            info = res.get("targetInfo") or info
        except Exception:  # noqa: BLE001 - a closed tab: what was known last
            pass
    return str(info.get("url", "")), str(info.get("title", ""))


