"""Chromium started before the host loads itself (browser/early.py, host/core/serve_early.py).

``host serve`` takes the host lock, starts the keeper and Chromium, and only then imports the
host; the provider takes that launch instead of launching its own. Where the provider would
not launch exactly that browser (one to reattach to, a CDP URL, headed), nothing starts early.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from ego_browser.browser import early
from ego_browser.browser.launcher import pid_alive
from ego_browser.browser.providers import LocalProvider


def _wait_gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # another process's exit: there is no event to wait on
    return not pid_alive(pid)


@pytest.fixture
def dirs(tmp_path):
    home, run_dir = tmp_path / "home", tmp_path / "home" / "run"
    run_dir.mkdir(parents=True, mode=0o700)
    yield home, run_dir
    early.discard()


def _probe(tmp_path, probe: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``probe`` (a Python program) with a home of its own, no worker and no CDP URL."""
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home")}
    env.pop("EGO_BROWSER_CDP_URL", None)
    env.pop("EGO_BROWSER_NO_WORKER", None)
    return subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, timeout=60)


_PROBE = """
import sys
from ego_browser.browser import early

def start(home, run_dir):
    loaded = "ego_browser.host.core.server" in sys.modules or "ego_browser.host.core.host" in sys.modules
    print("host loaded" if loaded else "host not loaded", flush=True)
    raise SystemExit(7)

early.start = start
from ego_browser.cli import main
main(["host", "serve"])
"""


def test_host_serve_starts_chromium_before_it_imports_the_host(tmp_path):
    proc = _probe(tmp_path, _PROBE)
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout.strip() == "host not loaded"


def _started_early(home, run_dir, monkeypatch) -> int:
    """Chromium started early for a local profile (no CDP or Grid URL); its keeper's pid."""
    monkeypatch.delenv("EGO_BROWSER_CDP_URL", raising=False)
    monkeypatch.delenv("EGO_BROWSER_GRID_URL", raising=False)
    assert early.start(home, run_dir)
    assert early._early is not None
    return early._early[2].proc.pid


def test_the_provider_takes_the_browser_started_early(dirs, monkeypatch):
    home, run_dir = dirs
    keeper_pid = _started_early(home, run_dir, monkeypatch)

    async def go():
        provider = LocalProvider(home, run_dir, embedded=False)
        opened = await provider.open()
        try:
            version = await opened.conn.send("Browser.getVersion")
            assert "Chrome" in version["product"]
            assert opened.process is not None and opened.process.leader == keeper_pid
            assert early.take(home / "profiles" / "default", str(run_dir / "browser.sock")) is None  # handed over once
        finally:
            await provider.release(opened, kill=True)

    asyncio.run(go())
    assert _wait_gone(keeper_pid)


def test_a_start_that_failed_stops_the_browser_started_early(dirs, monkeypatch):
    home, run_dir = dirs
    keeper_pid = _started_early(home, run_dir, monkeypatch)
    early.discard()
    assert _wait_gone(keeper_pid)
    assert early._early is None


@pytest.mark.parametrize("case", ["recorded browser", "cdp url", "grid url", "headed"])
def test_nothing_starts_early_where_the_provider_would_not_launch_it(dirs, monkeypatch, case):
    home, run_dir = dirs
    for name in ("EGO_BROWSER_CDP_URL", "EGO_BROWSER_GRID_URL", "EGO_BROWSER_HEADLESS"):
        monkeypatch.delenv(name, raising=False)
    if case == "recorded browser":
        (run_dir / "browser.json").write_text("{}")
    elif case == "cdp url":
        monkeypatch.setenv("EGO_BROWSER_CDP_URL", "http://127.0.0.1:9")
    elif case == "grid url":
        monkeypatch.setenv("EGO_BROWSER_GRID_URL", "http://127.0.0.1:9")
    else:
        monkeypatch.setenv("EGO_BROWSER_HEADLESS", "0")
    assert early.start(home, run_dir) is False
    assert early._early is None
    assert not (home / "profiles").exists()


