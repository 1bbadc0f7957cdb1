"""The spare tab, prepared in the background: the next new task space starts in it.

A new space used to cost a new window, an attach and the page set-up on the agent's time
(≈0.3 s idle, over 1 s under load). After a space in the default context is made, the host
prepares the next ``host.spare_tab`` (``unlisted_tabs.py``: the one tab no space lists, taken
by the next ``task_space("new name")``): a window opened in the background (a front window
would hide the agent's pages, and hidden pages throttle their timers), attached, 1280×720.
The first one is made after the host's first new space (at start-up it would compete with
the round that started the host). Isolated spaces need their own context and do not use it.

It is made once the host is quiet (no request for ``QUIET`` seconds: an agent's turn, between
rounds), or at once when a space was finished (``soon``: no new space's navigation runs then),
not as soon as a space took the last one: made at once, its window, renderer and
attach competed with the new space's first navigation (on the whole-task traces its
``Page.navigate`` took ~70 ms instead of ~20). A new space that finds one still to be made
has it made at once and waits for it, as it waited for one being made before.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from ...errors import EgoError, EgoTimeout
from ..core.browser import BrowserLink
from ..core.quiet import QuietHost, until_quiet
from .viewports import DEFAULT_VIEWPORT, apply_viewport

if TYPE_CHECKING:
    from ...driver.page import PageDriver

__all__ = ["WarmHost", "WarmTab"]

logger = logging.getLogger(__name__)

#: longest a new space waits for a spare that is being prepared
READY_WAIT = 10.0
#: seconds without a request before the spare is made (rounds of a task follow each other
#: within a few ms; an agent's turn between them takes seconds)
QUIET = 0.15
#: the spare is made after this long even if the host never went quiet
LATEST = 10.0
#: a new blank tab answers its attach in milliseconds; one that has not in this long is replaced
ATTACH_WAIT = 10.0
MAKE_TRIES = 2


class WarmHost(QuietHost, Protocol):
    """What the spare-tab maker needs of the ``Host`` (``core`` is above it): the browser, the
    spare tab, attaching to a tab, and its requests (``QuietHost``)."""

    browser: BrowserLink
    spare_tab: str | None

    async def driver(self, target_id: str, attach_timeout: float | None = None) -> PageDriver: ...


class WarmTab:
    """The host's spare-tab maker (one per host)."""

    def __init__(self, host: WarmHost) -> None:
        self.host = host
        self.task: asyncio.Task[None] | None = None
        self.stopped = False
        #: set when a new space needs the spare now (it waits in ``wait_ready``)
        self.hurry = asyncio.Event()

    async def _make(self) -> None:
        host = self.host
        for _ in range(MAKE_TRIES):
            conn = host.browser.conn
            if conn is None or host.spare_tab is not None or self.stopped:
                return
            res = await conn.send("Target.createTarget", {"url": "about:blank", "newWindow": True,
                                                          "background": True}, timeout=10.0)
            tid = res["targetId"]
            host.browser.targets.setdefault(tid, {"targetId": tid, "type": "page", "url": "about:blank", "title": ""})
            if self.stopped or host.spare_tab is not None:
                await conn.send("Target.closeTarget", {"targetId": tid}, timeout=5.0)
                return
            host.spare_tab = tid  # listed as the spare at once: never an orphan
            try:
                driver = await host.driver(tid, attach_timeout=ATTACH_WAIT)
            except EgoTimeout:
                # a blank tab that does not answer its attach (seen once in a whole-suite run: made
                # as the finished space's tab closed, Page.enable got no answer for 120 s) must not
                # become the next space's p1: it goes, and another is made
                if host.spare_tab == tid:
                    host.spare_tab = None
                try:
                    await conn.send("Target.closeTarget", {"targetId": tid}, timeout=5.0)
                except EgoError:
                    pass
                logger.warning("the spare tab did not answer its attach in %.0f s; made another", ATTACH_WAIT)
                continue
            await apply_viewport(driver, DEFAULT_VIEWPORT)
            return

    def refill(self) -> None:
        if self.stopped or not self.host.browser.owned or self.host.spare_tab is not None:
            return
        if self.host.browser.headed:
            return  # each space opens a window titled with its name (windows.py): no spare
        if self.task is not None and not self.task.done():
            return
        self.hurry = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._make_when_quiet())
        self.task.add_done_callback(self._done)

    async def _make_when_quiet(self) -> None:
        await until_quiet(self.host, quiet=QUIET, latest=LATEST, hurry=self.hurry)
        await self._make()

    def soon(self) -> None:
        """A space was finished: the next request is as likely a new space as anything, and
        there is no space's first navigation to compete with, so the spare is made now rather
        than after the quiet period (a task's next attempt, right after, found it half made)."""
        self.refill()
        if self.task is not None and not self.task.done():
            self.hurry.set()

    def _done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.warning("could not prepare a spare tab: %r", task.exception())

    async def wait_ready(self) -> None:
        if self.task is not None and not self.task.done():
            self.hurry.set()
            try:
                await asyncio.wait_for(asyncio.shield(self.task), READY_WAIT)
            except Exception:  # noqa: BLE001 - the space takes a new window instead
                pass

    def on_driver(self, driver: object) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True
        if self.task is not None:
            self.task.cancel()

