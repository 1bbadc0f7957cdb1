"""A PageDriver attached to a FakeBrowser (ego_browser.testing): one tab, one main frame."""

from __future__ import annotations

from ego_browser.driver.page import PageDriver
from ego_browser.testing import FakeBrowser

SESSION = "S1"
MAIN = "F1"


def frame(loader_id: str, url: str) -> dict:
    return {"id": MAIN, "loaderId": loader_id, "url": url, "securityOrigin": url, "mimeType": "text/html"}


async def attached(browser: FakeBrowser, *, url: str = "https://a.test/", ready_state: str = "complete") -> PageDriver:
    """What Chromium answers when the host attaches to a loaded tab (the readyState read
    seeds the lifecycle of a document whose events passed before we attached)."""
    browser.reply("Target.attachToTarget", {"sessionId": SESSION})
    browser.reply("Page.getFrameTree", {"frameTree": {"frame": frame("L1", url)}})
    browser.reply("Runtime.evaluate", {"result": {"type": "string", "value": ready_state}}, once=True)
    conn = await browser.connect()
    return await PageDriver.attach(conn, "T1")


async def round_trip(driver: PageDriver) -> None:
    """Every frame the browser sent before now has been dispatched (frames arrive in order)."""
    await driver.conn.send("Browser.getVersion")


async def close(driver: PageDriver) -> None:
    driver.detach_listeners()
    await driver.conn.close()
