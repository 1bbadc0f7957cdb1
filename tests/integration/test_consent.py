"""Confirmation rules (issue 32, point 2): a click on a control the person listed becomes a hand-off;
the person's "yes" lets that one click through, anything else does not."""

from __future__ import annotations

import asyncio

import pytest

import ego_browser
from ego_browser.errors import ConsentRequired
from ego_browser.states import Ownership

PAGE = """<button id="search" onclick="window.searched = (window.searched || 0) + 1">Search</button>
<button id="place" onclick="window.placed = (window.placed || 0) + 1">Place order</button>"""


async def _answer(host, t, note: str) -> dict:
    waiting = asyncio.create_task(t.wait_for_control(timeout=60000))
    while not host.handoffs.waiting(t.space_id):
        await asyncio.sleep(0.02)
    await host.handle("spaces.give_back", {"space": t.space_id, "note": note})
    return await asyncio.wait_for(waiting, 30)


async def test_a_click_the_person_listed_waits_for_their_yes(host, server):
    t = await ego_browser.task_space("consent")
    try:
        page = t.page("p1")
        await page.goto(server.page("/consent.html", PAGE, title="Shop"))
        await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None,
                                            "click": ["place order|buy now"]})
        await page.click("#search")  # not listed: as before
        with pytest.raises(ConsentRequired, match="Place order") as asked:
            await page.click("#place")
        assert asked.value.code == "EGO_CONSENT_REQUIRED" and asked.value.rule == "place order|buy now"
        row = host.store.space(t.space_id)
        assert row.ownership == Ownership.DELEGATED and row.reason == "needs_consent"
        assert "Place order" in row.status
        back = await _answer(host, t, "no")
        assert back["note"] == "no"
        with pytest.raises(ConsentRequired):  # a no is a no: asked again
            await page.click("#place")
        assert (await _answer(host, t, "yes"))["note"] == "yes"
        await page.click("#place")  # the one click the person allowed
        with pytest.raises(ConsentRequired):  # and only that one
            await page.click("#place")
        await _answer(host, t, "no")
        assert await page.evaluate("[window.searched, window.placed || 0]") == [1, 1]
    finally:
        await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None, "click": None})
        await t.finish(keep=[])
