"""The pictures of a space's trace: one small JPEG of the page after each journaled action.

An action's *before* picture is the previous action's *after* picture on the same page, so
each action costs one capture, taken in the background once the action has returned (the
action's caller never waits for it; a trace export waits for the captures still running).

Where the page is cast already (the dashboard's live view, ``dashboard/screencast.py``, tells
:meth:`Pictures.cast_frame` of each frame), the picture is the cast's first frame drawn after
the action returned: the browser made it anyway, so it costs nothing more. A cast that sends
none within :data:`CAST_WAIT` (the page did not change, or the cast paused), or whose frames are
thumbnails (narrower than :data:`CAST_MIN_WIDTH`), falls back to a capture. A capture is
``Page.captureScreenshot`` at JPEG quality :data:`QUALITY` with ``optimizeForSpeed``, bounded
by :data:`CAPTURE_TIMEOUT` (measured against a trace's own screencast: docs/architecture.md,
"The trace of a space"); it is skipped while a JavaScript dialog is open (the browser paints
nothing until it closes). When the page already has a capture running, the next waits for it,
and the actions that come meanwhile share one picture: the one taken after the last of them.

Files: ``HOME/traces/SPACE/aNANOSECONDS.jpg``. Caps per space: :data:`MAX_SPACE_BYTES` (the oldest
pictures go first); at most :data:`MAX_SPACES` spaces keep pictures (the least recently
written go first). A space's pictures go with its journal (``Journal.forget``).

A capture is background work: while agents' calls wait for a turn (``host/core/admission.py``:
more agents than the host runs at once), a capture that has not started waits too, until no call
waits or :data:`YIELD_MAX` seconds pass, and the actions that come on that page meanwhile share
it. One agent alone never waits; fifty agents on two cores took a capture after nearly every
action (3.5 a round against 2 alone, each costing the renderer, the GPU process and the browser
process a frame), which made each round dearer the more spaces ran (issue 31 §2).

``EGO_BROWSER_TRACE_PICTURES=0`` turns pictures off (the journal itself is always on).
A capture or a write that fails (a full disk, a read-only home) is logged and skipped: the
action it follows has succeeded already and the trace so far stays as it was.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Pictures", "QUALITY", "CAPTURE_TIMEOUT", "CAST_WAIT", "CAST_MIN_WIDTH", "MAX_SPACE_BYTES", "MAX_SPACES",
           "YIELD_MAX", "enabled"]

logger = logging.getLogger("ego_browser.host")

QUALITY = 35
CAPTURE_TIMEOUT = 3.0
MAX_SPACE_BYTES = 32 * 1024 * 1024
MAX_SPACES = 64
#: seconds a picture waits for a running cast's next frame (a watched cast sends one at most
#: 0.15 s after a change on a quiet machine, one more interval if it had paused), then it is
#: captured. The wait is in the background (no action waits for a picture), and a busy machine
#: delays frames by a second and more: at 0.5 s a loaded run fell back to captures throughout
CAST_WAIT = 1.5
#: a cast's frames narrower than this (device pixels: the dashboard's list thumbnails) are not
#: kept as pictures; the page is captured instead
CAST_MIN_WIDTH = 480
#: seconds a capture not yet started yields to agents' calls waiting for a turn, at most
YIELD_MAX = 5.0


class _Cast:
    """The newest frame of a screencast running on a page, and a wake-up for the next."""

    __slots__ = ("data", "at", "width", "changed", "paused")

    def __init__(self) -> None:
        self.data: str | None = None  # base64 JPEG, as the browser sent it
        self.at = 0.0  # when it was drawn (wall clock, seconds)
        self.width = 0
        self.paused = False
        self.changed = asyncio.Event()

    def wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


def enabled() -> bool:
    return os.environ.get("EGO_BROWSER_TRACE_PICTURES", "1") not in ("0", "off", "false", "no")


class Pictures:
    """The pictures folder of every space, under ``root`` (``HOME/traces``)."""

    def __init__(self, root: Path, admission: Callable[[], Any] | None = None) -> None:
        self.root = root
        #: the host's admission (``host/core/admission.py``; read when used: tests swap it)
        self._admission = admission
        self._running: dict[str, asyncio.Task[None]] = {}  # target id -> its newest capture
        self._queued: dict[str, asyncio.Task[None]] = {}  # target id -> a capture waiting for the one before
        self._bytes: dict[int, int] = {}  # space -> bytes written (from the folder on first use)
        #: (space, page label) -> the file of the last picture taken there (the next action's "before")
        self.last: dict[tuple[int, str], str] = {}
        self.failures = 0
        self._casts: dict[str, _Cast] = {}  # target id -> the screencast running on it (the dashboard's)
        #: picture name -> when the last action it shows began and ended (wall clock)
        self._after: dict[str, tuple[float, float]] = {}
        self._names: dict[asyncio.Task[None], str] = {}  # a capture not done yet -> its picture's name
        #: pictures taken from a running cast's frames, and by ``Page.captureScreenshot``
        self.from_cast = 0
        self.captured = 0
        #: set while a trace export waits for the pictures (``settle``): nothing yields then
        self._flush = asyncio.Event()
        #: captures that yielded to agents' calls (each shared by the actions that came meanwhile)
        self.yielded = 0

    # -- frames the browser makes anyway ------------------------------------------------------

    def cast_started(self, target_id: str) -> None:
        self._casts.setdefault(target_id, _Cast())

    def cast_frame(self, target_id: str, data: str, drawn_at: float | None, width: Any) -> None:
        """A running cast's frame (every one, also those its viewers drop as unchanged)."""
        cast = self._casts.get(target_id)
        if cast is None:
            return
        cast.data, cast.at = data, float(drawn_at) if isinstance(drawn_at, (int, float)) else time.time()
        cast.width = int(width) if isinstance(width, (int, float)) else 0
        cast.paused = False
        cast.wake()

    def cast_stopped(self, target_id: str) -> None:
        cast = self._casts.pop(target_id, None)
        if cast is not None:
            cast.wake()

    def cast_paused(self, target_id: str) -> None:
        """The cast stopped for an interval (a burst): its last frame may be older than the page."""
        cast = self._casts.get(target_id)
        if cast is not None:
            cast.paused = True

    async def _from_cast(self, target: str, name: str) -> bytes | None:
        """The page's cast's first frame drawn after the action(s) picture ``name`` shows ended;
        failing that, at :data:`CAST_WAIT`, its last frame if drawn after the (last) action began
        and the cast runs (the page drew the action's change, then nothing more), else None."""
        started, ended = self._after.get(name, (0.0, 0.0))
        deadline, extended = time.monotonic() + CAST_WAIT, False
        while True:
            cast = self._casts.get(target)
            if cast is None or (cast.data is not None and cast.width < CAST_MIN_WIDTH):
                return None  # no cast, or one of thumbnails: capture now rather than wait for nothing
            if cast.data is not None and cast.at >= ended:
                break
            left = deadline - time.monotonic()
            if left <= 0 and cast.paused and not extended:
                # a paused cast sends the page as it is when it resumes (an interval of at most 1 s)
                deadline, extended, left = deadline + 1.0, True, 1.0
            if left <= 0:
                if cast.data is None or cast.paused or cast.at < started:
                    return None
                break
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(cast.changed.wait(), left)
        return base64.b64decode(cast.data) if cast.width >= CAST_MIN_WIDTH else None

    def folder(self, space_id: int) -> Path:
        return self.root / str(int(space_id))

    def schedule(self, space_id: int, label: str, driver: Any, started: float | None = None) -> str | None:
        """Start the capture of the picture after an action (that began at ``started``, wall
        clock); its file name, or None if skipped."""
        if not enabled() or driver is None:
            return None
        dialogs = getattr(driver, "dialogs", None)
        if dialogs is not None and dialogs.current is not None:
            return None
        target = str(getattr(driver, "target_id", "") or id(driver))
        # one capture at a time per page; the actions that follow while it runs share the one
        # waiting behind it, taken after the last of them (each action keeps a picture after it)
        queued = self._queued.get(target)
        if queued is not None and not queued.done():
            name = self._names[queued]
            self._after[name] = (started or time.time(), time.time())
            self.last[(space_id, label)] = name
            return name
        name = f"a{time.time_ns()}.jpg"  # in the order taken, across host restarts
        self._after[name] = (started or time.time(), time.time())
        # the capture running now, if any: the new one waits for it
        running = self._running.get(target)
        previous = running if running is not None and not running.done() else None
        task = asyncio.ensure_future(self._capture(space_id, name, driver, previous))
        self._names[task] = name
        if previous is None and not self.backlog():
            self._running[target] = task
        else:  # behind the running capture, or yielding to waiting calls: later actions share it
            self._queued[target] = task
        task.add_done_callback(lambda t: self._done(target, t))
        self.last[(space_id, label)] = name
        return name

    def _done(self, target: str, task: asyncio.Task[None]) -> None:
        self._after.pop(self._names.pop(task, ""), None)
        if self._running.get(target) is task:
            self._running.pop(target, None)
        if self._queued.get(target) is task:
            self._queued.pop(target, None)

    async def settle(self, timeout: float = 2 * (CAST_WAIT + CAPTURE_TIMEOUT) + 1) -> None:
        """Wait for the captures still running (a trace export reads their files)."""
        tasks = [*self._running.values(), *self._queued.values()]
        if tasks:
            self._flush.set()
            try:
                await asyncio.wait(tasks, timeout=timeout)
            finally:
                self._flush.clear()

    def backlog(self) -> bool:
        """Whether agents' calls wait for a turn (captures yield to them)."""
        return self._admission is not None and bool(self._admission().waiting())

    def pending(self, target_id: str) -> bool:
        """Whether a picture of that page is still to be taken (the idle sweep leaves its tab awake)."""
        return any(t is not None and not t.done() for t in (self._running.get(target_id), self._queued.get(target_id)))

    async def _yield(self) -> None:
        """Wait while agents' calls wait for a turn (at most YIELD_MAX s; not during an export)."""
        if self._admission is None or not self.backlog() or self._flush.is_set():
            return
        self.yielded += 1
        waits = [asyncio.ensure_future(self._admission().quiet(YIELD_MAX)), asyncio.ensure_future(self._flush.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    async def _capture(self, space_id: int, name: str, driver: Any, previous: asyncio.Task[None] | None) -> None:
        if previous is not None and not previous.done():
            await asyncio.wait([previous])
        target = str(getattr(driver, "target_id", "") or id(driver))
        if target not in self._casts:  # a cast's frames cost nothing more: never deferred
            await self._yield()
        current = asyncio.current_task()
        if self._queued.get(target) is current and current is not None:
            self._queued.pop(target, None)
            self._running[target] = current  # it runs now: the next action's capture waits for it
        try:
            frame = await self._from_cast(target, name) if target in self._casts else None
            if frame is not None:
                self.from_cast += 1
                await asyncio.to_thread(self._write, space_id, name, frame)
                return
            self.captured += 1
            for attempt in (1, 2):  # a capture that meets a navigation's swap of documents fails once
                try:
                    res = await driver.session.send("Page.captureScreenshot", {
                        "format": "jpeg", "quality": QUALITY, "optimizeForSpeed": True}, timeout=CAPTURE_TIMEOUT)
                    break
                except (asyncio.CancelledError, OSError):
                    raise
                except Exception:
                    if attempt == 2:
                        raise
            data = base64.b64decode(res["data"])
            await asyncio.to_thread(self._write, space_id, name, data)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a picture that cannot be taken or kept is skipped
            self.failures += 1
            logger.info("trace: picture %s of space %s skipped (%s)", name, space_id, exc)

    def _write(self, space_id: int, name: str, data: bytes) -> None:
        folder = self.folder(space_id)
        folder.mkdir(parents=True, exist_ok=True)
        if space_id not in self._bytes:
            self._bytes[space_id] = sum(p.stat().st_size for p in folder.glob("*.jpg"))
            self._rotate_spaces(space_id)
        tmp = folder / f".{name}.tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, folder / name)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        self._bytes[space_id] += len(data)
        if self._bytes[space_id] > MAX_SPACE_BYTES:
            self._trim(space_id)

    def _trim(self, space_id: int) -> None:
        """Drop the oldest pictures until the space is under 3/4 of its cap (not one per write)."""
        files = sorted(self.folder(space_id).glob("a*.jpg"), key=lambda p: int(p.stem[1:] or 0))
        total = sum(p.stat().st_size for p in files)
        for p in files:
            if total <= MAX_SPACE_BYTES * 3 // 4:
                break
            total -= p.stat().st_size
            p.unlink(missing_ok=True)
        self._bytes[space_id] = total

    def _rotate_spaces(self, keep: int) -> None:
        """At most MAX_SPACES folders: the least recently written go (never ``keep``)."""
        folders = [p for p in self.root.iterdir() if p.is_dir() and p.name.isdigit() and p.name != str(keep)]
        folders.sort(key=lambda p: p.stat().st_mtime)
        for old in folders[:max(0, len(folders) - (MAX_SPACES - 1))]:
            self.forget(int(old.name))

    def forget(self, space_id: int) -> None:
        shutil.rmtree(self.folder(space_id), ignore_errors=True)
        self._bytes.pop(space_id, None)
        for key in [k for k in self.last if k[0] == space_id]:
            self.last.pop(key, None)

    def files(self, space_id: int) -> dict[str, Path]:
        folder = self.folder(space_id)
        if not folder.is_dir():
            return {}
        return {p.name: p for p in folder.glob("a*.jpg")}
