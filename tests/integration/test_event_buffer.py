"""A page's buffered events stay bounded in bytes, and go with the page (issue 9: host RSS grew
with every long-lived tab's 1,000 unread events)."""

from __future__ import annotations

import orjson

from ego_browser.driver.page import EVENT_BUFFER_BYTES


def _driver(page):
    from ego_browser.client.channel import current_channel

    for driver in current_channel().host.drivers.values():
        if driver.target_id == page.target_id:
            return driver
    raise AssertionError("no driver for the page")


async def test_unread_events_are_bounded_in_bytes_newest_kept(task, server):
    page = task.page("p1")
    await page.goto(server.page("/ev-bytes", "<p>logs</p>"))
    page.events()
    # 300 console messages of ~4 KB: ~1.2 MB, well under the 1,000-event count
    n = await page.evaluate("() => { for (let i = 0; i < 300; i++) console.log('m' + i + ':' + 'x'.repeat(4000));"
                            " console.log('last'); return 301 }")
    assert n == 301
    await page.evaluate("1")  # the console events of the script above reached the host before this reply
    got = [e for e in page.events() if e["method"] == "Runtime.consoleAPICalled"]
    texts = [e["params"]["args"][0].get("value") for e in got]
    assert texts[-1] == "last", "the newest event is kept"
    assert 10 < len(got) < 300, f"kept {len(got)} of 301 console events"
    assert sum(len(orjson.dumps(e)) for e in got) <= EVENT_BUFFER_BYTES
    # the oldest went first: what is kept is the tail, in order
    nums = [int(t[1:t.index(":")]) for t in texts[:-1]]
    assert nums == list(range(300 - len(nums), 300))


async def test_a_closed_page_drops_its_buffered_events(task, server):
    page = await task.new_page()
    await page.goto(server.page("/ev-close", "<script>for (let i = 0; i < 50; i++) console.log('c' + i)</script>"))
    await page.evaluate("1")
    driver = _driver(page)
    assert len(driver.events) > 0
    await page.close()
    assert len(driver.events) == 0 and driver.closed