_SERVE_PROBE = """
import os, sys
from ego_browser.browser import early

def start(home, run_dir):
    table = "ego_browser.cli.commands" in sys.modules
    print("commands loaded" if table else "commands not loaded", flush=True)
    raise SystemExit(7)

early.start = start
read_fd, write_fd = os.pipe()
from ego_browser.cli import main
main(["host", "serve", "--ready-fd", str(write_fd)])
"""


def test_the_host_a_round_starts_launches_chromium_before_the_command_table(tmp_path):
    """``host serve --ready-fd N`` (what a round spawns) goes straight to its lock and Chromium."""
    proc = _probe(tmp_path, _SERVE_PROBE)
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout.strip() == "commands not loaded"


_LAUNCH_PROBE = """
import os, sys
from ego_browser.browser import launcher

def start_keeper(*args, **kwargs):
    heavy = [m for m in ("asyncio", "orjson", "ego_browser.host.core.server") if m in sys.modules]
    print("launched with", heavy or "nothing heavy loaded", flush=True)
    raise SystemExit(7)

launcher.start_keeper = start_keeper
read_fd, write_fd = os.pipe()
from ego_browser.cli import main
main(["host", "serve", "--ready-fd", str(write_fd)])
"""


def test_the_host_launches_chromium_before_it_imports_asyncio(tmp_path):
    """Chromium's boot is the critical path of a cold round; the host's event loop, JSON and
    server modules load while it boots (~30 ms of the launch's path were asyncio's import)."""
    proc = _probe(tmp_path, _LAUNCH_PROBE)
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout.strip() == "launched with nothing heavy loaded"


_ROUND_PROBE = """
import sys
from ego_browser.client import host_start

def spawn():
    client = [m for m in ("ego_browser.client.channel", "ego_browser.round.runner", "asyncio") if m in sys.modules]
    print("spawned with", client or "nothing of the client loaded", flush=True)
    raise SystemExit(7)

host_start.spawn = spawn
from ego_browser.cli import main
sys.exit(main(["-e", sys.argv[1]]))
"""


@pytest.mark.parametrize("script", [
    "task = await task_space('cold')\nprint(await task.page('p1').url())",
    "async def later():\n    return await tools.some_tool(None)\nprint('defined')",
    "import ego_browser\nprint(ego_browser.__name__)",
])
def test_a_cold_round_that_uses_the_browser_starts_the_host_before_it_loads_the_client(tmp_path, script):
    """Chromium's launch is most of a cold round: the round starts the host first thing, so the
    browser boots while the round imports its client (client/host_start.py)."""
    proc = _probe(tmp_path, _ROUND_PROBE, script)
    assert proc.returncode == 7, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "spawned with nothing of the client loaded"


@pytest.mark.parametrize("script", [
    "print(6 * 7)",
    "import json\nprint(json.dumps({'a': 1}))",
    "print(6 * 7\n",  # a syntax error: reported, nothing started
])
def test_a_round_that_does_not_use_the_browser_starts_no_host(tmp_path, script):
    proc = _probe(tmp_path, _ROUND_PROBE, script)
    assert "spawned" not in proc.stdout, proc.stdout
    assert proc.returncode == (2 if "(6 * 7\n" in script else 0), proc.stderr
    assert not (tmp_path / "home" / "run" / "host.lock").exists()



def test_a_script_too_deep_to_compile_is_reported_by_the_runner_and_starts_no_host(tmp_path):
    """``1+1+...`` 20,000 times: compiling it raises RecursionError, not SyntaxError."""
    proc = _probe(tmp_path, _ROUND_PROBE, "x = 1" + "+1" * 20_000)
    assert "spawned" not in proc.stdout, proc.stdout
    assert proc.returncode != 0
    assert "_uses_browser" not in proc.stderr, proc.stderr[-2000:]
