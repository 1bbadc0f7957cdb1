"""Issue 31, point 7: the host's background work never fails without a word in its log (a
store turned read-only under a background write left nothing in host.log)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from ego_browser.errors import PageClosed
from ego_browser.host.core import Host


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
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "journal-save" in errors[0].getMessage(), caplog.text
    assert "readonly database" in caplog.text
    assert not host._background
