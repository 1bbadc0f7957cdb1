"""A goto whose document never answers says why that can be: a silent server, or no free
connection to that host (Chromium opens at most 6 per host in one browser context, and the
pages of other spaces in the same context may hold them: measured here, a page holding six
requests open kept another space's goto from ever being sent).

It was a whole-suite failure: a test's route sent the shared server's /favicon.ico to an icon
answered after 20 s, every later page load asked for it, and the rounds host's gotos to that
server "did not commit" in 15 s."""

from __future__ import annotations

import threading

import pytest

import ego_browser
from ego_browser.errors import NavigationTimeout

from tests.server import Response

pytestmark = pytest.mark.asyncio


@pytest.fixture
def gate():
    release = threading.Event()
    yield release
    release.set()


def _held(server, path: str, release: threading.Event, arrived: threading.Semaphore | None = None) -> str:
    def hold(_req):
        if arrived is not None:
            arrived.release()
        release.wait(60)
        return Response("late", content_type="text/plain")

    return server.route(path, hold)


async def test_a_server_that_does_not_answer_is_named(task, server, gate):
    url = _held(server, "/na/silent", gate)
    with pytest.raises(NavigationTimeout) as info:
        await task.page("p1").goto(url, timeout=2000)
    assert "the server is slow, or the browser is waiting for a free connection" in str(info.value), info.value


async def test_a_request_the_browser_holds_back_for_a_connection_is_named(task, server, gate):
    import asyncio

    # another space of the same (default) context holds six connections to the host
    other = await ego_browser.task_space(f"na-holder-{id(gate)}")
    try:
        arrived = threading.Semaphore(0)
        _held(server, "/na/hold", gate, arrived)
        holder = other.page("p1")
        await holder.goto(server.page("/na/holder", "<p>holder</p>"))
        await holder.evaluate("for (let i = 0; i < 6; i++) fetch('/na/hold?' + i); 0")
        for _ in range(6):
            assert await asyncio.to_thread(arrived.acquire, True, 30), "the six held requests never arrived"
        with pytest.raises(NavigationTimeout) as info:
            await task.page("p1").goto(server.page("/na/after", "<p>after</p>"), timeout=2000)
        assert "at most 6 at once per browser context" in str(info.value), info.value
        assert server.count("/na/after") == 0, "the request did go out: not the connection limit"
    finally:
        gate.set()
        await other.finish(keep=[])
