"""A crashed renderer is detected at once (issue 9 point 10): EGO_PAGE_CRASHED, then
reload() or goto() recover. No call waits for a deadline behind the dead renderer."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser import PageCrashed

from tests.cdp_recorder import record_cdp

BUTTON = "<button id=b style='width:200px;height:60px' onclick='window.n = (window.n || 0) + 1'>b</button>"


async def _crash(page) -> None:
    # Page.crash never answers: the renderer dies first, and the request fails with the crash
    with pytest.raises(PageCrashed):
        await page.cdp("Page.crash", timeout=20000)


async def test_calls_after_a_crash_fail_at_once_and_reload_recovers(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/cr-a", BUTTON))
    await page.snapshot()
    await _crash(page)
    with record_cdp(host) as rec:
        for call in (page.click("#b"), page.evaluate("1"), page.snapshot(), page.find("#b"), page.info(),
                     page.screenshot(), page.wait_for_selector("#b", timeout=20000), page.fill("#b", "x"),
                     page.click("@1")):
            with pytest.raises(PageCrashed) as info:
                await call
            assert info.value.code == "EGO_PAGE_CRASHED" and info.value.label == "p1"
            assert "page.reload()" in str(info.value)
    # nothing was even sent to the dead renderer
    assert [s.method for s in rec.sent] == []
    assert await page.url() == server.url("/cr-a")
    await page.reload()
    await page.click("#b")
    assert await page.evaluate("window.n") == 1


async def test_goto_recovers_a_crashed_page(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/cr-b", "<p>one</p>"))
    await _crash(page)
    with pytest.raises(PageCrashed):
        await page.evaluate("1")
    await page.goto(server.page("/cr-b2", BUTTON))
    await page.click("#b")
    assert await page.evaluate("window.n") == 1


async def test_an_action_retrying_fails_when_the_renderer_crashes(host, task, server):
    """An action waiting between two attempts (its element not there yet) fails with the
    crash, not with its own timeout, and no command runs into a deadline."""
    page = task.page("p1")
    await page.goto(server.page("/cr-r", "<p>x</p>"))
    with record_cdp(host) as rec:
        clicking = asyncio.ensure_future(page.click("#never", timeout=60000))
        # in a pause between attempts: the wait for the page's next change is pending
        await rec.until(lambda sent: any("nextMutation" in s.params.get("expression", "") and s.outcome == "pending"
                                         for s in sent))
        await _crash(page)
        with pytest.raises(PageCrashed):
            await clicking
    assert rec.timed_out() == []


async def test_a_wait_in_flight_fails_when_the_renderer_crashes(host, task, server):
    """A call already waiting on the page fails with the crash, not with its own timeout."""
    page = task.page("p1")
    await page.goto(server.page("/cr-c", "<p>x</p>"))
    with record_cdp(host) as rec:
        waiting = asyncio.ensure_future(page.wait_for_selector("#never", timeout=60000))
        # the wait is in flight once its first look at the page has come back (it then waits
        # for the next change)
        await rec.until(lambda sent: any(s.method.startswith("Runtime.") and s.outcome == "ok" for s in sent))
        assert not waiting.done()
        await _crash(page)
        with pytest.raises(PageCrashed):
            await waiting
        assert rec.timed_out() == []
    await page.reload()
    assert await page.evaluate("2") == 2


async def test_chrome_crash_url(host, task, server):
    """Navigating to chrome://crash kills the renderer the same way."""
    page = task.page("p1")
    await page.goto(server.page("/cr-d", "<p>x</p>"))
    from ego_browser import NavigationFailed

    # the navigation itself is aborted by the crash (net::ERR_ABORTED) or fails with it
    with pytest.raises((PageCrashed, NavigationFailed)):
        await page.goto("chrome://crash", timeout=20000)
    with pytest.raises(PageCrashed):
        await page.click("p")
    await page.goto(server.url("/cr-d"))
    assert await page.evaluate("document.querySelector('p').textContent") == "x"
