"""The driver's dialog queue and the dialog guard, against a scripted browser (no Chromium)."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.errors import InvalidState
from ego_browser.testing import FakeBrowser

from .kit import SESSION, attached, close, round_trip


def opening(browser: FakeBrowser, message: str, kind: str = "alert") -> None:
    browser.emit("Page.javascriptDialogOpening",
                 {"url": "https://a.test/", "message": message, "type": kind, "hasBrowserHandler": False},
                 session_id=SESSION)


async def test_dialogs_queue_in_order_and_leave_only_by_the_browsers_word():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        opening(browser, "first")
        opening(browser, "second", "prompt")
        await round_trip(driver)
        assert driver.dialog["message"] == "first" and driver.dialogs.session is driver.session
        browser.emit("Page.javascriptDialogClosed", {"result": True, "userInput": ""}, session_id=SESSION)
        await round_trip(driver)
        assert driver.dialog["message"] == "second" and driver.dialog["type"] == "prompt"
        assert driver.dialogs.closed == 1
        browser.emit("Page.javascriptDialogClosed", {"result": False, "userInput": ""}, session_id=SESSION)
        await round_trip(driver)
        assert driver.dialog is None
    finally:
        await close(driver)


async def test_a_dialog_opening_fails_the_pages_pending_requests_instead_of_hanging_them():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.hang("Runtime.evaluate")
        work = asyncio.ensure_future(driver.dialogs.guard("page.evaluate", driver.session.send(
            "Runtime.evaluate", {"expression": "alert(1)"})))
        await browser.command("Runtime.evaluate")
        opening(browser, "from the script")
        with pytest.raises(InvalidState, match="opened while it ran"):
            await asyncio.wait_for(work, 10)
        # and while it shows, nothing more is sent to the page
        with pytest.raises(InvalidState, match="is open and blocks the page"):
            await driver.dialogs.guard("page.evaluate", driver.session.send("Runtime.evaluate", {"expression": "1"}))
        assert len(browser.sent("Runtime.evaluate", session_id=SESSION)) == 2  # the readyState seed and ours
    finally:
        await close(driver)


async def test_a_dialog_that_opens_before_the_work_sends_fails_what_it_sends_next():
    # the guarded work is still before its first request (resolving a world, reading the
    # ledger) when the dialog opens: its request would wait behind the dialog for its deadline
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.hang("Runtime.evaluate")
        before_send = asyncio.Event()
        go = asyncio.Event()

        async def work() -> object:
            before_send.set()
            await go.wait()
            return await driver.session.send("Runtime.evaluate", {"expression": "1"}, timeout=30)

        guarded = asyncio.ensure_future(driver.dialogs.guard("page.snapshot", work()))
        await before_send.wait()
        opening(browser, "mid")
        await round_trip(driver)  # the event has been read
        go.set()
        with pytest.raises(InvalidState, match="opened while it ran"):
            await asyncio.wait_for(guarded, 10)
        assert len(browser.sent("Runtime.evaluate", session_id=SESSION)) == 1  # only the readyState seed
        # the answer still goes out, and once the guard is over the session is not blocked
        browser.reply("Page.handleJavaScriptDialog", {})
        await driver.session.send("Page.handleJavaScriptDialog", {"accept": True}, timeout=10)
        browser.reply("Runtime.evaluate", {"result": {"type": "number", "value": 2}})
        assert (await driver.session.send("Runtime.evaluate", {"expression": "2"}, timeout=10))["result"]["value"] == 2
    finally:
        await close(driver)


async def test_answering_a_dialog_the_browser_already_closed_drops_it_and_says_so():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        opening(browser, "gone")
        await round_trip(driver)
        browser.fail("Page.handleJavaScriptDialog", "No dialog is showing")
        kept: list[asyncio.Task] = []
        assert await driver.dialogs.answer(True, "x", background=kept.append) is False
        assert driver.dialog is None and driver.dialogs.session is None
        assert browser.sent("Page.handleJavaScriptDialog")[0].params == {"accept": True, "promptText": "x"}
        # nothing open: nothing is sent
        assert await driver.dialogs.answer(False, background=kept.append) is False
        assert len(browser.sent("Page.handleJavaScriptDialog")) == 1 and kept == []
    finally:
        await close(driver)


async def test_an_answered_dialog_leaves_when_the_browser_says_it_closed_and_stales_the_refs():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        opening(browser, "ok?", "confirm")
        await round_trip(driver)
        epoch = driver.epoch

        def closed(_params: dict, _cmd: object = None) -> dict:
            browser.emit("Page.javascriptDialogClosed", {"result": True, "userInput": ""}, session_id=SESSION)
            return {}

        browser.reply("Page.handleJavaScriptDialog", closed)
        browser.reply("Runtime.evaluate", {"result": {"type": "number", "value": 0}})
        kept: list[asyncio.Task] = []
        assert await driver.dialogs.answer(False, background=kept.append) is True
        assert driver.dialog is None and driver.dialogs.closed == 1 and driver.epoch == epoch + 1
        assert browser.sent("Page.handleJavaScriptDialog")[0].params == {"accept": False}
    finally:
        await close(driver)
