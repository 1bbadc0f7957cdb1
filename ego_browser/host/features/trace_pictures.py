"""The pictures of a space's trace: one small JPEG of the page after each journaled action.

An action's *before* picture is the previous action's *after* picture on the same page, so
each action costs one capture, taken in the background once the action has returned (the
action's caller never waits for it; a trace export waits for the captures still running).
A capture is ``Page.captureScreenshot`` at JPEG quality :data:`QUALITY` with
``optimizeForSpeed``, bounded by :data:`CAPTURE_TIMEOUT`; it is skipped while a JavaScript
dialog is open (the browser paints nothing until it closes). When the page already has a
capture running, the next capture waits for it, and of several waiting only the newest is
taken (a burst of actions gets the picture of its last one).

Files: ``HOME/traces/SPACE/aNANOSECONDS.jpg``. Caps per space: :data:`MAX_SPACE_BYTES` (the oldest
pictures go first); at most :data:`MAX_SPACES` spaces keep pictures (the least recently
written go first). A space's pictures go with its journal (``Journal.forget``).

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
from pathlib import Path
from typing import Any

__all__ = ["Pictures", "QUALITY", "CAPTURE_TIMEOUT", "MAX_SPACE_BYTES", "MAX_SPACES", "enabled"]

logger = logging.getLogger("ego_browser.host")

QUALITY = 35
CAPTURE_TIMEOUT = 3.0
MAX_SPACE_BYTES = 32 * 1024 * 1024
MAX_SPACES = 64


def enabled() -> bool:
    return os.environ.get("EGO_BROWSER_TRACE_PICTURES", "1") not in ("0", "off", "false", "no")


class Pictures:
    """The pictures folder of every space, under ``root`` (``HOME/traces``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._running: dict[str, asyncio.Task[None]] = {}  # target id -> its newest capture
        self._queued: dict[str, asyncio.Task[None]] = {}  # target id -> a capture waiting for the one before
        self._bytes: dict[int, int] = {}  # space -> bytes written (from the folder on first use)
        #: (space, page label) -> the file of the last picture taken there (the next action's "before")
        self.last: dict[tuple[int, str], str] = {}
        self.failures = 0

    def folder(self, space_id: int) -> Path:
        return self.root / str(int(space_id))

    def schedule(self, space_id: int, label: str, driver: Any) -> str | None:
        """Start the capture of the picture after an action; its file name, or None if skipped."""
        if not enabled() or driver is None:
            return None
        dialogs = getattr(driver, "dialogs", None)
        if dialogs is not None and dialogs.current is not None:
            return None
        target = str(getattr(driver, "target_id", "") or id(driver))
        # one capture at a time per page; of the actions that follow while it runs, only the
        # last one's picture is taken (the ones in between show in their successor's "before")
        queued = self._queued.pop(target, None)
        if queued is not None:
            queued.cancel()
        name = f"a{time.time_ns()}.jpg"  # in the order taken, across host restarts
        # the capture running now (never a queued one that was just cancelled): the new one waits for it
        running = self._running.get(target)
        previous = running if running is not None and not running.done() else None
        task = asyncio.ensure_future(self._capture(space_id, name, driver, previous))
        if previous is None:
            self._running[target] = task
        else:
            self._queued[target] = task
        task.add_done_callback(lambda t: self._done(target, t))
        self.last[(space_id, label)] = name
        return name

    def _done(self, target: str, task: asyncio.Task[None]) -> None:
        if self._running.get(target) is task:
            self._running.pop(target, None)
        if self._queued.get(target) is task:
            self._queued.pop(target, None)

    async def settle(self, timeout: float = CAPTURE_TIMEOUT + 1) -> None:
        """Wait for the captures still running (a trace export reads their files)."""
        tasks = [*self._running.values(), *self._queued.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def _capture(self, space_id: int, name: str, driver: Any, previous: asyncio.Task[None] | None) -> None:
        if previous is not None and not previous.done():
            await asyncio.wait([previous])
        target = str(getattr(driver, "target_id", "") or id(driver))
        current = asyncio.current_task()
        if self._queued.get(target) is current and current is not None:
            self._queued.pop(target, None)
            self._running[target] = current  # it runs now: the next action's capture waits for it
        try:
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
