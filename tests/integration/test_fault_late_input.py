"""Host-deadline timeouts say whether input reached the page (issue 9, point 12).

A page handler blocks its main thread on a synchronous request to the test server, which does
not answer until the test lets it: the host's deadline for the action passes while the input
is in the page, and the effect lands after the error. ``EgoTimeout.input_dispatched`` tells
the agent which case it is in.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

import ego_browser
from tests.server import Response

BLOCKING_PAGE = """
<button id=b onclick="hold(); document.getElementById('out').textContent = 'clicked'">go</button>
<input id=q oninput="hold()">
<p id=out>idle</p>
<script>
function hold() {
  const x = new XMLHttpRequest();
  x.open('GET', '/hold?' + Math.random(), false);  // synchronous: the main thread waits
  x.send();
}
</script>
"""


@pytest.fixture
def gate(server):
    """``/hold`` answers only once the test sets the event (always set at the end)."""
    release = threading.Event()
    arrived = threading.Event()

    def hold(_req):
        arrived.set()
        release.wait(120)
        return Response("ok", content_type="text/plain")

    server.route("/hold", hold)
    yield release, arrived
    release.set()


async def _blocking_page(task, server):
    page = await task.new_page()
    await page.goto(server.page("/late-input", BLOCKING_PAGE))
    return page


async def test_click_whose_handler_blocks_reports_input_dispatched(task, server, gate):
    release, arrived = gate
    page = await _blocking_page(task, server)
    with pytest.raises(ego_browser.EgoTimeout) as info:
        await page.click("#b", timeout=500)
    err = info.value
    assert err.code == "EGO_TIMEOUT" and err.api == "page.click"
    assert err.input_dispatched is True
    assert "effects may still land" in str(err)
    assert arrived.is_set()  # the handler really ran
    release.set()
    # the late effect the error warned about lands
    await page.wait_for_function("document.getElementById('out').textContent === 'clicked'")


async def test_fill_timed_out_mid_insertion_reports_input_dispatched(task, server, gate):
    release, _arrived = gate
    page = await _blocking_page(task, server)
    with pytest.raises(ego_browser.EgoTimeout) as info:
        await page.fill("#q", "landed late", timeout=500)
    assert info.value.input_dispatched is True and info.value.api == "page.fill"
    release.set()
    await page.wait_for_function("document.getElementById('q').value === 'landed late'")


async def test_timeout_before_any_input_says_none_was_sent(task, server, gate):
    release, arrived = gate
    page = await _blocking_page(task, server)
    # the page's main thread is busy before the click starts: the click cannot even check its
    # element, so it sends nothing
    await page.evaluate("setTimeout(hold, 0)")
    assert await asyncio.to_thread(arrived.wait, 60)
    with pytest.raises(ego_browser.EgoTimeout) as info:
        await page.click("#b", timeout=500)
    assert info.value.input_dispatched is False
    assert "no input had been sent" in str(info.value)
    release.set()
    await page.wait_for_function("document.getElementById('out').textContent === 'idle'")
    assert await page.evaluate("document.getElementById('out').textContent") == "idle"


async def test_timeouts_of_calls_without_input_leave_the_field_unset(task, server, gate):
    release, arrived = gate
    page = await _blocking_page(task, server)
    await page.evaluate("setTimeout(hold, 0)")
    assert await asyncio.to_thread(arrived.wait, 60)
    with pytest.raises(ego_browser.EgoTimeout) as info:
        await page.wait_for_selector("#nope", timeout=500)
    assert info.value.input_dispatched is None
    release.set()
