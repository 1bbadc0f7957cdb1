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
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home")}
    env.pop("EGO_BROWSER_CDP_URL", None)
    proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=60)
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
