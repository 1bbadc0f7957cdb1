"""One blank tab kept ready (attached, 1280×720) for the next new task space.

A new space used to cost a new window, an attach and the page set-up on the agent's time
(≈0.3 s idle, over 1 s under load). The host now prepares that tab in the background and
``task_space("new name")`` takes it; the next one is prepared right after (the first when
the host's first new space is made). Only spaces in the
default browser context use it (an isolated space needs its own context). The tab is not in
any space until taken, so nothing lists it; its target id is kept in ``run/warm.json`` so a
host that was killed and restarted closes the one it left behind.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

from .core import Host
from .ops import HOST_SETUP

__all__ = ["take"]

logger = logging.getLogger(__name__)


class _Warm:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.ready: str | None = None
        self.task: asyncio.Task | None = None
        self.stopped = False
        self.started = False

    @property
    def path(self) -> Any:
        return self.host.run_dir / "warm.json"

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"target_id": self.ready}))
        os.replace(tmp, self.path)

    async def _cleanup(self) -> None:
        """Close the warm tab a previous host of this browser left (no space owns it)."""
        try:
            old = json.loads(self.path.read_text()).get("target_id")
        except (OSError, ValueError):
            return
        store = self.host.store
        if old and store is not None and not store.pages_of_target(old) and self.host.browser.is_live_page(old):
            try:
                await self.host.browser.conn.send("Target.closeTarget", {"targetId": old}, timeout=5.0)  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001 - it may be gone already
                pass

    async def _make(self, first: bool) -> None:
        from .viewport_ops import DEFAULT_VIEWPORT, apply_viewport

        if first:
            await self._cleanup()
        # in the background: a window in front would hide the agent's pages (hidden pages
        # throttle their timers to one a second and run no animation frames)
        conn = self.host.browser.conn
        assert conn is not None
        res = await conn.send("Target.createTarget", {"url": "about:blank", "newWindow": True, "background": True},
                              timeout=10.0)
        tid = res["targetId"]
        self.host.browser.targets.setdefault(tid, {"targetId": tid, "type": "page", "url": "about:blank", "title": ""})
        driver = await self.host.driver(tid)
        await apply_viewport(driver, DEFAULT_VIEWPORT)
        if self.stopped:
            return
        self.ready = tid
        self._save()

    def refill(self, first: bool = False) -> None:
        if self.stopped or self.ready is not None or (self.task is not None and not self.task.done()):
            return
        self.task = asyncio.get_running_loop().create_task(self._make(first))
        self.task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.warning("could not prepare a warm tab: %r", task.exception())

    async def take(self) -> str | None:
        if self.ready is None and self.task is not None and not self.task.done():
            # being prepared: it is nearer than a fresh one
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 10.0)
            except Exception:  # noqa: BLE001 - fall back to a fresh tab
                pass
        tid, self.ready = self.ready, None
        if tid is not None and not self.host.browser.is_live_page(tid):
            tid = None
        self.refill(first=not self.started)
        self.started = True
        return tid

    def stop(self) -> None:
        self.stopped = True
        if self.task is not None:
            self.task.cancel()


def _warm(host: Host) -> _Warm:
    warm = host.extensions.get("warm_tab")
    if warm is None:
        warm = host.extensions["warm_tab"] = _Warm(host)
    return warm


async def take(host: Host) -> str | None:
    """The ready blank tab (default context, its own window), or None: make one yourself."""
    return await _warm(host).take()


def _setup(host: Host) -> None:
    # the first tab is prepared when the first new space is made (that one takes the cold
    # path): at start-up it would compete with the round that started the host
    warm = _warm(host)
    host.add_hook("on_stop", lambda h: warm.stop())


HOST_SETUP.append(_setup)
