"""Starting the background host: the process, and the pipe on which it says it is ready.

Kept free of heavy imports (no asyncio): a round whose script will use the browser starts the
host as soon as it knows none runs (``prestart``), before it imports the client, so Chromium
boots while the round and the host import themselves; the round's first call then only waits
for the start already under way (``channel.start_host`` takes it). Chromium's launch is the
long pole of a host's start (~400 ms here), and it began ~250 ms into a cold round before.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import config

if TYPE_CHECKING:
    import subprocess

__all__ = ["Starting", "prestart", "spawn", "take"]


@dataclass
class Starting:
    """A host process started by this round: its ready pipe (read end) and where its output
    log stood before it started (the error shown on failure is this start's only)."""

    proc: subprocess.Popen[bytes]
    read_fd: int
    log_start: int


#: the start this round began early, until its first call takes it
_early: Starting | None = None


def spawn() -> Starting | None:
    """Start ``ego-browser host serve``; None when a host runs already (its lock is held)."""
    import subprocess

    from ..wire.lockfile import running_host

    config.ensure_home()
    run_dir = config.ensure_private_dir(config.run_dir())
    if running_host(run_dir) is not None:
        return None
    read_fd, write_fd = os.pipe()
    log = config.open_private(run_dir / "host.out")
    log_start = log.seek(0, os.SEEK_END)  # the log is appended to: show only this start's lines
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ego_browser", "host", "serve", "--ready-fd", str(write_fd)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(write_fd,),
            start_new_session=True, close_fds=True, env=os.environ.copy(),
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
        log.close()
    return Starting(proc, read_fd, log_start)


def prestart() -> None:
    """Start the host now if none runs (a round about to use the browser). Never raises: a
    start that cannot begin here is begun (and its error reported) by the round's first call."""
    global _early
    if _early is not None:
        return
    try:
        _early = spawn()
    except Exception:  # noqa: BLE001 - the first call starts the host the usual way and says why
        _early = None


def take() -> Starting | None:
    """The start ``prestart`` began (once), if any."""
    global _early
    starting, _early = _early, None
    return starting
