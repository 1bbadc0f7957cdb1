"""A closed page's snapshot state is dropped with it (a long-running host stays bounded)."""

from __future__ import annotations

import re


async def test_walker_worlds_are_the_pages_own_and_go_with_it(task, server):
    """Issue 10 point 4: the walker's worlds lived in one process-wide map keyed by session
    (a closed page's removed by hand); now each page's ledger holds its own."""
    url = server.page("/worlds", "<h1>Worlds</h1><button>One</button><a href='#x'>Two</a>")
    page = await task.new_page()
    await page.goto(url)
    assert "button" in await page.snapshot()
    driver = page_driver(task, page)
    sid = driver.session.session_id
    assert any(k[0] == sid for k in driver.ledger.worlds.keys()), "the snapshot made a world for the page"
    p1 = task.page("p1")
    await p1.goto(url)
    assert 'button "One"' in await p1.snapshot()
    other = page_driver(task, p1)
    assert other.ledger.worlds.keys() and not any(k[0] == sid for k in other.ledger.worlds.keys()), (
        "each page's worlds are its own")
    await page.close()
    host = current_host()
    assert driver not in host.drivers.values(), "the closed page's driver (and its worlds) are gone"
    # the space's other page still snapshots as before, in the world it already has
    before = other.ledger.worlds.keys()
    assert 'button "One"' in await p1.snapshot()
    assert other.ledger.worlds.keys() == before


def current_host():
    from ego_browser.client.channel import current_channel

    return current_channel().host


def _held(modules) -> dict[str, int]:
    """Entries of every module-level dict/set/list of the snapshot package (process-wide state)."""
    out = {}
    for mod in modules:
        for name, value in vars(mod).items():
            if isinstance(value, (dict, set, list)) and not name.startswith("__"):
                out[f"{mod.__name__}.{name}"] = len(value)
    return out


async def test_pending_ids_are_per_page_and_dropped_once_rebound(task, server):
    """Issue 9: a long-running host kept every resolved pending id in one process-wide map
    (~180 a round, up to 200,000). Snapshots of new documents on one page leave nothing
    process-wide behind, and the page's own answers are gone once its ledger rebound them."""
    import importlib
    import pkgutil

    import ego_browser.snapshot as pkg
    from ego_browser.snapshot import engine

    mods = [importlib.import_module(f"ego_browser.snapshot.{m.name}") for m in pkgutil.iter_modules(pkg.__path__)]
    rows = "".join(f"<tr><td>Item {i}</td><td><button>Add {i}</button></td></tr>" for i in range(60))
    page = task.page("p1")
    ledger = None
    for n in range(6):
        # a new document every time: each first snapshot defers its backend ids to a fetch
        url = server.page(f"/pending-{n}", f"<h1>Doc {n}</h1><table>{rows}</table>")
        await page.goto(url)
        assert f'button "Add 59"' in await page.snapshot(scope="full_page")
        ledger = page_driver(task, page).ledger
        await engine.settle(ledger)
        if n == 1:
            before = _held(mods)
    assert ledger is not None and not ledger.pending
    grew = {k: (before[k], v) for k, v in _held(mods).items() if v > before.get(k, 0)}
    assert grew == {}, f"process-wide snapshot state grew over 4 new documents: {grew}"
    await _until(lambda: len(ledger.ids) == 0)
    # refs bound from those answers still act
    snap = await page.snapshot()
    ref = re.search(r'button "Add 3" \[ref=(\d+)', snap).group(1)
    await page.click(f"@{ref}")


async def _until(cond) -> None:
    """``cond`` holds within a few turns of the event loop (callbacks of tasks already done:
    counted in loop turns, not in time, so load cannot make it flaky)."""
    import asyncio

    for _ in range(200):
        if cond():
            return
        await asyncio.sleep(0)
    assert cond()


def page_driver(task, page):
    from ego_browser.client.channel import current_channel

    host = current_channel().host
    for driver in host.drivers.values():
        if driver.target_id == page.target_id:
            return driver
    raise AssertionError("no driver for the page")
