"""A Grid browser lost mid-round, and a Grid that does not answer (issue 16 point 3).

The node's Chromium is killed by the pid the Grid reported for the session, checked to be a
descendant of the node process tests/grid.py started: nothing else is ever signalled."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading

import pytest

import ego_browser
from ego_browser import BrowserLost

from tests.conftest import ROOT
from tests.grid import free_port
from tests.server import Response


async def test_a_lost_browser_fails_only_its_spaces_and_they_come_back(on_grid, grid, server):
    host = on_grid
    url_a = server.page("/grid-lost-a", "<p>a</p>", title="A")
    url_b = server.page("/grid-lost-b", "<p>b</p>", title="B")
    url_c = server.page("/grid-lost-c", "<p>c</p>", title="C")
    # new spaces alternate over the two nodes (the one with fewer of ours), two per browser:
    # a and b share a browser, c is on the other node
    a = await ego_browser.task_space("lost-a")
    c = await ego_browser.task_space("lost-c")
    b = await ego_browser.task_space("lost-b")
    await a.page("p1").goto(url_a)
    await a.page("p1").goto(url_a + "?second")
    await b.page("p1").goto(url_b)
    await c.page("p1").goto(url_c)
    await c.page("p1").evaluate("window.kept = 'same document'")
    listing = {s["name"]: s["browser"] for s in await ego_browser.list_task_spaces()}
    assert listing["lost-a"] == listing["lost-b"] != listing["lost-c"]
    lost_instance = host.store.space(a.space_id).browser_instance
    member = host.browser.members[lost_instance]
    node = grid.node_for(member.opened.grid.node)
    pid = member.opened.grid.browser_pid
    assert pid in node.descendants()  # a process our fixture's node started

    # a call in flight on the lost browser fails with the code, at once, not at its deadline
    started = threading.Event()

    def mark(_req):
        started.set()
        return Response("ok", content_type="text/plain")

    server.route("/grid-lost/started", mark)
    pending = asyncio.ensure_future(a.page("p1").wait_for_function(
        "() => { if (!window.asked) { window.asked = true; fetch('/grid-lost/started'); } return false; }",
        timeout=120000))
    assert await asyncio.to_thread(started.wait, 60)  # the call runs in the browser now
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(BrowserLost) as info:
        await asyncio.wait_for(pending, 60)
    assert info.value.code == "EGO_BROWSER_LOST" and "being reopened" in str(info.value)
    # the space on the other browser goes on with the same document
    assert await c.page("p1").evaluate("window.kept") == "same document"
    # the lost spaces come back on a browser that works, at their last URLs, labels kept
    for space in (a, b):
        reopening = host.lost_spaces.get(space.space_id)
        if reopening is not None:
            await asyncio.wait_for(asyncio.shield(reopening), 120)
    assert await a.page("p1").url() == url_a + "?second"
    assert await a.page("p1").title() == "A"
    assert await b.page("p1").title() == "B"
    listing = {s["name"]: s["browser"] for s in await ego_browser.list_task_spaces()}
    assert listing["lost-a"] != member.opened.where
    assert "EGO_BROWSER_LOST" in (ROOT / "docs" / "troubleshooting.md").read_text()
    for space in (a, b, c):
        await space.finish(keep=[])
    # the dead session was given back, and the finished ones too
    assert not grid.session_alive(member.opened.grid.session_id)


def test_grid_down_is_a_clear_error_naming_its_url(tmp_path):
    dead = f"http://127.0.0.1:{free_port()}"
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"), "EGO_BROWSER_GRID_URL": dead,
           "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run([sys.executable, "-m", "ego_browser"], input="await task_space('x')\n", env=env,
                              capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    finally:
        subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], env=env, capture_output=True,
                       timeout=60, cwd=str(ROOT), stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    assert "EGO_BROWSER_UNAVAILABLE" in proc.stderr and dead in proc.stderr, proc.stderr
    assert "cannot reach the Selenium Grid" in proc.stderr
