"""Other local users, stale records, shared directories: what the data directory and the
browser expose on this machine (issue 9, points 1, 5, 14 and 15; docs/security.md)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT, Rounds
from tests.procs import process_tree

# -- helpers ----------------------------------------------------------------------------------


def _socket_inodes(pids: set[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def _listening_tcp() -> dict[str, int]:
    """inode -> port of every listening TCP socket (IPv4 and IPv6) on this machine."""
    found = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A":  # LISTEN
                found[f[9]] = int(f[1].rsplit(":", 1)[1], 16)
    return found


def _browser_leader(home: Path) -> int:
    saved = json.loads((home / "run" / "browser.json").read_bytes())
    return int(saved.get("leader") or saved["pid"])


def _private_base() -> Path:
    """A directory other users may traverse but not list: what stops them below it is ours."""
    base = Path(tempfile.mkdtemp(prefix="ego-sec-"))
    os.chmod(base, 0o711)
    return base


# -- point 1: no DevTools endpoint another user can reach -------------------------------------

_PROBE = r"""
import json, os, socket, sys, urllib.request
home, token = sys.argv[1], sys.argv[2]
report = {"uid": os.getuid(), "reached": [], "devtools_ports": [], "token_seen": []}
ports = set()
for name in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        lines = open(name).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        f = line.split()
        if f[3] == "0A":
            ports.add(int(f[1].rsplit(":", 1)[1], 16))
for port in sorted(ports):
    for path in ("/json/version", "/json/list"):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as resp:
                body = resp.read(2_000_000).decode("utf-8", "replace")
        except Exception:
            continue
        if "webSocketDebuggerUrl" in body:
            report["devtools_ports"].append(port)
            if token in body:
                report["token_seen"].append(port)
paths = [os.path.join(home, p) for p in (
    "run/browser.sock", "run/host.sock", "run/browser.json", "run/host.pid", "run/chromium.log",
    "state.sqlite3", "profiles/default/DevToolsActivePort", "profiles/default/Default/Cookies",
    "profiles/default/Default/Local Storage")]
for path in paths:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(path)
        report["reached"].append("connect " + path)
    except OSError:
        pass
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        report["reached"].append("read " + path)
    except OSError:
        pass
for d in (home, os.path.join(home, "run"), os.path.join(home, "profiles")):
    try:
        os.listdir(d)
        report["reached"].append("list " + d)
    except OSError:
        pass
