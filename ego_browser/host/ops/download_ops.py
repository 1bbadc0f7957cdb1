"""The download operations: arming and waiting on a page, and what a ``Download`` asks of its
file (path, failure, save_as, cancel, delete). The downloads themselves, the browser-wide
behaviour and the records, are the ``Downloads`` feature (``downloads.py``).
"""

from __future__ import annotations

import asyncio

import contextlib
import os
from typing import TYPE_CHECKING, Any

from ...errors import CdpError, DownloadFailed, InvalidArgument, InvalidState
from ..features.downloads import DownloadRecord, Downloads
from ..core.dispatch import op, sync_op
from ..core.user_files import copy_file

if TYPE_CHECKING:
    from ..core.host import Host


def downloads(host: Host) -> Downloads:
    d = host.features.downloads
    d.start()  # listening from the first use (idempotent)
    return d


# -- ops -----------------------------------------------------------------------------------------


def _wire(rec: DownloadRecord) -> dict[str, Any]:
    return {"guid": rec.guid, "url": rec.url, "suggested_filename": rec.suggested, "dir": rec.dir}


@sync_op("page.arm_download")
def arm_download(host: Host, at: dict[str, Any], *, dir: str) -> int:  # noqa: A002
    space = host.space_row(at.get("space"))
    row = host.page_row(space, str(at.get("label")))
    return downloads(host).of(row.target_id or "").arm(dir, row.label)


@sync_op("page.disarm_download")
def disarm_download(host: Host, at: dict[str, Any], *, token: int) -> None:
    space = host.space_row(at.get("space"))
    row = host.page_row(space, str(at.get("label")))
    page = downloads(host).peek(row.target_id or "")
    if page is not None:
        page.disarm(token)


@op("page.wait_download")
async def wait_download(host: Host, at: dict[str, Any], *, token: int, dir: str,  # noqa: A002
                        timeout: float) -> dict[str, Any]:
    api = "page.wait_for_event"
    ctx = await host.page_ctx(at, gated=False)
    d = downloads(host)
    page = d.of(ctx.driver.target_id)
    if not page.armed(token):
        # already resolved before this request arrived?
        for rec in d.records.values():
            if rec.target_id == ctx.driver.target_id and rec.dir == dir:
                return _wire(rec)
        raise InvalidState(f"{api}: this download waiter is no longer armed", api=api)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout / 1000
    with host.admission.clock(ctx.space.id) as queued:  # the click that starts it may wait its turn
        return _wire(await page.wait(token, timeout, lambda: queued.remaining(deadline)))


@op("Download.path")
async def download_path(host: Host, at: dict[str, Any], *, guid: str) -> str:
    rec = await downloads(host).finished(guid)
    if rec.path is None:
        reason = rec.reason or rec.state
        raise DownloadFailed(f"download of {rec.url} failed: {reason}", reason=reason)
    return rec.path


@op("Download.failure")
async def download_failure(host: Host, at: dict[str, Any], *, guid: str) -> str | None:
    rec = await downloads(host).finished(guid)
    return None if rec.path is not None else (rec.reason or rec.state)


@op("Download.save_as")
async def download_save_as(host: Host, at: dict[str, Any], *, guid: str, path: str) -> str:
    dest = path
    if not isinstance(dest, str) or not os.path.isabs(dest):
        raise InvalidArgument("download.save_as requires an absolute file path", api="download.save_as",
                              option="path", expected="an absolute path")
    src = await download_path(host, at, guid=guid)
    await copy_file("download.save_as", "path", src, dest)
    return dest


@op("Download.cancel")
async def download_cancel(host: Host, at: dict[str, Any], *, guid: str) -> None:
    d = downloads(host)
    rec = d.records.get(guid)
    if rec is None or rec.done.done():
        return
    params: dict[str, Any] = {"guid": rec.guid}
    if rec.context_id:
        params["browserContextId"] = rec.context_id
    assert host.browser.conn is not None
    try:
        await host.browser.conn.send("Browser.cancelDownload", params, timeout=5.0)
    except CdpError:
        pass
    rec.reason = "canceled"


@op("Download.delete")
async def download_forget(host: Host, at: dict[str, Any], *, guid: str) -> None:
    d = downloads(host)
    rec = d.records.get(guid)
    if rec is None:
        return
    if not rec.done.done():
        rec.dir = None  # still running: the file is dropped when it finishes
        return
    d.records.pop(rec.guid, None)
    if rec.path:
        with contextlib.suppress(OSError):
            os.unlink(rec.path)
