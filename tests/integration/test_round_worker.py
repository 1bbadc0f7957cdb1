"""Rounds run in the host's warm worker: same output, status, streams, cwd and env as a local run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT


def _wait_worker(rounds) -> None:
    """The host starts its worker right after it answers: wait for the worker's socket."""
    rounds.run("await task_space('worker-warm')\n")
    path = os.path.join(rounds.home, "run", "worker.sock")
    for _ in range(600):
        if os.path.exists(path):
            return
        time.sleep(0.05)
    raise AssertionError(f"no worker socket at {path}; worker.out: "
                         + open(os.path.join(rounds.home, "run", "worker.out")).read()[-2000:])


def _in_worker(rounds, **kw) -> subprocess.CompletedProcess:
    return rounds.run("import sys\nprint('ego_browser.round.worker' in sys.modules)\n", **kw)


def test_socket_path_matches_config(monkeypatch, tmp_path):
    from ego_browser import config
    from ego_browser.cli.round_client import worker_socket_path

    monkeypatch.setenv("EGO_BROWSER_HOME", str(tmp_path / "h"))
    assert worker_socket_path() == str(config.run_dir() / "worker.sock")
    monkeypatch.delenv("EGO_BROWSER_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert worker_socket_path() == str(config.run_dir() / "worker.sock")


def test_round_runs_in_the_worker_with_the_rounds_own_cwd_env_argv_and_streams(rounds, tmp_path):
    _wait_worker(rounds)
    assert _in_worker(rounds).stdout == "True\n"
    (tmp_path / "data.txt").write_text("here")
    env = {**rounds.env, "ROUND_ONLY_VAR": "v1"}
    script = (
        "import os, sys\n"
        "print(open('data.txt').read(), os.environ.get('ROUND_ONLY_VAR'), sys.argv[1:], os.getcwd())\n"
        "print('err line', file=sys.stderr)\n"
        "t = await task_space('worker-env')\nprint(await t.page('p1').url())\n"
        "raise SystemExit(5)\n"
    )
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "-e", script], env=env, capture_output=True,
                          text=True, timeout=60, cwd=str(tmp_path))
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout.splitlines() == [f"here v1 ['-e', {script!r}] {tmp_path}", "about:blank"]
    assert proc.stderr == "err line\n"


def test_stdin_of_the_round_reaches_the_script(rounds, tmp_path):
    _wait_worker(rounds)
    script = tmp_path / "s.py"
    script.write_text("print(input().upper())\n")
    proc = subprocess.run([sys.executable, "-m", "ego_browser", str(script)], env=rounds.env, input="hello\n",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "HELLO\n"


def test_trivial_round_imports_neither_asyncio_nor_ssl(rounds):
    _wait_worker(rounds)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "ego_browser", "-e", "print(1)"],
                          env=rounds.env, capture_output=True, text=True, timeout=60)
    assert proc.stdout == "1\n"
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "ego_browser.cli.round_client" in imported
    assert not imported & {"asyncio", "ssl", "_ssl", "typing", "ego_browser.round.runner", "ego_browser.client.channel"}
    # nor the error classes (~1 ms): the package names them lazily, and a round's process raises none
    assert "ego_browser.errors" not in imported


def test_round_process_start_runs_no_import_finder(rounds):
    """The dev install (make setup) puts the checkout on sys.path with a plain .pth line: the
    default editable finder ran at every Python start of the venv, i.e. in every round's process,
    importing pathlib, re and more (+24 ms CPU a round; an installed wheel has no such cost:
    docs/architecture.md, "Rounds")."""
    _wait_worker(rounds)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "ego_browser", "-e", "print(1)"],
                          env=rounds.env, capture_output=True, text=True, timeout=60)
    assert proc.stdout == "1\n"
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "ego_browser.cli.round_client" in imported
    assert not {name for name in imported if name.startswith("__editable__")}
    assert not imported & {"pathlib", "re", "fnmatch"}  # the finder's (runpy imports importlib.util)

