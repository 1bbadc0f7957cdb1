"""Issue 31, point 7: the host's background work never fails without a word in its log (a
store turned read-only under a background write left nothing in host.log)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from ego_browser.errors import PageClosed, StateStoreUnwritable
from ego_browser.host.core.host import Host


async def _fail(exc: BaseException) -> None:
    raise exc


async def test_an_unexpected_background_failure_is_logged(caplog):
    host = object.__new__(Host)  # only the background bookkeeping is exercised
    host._background = set()
    caplog.set_level(logging.DEBUG, logger="ego_browser.host")
    bad = asyncio.get_running_loop().create_task(
        _fail(sqlite3.OperationalError("attempt to write a readonly database")), name="journal-save")
    host.background(bad)
    expected = asyncio.get_running_loop().create_task(_fail(PageClosed("p1 was closed")), name="dialog-click")
    host.background(expected)
    await asyncio.gather(bad, expected, return_exceptions=True)
    await asyncio.sleep(0)  # done callbacks run on the next loop pass
    full = asyncio.get_running_loop().create_task(
        _fail(StateStoreUnwritable("the state store could not record the change")), name="adopt-person-tab")
    host.background(full)
    await asyncio.gather(full, return_exceptions=True)
    await asyncio.sleep(0)
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "state store" in warned[0].getMessage(), caplog.text
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "journal-save" in errors[0].getMessage(), caplog.text
    assert "readonly database" in caplog.text
    assert not host._background


def test_a_host_stopping_with_its_browser_says_why(fresh_rounds, server):
    """The browser killed under the host: the host stops with it, and its log says why."""
    import json
    import os
    import signal
    import time
    from pathlib import Path

    r = fresh_rounds
    url = server.page("/gone", "<h1>gone</h1>", title="gone")
    made = r.run(f"await (await task_space('gone')).page('p1').goto({url!r})\nprint('ok')\n", timeout=120)
    assert made.stdout == "ok\n", made.stderr
    status = json.loads(r.cli("host", "status", "--json", timeout=60).stdout)
    os.kill(status["browser_pid"], signal.SIGKILL)
    end = time.monotonic() + 60
    while Path(f"/proc/{status['pid']}").exists() and "State:\tZ" not in Path(f"/proc/{status['pid']}/status").read_text():
        assert time.monotonic() < end, "the host outlived its browser"
        time.sleep(0.05)
    assert "the browser's connection closed" in (Path(r.home) / "run" / "host.log").read_text()
