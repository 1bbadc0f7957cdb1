"""Emulation per space (issue 33 §1): offline, throttling, headers, user agent, locale, timezone,
geolocation, devices; on the open pages and the pages the space opens later."""

from __future__ import annotations

import pytest

from ego_browser import InvalidArgument

from tests.server import Response


@pytest.fixture
def seen(server):
    got: dict[str, dict[str, str]] = {}

    def record(req):
        got["last"] = req.headers
        return Response("ok", content_type="text/plain")

    server.route("/emu/hit", record)
    return got


async def test_headers_user_agent_locale_timezone_reach_open_and_later_pages(task, server, seen):
    page = task.page("p1")
    url = server.page("/emu/page", "<p>emu</p>")
    await page.goto(url)
    settings = await task.emulate(extra_headers={"X-Agent": "ego"}, user_agent="EgoTest/1.0", locale="de-DE",
                                  timezone="Asia/Tokyo")
    assert settings["timezone"] == "Asia/Tokyo" and settings["extra_headers"] == {"X-Agent": "ego"}
    fetch = "fetch('/emu/hit').then(r => r.text())"
    for p in (page, await task.new_page()):
        await p.goto(url)
        assert await p.evaluate(fetch) == "ok"
        assert seen["last"]["x-agent"] == "ego" and seen["last"]["user-agent"] == "EgoTest/1.0"
        assert seen["last"]["accept-language"].startswith("de-DE")
        assert await p.evaluate("navigator.userAgent") == "EgoTest/1.0"
        assert await p.evaluate("navigator.language") == "de-DE"
        assert await p.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo"
    # what is not given stays; an empty dict clears the headers
    await task.emulate(extra_headers={})
    await page.evaluate(fetch)
    assert "x-agent" not in seen["last"] and seen["last"]["user-agent"] == "EgoTest/1.0"


async def test_offline_and_throttling(task, server, seen):
    page = task.page("p1")
    await page.goto(server.page("/emu/off", "<p>off</p>"))
    fetch = "fetch('/emu/hit').then(r => r.text(), e => 'failed')"
    await task.set_offline(True)
    assert await page.evaluate("navigator.onLine") is False
    assert await page.evaluate(fetch) == "failed"
    await task.set_offline(False)
    assert await page.evaluate("navigator.onLine") is True
    assert await page.evaluate(fetch) == "ok"
    settings = await task.emulate(network="slow3g")
    assert settings["network"] == "slow3g" and settings["offline"] is False
    # the page sees the slow link (Chromium rounds the figure it shows, and adds noise)
    assert await page.evaluate("navigator.connection.effectiveType") in ("2g", "slow-2g")
    assert await page.evaluate("navigator.connection.rtt") >= 1400
    await task.emulate(network="none")
    assert await page.evaluate("navigator.connection.rtt") < 1400


async def test_device_and_geolocation(host, server):
    import ego_browser

    space = await ego_browser.task_space("emu-device", isolated=True)
    try:
        page = space.page("p1")
        await space.emulate(device="iPhone 13", geolocation={"latitude": 48.85, "longitude": 2.35})
        await page.goto(server.page("/emu/device", "<!doctype html><html><head><meta name=viewport "
                                                "content='width=device-width'></head><body>device</body></html>"))
        assert await page.evaluate("innerWidth") == 390
        assert await page.evaluate("devicePixelRatio") == 3
        assert "iPhone" in await page.evaluate("navigator.userAgent")
        assert await page.evaluate("matchMedia('(pointer: coarse)').matches") is True
        where = await page.evaluate("new Promise((ok, no) => navigator.geolocation.getCurrentPosition("
                                    "p => ok([p.coords.latitude, p.coords.longitude]), e => ok(String(e.message))))")
        assert where == [48.85, 2.35]
    finally:
        await space.finish(keep=[])


async def test_bad_emulation_is_a_clear_error(task):
    with pytest.raises(InvalidArgument, match="network must be one of"):
        await task.emulate(network="5g")
    with pytest.raises(InvalidArgument, match="device must be one of"):
        await task.emulate(device="Nokia 3310")
    with pytest.raises(InvalidArgument, match="unknown timezone"):
        await task.emulate(timezone="Mars/Olympus")
    with pytest.raises(InvalidArgument, match="geolocation must be"):
        await task.emulate(geolocation={"latitude": 200, "longitude": 0})
