"""A round never silently drops work (issue 13, point 6): real rounds (``python -m ego_browser``).

A coroutine never awaited fails the round with EGO_MISSING_AWAIT naming its line; a background
task that failed unobserved, or was still running when the script ended, is reported; the exit
status is non-zero in each case, and a clean script still exits 0 with nothing on stderr.
"""

from __future__ import annotations

CLICKS = "<button id=b onclick='window.n=(window.n||0)+1'>b</button>"


def _open(url: str, space: str) -> str:
    return f'task = await task_space("{space}")\np = task.page("p1")\nawait p.goto("{url}")\n'


def test_missing_await_on_a_page_action_fails_the_round_at_its_line(rounds, server):
    url = server.page("/watch-click", CLICKS, title="W")
    proc = rounds.run(
        _open(url, "watch-missing")
        + "p.click('#b')\n"  # line 4: the forgotten await
        + "n = await p.evaluate('window.n || 0')\n"
        + "print('went on', n)\n"
    )
    assert proc.returncode == 1, proc.stderr
    assert "EGO_MISSING_AWAIT" in proc.stderr and "missing await" in proc.stderr
    assert "at line 4: p.click('#b')" in proc.stderr
    assert "click() was called without await" in proc.stderr
    # the round stopped at its next await instead of going on as if the click had happened
    assert "went on" not in proc.stdout
    # and the click really never ran
    check = rounds.run('task = await task_space("watch-missing")\nprint(await task.page("p1").evaluate("window.n || 0"))\n')
    assert check.returncode == 0, check.stderr
    assert check.stdout.strip() == "0"


def test_a_forgotten_await_on_the_last_line_prints_only_the_error(rounds, server):
    # issue 34: `print(page.title())` as the script's last line: the finding arrives after the
    # script ended, and its cancel used to cut the round's clean-up (a 20-line internal traceback)
    url = server.page("/watch-last", CLICKS, title="W")
    proc = rounds.run(_open(url, "watch-last") + "print(p.title())\n")
    assert proc.returncode == 1, proc.stderr
    assert "EGO_MISSING_AWAIT" in proc.stderr and "at line 4: print(p.title())" in proc.stderr
    assert "Traceback" not in proc.stderr and "CancelledError" not in proc.stderr, proc.stderr
    assert "ego_browser/round/runner.py" not in proc.stderr


def test_the_same_round_with_await_is_clean(rounds, server):
    url = server.page("/watch-clean", CLICKS, title="W")
    proc = rounds.run(
        _open(url, "watch-clean") + "await p.click('#b')\nprint(await p.evaluate('window.n'))\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1"
    # nothing but, on a cold and slow host start, the progress line that says so
    assert [ln for ln in proc.stderr.splitlines() if not ln.startswith("[ego-browser:progress]")] == []


def test_missing_await_without_any_top_level_await(rounds):
    # no top-level await at all: the script runs without an event loop and is judged at its end
    proc = rounds.run("async def work():\n    print('never')\n\nwork()\nprint('after')\n")
    assert proc.returncode == 1
    assert proc.stdout == "after\n"
    assert "EGO_MISSING_AWAIT" in proc.stderr and "at line 4: work()" in proc.stderr
    assert "RuntimeWarning" not in proc.stderr


def test_a_kept_coroutine_never_awaited_is_reported(rounds):
    proc = rounds.run("async def work():\n    return 1\n\npending = work()\nawait asyncio.sleep(0)\nprint('done')\n")
    assert proc.returncode == 1
    assert proc.stdout == "done\n"
    assert "EGO_MISSING_AWAIT" in proc.stderr and "at line 4: pending = work()" in proc.stderr


def test_missing_await_inside_a_script_function_names_that_line(rounds):
    proc = rounds.run(
        "async def step():\n    return 1\n\nasync def flow():\n    step()\n    return 2\n\nprint(await flow())\n"
    )
    assert proc.returncode == 1
    assert "at line 5: step()" in proc.stderr


def test_failed_background_task_is_reported(rounds):
    proc = rounds.run(
        "async def boom():\n    raise ValueError('background broke')\n\n"
        "asyncio.create_task(boom())\n"
        "await asyncio.sleep(0)\nawait asyncio.sleep(0)\nawait asyncio.sleep(0)\n"
        "print('main went on')\n"
    )
    assert proc.returncode == 1
    assert "Background task" in proc.stderr and "failed" in proc.stderr
    assert "started at line 4: asyncio.create_task(boom())" in proc.stderr
    assert "ValueError: background broke" in proc.stderr
    assert "at line 2: raise ValueError('background broke')" in proc.stderr
    assert "Task exception was never retrieved" not in proc.stderr


def test_failed_background_task_kept_in_a_variable_is_reported(rounds):
    proc = rounds.run(
        "async def boom():\n    raise KeyError('kept')\n\nt = asyncio.create_task(boom())\n"
        "await asyncio.sleep(0)\nprint('end')\n"
    )
    assert proc.returncode == 1
    assert "KeyError: 'kept'" in proc.stderr and "started at line 4" in proc.stderr


def test_awaited_background_failure_is_the_scripts_own_error(rounds):
    # the script looked at the task: its exception is an ordinary script error, not dropped work
    proc = rounds.run(
        "async def boom():\n    raise ValueError('seen')\n\nt = asyncio.create_task(boom())\n"
        "try:\n    await t\nexcept ValueError as e:\n    print('caught', e)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "caught seen\n"
    assert proc.stderr == ""


def test_background_task_still_running_at_the_end_is_reported(rounds):
    proc = rounds.run(
        "async def slow():\n    await asyncio.sleep(3600)\n\nt = asyncio.create_task(slow())\n"
        "await asyncio.sleep(0)\nprint('end')\n",
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == "end\n"
    assert "still running when the script ended" in proc.stderr and "started at line 4" in proc.stderr


def test_script_error_and_dropped_work_are_both_shown(rounds):
    proc = rounds.run("async def work():\n    pass\n\nwork()\nraise RuntimeError('later')\n")
    assert proc.returncode == 1
    err = proc.stderr
    assert "EGO_MISSING_AWAIT" in err and "RuntimeError: later" in err
    assert err.index("EGO_MISSING_AWAIT") < err.index("RuntimeError: later")
