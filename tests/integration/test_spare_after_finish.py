"""Finishing a space has the next space's tab made at once (host/spaces/warm_tab.py ``soon``):
a task's next attempt, started right after, takes a ready tab instead of waiting for one."""

from __future__ import annotations

import asyncio

import ego_browser
from ego_browser.host.spaces import warm_tab


async def test_finishing_a_space_makes_the_next_spare_without_a_quiet_period(host, space_name, monkeypatch):
    # the quiet rule alone would never make it within this test
    monkeypatch.setattr(warm_tab, "QUIET", 600.0)
    monkeypatch.setattr(warm_tab, "LATEST", 600.0)
    t = await ego_browser.task_space(space_name)
    warm = host.features.warm
    assert host.spare_tab is None and warm.task is not None and not warm.task.done()  # waiting for quiet
    await t.finish(keep=[])
    await asyncio.wait_for(asyncio.shield(warm.task), 30)
    spare = host.spare_tab
    assert spare is not None and host.browser.is_live_page(spare)
    nxt = await ego_browser.task_space(space_name + "-next")
    try:
        assert [p.target_id for p in await nxt.pages()] == [spare]  # the next space starts in it
    finally:
        await nxt.finish(keep=[])
