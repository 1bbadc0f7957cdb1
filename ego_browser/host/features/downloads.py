"""Downloads: captured per Page through an armed waiter, never mixed between spaces.

Every browser context a driven Page lives in gets ``Browser.setDownloadBehavior`` with
``allowAndName`` (files named by the download's guid) into the host's private
``run/downloads`` folder, with events on. ``Browser.downloadWillBegin`` names the frame that
started the download; the host maps it to its Page, so a download reaches only a waiter of
that Page (``page.arm_download`` at call time, then ``page.wait_download``): the waiter is the
page driver's part, ``driver/downloads.py`` (``driver.downloads``). The round gives
each waiter its own temp folder (``$TMPDIR/ego-browser-download-*``, removed when the round's
process exits); the finished file is moved there. A download nobody waited for is deleted
when it finishes.

A browser whose downloads land on another machine (a Selenium Grid node with managed
downloads: ``BrowserLink.download_dir``) writes them into its node's folder instead; the host
never opens that path (it may not exist here, or be someone else's file): the finished file
is fetched over the Grid's HTTP API into the waiter's folder, and one nobody waited for stays
on the node until its session ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import posixpath
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ...driver.downloads import PageDownloads
from ...driver.page import PageDriver
from ...errors import CdpChannelUnavailable, CdpError, EgoError, InvalidState
from ..core.browser import BrowserLink

__all__ = ["DownloadHost", "DownloadRecord", "Downloads"]

logger = logging.getLogger("ego_browser.host")


class DownloadHost(Protocol):
    """What the downloads need of the ``Host`` (``core`` is above them): its run folder, the
    browser, and the attached pages."""

    run_dir: Path
    browser: BrowserLink
    drivers: dict[str, PageDriver]


@dataclass
class DownloadRecord:
    """One download the browser announced, from its start until it is deleted."""

    guid: str
    url: str
    suggested: str
    target_id: str | None
    context_id: str | None
    state: str = "inProgress"
    temp_path: str | None = None  # where Chromium wrote it
    dir: str | None = None  # the waiter's folder
    path: str | None = None  # the file in that folder
    reason: str | None = None
    #: the browser that downloads it, and its own folder when that is not ours to read
    instance: str | None = None
    remote_dir: str = ""
    done: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Downloads:
    """The browser-wide download behaviour per context and the records by guid (one per host)."""

    def __init__(self, host: DownloadHost) -> None:
        self.host = host
        self.base = host.run_dir / "downloads"
        self.contexts: set[str | None] = set()
        self.records: dict[str, DownloadRecord] = {}
        #: target id -> the waiter part of a page armed before its driver was attached
        self.early: dict[str, PageDownloads[DownloadRecord]] = {}
        self._offs: list[Any] = []
        self._fetches: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        conn = self.host.browser.conn
        if conn is None or self._offs:
            return
        self._offs = [
            conn.on("Browser.downloadWillBegin", self._will_begin),
            conn.on("Browser.downloadProgress", self._progress),
        ]

    def stop(self) -> None:
        for off in self._offs:
            off()
        self._offs = []
        for driver in list(self.host.drivers.values()):
            driver.downloads.host_stopped()
        for early in self.early.values():
            early.host_stopped()
        self.early.clear()
        for task in self._fetches:
            task.cancel()
        for rec in self.records.values():
            if not rec.done.done():
                rec.done.cancel()
            if rec.temp_path:
                with contextlib.suppress(OSError):
                    os.unlink(rec.temp_path)
        self.records.clear()

    def of(self, target_id: str) -> PageDownloads[DownloadRecord]:
        """The download waiter part of the page ``target_id`` (made now if it has none yet)."""
        found = self.peek(target_id)
        if found is None:
            found = self.early[target_id] = PageDownloads()
        return found

    def peek(self, target_id: str) -> PageDownloads[DownloadRecord] | None:
        early = self.early.get(target_id)
        if early is not None:
            return early  # until on_driver hands it over
        driver = self.host.drivers.get(target_id)
        if driver is None or driver.closed:
            return None
        part: PageDownloads[DownloadRecord] = driver.downloads
        return part

    async def on_driver(self, driver: PageDriver) -> None:
        early = self.early.pop(driver.target_id, None)
        if early is not None:
            driver.downloads = early
        self.start()
        info = self.host.browser.targets.get(driver.target_id) or {}
        await self.ensure_context(info.get("browserContextId"), self.host.browser.target_owner.get(driver.target_id))

    async def ensure_context(self, context_id: str | None, instance: str | None = None) -> None:
        if context_id in self.contexts or self.host.browser.conn is None:
            return
        folder = self.host.browser.download_dir(instance)
        if not folder:
            self.base.mkdir(parents=True, exist_ok=True, mode=0o700)
            folder = str(self.base)
        params: dict[str, Any] = {"behavior": "allowAndName", "downloadPath": folder, "eventsEnabled": True}
        if context_id:
            params["browserContextId"] = context_id
        try:
            await self.host.browser.conn.send("Browser.setDownloadBehavior", params, timeout=5.0)
            self.contexts.add(context_id)
        except (CdpError, CdpChannelUnavailable, TimeoutError) as exc:
            logger.warning("download behaviour not set for context %s: %s", context_id, exc)

    # -- events -----------------------------------------------------------------------------

    def _page_of_frame(self, frame_id: str) -> str | None:
        for tid, driver in self.host.drivers.items():
            if driver.frames.get(frame_id) is not None:
                return tid
        return frame_id if self.host.browser.is_live_page(frame_id) else None

    def _will_begin(self, params: dict[str, Any], _sid: str | None) -> None:
        target_id = self._page_of_frame(params.get("frameId") or "")
        info = self.host.browser.targets.get(target_id or "") or {}
        instance = self.host.browser.target_owner.get(target_id or "")
        rec = DownloadRecord(
            guid=params["guid"], url=params.get("url", ""), suggested=params.get("suggestedFilename", ""),
            target_id=target_id, context_id=info.get("browserContextId"),
            instance=instance, remote_dir=self.host.browser.download_dir(instance),
        )
        self.records[rec.guid] = rec
        page = self.peek(target_id) if target_id else None
        if page is not None:
            rec.dir = page.offer(rec)

    def _progress(self, params: dict[str, Any], _sid: str | None) -> None:
        rec = self.records.get(params.get("guid", ""))
        if rec is None:
            return
        state = params.get("state")
        if state == "inProgress":
            return
        rec.state = state or "canceled"
        if rec.remote_dir:
            # a path on the browser's machine: only its name means something here
            name = posixpath.basename(params.get("filePath") or "") or rec.guid
            if rec.state == "completed":
                task = asyncio.get_running_loop().create_task(self._fetch(rec, name))
                self._fetches.add(task)
                task.add_done_callback(self._fetches.discard)
                return  # done once fetched
            rec.reason = "canceled"
            if not rec.done.done():
                rec.done.set_result(None)
            return
        rec.temp_path = params.get("filePath") or str(self.base / rec.guid)
        if rec.state == "completed":
            self._deliver(rec)
        else:
            rec.reason = "canceled"
            with contextlib.suppress(OSError):
                os.unlink(rec.temp_path)
        if not rec.done.done():
            rec.done.set_result(None)

    def _deliver(self, rec: DownloadRecord) -> None:
        src = rec.temp_path
        if src is None:
            return
        if rec.dir is None or not os.path.isdir(rec.dir):
            # nobody waits for it (or the round that did has ended)
            with contextlib.suppress(OSError):
                os.unlink(src)
            self.records.pop(rec.guid, None)
            return
        name = os.path.basename(rec.suggested) or rec.guid
        dest = os.path.join(rec.dir, name)
        try:
            shutil.move(src, dest)
            rec.path = dest
        except OSError as exc:
            rec.state, rec.reason = "failed", f"could not move the file: {exc}"

    async def _fetch(self, rec: DownloadRecord, name: str) -> None:
        """A remote browser's finished download, fetched into the waiter's folder."""
        try:
            if rec.dir is None or not os.path.isdir(rec.dir) or rec.instance is None:
                self.records.pop(rec.guid, None)  # nobody waits for it: it stays on the node
                return
            dest = os.path.join(rec.dir, os.path.basename(rec.suggested) or rec.guid)
            await self.host.browser.fetch_download(rec.instance, name, dest)
            rec.path = dest
        except (EgoError, OSError, ValueError, zipfile.BadZipFile) as exc:
            rec.state, rec.reason = "failed", f"could not fetch the file from the browser's machine: {exc}"
        finally:
            if not rec.done.done():
                rec.done.set_result(None)

    async def finished(self, guid: str) -> DownloadRecord:
        rec = self.records.get(guid)
        if rec is None:
            raise InvalidState("download: this download is no longer known to the host (deleted?)", api="download")
        await asyncio.shield(rec.done)
        return rec
