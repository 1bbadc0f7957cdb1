"""Finding the running host by its lock, not by its socket.

The socket file can disappear under a live host (a clean-up script, a mistaken ``rm``); the
exclusive ``flock`` on ``run/host.lock`` cannot: it lasts exactly as long as the host process.
So "is a host running, and which pid" is answered from the kernel's lock table
(``/proc/locks``), which also proves the pid's identity: a recycled pid holds no lock on our
file. A host whose socket is gone re-creates it within ``SOCKET_CHECK`` seconds by itself, and
at once on ``SIGUSR1`` (:func:`nudge`).

Kept free of heavy imports: rounds use it on their start-up path.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

__all__ = ["SOCKET_CHECK", "is_background_host", "lock_path", "lock_holder", "nudge", "recover_socket", "running_host", "socket_answers", "wait_for_socket"]

#: seconds between the host's checks that its socket file is still its own
SOCKET_CHECK = 1.0


def lock_path(run_dir: Path) -> Path:
    return run_dir / "host.lock"


def lock_holder(run_dir: Path) -> int | None:
    """The pid holding the host lock of ``run_dir``, or None when no host runs there."""
    try:
        st = os.stat(lock_path(run_dir))
    except OSError:
        return None
    try:
        with open("/proc/locks") as f:
            table = f.read()
    except OSError:
        return _holder_from_pid_file(run_dir)
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in table.splitlines():
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:02:5678 0 EOF"; blocked waiters carry "->"
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == dev and parts[4].isdigit():
            pid = int(parts[4])
            return pid if pid > 0 else _holder_from_pid_file(run_dir)
    return None


def _holder_from_pid_file(run_dir: Path) -> int | None:
    """Without /proc/locks: the pid file, trusted only if that process is an ego_browser host."""
    try:
        pid = int((run_dir / "host.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if is_background_host(pid) else None


def is_background_host(pid: int) -> bool:
    """Whether ``pid`` is ``ego-browser host serve`` (not a program that runs
    ``ego_browser.embedded()``, which also holds the lock but must never be signalled)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"ego_browser" in cmdline and b"serve" in cmdline


def running_host(run_dir: Path) -> int | None:
    """The pid of a host that finished starting (it holds the lock and wrote its pid file
    after binding its socket); None when no host runs or one is still starting."""
    pid = lock_holder(run_dir)
    if pid is None or not is_background_host(pid):
        return None
    try:
        written = int((run_dir / "host.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if written == pid else None


def nudge(pid: int) -> bool:
    """Ask the host ``pid`` (a verified lock holder) to re-create its socket now."""
    try:
        os.kill(pid, signal.SIGUSR1)
        return True
    except OSError:
        return False


def socket_answers(path: Path, timeout: float = 1.0) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(path))
        return True
    except OSError:
        return False


def wait_for_socket(path: Path, timeout: float) -> bool:
    """Block until ``path`` accepts a connection or ``timeout`` passes (for the CLI)."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        if socket_answers(path):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)  # another process re-creates the socket: no event to wait on here
        delay = min(delay * 2, 0.25)


def recover_socket(run_dir: Path, path: Path, timeout: float) -> tuple[int | None, bool, bool]:
    """``(pid, answers, background)``: the process holding the lock (None when no host runs),
    whether its socket answers (a background host is nudged to re-create a missing one and
    awaited up to ``timeout``), and whether it is a background host at all (an embedded one
    is never signalled)."""
    pid = lock_holder(run_dir)
    if pid is None:
        return None, False, False
    if not is_background_host(pid):
        return pid, False, False
    if socket_answers(path):
        return pid, True, True
    nudge(pid)
    return pid, wait_for_socket(path, timeout), True
