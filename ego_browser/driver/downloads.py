"""The download waiter of one page.

Downloads themselves are the browser's (``Browser.downloadWillBegin``/``downloadProgress`` on
the browser connection, files named by guid in a folder per browser): the host keeps them
(``host/features/downloads.py``). What belongs to a page is its one armed waiter: armed at call time
(``page.arm_download``, before the action that starts the download is sent), it takes the next
download that page begins, which the host offers it with :meth:`PageDownloads.offer`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import EgoTimeout, HostDisconnected, InvalidArgument, InvalidState

__all__ = ["PageDownloads"]

R = TypeVar("R")  # the host's record of one download

_API = "page.wait_for_event"


@dataclass
class _Waiter(Generic[R]):
    token: int
    dir: str
    fut: asyncio.Future[R]


class PageDownloads(Generic[R]):
    """The page's download waiter (``driver.downloads``). Like the file choosers, it needs
    nothing of the page, so the host may arm one before the page's driver is attached."""

    def __init__(self) -> None:
        self._waiter: _Waiter[R] | None = None
        self._tokens = 0

    def arm(self, directory: str, label: str) -> int:
        """Arm the page's one waiter; its download goes into ``directory``."""
        old = self._waiter
        if old is not None and not old.fut.done():
            raise InvalidState(f'{_API}("download"): a download waiter is already pending on page {label}; '
                               "await it first", api=_API)
        if not os.path.isabs(directory):
            raise InvalidArgument(f"{_API}: the waiter's folder must be absolute", api=_API, option="dir",
                                  expected="path")
        self._tokens += 1
        self._waiter = _Waiter(self._tokens, directory, asyncio.get_running_loop().create_future())
        return self._tokens

    def armed(self, token: int) -> bool:
        return self._waiter is not None and self._waiter.token == token

    def disarm(self, token: int) -> None:
        waiter = self._waiter
        if waiter is not None and waiter.token == token:
            waiter.fut.cancel()
            self._waiter = None

    def offer(self, record: R) -> str | None:
        """A download this page began: the armed waiter's folder if it takes it, else None."""
        waiter, self._waiter = self._waiter, None
        if waiter is None or waiter.fut.done():
            return None
        waiter.fut.set_result(record)
        return waiter.dir

    async def wait(self, token: int, timeout_ms: float, remaining: Callable[[], float] | None = None) -> R:
        """The download the armed waiter ``token`` takes (``InvalidState`` if it is not armed);
        ``remaining()`` says the seconds left, when the host moves the deadline (time the space's
        calls waited for a turn is not the waiter's)."""
        waiter = self._waiter
        if waiter is None or waiter.token != token:
            raise InvalidState(f"{_API}: this download waiter is no longer armed", api=_API)
        left = timeout_ms / 1000
        while True:
            try:
                return await asyncio.wait_for(asyncio.shield(waiter.fut), left)
            except asyncio.TimeoutError:
                left = remaining() if remaining is not None else 0.0
                if left > 0:
                    continue
            if self._waiter is waiter:
                self._waiter = None
            waiter.fut.cancel()
            raise EgoTimeout(f'{_API}("download") timed out after {round(timeout_ms)}ms', api=_API,
                             timeout_ms=round(timeout_ms)) from None

    def host_stopped(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.fut.done():
            waiter.fut.set_exception(HostDisconnected(
                'the ego_browser host stopped while page.wait_for_event("download") was waiting', api=_API))
            waiter.fut.exception()  # retrieved: whoever awaits it still gets it
