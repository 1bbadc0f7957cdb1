"""The keeper: Chromium's DevTools pipe served on a private Unix socket (browser/keeper.py).

Each client gets what a websocket to the browser gave it: its own browser session, its
sessions gone when it goes, nothing of a previous client reaching it, and the stream intact
even when a client dies in the middle of a message.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from pathlib import Path

import orjson
import pytest

from ego_browser.browser.launcher import launch_chromium, pid_alive
from ego_browser.cdp import Connection
from ego_browser.errors import BrowserUnavailable, CdpError


@pytest.fixture
def keeper(tmp_path):
    proc = launch_chromium(tmp_path / "profile", socket_path=tmp_path / "run" / "browser.sock")
    yield proc
    proc.terminate()


async def _page_session(conn: Connection) -> tuple[str, str]:
    target = (await conn.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    sid = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    return target, sid


def _wait_gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # another process's exit: there is no event to wait on
    return not pid_alive(pid)


_KILLED_CLIENT = """
import asyncio, os, signal, sys
from ego_browser.cdp import Connection

async def main():
    conn = await Connection.connect(sys.argv[1])
    target = (await conn.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    sid = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    await conn.send("Runtime.enable", session_id=sid)
    await conn.send("Page.navigate", {"url": sys.argv[2]}, session_id=sid)
    print(target, sid, flush=True)
    # die in the middle of a message written straight into Chromium's pipe, as a host killed
    # by SIGKILL may
    os.write(conn._ws._writer.get_extra_info("pipe").fileno(),
             b'{"id":999,"method":"Runtime.evaluate","params":{"expression":"1')
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


def test_a_client_killed_mid_message_leaves_the_next_one_a_clean_browser(keeper, server):
    import subprocess
    import sys

    url = server.page("/keeper-log", "<title>k</title>")
    # the first client holds the pipe itself (the keeper handed it over) and is killed mid-write
    child = subprocess.run([sys.executable, "-c", _KILLED_CLIENT, keeper.ws_url, url], capture_output=True,
                           text=True, timeout=60)
    assert child.returncode == -signal.SIGKILL, child.stderr
    target, sid = child.stdout.split()

    async def second(target: str, old_sid: str) -> None:
        conn = await Connection.connect(keeper.ws_url)
        try:
            seen: list[str | None] = []
            conn.on("Runtime.consoleAPICalled", lambda _p, s: seen.append(s))
            # the first client's session went with it ...
            with pytest.raises(CdpError, match="Session with given id not found"):
                await conn.send("Runtime.evaluate", {"expression": "1"}, session_id=old_sid, timeout=10)
            # ... the browser answers at once, and a new session on the same tab works
            assert (await conn.send("Browser.getVersion"))["product"]
            sid = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
            await conn.send("Runtime.enable", session_id=sid)
            await conn.send("Runtime.evaluate", {"expression": "console.log('hi')"}, session_id=sid)
            reply = await conn.send("Runtime.evaluate", {"expression": "location.pathname"}, session_id=sid)
            assert reply["result"]["value"] == "/keeper-log"
            # only our own session's events reach us (the first client's Runtime domain is gone)
            assert seen and set(seen) == {sid}
        finally:
            await conn.close()

    asyncio.run(second(target, sid))


def test_a_second_client_gets_the_pipe_once_the_first_has_gone(keeper):
    # the first client holds Chromium's pipe itself: a second one must wait for it, never share it
    async def run() -> None:
        a = await Connection.connect(keeper.ws_url)
        b_task = asyncio.ensure_future(Connection.connect(keeper.ws_url, timeout=30))
        try:
            assert (await a.send("Browser.getVersion"))["product"]
            done, _ = await asyncio.wait({b_task}, timeout=1.0)
            assert not done, "a second client was served while the first held the pipe"
            await a.close()
            b = await b_task
            try:
                assert (await b.send("Browser.getVersion"))["product"]
            finally:
                await b.close()
        finally:
            await a.close()
            if not b_task.done():
                b_task.cancel()

    asyncio.run(run())


def test_keeper_and_chromium_go_together(tmp_path):
    # SIGKILL the keeper: Chromium follows (PR_SET_PDEATHSIG)
    one = launch_chromium(tmp_path / "p1", socket_path=tmp_path / "r1" / "browser.sock")
    try:
        os.kill(one.leader, signal.SIGKILL)
        one.proc.wait(10)
        assert _wait_gone(one.pid), "Chromium outlived its keeper"
    finally:
        one.terminate()
    # Chromium dies: the keeper leaves too, and takes its socket along
    two = launch_chromium(tmp_path / "p2", socket_path=tmp_path / "r2" / "browser.sock")
    try:
        os.kill(two.pid, signal.SIGKILL)
        assert two.proc.wait(15) == 0
        assert not (tmp_path / "r2" / "browser.sock").exists()
        with pytest.raises(BrowserUnavailable, match="keeper socket"):
            asyncio.run(Connection.connect(two.ws_url, timeout=5))
    finally:
        two.terminate()


def test_large_messages_and_bursts_cross_intact(keeper):
    async def run() -> None:
        conn = await Connection.connect(keeper.ws_url)
        try:
            _, sid = await _page_session(conn)
            big = "x" * 5_000_000
            reply = await conn.send("Runtime.evaluate", {"expression": f"'{big}'.length + 'é'.length"},
                                    session_id=sid)
            assert reply["result"]["value"] == 5_000_001
            echoed = await conn.send("Runtime.evaluate", {"expression": f"'{big}' + 'é'"}, session_id=sid)
            assert echoed["result"]["value"] == big + "é"
            values = await asyncio.gather(*(
                conn.send("Runtime.evaluate", {"expression": str(i)}, session_id=sid) for i in range(300)))
            assert [v["result"]["value"] for v in values] == list(range(300))
        finally:
            await conn.close()

    asyncio.run(run())


def test_socket_speaks_only_to_its_owner_and_only_cdp(keeper):
    path = keeper.ws_url[5:]
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        hello = b""
        while b"\0" not in hello:
            chunk = s.recv(4096)
            assert chunk, "the keeper closed before its hello"
            hello += chunk
        info = orjson.loads(hello[:hello.index(b"\0")])
        assert info["ego_keeper"] == 2 and info["browserPid"] == keeper.pid and info["instance"] and info["session"]


# -- orphans: a keeper whose host was killed and never comes back (issue 9) ---------------------


def _exited(pid: int, timeout: float) -> bool:
    """Wait for ``pid`` to exit on a pidfd (an event, not a poll); True once it has."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _host_and_browser(r) -> tuple[int, int, int, str]:
    """(host pid, keeper pid, Chromium pid, keeper socket) of the background host of ``r``."""
    status = r.cli("host", "status")
    assert status.returncode == 0 and "host running: pid" in status.stdout, status.stdout + status.stderr
    host_pid = int(status.stdout.split("pid ")[1].split()[0])
    state = orjson.loads((Path(r.home) / "run" / "browser.json").read_bytes())
    return host_pid, state["leader"], state["pid"], state["endpoint"][len("unix:"):]


def test_a_keeper_whose_host_was_killed_stops_chromium_after_its_grace(fresh_rounds, server):
    r = fresh_rounds
    r.env["EGO_BROWSER_KEEPER_GRACE"] = "1"
    url = server.page("/orphan", "orphan", title="orphan")
    made = r.run(f'await (await task_space("orphan")).page("p1").goto("{url}")\nprint("ok")\n')
    assert made.stdout == "ok\n", made.stderr
    host_pid, keeper_pid, browser_pid, sock = _host_and_browser(r)
    assert os.path.exists(sock)
    os.kill(host_pid, signal.SIGKILL)  # the host this test started (through its round), by pid
    assert _exited(host_pid, 60), "the host outlived SIGKILL"
    # nobody reconnects: after the grace the keeper stops Chromium and leaves with its socket
    assert _exited(keeper_pid, 120), "the orphaned keeper is still running"
    assert _exited(browser_pid, 60), "the orphaned keeper's Chromium is still running"
    assert not os.path.exists(sock)
    # the next round starts a new browser
    again = r.run(f'p = (await task_space("orphan")).page("p1")\nawait p.goto("{url}")\nprint(await p.title())\n')
    assert again.stdout == "orphan\n", again.stderr
    assert _host_and_browser(r)[2] != browser_pid


def test_a_host_restarted_within_the_grace_adopts_the_browser(fresh_rounds, server):
    r = fresh_rounds
    r.env["EGO_BROWSER_KEEPER_GRACE"] = "600"
    url = server.page("/adopt", "adopt", title="adopt")
    made = r.run(f'await (await task_space("adopt")).page("p1").goto("{url}")\nprint("ok")\n')
    assert made.stdout == "ok\n", made.stderr
    host_pid, keeper_pid, browser_pid, sock = _host_and_browser(r)
    os.kill(host_pid, signal.SIGKILL)
    assert _exited(host_pid, 60), "the host outlived SIGKILL"
    again = r.run('p = (await task_space("adopt")).page("p1")\nprint(await p.url())\n')
    assert again.stdout == f"{url}\n", again.stderr
    host2, keeper2, browser2, sock2 = _host_and_browser(r)
    assert host2 != host_pid and (keeper2, browser2, sock2) == (keeper_pid, browser_pid, sock)
    assert pid_alive(keeper_pid) and pid_alive(browser_pid)


def test_an_unused_launch_directory_goes_with_its_orphaned_keeper(tmp_path):
    """A keeper launched with its own temporary directory (/tmp/ego-keeper-*) by a process that
    then died by SIGKILL: after the grace, keeper, Chromium, socket and directory are gone."""
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from ego_browser.browser.launcher import launch_chromium\n"
        "p = launch_chromium(sys.argv[1])\n"
        "print(json.dumps({'keeper': p.leader, 'browser': p.pid, 'sock': p.ws_url[5:]}), flush=True)\n"
        "sys.stdin.read()\n"
    )
    env = {**os.environ, "EGO_BROWSER_KEEPER_GRACE": "0"}
    launcher = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "profile")], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=env, cwd=str(Path(__file__).resolve().parents[2]))
    try:
        info = orjson.loads(launcher.stdout.readline())
    finally:
        launcher.kill()  # the process this test started, by pid
        launcher.wait(30)
        launcher.stdin.close()
        launcher.stdout.close()
    assert os.path.basename(os.path.dirname(info["sock"])).startswith("ego-keeper-")
    assert _exited(info["keeper"], 120), "the orphaned keeper is still running"
    assert _exited(info["browser"], 60), "its Chromium is still running"
    assert not os.path.exists(os.path.dirname(info["sock"]))