print(json.dumps(report))
"""


@pytest.fixture
def other_user():
    if os.geteuid() != 0 or not shutil.which("useradd"):
        pytest.skip("needs root to create a second Unix user")
    name = f"egoprobe{os.getpid() % 100000}"
    if pwd_exists(name):
        _account("userdel", name)
    made = _account("useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name)
    if made.returncode != 0:
        pytest.skip(f"useradd failed: {made.stderr.strip()}")
    import pwd

    entry = pwd.getpwnam(name)
    try:
        yield entry.pw_uid, entry.pw_gid
    finally:
        gone = _account("userdel", name)
        assert gone.returncode == 0, f"userdel {name}: {gone.returncode} {gone.stderr}"


def pwd_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _account(*args: str) -> subprocess.CompletedProcess:
    """useradd/userdel, retried while another process holds the account files' lock (exit 1 or
    10: "cannot lock" / "cannot update"); anything else is final."""
    import time

    for _ in range(50):
        done = subprocess.run(list(args), capture_output=True, text=True)
        if done.returncode not in (1, 10):
            return done
        time.sleep(0.1)  # the lock's holder is another process: there is nothing to wait on
    return done


def _run_as(uid: int, gid: int, args: list[str]) -> subprocess.CompletedProcess:
    def drop() -> None:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)

    return subprocess.run(args, preexec_fn=drop, capture_output=True, text=True, timeout=120, cwd="/",
                          env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})


def test_another_user_cannot_reach_any_tab(other_user, server):
    """Issue 9 point 1: a tab's cookie and storage were readable by any local user through the
    DevTools TCP port. Now the browser opens none, and nothing in the home opens to them."""
    uid, gid = other_user
    token = uuid.uuid4().hex
    url = server.page(f"/secret-{token}", f"<title>secret</title><input type=password value='pw-{token}'>")
    base = _private_base()
    home = base / "home"
    rounds = Rounds(str(home))
    try:
        made = rounds.run(
            f"task = await task_space('secret')\nawait task.page('p1').goto({url!r})\n"
            f"await task.page('p1').evaluate(\"localStorage.setItem('token', '{token}')\")\nprint('ok')\n"
        )
        assert made.stdout.strip() == "ok", made.stderr
        leader = _browser_leader(home)
        ours = process_tree(leader)
        assert len(ours) > 1, "the browser's processes are found"

        # nothing the browser runs listens on TCP, on any address
        listening = _listening_tcp()
        owned = {listening[i] for i in _socket_inodes(ours) if i in listening}
        assert owned == set(), f"the browser's processes listen on TCP ports {owned}"
        assert not (home / "profiles" / "default" / "DevToolsActivePort").exists()
        for pid in ours:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            assert b"--remote-debugging-port" not in cmdline and b"--remote-allow-origins" not in cmdline

        # and as the other user: no DevTools endpoint lists the tab, no file or socket opens
        probe = Path(base) / "probe.py"
        probe.write_text(_PROBE)
        os.chmod(probe, 0o644)
        proc = _run_as(uid, gid, ["/usr/bin/python3", "-I", "-S", str(probe), str(home), token])
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["uid"] == uid
        assert report["token_seen"] == [], "another user listed the agent's tab through DevTools"
        assert report["reached"] == [], report["reached"]
        # every DevTools port the other user found belongs to some other browser on this machine
        for port in report["devtools_ports"]:
            assert port not in owned
    finally:
        rounds.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_run_dir_socket_and_keeper_are_private(host):
    """The keeper's socket is 0600 in a 0700 directory, and the browser answers only there."""
    process = host.browser.process
    assert host.browser.endpoint.startswith("unix:")
    sock = Path(host.browser.endpoint[5:])
    assert stat.S_ISSOCK(sock.stat().st_mode)
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    listening = _listening_tcp()
    ours = process_tree(process.leader)
    assert process.pid in ours
    assert not [listening[i] for i in _socket_inodes(ours) if i in listening]


# -- point 5: a reused pid is never signalled -------------------------------------------------


def _forged_state(home: Path, pid: int, *, legacy: bool) -> None:
    run = home / "run"
    run.mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    if legacy:  # the record an older version wrote
        state = {"pid": pid, "ws_url": "ws://127.0.0.1:9/devtools/browser/x",
                 "user_data_dir": str(home / "profiles" / "default")}
    else:
        state = {"v": 2, "pid": pid, "leader": pid, "leader_start": 1, "endpoint": f"unix:{run}/browser.sock",
                 "user_data_dir": str(home / "profiles" / "default"), "instance": "x"}
    (run / "browser.json").write_text(json.dumps(state))


@pytest.mark.parametrize("legacy", [True, False], ids=["legacy-record", "record"])
def test_stale_browser_json_never_signals_an_unrelated_process(tmp_path, legacy):
    """Issue 9 point 5: a stale browser.json whose pid now belongs to an unrelated process got
    SIGTERM then SIGKILL. The host checks start time and --user-data-dir first."""
    home = tmp_path / "home"
    # an unrelated process, in its own group as Chromium was (so killpg would reach it)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    try:
        _forged_state(home, bystander.pid, legacy=legacy)
        env = {**os.environ, "EGO_BROWSER_HOME": str(home), "PYTHONPATH": str(ROOT)}
        env.pop("EGO_BROWSER_CDP_URL", None)
        script = textwrap.dedent("""
            import asyncio, ego_browser
            async def main():
                async with ego_browser.embedded() as host:
                    print(host.browser.process.pid, flush=True)
            asyncio.run(main())
        """)
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert int(proc.stdout.strip()) != bystander.pid, "a fresh browser was launched"
        assert bystander.poll() is None, f"the unrelated process was killed (status {bystander.returncode})"
    finally:
        bystander.send_signal(signal.SIGKILL)
        bystander.wait(10)


