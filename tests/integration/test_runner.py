"""The stdin runner and rounds through the background host (B14, B18, B175, B176)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
import threading

from tests.conftest import ROOT
from tests.server import Response


def test_b176_stdin_file_and_e_behave_alike(rounds, tmp_path):
    script = "x = await asyncio.sleep(0, result=41)\nprint(x + 1, sorted(k for k in RUNNER if k not in globals()))\n"
    script = script.replace("RUNNER", repr([
        "task_space", "list_task_spaces", "claim_task_space", "take_over_task_space", "profiles", "help",
        "learn_context", "site_skills", "run_site_tool", "run_site_browser_tool", "ego_browser", "EgoError",
        "asyncio", "json", "re",
    ]))
    via_stdin = rounds.run(script)
    path = tmp_path / "round.py"
    path.write_text(script)
    via_file = rounds.cli(str(path))
    via_e = rounds.cli("-e", script)
    for proc in (via_stdin, via_file, via_e):
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "42 []\n"


def test_b176_syntax_error_runs_nothing(rounds, tmp_path):
    marker = tmp_path / "ran"
    proc = rounds.run(f"open({str(marker)!r}, 'w').write('x')\nprint('a'\nprint(2)\n")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "SyntaxError" in proc.stderr and "line 2" in proc.stderr and "column" in proc.stderr
    lines = proc.stderr.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    assert "print('a'" in lines[caret - 1]
    assert not marker.exists()


def test_b175_ego_error_prints_code_and_line(rounds):
    proc = rounds.run("print('before')\nimport ego_browser\nraise ego_browser.StaleRef('Stale ref: @3; take a new snapshot', ref=3)\nprint('after')\n")
    assert proc.returncode == 1
    assert proc.stdout == "before\n"
    assert "EGO_STALE_REF: Stale ref: @3; take a new snapshot" in proc.stderr
    assert "at line 3: raise ego_browser.StaleRef" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_other_exceptions_show_script_frames_only(rounds):
    proc = rounds.run("def f():\n    return 1 / 0\nprint('x')\nf()\n")
    assert proc.returncode == 1 and proc.stdout == "x\n"
    assert "ZeroDivisionError: division by zero" in proc.stderr
    assert "at line 2: return 1 / 0" in proc.stderr
    assert "round/runner.py" not in proc.stderr and "asyncio" not in proc.stderr


def test_trivial_round_does_not_start_a_host(tmp_path):
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "-e", "print(1)"], env=env,
                          capture_output=True, text=True, timeout=30)
    assert proc.stdout == "1\n"
    assert not (tmp_path / "home" / "run" / "host.sock").exists()


def test_b14_b15_a_space_and_its_labels_survive_rounds(rounds, server):
    url = server.page("/r14", "<button id=b onclick='window.n=(window.n||0)+1'>b</button>", title="R14")
    first = rounds.run(
        f'task = await task_space("rounds-b14")\np = task.page("p1")\nawait p.goto("{url}")\n'
        "print(task.space_id, p.target_id)\n"
    )
    assert first.returncode == 0, first.stderr
    space_id, target_id = first.stdout.split()
    second = rounds.run(
        f"task = await task_space({space_id})\np = task.page('p1')\n"
        "print(p.target_id, await p.url(), await p.title())\n"
        "before = len((await task.cdp('Target.getTargets'))['targetInfos'])\n"
        f"await p.goto('{server.url('/r14-next')}')\n"
        "after = len((await task.cdp('Target.getTargets'))['targetInfos'])\n"
        "print(before == after, await p.url())\n"
    )
    server.page("/r14-next", "next")
    assert second.returncode == 0, second.stderr
    lines = second.stdout.splitlines()
    assert lines[0] == f"{target_id} {url} R14"
    assert lines[1] == f"True {server.url('/r14-next')}"


def test_b18_sigkill_mid_round_keeps_the_space(rounds, server):
    url = server.page("/r18", "r18", title="R18")
    arrived = threading.Event()

    def gate(_req):
        arrived.set()  # the long evaluate is running in the page
        return Response("ok", content_type="text/plain")

    server.route("/r18-gate", gate)
    setup = rounds.run('task = await task_space("rounds-b18")\nprint(task.space_id)\n')
    space_id = setup.stdout.strip()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ego_browser"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env=rounds.env, cwd=str(ROOT),
    )
    proc.stdin.write(
        f"task = await task_space({space_id})\np = await task.new_page()\nawait p.goto('{url}')\n"
        "print(p.label, p.target_id, flush=True)\n"
        "await p.evaluate('fetch(\"/r18-gate\").then(() => new Promise(r => setTimeout(r, 10000)))')\n"
    )
    proc.stdin.close()
    label, target_id = proc.stdout.readline().split()
    assert arrived.wait(60), "the long evaluate never reached the page"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    nxt = rounds.run(
        f"task = await task_space({space_id})\np = task.page('{label}')\nprint(p.target_id)\n"
        f"await p.goto('{url}?again')\nprint(await p.url())\n"
    )
    assert nxt.returncode == 0, nxt.stderr
    assert nxt.stdout.splitlines() == [target_id, url + "?again"]


def test_host_socket_and_directory_are_private(rounds):
    rounds.run("await task_space('rounds-perm')\n")
    run_dir = os.path.join(rounds.home, "run")
    assert stat.S_IMODE(os.stat(run_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(os.path.join(run_dir, "host.sock")).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(rounds.home).st_mode) == 0o700


def test_person_takes_over_and_gives_back_through_the_cli(rounds, server):
    url = server.page("/r-cli", "cli")
    out = rounds.run(f'task = await task_space("rounds-cli")\nawait task.page("p1").goto("{url}")\nprint(task.space_id)\n')
    space_id = out.stdout.strip()
    took = rounds.cli("spaces", "take-over", space_id)
    assert took.returncode == 0 and "ownership user" in took.stdout
    listed = rounds.cli("spaces")
    # a header, then columns in the person's words (issue 34): ID, DRIVEN BY, NAME, ...
    lines = listed.stdout.splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["ID", "DRIVEN BY", "NAME", "TABS", "PROFILE", "BROWSER", "STATUS"]
    assert any(re.split(r"\s{2,}", line)[:3] == [space_id, "you (you took it over)", "rounds-cli"] for line in lines)
    assert "manual_takeover" not in listed.stdout and "\t" not in listed.stdout
    blocked = rounds.run(f"await (await task_space({space_id})).page('p1').evaluate('1')\n")
    assert blocked.returncode == 1
    assert "EGO_TASK_SPACE_USER_IN_CONTROL" in blocked.stderr and "manual_takeover" in blocked.stderr
    back = rounds.cli("spaces", "give-back", space_id)
    assert back.returncode == 0
    ok = rounds.run(f"print(await (await task_space({space_id})).page('p1').evaluate('6*7'))\n")
    assert ok.stdout == "42\n", ok.stderr


def test_two_rounds_on_two_spaces_run_in_parallel(rounds, server):
    """A slow evaluate in one space does not hold up another space's round."""
    arrived, release = threading.Event(), threading.Event()

    def gate(_req):
        # the slow space's evaluate is now in flight and stays so until the test says
        arrived.set()
        release.wait(60)
        return Response("go", content_type="text/plain")

    server.route("/r-par-gate", gate)
    url = server.page("/r-par", "par")
    a = rounds.run(f'task = await task_space("rounds-par-a")\nawait task.page("p1").goto("{url}")\n')
    assert a.returncode == 0, a.stderr
    slow = subprocess.Popen(
        [sys.executable, "-m", "ego_browser", "-e",
         "p = (await task_space('rounds-par-a')).page('p1')\n"
         "print(await p.evaluate('fetch(\"/r-par-gate\").then(r => r.text())'))\n"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=rounds.env, cwd=str(ROOT),
    )
    try:
        assert arrived.wait(60), "the slow round's evaluate never started: " + (slow.poll() is not None and slow.communicate()[1] or "")
        fast = rounds.run(f'task = await task_space("rounds-par-b")\nawait task.page("p1").goto("{url}")\nprint("fast done")\n')
        # the second space finished while the first space's call was still held open
        assert fast.returncode == 0 and fast.stdout.strip() == "fast done", fast.stderr
        assert slow.poll() is None
    finally:
        release.set()
    slow_out, slow_err = slow.communicate(timeout=60)
    assert slow.returncode == 0 and slow_out.strip() == "go", slow_err


def test_plain_script_with_asyncio_run_reaches_the_same_host(rounds, tmp_path):
    made = rounds.run('task = await task_space("rounds-plain")\nprint(task.space_id)\n')
    script = tmp_path / "plain.py"
    script.write_text(
        "import asyncio, ego_browser\n"
        "async def main():\n"
        "    t = await ego_browser.task_space('rounds-plain')\n"
        "    print(t.space_id, [p.label for p in await t.pages()])\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.run([sys.executable, str(script)], env=rounds.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{made.stdout.strip()} ['p1']\n"


def test_host_status_and_restart_keep_spaces(rounds, server):
    url = server.page("/r-restart", "restart", title="Restart")
    made = rounds.run(f'task = await task_space("rounds-restart")\nawait task.page("p1").goto("{url}")\nprint(task.space_id)\n')
    space_id = made.stdout.strip()
    status = rounds.cli("host", "status")
    assert status.returncode == 0 and "host running: pid" in status.stdout and "Chrom" in status.stdout
    pid = int(status.stdout.split("pid ")[1].split()[0])
    browser_pid = int(status.stdout.split("(pid ")[1].split(")")[0])
    # killed host: the browser lives on and the next host reattaches to it
    with _exit_watch(pid) as exited:
        os.kill(pid, signal.SIGKILL)
        assert exited(60), "the host outlived SIGKILL"
    again = rounds.run(f"p = (await task_space({space_id})).page('p1')\nprint(p.target_id is not None, await p.url())\n")
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"True {url}\n"
    status2 = rounds.cli("host", "status")
    assert f"(pid {browser_pid})" in status2.stdout, "the new host reattached to the same Chromium"
    # stopped host: nothing left running; the next host relaunches and restores the labels
    with _exit_watch(browser_pid) as exited:
        stopped = rounds.cli("host", "stop")
        assert stopped.returncode == 0
        assert exited(60), "Chromium outlived `host stop`"
    third = rounds.run(f"p = (await task_space({space_id})).page('p1')\nprint(await p.url())\n")
    assert third.returncode == 0, third.stderr
    assert third.stdout == f"{url}\n"


@contextlib.contextmanager
def _exit_watch(pid: int):
    """``exited(timeout)`` -> True once ``pid`` has exited (a pidfd: an event, not a poll)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        yield lambda timeout: True
        return
    try:
        yield lambda timeout: bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def test_the_person_closes_a_space_from_the_cli(rounds, server):
    # issue 34: `spaces close ID`, whoever drives the space
    url = server.page("/r-close", "<h1>closing</h1>")
    out = rounds.run(f'task = await task_space("rounds-close")\nawait task.page("p1").goto("{url}")\nprint(task.space_id)\n')
    space_id = out.stdout.strip()
    closed = rounds.cli("spaces", "close", space_id)
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout.strip() == f"space {space_id} (rounds-close) closed"
    listed = rounds.cli("spaces")
    assert not any(re.split(r"\s{2,}", line)[0] == space_id for line in listed.stdout.splitlines())
    gone = rounds.run(f"await (await task_space({space_id})).page('p1').evaluate('1')\n")
    assert gone.returncode == 1 and "EGO_TASK_SPACE_NOT_FOUND" in gone.stderr, gone.stderr
    again = rounds.cli("spaces", "close", space_id, "--json")
    assert again.returncode == 1 and json.loads(again.stdout)["error"]["code"] == "EGO_TASK_SPACE_NOT_FOUND"
