"""Admission: how many agent calls the host works on at once, and who goes next.

Fifty agents on two cores all want the browser at the same moment; letting every call in
at once makes each one slower and the slowest unbounded (whoever loses the race for the
event loop and the renderer loses it again). So at most ``EGO_BROWSER_MAX_ACTIVE`` calls
run; the rest wait in arrival order (a freed turn goes straight to the oldest waiter, so
no agent starves), and past ``EGO_BROWSER_MAX_QUEUED`` waiting, or ``EGO_BROWSER_QUEUE_WAIT``
seconds in the queue, a call is refused at once with ``EGO_HOST_OVERLOADED``: a clear
error that nothing ran, not a hang until the call's own deadline.

The wait for a turn is not taken from the call's own time: once admitted, the request's
deadline starts again, so a click with a 3 s timeout still gets its 3 s (+ margin) on the
page after waiting its turn. The wait is capped below the round's reply margin
(``wire.protocol.REPLY_MARGIN``), so the round never gives up on a call the host still runs.

Nor is it taken from a wait's time on the same space: a popup or download waiter armed before
the click that causes it counts its deadline without the seconds the space's calls spent waiting
for a turn meanwhile (``QueueClock``; the click may wait up to ``EGO_BROWSER_QUEUE_WAIT``, and a
10 s waiter timed out behind a queued click at 50 agents), pushing its request's own deadline as far.

Calls that wait for something another call causes (``wait_*``, arming a waiter, dialogs),
the person's operations and the ones that free resources (``finish``, ``release``) are
never queued: holding a turn while waiting, or refusing a clean-up, could wedge the host.
Nor is opening a space (``task_space``): it mostly waits for a browser (a Grid session takes
seconds to start), and with cores + 1 turns six spaces opened at once on a Grid would hold every
turn while the rest of the agents' calls were refused.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from collections.abc import Iterator

from ... import config
from ...wire.protocol import REPLY_MARGIN
from ...errors import HostOverloaded

__all__ = ["Admission", "QueueClock", "admitted"]

#: the running request's own deadline (``Host.handle``'s timer), for a wait that extends it
_TIMER: ContextVar[asyncio.Timeout | None] = ContextVar("ego_request_timer", default=None)

_FREE_PREFIXES = ("host.", "dashboard.", "spaces.", "profiles")
_FREE_PARTS = ("wait", "arm_", "dialog", "events", "gate", "url_watch", "nav_mark", "control", "take_over",
               "claim", "report", "finish", "release", "hand_off", "set_status", "task_space")


def admitted(op: str) -> bool:
    """Whether ``op`` takes a turn (is queued at the limit)."""
    return not (op.startswith(_FREE_PREFIXES) or any(part in op for part in _FREE_PARTS))


class Admission:
    def __init__(self, limit: int | None = None, queue_max: int | None = None, wait: float | None = None) -> None:
        self.limit = limit or config.max_active()
        self.queue_max = queue_max or config.max_queued()
        # past the round's margin the round would give up on a call the host still serves
        self.wait = min(wait or config.queue_wait(), REPLY_MARGIN - 2)
        self.active = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        #: calls refused, and the longest any admitted call waited for its turn (seconds)
        self.refused = 0
        self.longest_wait = 0.0
        #: ``fn()`` after each change of ``active`` or ``queued`` (tests wait on it)
        self.watchers: list[Callable[[], None]] = []
        #: space -> when each of its calls waiting for a turn now began waiting
        self._space_waits: dict[int, dict[asyncio.Future[None], float]] = {}
        #: space -> the clocks of its waits running now
        self._clocks: dict[int, list[QueueClock]] = {}

    @contextmanager
    def clock(self, space: int) -> Iterator[QueueClock]:
        """A clock of the seconds ``space``'s calls wait for a turn while the block runs."""
        clock = QueueClock(self, space)
        self._clocks.setdefault(space, []).append(clock)
        try:
            yield clock
        finally:
            clocks = self._clocks.get(space, [])
            if clock in clocks:
                clocks.remove(clock)
            if not clocks:
                self._clocks.pop(space, None)

    @property
    def queued(self) -> int:
        return len(self._waiters)

    @asynccontextmanager
    async def turn(self, op: str, deadline: float, timer: asyncio.Timeout | None = None,
                   space: int | None = None) -> AsyncIterator[None]:
        """Hold one turn for ``op`` (a call of ``space``) while the block runs; ``timer`` (the
        request's deadline) is set to ``deadline`` from the moment the turn is given, after any wait."""
        if not admitted(op):
            reset = _TIMER.set(timer)  # a wait may extend it (QueueClock)
            try:
                yield
            finally:
                _TIMER.reset(reset)
            return
        if self.active < self.limit and not self._waiters:
            self.active += 1
            self._tell()
        else:
            loop = asyncio.get_running_loop()
            if timer is not None and timer.when() is not None:
                timer.reschedule(loop.time() + self.wait + deadline)  # the queue's refusal comes first
            await self._queue(op, space)
            if timer is not None and timer.when() is not None:
                timer.reschedule(loop.time() + deadline)
        try:
            yield
        finally:
            self._release()

    async def _queue(self, op: str, space: int | None = None) -> None:
        if len(self._waiters) >= self.queue_max:
            self.refused += 1
            raise self._error(op, f"{len(self._waiters)} calls already wait for a turn", 0.0)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        self._tell()
        started = time.monotonic()
        if space is not None:
            self._space_waits.setdefault(space, {})[fut] = started
        limit = self.wait
        try:
            async with asyncio.timeout(limit):
                await fut
        except BaseException as exc:
            self._waited(space, fut, started)
            if fut.done() and not fut.cancelled():
                self._release()  # the turn was handed over just as the wait ended: pass it on
            else:
                fut.cancel()
                try:
                    self._waiters.remove(fut)
                except ValueError:
                    pass
                self._tell()
            if isinstance(exc, TimeoutError):
                self.refused += 1
                raise self._error(op, f"it waited {limit:.1f}s for a turn", limit) from exc
            raise
        self._waited(space, fut, started)
        self.longest_wait = max(self.longest_wait, time.monotonic() - started)

    def _waited(self, space: int | None, fut: asyncio.Future[None], started: float) -> None:
        """A call of ``space`` stopped waiting for a turn: its wait goes to the space's clocks."""
        if space is None:
            return
        waits = self._space_waits.get(space, {})
        waits.pop(fut, None)
        if not waits:
            self._space_waits.pop(space, None)
        now = time.monotonic()
        for clock in self._clocks.get(space, ()):
            clock.done += max(0.0, now - max(started, clock.since))

    def _release(self) -> None:
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)  # the turn passes straight on: ``active`` stays
                self._tell()
                return
        self.active -= 1
        self._tell()

    def waiting(self) -> bool:
        """Whether any call waits for a turn (background work, such as a trace's pictures, yields then)."""
        return bool(self._waiters)

    async def quiet(self, limit: float) -> None:
        """Return once no call waits for a turn (at once if none does), or after ``limit`` seconds."""
        if not self._waiters:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def changed() -> None:
            if not self._waiters and not done.done():
                done.set_result(None)

        self.watchers.append(changed)
        try:
            async with asyncio.timeout(limit):
                await done
        except TimeoutError:
            pass
        finally:
            self.watchers.remove(changed)

    def _tell(self) -> None:
        for fn in list(self.watchers):
            fn()

    def _error(self, op: str, why: str, waited: float) -> HostOverloaded:
        return HostOverloaded(
            f"{op}: the host is at its admission limit ({self.active} calls running, {len(self._waiters)} waiting) "
            f"and {why}; nothing of the call ran. Pause and repeat it, run fewer agents on this host, or raise "
            "EGO_BROWSER_MAX_ACTIVE / EGO_BROWSER_MAX_QUEUED (docs/scale-out.md has the sizing rule)",
            api=op, active=self.active, queued=len(self._waiters), waited_ms=round(waited * 1000),
        )


class QueueClock:
    """The seconds one space's calls waited for a turn since the clock started (``Admission.clock``):
    a wait on that space (a popup, a download) adds them to its deadline, capped at the queue's
    own limit, and pushes its request's deadline as far (the round waits that plus its margin)."""

    def __init__(self, admission: Admission, space: int) -> None:
        self.admission = admission
        self.space = space
        self.since = time.monotonic()
        self.done = 0.0
        self._timer = _TIMER.get()
        self._granted = 0.0

    def waited(self) -> float:
        """Seconds waited so far, the waits still running included."""
        now = time.monotonic()
        running = self.admission._space_waits.get(self.space, {}).values()
        return self.done + sum(max(0.0, now - max(s, self.since)) for s in running)

    def remaining(self, deadline: float) -> float:
        """Seconds left until ``deadline`` (loop time) plus the space's waits for a turn."""
        extra = min(self.waited(), self.admission.wait)
        if extra > self._granted:
            timer = self._timer
            when = timer.when() if timer is not None else None
            if timer is not None and when is not None:
                timer.reschedule(when + extra - self._granted)
            self._granted = extra
        return deadline + extra - asyncio.get_running_loop().time()
