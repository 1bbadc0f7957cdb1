"""Navigation waiting in the driver, against a scripted browser (no Chromium)."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.driver import navigation
from ego_browser.errors import InvalidArgument, NavigationTimeout
from ego_browser.testing import FakeBrowser

from .kit import MAIN, SESSION, attached, close, frame, round_trip


def lifecycle(browser: FakeBrowser, name: str, loader_id: str) -> None:
    browser.emit("Page.lifecycleEvent", {"frameId": MAIN, "loaderId": loader_id, "name": name, "timestamp": 1},
                 session_id=SESSION)


async def test_goto_returns_at_the_load_of_the_new_document_not_the_old_one():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.hang("Page.navigate")
        goto = asyncio.ensure_future(navigation.goto(driver, "https://b.test/", timeout_ms=30000))
        command = await browser.command("Page.navigate")
        assert command.params["url"] == "https://b.test/" and command.session_id == SESSION
        command.reply({"frameId": MAIN, "loaderId": "L2"})
        lifecycle(browser, "load", "L1")  # the old document's late event
        browser.emit("Page.frameNavigated", {"frame": frame("L2", "https://b.test/"), "type": "Navigation"},
                     session_id=SESSION)
        lifecycle(browser, "init", "L2")
        lifecycle(browser, "DOMContentLoaded", "L2")
        await round_trip(driver)
        for _ in range(5):  # every callback those events woke has run
            await asyncio.sleep(0)
        assert not goto.done(), "goto returned before the new document's load"
        assert driver.frames.main.url == "https://b.test/"
        lifecycle(browser, "load", "L2")
        assert await asyncio.wait_for(goto, 10) == {"url": "https://b.test/"}
    finally:
        await close(driver)


async def test_goto_of_a_page_that_left_itself_before_the_answer_was_read_waits_for_where_it_went():
    """The answer to Page.navigate and the events of both documents (ours, which sends itself
    elsewhere at once, and the one it went to) are read in one go, before goto looks at the
    answer (CI, loaded: goto waited 15 s for a load that had come)."""
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.hang("Page.navigate")
        goto = asyncio.ensure_future(navigation.goto(driver, "https://b.test/", timeout_ms=5000))
        command = await browser.command("Page.navigate")
        # one reader turn for all of them: goto resumes only after they were dispatched
        command.reply({"frameId": MAIN, "loaderId": "L2"})
        lifecycle(browser, "init", "L2")
        browser.emit("Page.frameNavigated", {"frame": frame("L2", "https://b.test/"), "type": "Navigation"},
                     session_id=SESSION)
        lifecycle(browser, "init", "L3")
        browser.emit("Page.frameNavigated", {"frame": frame("L3", "https://c.test/"), "type": "Navigation"},
                     session_id=SESSION)
        lifecycle(browser, "DOMContentLoaded", "L3")
        lifecycle(browser, "load", "L3")
        assert await asyncio.wait_for(goto, 10) == {"url": "https://b.test/"}
        assert driver.frames.main.url == "https://c.test/"
    finally:
        await close(driver)


async def test_goto_that_commits_but_never_loads_says_so():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.reply("Page.navigate", {"frameId": MAIN, "loaderId": "L2"})
        browser.reply("Runtime.evaluate", {"result": {"type": "string", "value": "interactive"}})
        goto = asyncio.ensure_future(navigation.goto(driver, "https://b.test/", timeout_ms=300))
        await browser.command("Page.navigate")
        browser.emit("Page.frameNavigated", {"frame": frame("L2", "https://b.test/"), "type": "Navigation"},
                     session_id=SESSION)
        with pytest.raises(NavigationTimeout) as info:
            await goto
        e = info.value
        assert (e.committed, e.url, e.ready_state) == (True, "https://b.test/", "interactive")
        assert "wait_for_load_state" in str(e)
    finally:
        await close(driver)


async def test_goto_refused_by_the_browser_is_an_argument_error():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.fail("Page.navigate", "Cannot navigate to invalid URL")
        with pytest.raises(InvalidArgument) as info:
            await navigation.goto(driver, "http://exa mple.com:99999")
        assert info.value.option == "url"
    finally:
        await close(driver)


async def test_wait_for_load_state_of_a_page_attached_after_its_events_reads_its_ready_state():
    browser = FakeBrowser()
    # attached while still loading: no lifecycle seeded, and the events went before we came
    driver = await attached(browser, ready_state="loading")
    try:
        assert "load" not in driver.frames.main.lifecycle
        browser.reply("Runtime.evaluate", {"result": {"type": "string", "value": "complete"}}, once=True)
        await navigation.wait_for_load_state(driver, "load", timeout_ms=30000)
        assert [c.params["expression"] for c in browser.sent("Runtime.evaluate")] == ["document.readyState"] * 2
    finally:
        await close(driver)


async def test_wait_for_load_state_waits_for_the_event_when_the_document_is_not_there_yet():
    browser = FakeBrowser()
    driver = await attached(browser, ready_state="loading")
    try:
        browser.reply("Runtime.evaluate", {"result": {"type": "string", "value": "interactive"}})
        wait = asyncio.ensure_future(navigation.wait_for_load_state(driver, "load", timeout_ms=30000))
        lifecycle(browser, "DOMContentLoaded", "L1")
        await round_trip(driver)
        for _ in range(5):
            await asyncio.sleep(0)
        assert not wait.done(), "returned at DOMContentLoaded, before load"
        lifecycle(browser, "load", "L1")
        await asyncio.wait_for(wait, 10)
    finally:
        await close(driver)


async def test_a_request_of_a_replaced_document_reported_late_does_not_hold_network_idle():
    # the old document's image is reported after the new document committed (its renderer's events
    # come on another session, late): it must not count as in flight, or networkidle never comes
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.emit("Page.frameNavigated", {"frame": frame("L2", "https://b.test/"), "type": "Navigation"},
                     session_id=SESSION)
        browser.emit("Network.requestWillBeSent", {
            "requestId": "old-img", "loaderId": "L1", "frameId": MAIN, "type": "Image",
            "request": {"url": "https://a.test/held.png", "method": "GET", "headers": {}}}, session_id=SESSION)
        browser.emit("Network.requestWillBeSent", {
            "requestId": "new-img", "loaderId": "L2", "frameId": MAIN, "type": "Image",
            "request": {"url": "https://b.test/pic.png", "method": "GET", "headers": {}}}, session_id=SESSION)
        await round_trip(driver)
        assert list(driver.inflight) == ["new-img"]  # the new document's request still counts
    finally:
        await close(driver)
