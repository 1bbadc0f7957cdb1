"""The warm worker's spare child (round/spare.py) and its package watch (round/pkgwatch.py): a real
host and worker. Every wait is on a condition with a deadline, never a sleep for luck."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from ego_browser.round import pkgwatch
from tests.conftest import ROOT, Rounds
from tests.integration.test_round_worker import _wait_worker, kill_round_then_wait_for_its_child
from tests.procs import process_tree


def _until(what: str, check, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b") ", 1)[1][:1] != b"Z"
    except OSError:
        return False


def _children(pid: int) -> set[int]:
    return process_tree(pid) - {pid}


def test_two_rounds_in_a_row_each_see_only_their_own_state(rounds, tmp_path):
    _wait_worker(rounds)
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first = (
        "import os, sys, ego_browser\n"
        "print(os.getpid(), os.getcwd(), os.environ.get('ROUND_VAR'), sys.argv[1:] == ['-e', sys.argv[2]])\n"
        "kept = 'first'\nos.environ['LEAKED'] = '1'\nsys.modules['leaked_module'] = sys\n"
        "ego_browser.leaked = 1\nsys.path.append('/leaked')\n"
        "t = await task_space('spare-a')\nprint(await t.page('p1').url())\n"
    )
    second = (
        "import os, sys, ego_browser\n"
        "print(os.getpid(), os.getcwd(), os.environ.get('ROUND_VAR'), sys.argv[1:] == ['-e', sys.argv[2]])\n"
        "print('kept' in globals(), 'LEAKED' in os.environ, 'leaked_module' in sys.modules,\n"
        "      hasattr(ego_browser, 'leaked'), '/leaked' in sys.path, 'ego_browser.round.worker' in sys.modules)\n"
        "t = await task_space('spare-b')\nprint(await t.page('p1').url())\n"
    )
    outs = []
    for script, cwd, value in ((first, one, "a"), (second, two, "b")):
        proc = subprocess.run([sys.executable, "-m", "ego_browser", "-e", script], env={**rounds.env, "ROUND_VAR": value},
                              capture_output=True, text=True, timeout=60, cwd=str(cwd))
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.splitlines())
    pid_a, *rest_a = outs[0][0].split()
    pid_b, *rest_b = outs[1][0].split()
    assert pid_a != pid_b  # a spare runs one round only
    assert rest_a == [str(one), "a", "True"] and rest_b == [str(two), "b", "True"]
    assert outs[1][1] == "False False False False False True"  # nothing of round one, and in the worker
    assert outs[0][1] == outs[1][2] == "about:blank"


def test_a_round_killed_while_awaiting_the_host_gets_its_child_killed(rounds):
    """The spare's loop and host connection were made before the round: a kill still ends it."""
    _wait_worker(rounds)
    kill_round_then_wait_for_its_child(
        rounds, "import os\nt = await task_space('spare-kill')\nprint(os.getpid(), flush=True)\n"
                "await t.page('p1').wait_for_timeout(60000)\n")


def test_an_edited_package_file_is_used_by_the_next_round(tmp_path):
    """In a copy of the package: the edit reaches the worker through inotify, so the next round
    runs in-process or in a fresh worker, with the new code either way."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "ego_browser", site / "ego_browser", ignore=shutil.ignore_patterns("__pycache__"))
    r = Rounds(str(tmp_path / "home"))
    r.env["PYTHONPATH"] = str(site)
    probe = "import ego_browser, sys\nprint(ego_browser.__file__, ego_browser.__version__, 'ego_browser.round.worker' in sys.modules)\n"
    def run(script: str) -> subprocess.CompletedProcess:  # not from the checkout (-m puts cwd first)
        return subprocess.run([sys.executable, "-m", "ego_browser", "-e", script], env=r.env, capture_output=True,
                              text=True, timeout=60, cwd=str(tmp_path))

    try:
        run("await task_space('worker-warm')\n")
        _until("the copy's worker", lambda: os.path.exists(tmp_path / "home" / "run" / "worker.sock"))
        before = run(probe)
        assert before.stdout.split() == [str(site / "ego_browser" / "__init__.py"), ego_version(), "True"], before.stderr
        (site / "ego_browser" / "_version.py").write_text('__version__ = "9.9.9-edited"\n')
        after = run(probe)
        assert after.returncode == 0, after.stderr
        assert after.stdout.split()[1] == "9.9.9-edited"
    finally:
        r.stop()


def ego_version() -> str:
    from ego_browser import __version__

    return __version__


def test_the_spare_dies_with_the_worker(tmp_path):
    r = Rounds(str(tmp_path / "home"))
    try:
        _wait_worker(r)
        worker = int(r.run("import os\nprint(os.getppid())\n").stdout)
        spare = _until("the worker's next spare", lambda: _children(worker))
        os.kill(worker, signal.SIGKILL)
        _until("the spare to end with its worker", lambda: not any(_alive(p) for p in spare))
    finally:
        r.stop()


def test_package_watch_sees_code_changes_and_ignores_the_rest(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub" / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.js").write_text("1")
    steps = [
        lambda: (pkg / "a.py").write_text("x = 2\n"),  # modified
        lambda: (pkg / "sub" / "c.py").write_text(""),  # created
        lambda: (pkg / "sub" / "b.js").unlink(),  # deleted
        lambda: os.replace(pkg / "a.tmp", pkg / "a.py"),  # an editor's atomic save
        lambda: (pkg / "new").mkdir(),  # a new package directory
        lambda: os.utime(pkg / "a.py", ns=(1, 1)),  # attributes (mtime)
    ]
    for i, step in enumerate(steps):
        (pkg / "a.tmp").write_text("x = 3\n")
        watch = pkgwatch.PackageWatch(str(pkg))
        try:
            assert watch.fileno() >= 0  # inotify on this Linux
            (pkg / "notes.txt").write_text(str(i))  # not code: ignored
            (pkg / "sub" / "__pycache__" / "b.pyc").write_bytes(b"x")  # the worker's own writes
            assert not watch.changed()
            step()
            assert watch.changed(), f"step {i} not seen"
            assert watch.changed()  # stays changed
        finally:
            watch.close()
    shutil.rmtree(pkg / "new")


def test_package_watch_falls_back_to_the_fingerprint(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("x = 1\n")

    def no_inotify(root: str) -> int:
        raise OSError("no inotify here")

    monkeypatch.setattr(pkgwatch.PackageWatch, "_inotify", staticmethod(no_inotify))
    watch = pkgwatch.PackageWatch(str(pkg))
    assert watch.fileno() == -1 and not watch.changed()
    (pkg / "a.py").write_text("x = 22\n")
    assert watch.changed()