# -- point 14: a given directory keeps its mode -----------------------------------------------


def _round(home: Path, code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "EGO_BROWSER_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("EGO_BROWSER_CDP_URL", None)
    script = "import asyncio, ego_browser\nasync def main():\n    async with ego_browser.embedded():\n" \
             f"        {code}\nasyncio.run(main())\n"
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)


def test_shared_directory_as_home_is_refused_and_left_alone(tmp_path):
    """Issue 9 point 14: EGO_BROWSER_HOME=<a 1777 directory> was chmod-ed 0700 (the sticky bit
    of a shared /tmp-like directory gone). Now it is refused with a clear error, untouched."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    env = {**os.environ, "EGO_BROWSER_HOME": str(shared), "PYTHONPATH": str(ROOT)}
    env.pop("EGO_BROWSER_CDP_URL", None)
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "-e", "await task_space('x')"], env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert "EGO_BROWSER_UNAVAILABLE" in proc.stderr and "writable by other users" in proc.stderr
    assert "EGO_BROWSER_HOME" in proc.stderr
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert list(shared.iterdir()) == [], "nothing was created in it"
    embedded = _round(shared, "await ego_browser.task_space('x')")
    assert embedded.returncode != 0 and "writable by other users" in embedded.stderr
    doctor = subprocess.run([sys.executable, "-m", "ego_browser", "doctor"], capture_output=True, text=True,
                            env={**os.environ, "EGO_BROWSER_HOME": str(shared)}, timeout=120)
    assert "writable by other users" in doctor.stdout + doctor.stderr
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


def test_existing_readable_home_is_used_without_chmod_and_new_home_is_private(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    os.chmod(mine, 0o755)
    proc = _round(mine, "print((await ego_browser.task_space('x')).space_id)")
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(mine.stat().st_mode) == 0o755, "an existing directory keeps its mode"
    assert stat.S_IMODE((mine / "run").stat().st_mode) == 0o700
    fresh = tmp_path / "a" / "b" / "home"
    proc = _round(fresh, "print((await ego_browser.task_space('x')).space_id)")
    assert proc.returncode == 0, proc.stderr
    for d in (tmp_path / "a", tmp_path / "a" / "b", fresh):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d


# -- point 15: everything in the home is private ----------------------------------------------


def _loose(home: Path) -> list[str]:
    """Every file or directory under ``home`` that its group or others may use."""
    loose = []
    for root, dirs, files in os.walk(home):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue  # Chromium removed it meanwhile
            if stat.S_ISLNK(st.st_mode):
                continue  # a link's own mode means nothing; its target is checked where it is
            if st.st_mode & 0o077:
                loose.append(f"{stat.S_IMODE(st.st_mode):04o} {os.path.relpath(path, home)}")
    return loose


def test_home_is_private_during_and_after_a_real_session(server):
    """Issue 9 point 15: WAL/SHM, logs, DevToolsActivePort were 0644 and profiles/ 0755."""
    url = server.page("/private-files", "<title>p</title><script>localStorage.setItem('k','v');"
                      "document.cookie='c=1; max-age=999'</script>")
    base = _private_base()
    home = base / "home"
    rounds = Rounds(str(home))
    try:
        made = rounds.run(
            f"task = await task_space('files')\nawait task.page('p1').goto({url!r})\n"
            "await task.page('p1').snapshot()\nprint('ok')\n"
        )
        assert made.stdout.strip() == "ok", made.stderr
        assert (home / "state.sqlite3-wal").exists(), "the store is open (WAL mode)"
        assert _loose(home) == []
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
        stopped = rounds.cli("host", "stop")
        assert stopped.returncode == 0, stopped.stderr
        assert _loose(home) == []
    finally:
        rounds.stop()
        shutil.rmtree(base, ignore_errors=True)
