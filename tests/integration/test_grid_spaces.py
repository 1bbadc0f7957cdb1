"""Spaces on Selenium Grid 4 browsers (EGO_BROWSER_GRID_URL): placement over two nodes, an
agent's round on a Grid space, sessions given back after finish (tests/grid.py starts the Grid)."""

from __future__ import annotations

import os
from pathlib import Path

import ego_browser


async def _spaces(prefix: str, n: int) -> list:
    return [await ego_browser.task_space(f"{prefix}-{i}") for i in range(n)]


async def test_spaces_spread_over_both_nodes_and_sessions_go_back_after_finish(on_grid, grid, server):
    host = on_grid
    url = server.page("/grid-spread", "<h1>spread</h1>", title="Spread")
    spaces = await _spaces("spread", 4)
    for t in spaces:
        await t.page("p1").goto(url)
    listing = {s["name"]: s for s in await ego_browser.list_task_spaces()}
    where = [listing[f"spread-{i}"]["browser"] for i in range(4)]
    # each new space goes to the node with the fewest of ours, so they alternate over the two
    # nodes; two spaces per browser (EGO_BROWSER_SPACES_PER_BROWSER=2): two Grid sessions
    assert where[0] == where[2] and where[1] == where[3] and where[0] != where[1]
    sessions = grid.sessions()
    busy = [uri for uri, ids in sessions.items() if ids]
    assert len(busy) == 2, sessions  # the two sessions run on different nodes
    for w in where:
        node, session = w.split()[1], w.split()[3]
        assert session in sessions[node]
    assert [await t.page("p1").title() for t in spaces] == ["Spread"] * 4
    # the first browser's spaces finished: its session is released, the other stays
    await spaces[0].finish(keep=[])
    first_session = where[0].split()[3]
    assert grid.session_alive(first_session)
    await spaces[2].finish(keep=[])
    assert not grid.session_alive(first_session)
    assert await spaces[1].page("p1").title() == "Spread"
    for t in (spaces[1], spaces[3]):
        await t.finish(keep=[])
    assert not grid.session_alive(where[1].split()[3])
    assert len(host.browser.members) == 0


def test_doctor_checks_the_grid(grid):
    from ego_browser.cli.doctor import check_grid

    from tests.grid import free_port

    up = check_grid(grid.url)
    assert up["status"] == "ok" and "2 node(s)" in up["detail"], up
    dead = f"http://127.0.0.1:{free_port()}"
    down = check_grid(dead)
    assert down["status"] == "fail" and dead in down["detail"] and "cannot reach the Selenium Grid" in down["detail"]


async def test_an_upload_is_copied_to_the_node_first(on_grid, grid, server, tmp_path):
    """set_input_files on a Grid space sends the file to the node (the Grid's file endpoint):
    the browser opens the node's copy, so a node on another machine gets the bytes too. The
    nodes here cannot see this machine's temp folder (tests/grid.py), where the file is."""
    host = on_grid
    local = tmp_path / "data.bin"
    local.write_bytes(bytes(range(256)) * 4)
    t = await ego_browser.task_space("upload-copy")
    page = t.page("p1")
    await page.goto(server.page("/grid-upload", """<input type=file id=f onchange="
        this.files[0].arrayBuffer().then(b => { window.got = Array.from(new Uint8Array(b)) })">"""))
    instance = host.store.space(t.space_id).browser_instance
    (remote,) = await host.browser.files_for_browser(instance, [str(local)])
    assert remote != str(local) and os.path.basename(remote) == "data.bin"
    if grid.private_files:
        assert not Path(remote).exists()  # the node's copy lives in the node's own temp folder
    await page.set_input_files("#f", str(local))
    await page.wait_for_function("window.got !== undefined", timeout=10000)
    assert bytes(await page.evaluate("window.got")) == local.read_bytes()
    await t.finish(keep=[])


async def test_cdp_goes_to_the_node_itself_and_through_the_hub_when_the_node_is_out_of_reach(on_grid, grid, server):
    """One proxy less per CDP message: the host speaks to the node's own se/cdp endpoint; a node
    it cannot reach (behind the hub in a cluster) is used through the hub instead."""
    from ego_browser.browser.providers import GridProvider, grid_chrome_args

    from tests.grid import free_port

    host = on_grid
    t = await ego_browser.task_space("cdp-path")
    await t.page("p1").goto(server.page("/grid-cdp-path", "<h1>path</h1>", title="Path"))
    member = host.browser.members[host.store.space(t.space_id).browser_instance]
    session = member.opened.grid
    assert session is not None
    node = grid.node_for(session.node)
    assert member.opened.endpoint == f"ws://127.0.0.1:{node.port}/session/{session.session_id}/se/cdp"
    await t.finish(keep=[])

    provider = GridProvider(grid.url)
    other = await provider.client.new_session(grid_chrome_args())
    try:
        other.node = f"http://127.0.0.1:{free_port()}"  # nothing listens there
        conn = await provider._connect(other)
        try:
            assert conn.url == other.cdp_url and conn.url.startswith(grid.url.replace("http", "ws"))
            assert "Chrome" in (await conn.send("Browser.getVersion"))["product"]
        finally:
            await conn.close()
    finally:
        await provider.client.release(other.session_id)


async def test_spaces_opened_at_once_fill_each_browser_to_its_limit_and_spread_over_the_nodes(on_grid, grid):
    # many agents start together (issue 31): placement must count the spaces placed while it
    # waited for its turn, or they all pile into the first browser
    import asyncio
    from collections import Counter

    spaces = await asyncio.gather(*(ego_browser.task_space(f"together-{i}") for i in range(5)))
    try:
        listing = {s["name"]: s for s in await ego_browser.list_task_spaces()}
        where = Counter(listing[f"together-{i}"]["browser"] for i in range(5))
        assert sorted(where.values()) == [1, 2, 2], where  # EGO_BROWSER_SPACES_PER_BROWSER=2: three browsers
        per_node = Counter(w.split()[1] for w in where.elements())
        assert len(per_node) == 2 and max(per_node.values()) - min(per_node.values()) <= 1, per_node
    finally:
        for t in spaces:
            await t.finish(keep=[])
