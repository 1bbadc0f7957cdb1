"""``until_quiet``: background work (the spare tab, the round worker) waits for a pause in the requests."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from ego_browser.host.core.quiet import until_quiet


@dataclass
class _Host:
    busy: int = 0
    last_request: float = 0.0


async def test_a_host_with_no_request_for_the_pause_is_quiet_at_once():
    host = _Host(last_request=time.monotonic() - 10)
    await asyncio.wait_for(until_quiet(host, quiet=5.0, latest=60.0), 5)


async def test_a_busy_host_is_waited_for_until_the_latest():
    host = _Host(busy=1, last_request=time.monotonic() - 10)
    start = time.monotonic()
    await asyncio.wait_for(until_quiet(host, quiet=0.01, latest=0.3), 10)
    assert time.monotonic() - start >= 0.3


async def test_the_pause_counts_from_since_when_that_is_later_than_the_last_request():
    # the worker's start: the host's last request was long before its "ok"
    host = _Host(last_request=time.monotonic() - 10)
    since = time.monotonic()
    await asyncio.wait_for(until_quiet(host, quiet=0.2, latest=60.0, since=since), 10)
    assert time.monotonic() - since >= 0.2


async def test_the_pause_counts_from_the_end_of_the_last_request():
    host = _Host(busy=1, last_request=time.monotonic() - 10)
    waiter = asyncio.ensure_future(until_quiet(host, quiet=0.3, latest=60.0))
    await asyncio.sleep(0)
    assert not waiter.done()  # a request is running
    host.busy, host.last_request = 0, time.monotonic()  # it ends
    ended = host.last_request
    await asyncio.wait_for(waiter, 10)
    assert time.monotonic() - ended >= 0.3


async def test_hurry_ends_the_wait_on_a_busy_host():
    host = _Host(busy=1, last_request=time.monotonic())
    hurry = asyncio.Event()
    waiter = asyncio.ensure_future(until_quiet(host, quiet=0.1, latest=60.0, hurry=hurry))
    await asyncio.sleep(0)
    assert not waiter.done()
    hurry.set()
    await asyncio.wait_for(waiter, 10)
