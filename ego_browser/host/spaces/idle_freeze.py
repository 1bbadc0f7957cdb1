"""Idle spaces cost little: the tabs of a space no call touched for a while are frozen.

Fifty agents rarely all work at once; a space waiting for its agent to think still runs its
pages' timers, animations and pollers on the same two cores the working spaces need. After
``EGO_BROWSER_FREEZE_IDLE`` seconds (60; 0 turns it off) without a call, each open tab of the
space is frozen (``Page.setWebLifecycleState frozen``: the page's task queues stop, its
``freeze`` event fires, nothing of its state is lost) and its JavaScript heap collected. The
next use of the page wakes it first (``Host.driver``: an agent's call, or the person's input
from the dashboard) — the agent never sees the difference, and
the page's ``resume`` event fires as it would after a real tab discard-and-return.

A call always wins a race with the sweep: it records its space as touched before it awaits
anything, the sweep checks that again under the page's lock right before freezing, and a wake
waits for that lock, so a page is never left frozen under a running call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from ... import config
from ...states import Ownership
from ..core.store import OPEN

if TYPE_CHECKING:
    from ...driver.page import PageDriver
    from ..core.browser import BrowserLink
    from ..core.store import Store
    from ..features.trace_pictures import Pictures

__all__ = ["IdleFreezer"]

#: what an idle tab's renderer gives back before it freezes: its garbage, and (a critical
#: memory-pressure signal) its caches: decoded images, fonts, V8's spare pages. Not
#: ``Memory.forciblyPurgeJavaScriptMemory``: it drops the page's execution contexts, so the
#: woken page's next evaluate fails as if it had navigated (test_density caught it)
_SHRINK: tuple[tuple[str, dict[str, Any] | None], ...] = (
    ("HeapProfiler.collectGarbage", None),
    ("Memory.simulatePressureNotification", {"level": "critical"}),
)

logger = logging.getLogger("ego_browser.host.idle")

#: seconds a lifecycle command may take (a busy renderer answers late, never this late)
_CMD_TIMEOUT = 10.0


class FreezeHost(Protocol):
    """What the freezer needs of the ``Host`` (injected: the host imports this module)."""

    store: Store | None
    browser: BrowserLink
    pictures: Pictures

    def busy_spaces(self) -> Any: ...

    async def driver(self, target_id: str, attach_timeout: float | None = None) -> PageDriver: ...


class IdleFreezer:
    def __init__(self, host: FreezeHost) -> None:
        self.host = host
        self.after = config.freeze_idle()
        #: space id -> when a call last touched it (monotonic)
        self.touched: dict[int, float] = {}
        #: space id -> agent calls on it from their arrival to their end
        self.calls: Counter[int] = Counter()
        #: target ids of the frozen tabs
        self.frozen: set[str] = set()
        self.freezes = 0
        self.wakes = 0
        #: ``fn(target_id)`` after a tab was frozen (tests and the bench wait on it)
        self.on_frozen: list[Callable[[str], None]] = []
        self._locks: dict[str, asyncio.Lock] = {}
        self._kick = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="ego-idle-freezer")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def configure(self, after: float) -> None:
        """Freeze after ``after`` seconds idle from now on (0: never)."""
        self.after = after
        self._kick.set()

    def touch(self, space_id: int) -> None:
        self.touched[space_id] = time.monotonic()

    def call_started(self, space_id: int | None) -> None:
        """An agent call for the space arrived: the space is not idle, even while the call
        waits for its turn (``admission.py``)."""
        if space_id is not None:
            self.calls[space_id] += 1
            self.touch(space_id)

    def call_ended(self, space_id: int | None, others: Iterable[int] = ()) -> None:
        """A space's idle time counts from its last call's end. From its start, a call longer
        than ``after`` (a loaded host: 50 agents) had its tab frozen as soon as it ended and
        woken by the agent's next call, a garbage collection each time (the bench saw 104
        freezes in 159 rounds)."""
        if space_id is not None:
            self.calls[space_id] -= 1
            if self.calls[space_id] <= 0:
                del self.calls[space_id]
            self.touch(space_id)
        for other in others:
            self.touch(other)

    def count(self) -> int:
        """How many live tabs are frozen (a closed tab's entry goes when its close is seen here:
        a tab closed by the host leaves ``BrowserLink.targets`` before its event arrives)."""
        live = {t for t in self.frozen if self.host.browser.is_live_page(t)}
        for gone in self.frozen - live:
            self.forget(gone)
        return len(self.frozen)

    def forget(self, target_id: str) -> None:
        self.frozen.discard(target_id)
        self._locks.pop(target_id, None)

    async def wake(self, driver: PageDriver) -> None:
        """Make a frozen tab run again before a call uses it (a no-op for a running tab)."""
        tid = driver.target_id
        if tid not in self.frozen:
            return
        async with self._lock(tid):
            if tid not in self.frozen:
                return
            await driver.session.send("Page.setWebLifecycleState", {"state": "active"}, timeout=_CMD_TIMEOUT)
            self.frozen.discard(tid)
            self.wakes += 1

    def _lock(self, tid: str) -> asyncio.Lock:
        lock = self._locks.get(tid)
        if lock is None:
            lock = self._locks[tid] = asyncio.Lock()
        return lock

    def _idle(self, space_id: int) -> bool:
        now = time.monotonic()
        last = self.touched.setdefault(space_id, now)  # first seen now: its clock starts
        return self.after > 0 and now - last >= self.after and space_id not in self.calls and space_id not in self.host.busy_spaces()

    async def _run(self) -> None:
        while True:
            interval = min(max(self.after / 2, 0.05), 5.0) if self.after > 0 else 5.0
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval):
                    await self._kick.wait()
            self._kick.clear()
            if self.after > 0:
                try:
                    await self.sweep()
                except Exception:  # noqa: BLE001 - a failed sweep is retried at the next tick
                    logger.exception("idle sweep failed")

    async def sweep(self) -> None:
        store = self.host.store
        if store is None or self.host.browser.conn is None:
            return
        spaces = store.spaces()
        for gone in set(self.touched) - {s.id for s in spaces}:
            del self.touched[gone]
        for space in spaces:
            # a space the person holds is being looked at: it stays live
            if space.ownership != Ownership.AGENT or not self._idle(space.id):
                continue
            for row in store.pages(space.id):
                tid = row.target_id
                # a page whose trace picture is still to be taken (it yields to busy agents) waits
                if (row.state == OPEN and tid and tid not in self.frozen and self.host.browser.is_live_page(tid)
                        and not self.host.pictures.pending(tid)):
                    self.host.browser.use(space.browser_instance)
                    await self._freeze(space.id, tid)

    async def _freeze(self, space_id: int, tid: str) -> None:
        try:
            driver = await self.host.driver(tid)
        except Exception as exc:  # noqa: BLE001 - a tab that went away meanwhile stays as it is
            logger.debug("not freezing %s: %s", tid, exc)
            return
        async with self._lock(tid):
            if tid in self.frozen or driver.closed or driver.crashed or not self._idle(space_id):
                return
            self.frozen.add(tid)
            try:
                # collect first: a frozen page runs no tasks, and its idle garbage would stay
                for method, params in _SHRINK:
                    with contextlib.suppress(Exception):
                        await driver.session.send(method, params, timeout=_CMD_TIMEOUT)
                await driver.session.send("Page.setWebLifecycleState", {"state": "frozen"}, timeout=_CMD_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - the tab closed or navigated away: not frozen
                self.frozen.discard(tid)
                logger.debug("freezing %s failed: %s", tid, exc)
                return
            self.freezes += 1
        for fn in list(self.on_frozen):
            try:
                fn(tid)
            except Exception:  # noqa: BLE001 - an observer never breaks the sweep
                logger.exception("on_frozen listener failed")
