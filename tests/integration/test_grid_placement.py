"""Placement over a Grid's nodes (issue 31 §2), with the default cap of 8 spaces per browser:
spaces spread evenly over the two nodes (fill-first put them all in one session on one node),
and a profile's spaces still share one browser (tests/grid.py starts the Grid)."""

from __future__ import annotations

from collections import Counter

import pytest

import ego_browser
from tests.conftest import open_grid_host


@pytest.fixture(scope="module")
async def spread_host(grid):
    async with open_grid_host(grid, spaces_per_browser=None) as h:
        yield h


@pytest.fixture
def on_spread(spread_host):
    from ego_browser.client.channel import InProcessChannel, reset_channel, use_channel

    token = use_channel(InProcessChannel(spread_host))
    yield spread_host
    reset_channel(token)


def _where(listing: dict, name: str) -> tuple[str, str]:
    """(node URI, session id) of a space, from its "browser" ("grid NODE session ID")."""
    parts = listing[name]["browser"].split()
    assert parts[0] == "grid" and parts[2] == "session", parts
    return parts[1], parts[3]


async def test_spaces_spread_evenly_over_both_nodes_and_a_profiles_spaces_share_one_browser(on_spread, grid, server):
    from ego_browser.browser_profiles import store as profile_store

    host = on_spread
    url = server.page("/grid-even", "<h1>even</h1>", title="Even")
    opened = []
    try:
        for i in range(4):
            opened.append(await ego_browser.task_space(f"even-{i}"))
            await opened[-1].page("p1").goto(url)
        listing = {s["name"]: s for s in await ego_browser.list_task_spaces()}
        where = {f"even-{i}": _where(listing, f"even-{i}") for i in range(4)}
        per_node = Counter(node for node, _ in where.values())
        assert len(per_node) == 2 and sorted(per_node.values()) == [2, 2], per_node
        # one session per node: the cap of 8 per browser is not reached, so no session is opened needlessly
        sessions = {node: {s for n, s in where.values() if n == node} for node in per_node}
        assert all(len(ids) == 1 for ids in sessions.values()), sessions
        running = grid.sessions()  # asked of the nodes themselves
        for node, session in where.values():
            assert session in running[node], (node, session, running)
        assert [await t.page("p1").title() for t in opened] == ["Even"] * 4

        # a profile's spaces share its browser (its context lives there), even past an even split
        profile = profile_store.create("spread team", host.home)
        team = []
        for i in range(3):
            team.append(await ego_browser.task_space(f"team-{i}", profile_id=profile["id"]))
        opened += team
        listing = {s["name"]: s for s in await ego_browser.list_task_spaces()}
        team_where = {_where(listing, f"team-{i}") for i in range(3)}
        assert len(team_where) == 1, team_where
        rows = [host.store.space(t.space_id) for t in team]
        assert len({r.context_id for r in rows}) == 1 and rows[0].context_id, rows
        assert len({r.browser_instance for r in rows}) == 1
        await team[2].page("p1").goto(url)
        assert await team[2].page("p1").title() == "Even"

        # the next plain space goes to the node the profile's spaces did not fill
        (team_node, _), = team_where
        opened.append(await ego_browser.task_space("even-4"))
        listing = {s["name"]: s for s in await ego_browser.list_task_spaces()}
        node, _ = _where(listing, "even-4")
        assert node != team_node and node in per_node, (node, team_node)
    finally:
        for t in opened:
            await t.finish(keep=[])
    assert len(host.browser.members) == 0  # every session given back


async def test_spaces_opened_at_once_spread_evenly_with_one_session_per_node(on_spread, grid):
    # many agents start together: each placement waits its turn and counts the ones before it,
    # so six spaces opened at once are three per node, each node's in one session (cap 8)
    import asyncio

    host = on_spread
    spaces = await asyncio.gather(*(ego_browser.task_space(f"burst-{i}") for i in range(6)))
    try:
        listing = {s["name"]: s for s in await ego_browser.list_task_spaces()}
        where = [_where(listing, f"burst-{i}") for i in range(6)]
        per_node = Counter(node for node, _ in where)
        assert len(per_node) == 2 and sorted(per_node.values()) == [3, 3], per_node
        assert len({session for _, session in where}) == 2, where
        running = grid.sessions()
        for node, session in where:
            assert session in running[node], (node, session, running)
    finally:
        for t in spaces:
            await t.finish(keep=[])
    assert len(host.browser.members) == 0
