"""The driver's action path against a scripted browser (no Chromium): the receipt built from
the page and its ``ActionSite`` alone, element location from a ``RefBook``, and the release
of an action's handles (``driver/receipts.py``, ``driver/locate.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from ego_browser.driver.receipts import run_action
from ego_browser.errors import StaleRef
from ego_browser.snapshot.ledger import RefLedger
from ego_browser.testing import FakeBrowser

from .kit import MAIN, SESSION, attached, close


class Site:
    """A host as the driver sees it (``driver/sites.py``), recording what it was asked."""

    def __init__(self) -> None:
        self.book = RefLedger()
        self.saves = 0
        self.kept: list[asyncio.Task[Any]] = []
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self.adopted: dict[str, str] = {}

    def ledger(self) -> RefLedger:
        return self.book

    def save(self) -> None:
        self.saves += 1

    def background(self, task: asyncio.Task[Any]) -> None:
        self.kept.append(task)

    def watch_popups(self, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def popup_labels(self, target_ids: list[str]) -> list[tuple[str, str]]:
        return [(t, self.adopted[t]) for t in target_ids if t in self.adopted]

    async def activate(self) -> None:
        pass


async def test_a_receipt_lists_the_popup_the_action_announced_and_returns_its_result():
    browser = FakeBrowser()
    driver = await attached(browser)
    site = Site()
    try:
        async def action() -> str:
            browser.emit("Page.windowOpen", {"url": "https://a.test/pop"}, session_id=SESSION)
            await driver.conn.send("Browser.getVersion")  # the announcement has been dispatched

            def adopt() -> None:  # the target shows up a moment after the action returned
                site.adopted["T2"] = "p2"
                for listener in list(site.listeners):
                    listener({"targetId": "T2", "openerId": "T1"})

            asyncio.get_running_loop().call_soon(adopt)
            return "clicked"

        receipt = await run_action(driver, site, action, api="page.click")
        assert receipt == {"popups": [{"label": "p2", "target_id": "T2"}], "dialog": None, "result": "clicked",
                           "navigation": None}
        assert site.listeners == []  # the receipt stopped watching
    finally:
        await close(driver)


async def test_a_ref_whose_node_is_gone_is_stale_and_stays_stale():
    browser = FakeBrowser()
    driver = await attached(browser)
    site = Site()
    try:
        ref = site.book.assign((MAIN, "L1", 5))
        browser.reply("Page.createIsolatedWorld", {"executionContextId": 9})
        browser.fail("DOM.resolveNode", "No node with given id found")
        with pytest.raises(StaleRef, match=f"@{ref}"):
            await driver.locate.handle_for_ref(site, ref)
        browser.reply("DOM.resolveNode", {"object": {"objectId": "o1"}})  # even if it answered now
        with pytest.raises(StaleRef):
            await driver.locate.handle_for_ref(site, ref)
    finally:
        await close(driver)


async def test_releasing_an_actions_handles_never_raises():
    browser = FakeBrowser()
    driver = await attached(browser)
    try:
        browser.fail("Runtime.releaseObjectGroup", "Cannot find context with specified id")
        await driver.locate.release("ego-act-7")
        [sent] = browser.sent("Runtime.releaseObjectGroup")
        assert sent.params == {"objectGroup": "ego-act-7"}
    finally:
        await close(driver)
