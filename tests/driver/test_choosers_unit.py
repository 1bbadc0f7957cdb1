"""The driver's file-chooser part against a scripted browser (no Chromium)."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.errors import CdpChannelUnavailable, EgoTimeout, FileChooserOpened, InvalidState
from ego_browser.testing import FakeBrowser

from .kit import SESSION, attached, close, round_trip


def chooser(browser: FakeBrowser, node: int, mode: str = "selectSingle") -> None:
    browser.emit("Page.fileChooserOpened", {"frameId": "F1", "mode": mode, "backendNodeId": node},
                 session_id=SESSION)


async def test_an_armed_waiter_gets_the_chooser_and_an_unarmed_one_fails_the_action_once():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        choosers = driver.choosers
        token = choosers.arm()
        with pytest.raises(InvalidState, match="already pending"):
            choosers.arm()
        chooser(browser, 7, "selectMultiple")
        got = await choosers.wait(token, 5000)
        assert got["multiple"] is True
        assert choosers.take(got["id"], "FileChooser.set_files")["backend_node_id"] == 7
        with pytest.raises(InvalidState, match="already handled"):
            choosers.take(got["id"], "FileChooser.set_files")

        mark = choosers.mark()
        chooser(browser, 8)
        await round_trip(driver)
        assert choosers.newest_unarmed()["backend_node_id"] == 8
        error = choosers.unarmed_error(mark, "page.click")
        assert isinstance(error, FileChooserOpened) and "no waiter was armed" in str(error)
        assert choosers.unarmed_error(mark, "page.click") is None  # reported once
    finally:
        await close(driver)


async def test_a_waiter_times_out_and_fails_when_the_page_closes():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        token = driver.choosers.arm()
        with pytest.raises(EgoTimeout):
            await driver.choosers.wait(token, 10)
        with pytest.raises(InvalidState, match="no longer armed"):
            await driver.choosers.wait(token, 10)
        token = driver.choosers.arm()
        waiting = asyncio.ensure_future(driver.choosers.wait(token, 5000))
        await asyncio.sleep(0)
        driver.mark_closed()
        with pytest.raises(CdpChannelUnavailable, match="page was closed"):
            await waiting
    finally:
        await close(driver)


async def test_a_chooser_that_opens_before_the_wait_request_arrives_still_reaches_its_waiter():
    # the client arms, then sends the click and only then the wait: under load the click's
    # chooser can reach the host first (it failed as "this waiter is no longer armed")
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        choosers = driver.choosers
        token = choosers.arm()
        chooser(browser, 9)
        await round_trip(driver)
        assert choosers.unarmed_error(choosers.mark() - 1, "page.click") is None  # the waiter took it
        got = await choosers.wait(token, 5000)
        assert choosers.take(got["id"], "FileChooser.set_files")["backend_node_id"] == 9
        with pytest.raises(InvalidState, match="no longer armed"):
            await choosers.wait(token, 10)  # collected once
        chooser(browser, 10)  # with the waiter collected, a new chooser is unarmed
        await round_trip(driver)
        assert choosers.newest_unarmed()["backend_node_id"] == 10
        token = choosers.arm()  # and a new waiter can be armed
        choosers.disarm(token)
    finally:
        await close(driver)
