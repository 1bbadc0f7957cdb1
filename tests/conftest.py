"""Shared fixtures: a real web server on 127.0.0.1 and a real Chromium behind an ego host.

Each test session gets a private ``EGO_BROWSER_HOME`` (budget 3, as BEHAVIOURS.md sets).
``host`` runs the host in-process (fast, one Chromium for the whole session); tests that
need the background daemon and separate rounds use ``rounds`` instead.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

# CI and these machines are often loaded: a property is judged by its examples, never by how
# fast they were generated or ran (per-test @settings still set their own counts)
settings.register_profile("loaded", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("loaded")
_HOME = tempfile.mkdtemp(prefix="ego-test-home-")
os.environ["EGO_BROWSER_HOME"] = _HOME
os.environ["EGO_BROWSER_PAGE_BUDGET"] = "3"
os.environ.pop("EGO_BROWSER_CDP_URL", None)

from tests.server import TestServer  # noqa: E402

_names = itertools.count(1)


@pytest.fixture(scope="session")
def server():
    srv = TestServer()
    yield srv
    srv.close()


@pytest.fixture(scope="session")
async def host():
    """An in-process host (``embedded()``) shared by the session's API tests."""
    import ego_browser
    from ego_browser.client.channel import InProcessChannel, set_default_channel

    async with ego_browser.embedded() as h:
        set_default_channel(InProcessChannel(h))
        try:
            yield h
        finally:
            set_default_channel(None)


@pytest.fixture
def space_name(request) -> str:
    return f"{request.node.name[:40]}-{next(_names)}"


@pytest.fixture
async def task(host, space_name):
    import ego_browser

    t = await ego_browser.task_space(space_name)
    yield t
    try:
        await t.finish(keep=[])
    except ego_browser.EgoError:
        pass


class Rounds:
    """Runs ``python -m ego_browser`` rounds against a background host of a private home."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.env = {**os.environ, "EGO_BROWSER_HOME": home, "PYTHONPATH": str(ROOT)}

    def run(self, script: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "ego_browser", *args], input=script, env=self.env,
            capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
        )

    def cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "ego_browser", *args], env=self.env, capture_output=True, text=True,
            timeout=timeout, cwd=str(ROOT), stdin=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        self.cli("host", "stop")


@pytest.fixture(scope="session")
def rounds():
    home = tempfile.mkdtemp(prefix="ego-test-rounds-")
    r = Rounds(home)
    yield r
    r.stop()


@pytest.fixture
def fresh_rounds():
    """Rounds against a host of a private home of their own (tests that stop, break or inspect it)."""
    import shutil

    home = tempfile.mkdtemp(prefix="ego-test-fresh-")
    r = Rounds(home)
    try:
        yield r
    finally:
        r.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def grid():
    """A Selenium Grid 4 (hub + two nodes, tests/grid.py), started only by the tests that ask."""
    from tests.grid import start_grid

    g = start_grid()
    try:
        yield g
    finally:
        g.stop()


@pytest.fixture(scope="module")
async def grid_host(grid):
    """An in-process host whose spaces live on the Grid (two spaces per browser, so a few
    spaces need two Grid sessions), with a private home; the channel is set per test."""
    async with open_grid_host(grid, spaces_per_browser="2") as h:
        yield h


@contextlib.asynccontextmanager
async def open_grid_host(grid, *, spaces_per_browser: str | None):
    """An in-process host on the Grid with a private home (None: the default cap per browser)."""
    import shutil

    from ego_browser.host.core import features
    from ego_browser.host.core.host import Host
    from ego_browser.host.core.dispatch import load_all

    load_all()
    home = Path(tempfile.mkdtemp(prefix="ego-test-grid-"))
    saved = {k: os.environ.get(k) for k in ("EGO_BROWSER_GRID_URL", "EGO_BROWSER_SPACES_PER_BROWSER")}
    os.environ["EGO_BROWSER_GRID_URL"] = grid.url
    if spaces_per_browser is None:
        os.environ.pop("EGO_BROWSER_SPACES_PER_BROWSER", None)
    else:
        os.environ["EGO_BROWSER_SPACES_PER_BROWSER"] = spaces_per_browser
    h = Host(features=features.build, home=home, embedded=True)
    try:
        await h.start()
        yield h
    finally:
        await h.stop(kill_browser=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def on_grid(grid_host):
    """Public API calls of this test go to the Grid host."""
    from ego_browser.client.channel import InProcessChannel, reset_channel, use_channel

    token = use_channel(InProcessChannel(grid_host))
    yield grid_host
    reset_channel(token)
