"""A store that turns read-only right after a round (issue 31, point 7).

The host once exited without a word and the next round got EGO_TASK_HOST_DISCONNECTED. Now
the request path says EGO_STATE_STORE_UNWRITABLE, the host lives on (the same pid answers
``host status``) and its log says why. The store is made read-only with the immutable
attribute (``chattr +i``), which binds root too and takes effect on files already open.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

BOUND = 60


def _chattr(flag: str, files: list[Path]) -> subprocess.CompletedProcess:
    return subprocess.run(["chattr", flag, *map(str, files)], capture_output=True, text=True)


def test_a_store_turned_read_only_fails_requests_not_the_host(fresh_rounds, server):
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("the immutable attribute needs root and chattr")
    r = fresh_rounds
    home = Path(r.home)
    url = server.page("/ro", "<h1>Read-only</h1>", title="RO")
    first = r.run(f"t = await task_space('ro')\nawait t.page('p1').goto({url!r})\nprint('ready')\n", timeout=120)
    assert first.returncode == 0, first.stderr
    before = json.loads(r.cli("host", "status", "--json", timeout=BOUND).stdout)
    # the store, its WAL and shared-memory files, and the folder (no journal can be made either)
    files = [*home.glob("state.sqlite3*"), home]
    locked = _chattr("+i", files)
    if locked.returncode != 0:
        pytest.skip(f"this file system has no immutable attribute: {locked.stderr.strip()}")
    try:
        nxt = r.run(f"t = await task_space('ro')\nawait t.page('p1').goto({url + '?2'!r})\n"
                    "await task_space('ro-2')\n", timeout=BOUND)
        assert "EGO_TASK_HOST_DISCONNECTED" not in nxt.stderr and "EGO_HOST_UNRESPONSIVE" not in nxt.stderr, nxt.stderr
        assert "EGO_STATE_STORE_UNWRITABLE" in nxt.stderr, nxt.stderr
        status = r.cli("host", "status", "--json", timeout=BOUND)
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["pid"] == before["pid"]
        log = (home / "run" / "host.log").read_text()
        assert "state store" in log, log[-2000:]
    finally:
        _chattr("-i", files)
    r.stop()


def test_a_full_disk_fails_requests_not_the_host(fresh_rounds, server):
    """Disk full as the host sees it: a file-size limit (RLIMIT_FSIZE) set on the running host.
    Past it, a write fails (EFBIG; Python ignores SIGXFSZ, which would end the process without a
    word): the request says EGO_STATE_STORE_UNWRITABLE and the host lives on."""
    import resource

    r = fresh_rounds
    url = server.page("/full", "<h1>Full</h1>", title="Full")
    first = r.run(f"t = await task_space('full')\nawait t.page('p1').goto({url!r})\nprint('ready')\n", timeout=120)
    assert first.returncode == 0, first.stderr
    pid = json.loads(r.cli("host", "status", "--json", timeout=BOUND).stdout)["pid"]
    old = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, old[1]))  # no file may grow past one byte
    try:
        nxt = r.run(f"t = await task_space('full')\nawait t.page('p1').goto({url + '?2'!r})\n"
                    "await task_space('full-2')\n", timeout=BOUND)
        assert "EGO_TASK_HOST_DISCONNECTED" not in nxt.stderr and "EGO_HOST_UNRESPONSIVE" not in nxt.stderr, nxt.stderr
        assert "EGO_STATE_STORE_UNWRITABLE" in nxt.stderr, nxt.stderr
    finally:
        if Path(f"/proc/{pid}").exists():
            resource.prlimit(pid, resource.RLIMIT_FSIZE, old)
    status = r.cli("host", "status", "--json", timeout=BOUND)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["pid"] == pid
    # room again: the same host takes the change (the log lines written meanwhile were lost)
    again = r.run("await task_space('full-2')\nprint('again')\n", timeout=BOUND)
    assert again.returncode == 0 and "again" in again.stdout, again.stderr
    assert json.loads(r.cli("host", "status", "--json", timeout=BOUND).stdout)["pid"] == pid
    r.stop()
