"""Files the agent names (screenshots, fetched bodies, saved downloads), written by the host.

A path the agent gave can be a directory, unwritable, on a full disk or hold a NUL: that is
the caller's ``InvalidArgument`` naming the option, the path and the reason, never a raw
``OSError``. The file appears whole or not at all (written beside, then renamed).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from ...errors import InvalidArgument

__all__ = ["write_file", "copy_file", "write_atomic"]


def _bad_path(api: str, option: str, path: str, exc: BaseException) -> InvalidArgument:
    reason = getattr(exc, "strerror", None) or str(exc)
    return InvalidArgument(
        f"{api}: cannot write {option} {path!r}: {reason}; pass a writable file path (its folder is created)",
        api=api, option=option, expected="a writable file path",
    )


def _replace_atomic(path: str, fill: Callable[[str], object]) -> None:
    """``fill`` writes a temporary file beside ``path``, then a rename: whole or not at all."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}.", suffix=".part")
    os.close(fd)
    try:
        fill(tmp)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all."""
    _replace_atomic(path, lambda tmp: Path(tmp).write_bytes(data))


def _copy(src: str, dest: str) -> None:
    _replace_atomic(dest, lambda tmp: shutil.copyfile(src, tmp))


async def write_file(api: str, option: str, path: str, data: bytes) -> None:
    try:
        await asyncio.to_thread(write_atomic, path, data)
    except (OSError, ValueError) as exc:
        raise _bad_path(api, option, path, exc) from exc


async def copy_file(api: str, option: str, src: str, dest: str) -> None:
    try:
        await asyncio.to_thread(_copy, src, dest)
    except (OSError, ValueError) as exc:
        raise _bad_path(api, option, dest, exc) from exc
