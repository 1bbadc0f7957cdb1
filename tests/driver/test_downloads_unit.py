"""The page driver's download waiter (no browser needed: the host offers it the downloads)."""

from __future__ import annotations

import pytest

from ego_browser.driver.downloads import PageDownloads
from ego_browser.errors import EgoTimeout, HostDisconnected, InvalidArgument, InvalidState


async def test_the_armed_waiter_takes_one_download_into_its_folder():
    page: PageDownloads[str] = PageDownloads()
    assert page.offer("nobody waits") is None
    token = page.arm("/tmp/w1", "p1")
    with pytest.raises(InvalidState, match="already pending on page p1"):
        page.arm("/tmp/w2", "p1")
    assert page.offer("report.csv") == "/tmp/w1"
    assert page.offer("second") is None  # one download per waiter
    assert not page.armed(token)
    with pytest.raises(InvalidState, match="no longer armed"):
        await page.wait(token, 10)


async def test_a_waiter_refuses_a_relative_folder_times_out_and_fails_when_the_host_stops():
    page: PageDownloads[str] = PageDownloads()
    with pytest.raises(InvalidArgument, match="must be absolute"):
        page.arm("relative", "p1")
    token = page.arm("/tmp/w", "p1")
    with pytest.raises(EgoTimeout):
        await page.wait(token, 10)
    token = page.arm("/tmp/w", "p1")
    page.host_stopped()
    assert not page.armed(token)
    assert page.offer("late") is None
    page.disarm(token)  # harmless once gone


async def test_host_stopped_fails_a_waiter_already_waiting():
    import asyncio

    page: PageDownloads[str] = PageDownloads()
    token = page.arm("/tmp/w", "p1")
    waiting = asyncio.ensure_future(page.wait(token, 5000))
    await asyncio.sleep(0)  # let it start waiting on the armed future
    page.host_stopped()
    with pytest.raises(HostDisconnected):
        await waiting
