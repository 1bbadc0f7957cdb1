"""A closed page's snapshot state is dropped with it (a long-running host stays bounded)."""

from __future__ import annotations

from ego_browser.snapshot import capture


async def test_closing_a_page_drops_its_walker_worlds(task, server):
    url = server.page("/worlds", "<h1>Worlds</h1><button>One</button><a href='#x'>Two</a>")
    page = await task.new_page()
    await page.goto(url)
    assert "button" in await page.snapshot()
    sid = page_session(task, page)
    assert any(k[0] == sid for k in capture._worlds), "the snapshot made a world for the page"
    await page.close()
    assert not any(k[0] == sid for k in capture._worlds), "the closed page's worlds are gone"
    # the space's other page still snapshots as before
    p1 = task.page("p1")
    await p1.goto(url)
    assert 'button "One"' in await p1.snapshot()


def page_session(task, page) -> str:
    from ego_browser.client.channel import current_channel

    host = current_channel().host
    for driver in host.drivers.values():
        if driver.target_id == page.target_id:
            return driver.session.session_id
    raise AssertionError("no driver for the page")
