"""Native file choosers of one page: the armed waiter, the choosers nobody waited for, the
choosers handed out, and the action pipeline's check that turns an unarmed one into
``FileChooserOpened``.

``Page.setInterceptFileChooserDialog`` is on for every page (``driver/page.py``), so a native
chooser never appears: Chromium reports ``Page.fileChooserOpened`` (frame, mode, the input's
backend node) instead, before the click that opened it is answered. A chooser goes to the
page's armed waiter (``page.arm_file_chooser`` at call time, then ``page.wait_file_chooser``);
with no waiter it is recorded as *unarmed*, and the action's receipt
(``driver/receipts.run_action``) raises ``FileChooserOpened``. An intercepted chooser left
unhandled is simply dropped by Chromium: nothing is set, and the next click opens a new one.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import Any

from ..errors import CdpChannelUnavailable, EgoTimeout, FileChooserOpened, HostDisconnected, InvalidState

__all__ = ["FileChoosers"]

#: choosers nobody waited for, kept per page (the dashboard offers the newest to the person)
UNARMED_KEPT = 16


@dataclass
class _Waiter:
    token: int
    fut: asyncio.Future[dict[str, Any]]


class FileChoosers:
    """The page driver's file-chooser part (``driver.choosers``).

    It needs nothing of the page but its events, so the host may make one before the page is
    attached (a waiter armed first thing after a host restart) and hand it to the driver.
    """

    def __init__(self) -> None:
        self.waiter: _Waiter | None = None
        self.unarmed: list[dict[str, Any]] = []
        self.seq = 0
        self.handed: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count(1)  # waiter tokens and chooser ids (one page's)

    # -- Chromium's event, the page's end, the host's ------------------------------------------

    def opened(self, params: dict[str, Any]) -> None:
        """``Page.fileChooserOpened``: to the armed waiter, else kept as unarmed."""
        self.seq += 1
        chooser = {
            "id": next(self._ids),
            "seq": self.seq,
            "frame_id": params.get("frameId"),
            "backend_node_id": params.get("backendNodeId"),
            "multiple": params.get("mode") == "selectMultiple",
        }
        waiter = self.waiter
        if waiter is not None and not waiter.fut.done():
            # the waiter stays until its wait collects the chooser: the action that opened it may
            # be answered before the wait request reaches the host (it is sent after the action's)
            waiter.fut.set_result(chooser)
        else:
            self.unarmed.append(chooser)
            del self.unarmed[:-UNARMED_KEPT]

    def page_closed(self) -> None:
        self._fail(CdpChannelUnavailable(
            "the page was closed while page.wait_for_file_chooser was waiting", method=None))

    def host_stopped(self) -> None:
        self._fail(HostDisconnected(
            "the ego_browser host stopped while page.wait_for_file_chooser was waiting",
            api="page.wait_for_file_chooser",
        ))

    def _fail(self, error: Exception) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.fut.done():
            waiter.fut.set_exception(error)
            waiter.fut.exception()  # retrieved: whoever awaits it still gets it

    # -- the action pipeline's check ------------------------------------------------------

    def mark(self) -> int:
        """Call before an action: the chooser sequence number it starts from."""
        return self.seq

    def unarmed_error(self, mark: int, api: str) -> FileChooserOpened | None:
        """After an action: the error to raise if it opened a chooser no waiter took."""
        opened = [c for c in self.unarmed if c["seq"] > mark]
        if not opened:
            return None
        self.unarmed = [c for c in self.unarmed if c["seq"] <= mark]
        return FileChooserOpened(
            f"{api} opened a native file chooser, but no waiter was armed; it was cancelled and no file was set. "
            "Set files directly with page.set_input_files(selector, files), or arm "
            "w = page.wait_for_file_chooser() before the action and call (await w).set_files(files)",
            api=api,
        )

    # -- waiting for one ------------------------------------------------------------------

    def arm(self) -> int:
        """Arm the page's one waiter (at call time, before the action that opens the chooser)."""
        if self.waiter is not None and not self.waiter.fut.done():  # a chooser it got, uncollected, is dropped
            raise InvalidState(
                "page.wait_for_file_chooser: a file chooser waiter is already pending on this page; await it first",
                api="page.wait_for_file_chooser",
            )
        token = next(self._ids)
        self.waiter = _Waiter(token, asyncio.get_running_loop().create_future())
        return token

    def disarm(self, token: int) -> None:
        if self.waiter is not None and self.waiter.token == token:
            self.waiter.fut.cancel()
            self.waiter = None

    async def wait(self, token: int, timeout_ms: float) -> dict[str, Any]:
        """The chooser the armed waiter ``token`` gets, as ``{id, multiple}`` (kept to be answered)."""
        api = "page.wait_for_file_chooser"
        waiter = self.waiter
        if waiter is None or waiter.token != token:
            raise InvalidState(f"{api}: this waiter is no longer armed", api=api)
        try:
            chooser = await asyncio.wait_for(asyncio.shield(waiter.fut), timeout_ms / 1000)
        except asyncio.TimeoutError:
            if self.waiter is waiter:
                self.waiter = None
            waiter.fut.cancel()
            raise EgoTimeout(f"{api} timed out after {round(timeout_ms)}ms", api=api,
                             timeout_ms=round(timeout_ms)) from None
        if self.waiter is waiter:
            self.waiter = None
        self.handed[chooser["id"]] = chooser
        return {"id": chooser["id"], "multiple": chooser["multiple"]}

    def take(self, chooser_id: int, api: str) -> dict[str, Any]:
        """The handed-out chooser ``chooser_id``, once (answering it twice is refused)."""
        chooser = self.handed.pop(chooser_id, None)
        if chooser is None:
            raise InvalidState(f"{api}: this file chooser was already handled", api=api)
        return chooser

    # -- the person's ---------------------------------------------------------------------

    def newest_unarmed(self) -> dict[str, Any] | None:
        """The newest chooser no agent waited for (the dashboard lets the person answer it)."""
        return self.unarmed[-1] if self.unarmed else None

    def answered(self, chooser: dict[str, Any]) -> None:
        if chooser in self.unarmed:
            self.unarmed.remove(chooser)
