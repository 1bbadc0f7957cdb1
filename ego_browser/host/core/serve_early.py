"""``host serve``'s first steps, taken before the host's own modules are imported.

The host lock first (one host per home), then Chromium (``browser/early.py``): its launch is
most of a host's start and needs none of the host's code, so it boots while the host imports
itself, opens its store and loads its operations. Kept free of heavy imports for that reason.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
from typing import IO, Any

from ... import config

__all__ = ["begin", "hold_lock", "notify"]

logger = logging.getLogger(__name__)


def hold_lock(run_dir: os.PathLike[str] | str) -> IO[Any] | None:
    """The host lock of ``run_dir``, held for the process's lifetime; None when another host holds it."""
    from pathlib import Path

    lock_file = config.open_private(Path(run_dir) / "host.lock", os.O_RDWR | os.O_CREAT, "r+")
    try:
        fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock_file.close()
        return None
    # a round that finds the lock held but no socket sends SIGUSR1 (re-create it): never let
    # it end the host while it starts, before the server's handler is installed
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    return lock_file


def begin(ready_fd: int | None) -> IO[Any] | None:
    """Take the lock and start Chromium; the held lock for ``server.serve``, or None when
    another host runs (the round that started this one was told "busy")."""
    config.ensure_home()
    run_dir = config.ensure_private_dir(config.run_dir())
    # the daemon is ours alone: whatever it (and SQLite, logging) creates is private
    os.umask(0o077)
    lock_file = hold_lock(run_dir)
    if lock_file is None:
        notify(ready_fd, b"busy\n")
        return None
    from ...browser import early

    try:
        early.start(config.home(), run_dir)
    except Exception:  # noqa: BLE001 - the provider launches as it always did, and says why it cannot
        early.discard()
    return lock_file


def notify(fd: int | None, message: bytes) -> None:
    """One word to the round that started the host (its ready pipe), then the pipe is closed."""
    if fd is None:
        return
    with contextlib.suppress(OSError):
        os.write(fd, message)
        os.close(fd)
