"""The hand-written parts of ``FileChooser`` and ``Download`` (what file-chooser and download
waiters resolve to); the public classes are generated (``client/_generated.py``).

Each download waiter gets its own temp folder (``$TMPDIR/ego-browser-download-*``); the
host moves the finished file there. The folders of this process are removed when it exits
(``atexit``), or by ``Download.delete()``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any, Generic, TypeVar

from ..errors import InvalidArgument, InvalidState
from ..schema import validated
from .models import ActionReceipt
from .ports import PageCalls

#: the page class a chooser or download hands back (the generated ``Page``)
PageT = TypeVar("PageT", bound=PageCalls)

__all__ = ["FileChooserBase", "DownloadBase", "new_download_dir"]

_dirs: set[str] = set()


def _cleanup() -> None:
    for d in list(_dirs):
        shutil.rmtree(d, ignore_errors=True)
        _dirs.discard(d)


atexit.register(_cleanup)


def new_download_dir() -> str:
    d = tempfile.mkdtemp(prefix="ego-browser-download-")
    _dirs.add(d)
    return d


def drop_download_dir(d: str) -> None:
    shutil.rmtree(d, ignore_errors=True)
    _dirs.discard(d)


class FileChooserBase(Generic[PageT]):
    """A native file chooser the page opened (it was intercepted: no system dialog)."""

    def __init__(self, page: PageT, info: dict[str, Any]) -> None:
        self._page = page
        self._id = info["id"]
        self._multiple = bool(info.get("multiple"))
        self._handled = False

    def __repr__(self) -> str:
        return f"<FileChooser page={self._page.label} multiple={self._multiple}>"

    @property
    def page(self) -> PageT:
        return self._page

    def is_multiple(self) -> bool:
        return self._multiple

    @validated("FileChooser.set_files")
    async def set_files(self, files: Any) -> ActionReceipt:
        api = "FileChooser.set_files"
        if self._handled:
            raise InvalidState(f"{api}: this file chooser was already handled", api=api)
        from ..wire.files import file_list  # the rule both sides apply; loaded when files are set

        paths = file_list(api, files)
        if len(paths) > 1 and not self._multiple:
            raise InvalidArgument(
                f"{api}: {len(paths)} files given, but this chooser takes one (is_multiple() is False)",
                api=api, option="files", expected="one file",
            )
        self._handled = True
        res = await self._page._call("file_chooser.set_files", id=self._id, files=paths)
        return ActionReceipt.from_wire(res)


class DownloadBase(Generic[PageT]):
    """A download started by a Page (from ``page.wait_for_event("download")``)."""

    def __init__(self, page: PageT, info: dict[str, Any]) -> None:
        self._page = page
        self._guid = info["guid"]
        self._url = info.get("url") or ""
        self._suggested = info.get("suggested_filename") or ""
        self._dir = info.get("dir")

    def __repr__(self) -> str:
        return f"<Download {self._suggested!r} from {self._page.label}>"

    def page(self) -> PageT:
        return self._page

    def url(self) -> str:
        return self._url

    def suggested_filename(self) -> str:
        return self._suggested

    async def _call(self, op: str, **args: Any) -> Any:
        args["guid"] = self._guid
        return await self._page._channel.call(op, args)

    @validated("Download.save_as")
    async def save_as(self, path: str | os.PathLike[str]) -> None:
        await self._call("download.save_as", path=os.fspath(path))

    async def delete(self) -> None:
        """Remove the temp file and its folder (a saved copy stays)."""
        await self._call("download.delete")
        if self._dir:
            drop_download_dir(self._dir)