def test_ctrl_c_reaches_the_script(rounds):
    _wait_worker(rounds)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ego_browser", "-e",
         # 'ready' is printed inside the try: a Ctrl-C landing while print still flushes (the
         # worker's streams flush in Python) is the script's to catch too (flaky under load before)
         "import time\ntry:\n    print('ready', flush=True)\n    time.sleep(60)\n"
         "except KeyboardInterrupt:\n    print('interrupted', flush=True)\n    raise SystemExit(9)\n"],
        env=rounds.env, stdout=subprocess.PIPE, text=True, cwd=str(ROOT),
    )
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert out == "interrupted\n" and proc.returncode == 9


def kill_round_then_wait_for_its_child(rounds, script: str) -> None:
    """Run ``script`` (it prints its pid, then waits), SIGKILL the round's process, and wait
    until the worker's child that ran the script has ended."""
    proc = subprocess.Popen([sys.executable, "-m", "ego_browser", "-e", script],
                            env=rounds.env, stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
    child = int(proc.stdout.readline())
    assert child != proc.pid  # the script runs in the worker's child
    proc.kill()
    proc.wait(10)
    proc.stdout.close()
    for _ in range(400):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("the script kept running after its round was killed")


def test_killed_round_ends_its_script(rounds, tmp_path):
    _wait_worker(rounds)
    kill_round_then_wait_for_its_child(rounds, "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n")


def test_worker_leaves_with_the_host(tmp_path):
    from tests.conftest import Rounds

    r = Rounds(str(tmp_path / "home"))
    try:
        _wait_worker(r)
        pid = int(r.run("import os\nprint(os.getppid())\n").stdout)
    finally:
        r.stop()
    for _ in range(400):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the round worker outlived `host stop`")
    assert not os.path.exists(tmp_path / "home" / "run" / "worker.sock")
    # with no host (and so no worker) a round still runs, in its own process
    proc = r.run("import sys\nprint('ego_browser.round.worker' in sys.modules)\n")
    assert proc.stdout == "False\n"


def test_fingerprint_sees_a_changed_code_file(tmp_path):
    """Unit check of the fallback staleness test (no inotify): any code file's change shows."""
    from ego_browser.round import pkgwatch

    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.js").write_text("1")
    before = pkgwatch.fingerprint(str(pkg))
    assert pkgwatch.fingerprint(str(pkg)) == before
    (pkg / "sub" / "b.js").write_text("22")
    assert pkgwatch.fingerprint(str(pkg)) != before


def test_each_round_runs_exactly_once(rounds):
    """A quick child may report its status before the worker sends its pid: never a second run."""
    _wait_worker(rounds)
    for i in range(15):
        proc = subprocess.run([sys.executable, "-m", "ego_browser", "-e", f"print({i})"], env=rounds.env,
                              capture_output=True, text=True, timeout=60)
        assert (proc.returncode, proc.stdout) == (0, f"{i}\n"), proc.stderr


def _boot_seconds_at_start(pid: int) -> float:
    """When process ``pid`` started, in CLOCK_BOOTTIME seconds (``/proc/PID/stat`` field 22)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return int(fields[19]) / os.sysconf("SC_CLK_TCK")


def test_the_worker_starts_after_the_first_round_not_beside_it(fresh_rounds):
    """The worker's interpreter and imports would take CPU from the round that started the host
    (a learned tool's cold run took ~80 ms longer on 2 cores): it is started once the host has
    had a pause. The first round keeps the host busy for half a second; the worker process is
    made after that round's last call, not at the host's "ok" before the round's script ran."""
    first = fresh_rounds.run(
        "import time\n"
        "page = (await task_space('worker-late')).page('p1')\n"
        "end = time.monotonic() + 0.5\n"
        "while time.monotonic() < end:\n"
        "    await page.evaluate('1')\n"
        "print(time.clock_gettime(time.CLOCK_BOOTTIME))\n")
    assert first.returncode == 0, first.stderr
    busy_until = float(first.stdout.split()[-1])
    assert "ego_browser.round.worker" not in first.stdout
    _wait_worker(fresh_rounds)
    worker_pid = int(fresh_rounds.run("import os\nprint(os.getppid())\n").stdout)
    # clock ticks are 10 ms: the worker may not start before the round's last call ended
    assert _boot_seconds_at_start(worker_pid) >= busy_until - 0.02
