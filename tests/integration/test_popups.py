"""Popups: receipts, arm-first waiters, late popups and the runner's report (B153–B157)."""

from __future__ import annotations

import asyncio

from tests.nav_helpers import click

LINK = "<a id=l target=_blank href='{href}' style='display:block;width:200px;height:40px'>open</a>"
BTN = "<button id=b style='width:200px;height:40px' onclick=\"{js}\">go</button>"


async def test_b153_popup_in_receipt(host, task, server):
    server.page("/b153-child", "child", title="Child")
    page = task.page("p1")
    await page.goto(server.page("/b153", LINK.format(href="/b153-child")))
    receipt = await click(host, page, "#l")
    assert len(receipt.popups) == 1 and set(receipt.popups[0]) == {"label", "target_id"}
    label = receipt.popups[0]["label"]
    popup = task.page(label)
    await popup.wait_for_url("**/b153-child")
    assert await popup.url() == server.url("/b153-child")
    tab = next(t for t in await task.tabs() if t["label"] == label)
    assert tab["opened_by"] == "agent"


async def test_b154_waiter_resolves_delayed_popup(host, task, server):
    server.page("/b154-child", "child")
    page = task.page("p1")
    # the click starts a timer that opens the popup only once the test says so (after the
    # receipt): a fixed delay would race the receipt on a loaded machine
    opener = "const t = setInterval(() => { if (window.release) { clearInterval(t); window.open('/b154-child'); } }, 20)"
    await page.goto(server.page("/b154", BTN.format(js=opener)))
    waiter = page.wait_for_event("popup")
    receipt = await click(host, page, "#b")
    assert receipt.popups == []
    await page.evaluate("window.release = true")
    popup = await waiter
    await popup.wait_for_url("**/b154-child")
    assert await popup.evaluate("location.pathname") == "/b154-child"


async def test_b155_waiter_counts_only_later_popups(host, task, server):
    server.page("/b155-old", "old")
    server.page("/b155-new", "new")
    page = task.page("p1")
    await page.goto(server.page("/b155", BTN.format(js="window.open('/b155-new')")))
    await page.evaluate("window.open('/b155-old'); 1")  # older, unwatched
    for _ in range(100):
        if len(await task.pages()) == 2:
            break
        await asyncio.sleep(0.02)
    waiter = page.wait_for_event("popup")
    receipt = await click(host, page, "#b")
    popup = await waiter
    assert [p["label"] for p in receipt.popups] == [popup.label]
    await popup.close()
    async with page.expect_event("popup") as info:
        receipt = await click(host, page, "#b")
    popup = await info.value
    assert [p["label"] for p in receipt.popups] == [popup.label]


async def test_b156_late_popup_in_ledger_same_round(host, task, server):
    server.page("/b156-child", "late")
    page = task.page("p1")
    await page.goto(server.page("/b156", BTN.format(js="setTimeout(() => window.open('/b156-child'), 650)")))
    receipt = await click(host, page, "#b")
    assert receipt.popups == []
    for _ in range(150):
        if len(await task.pages()) == 2:
            break
        await asyncio.sleep(0.02)
    labels = [p.label for p in await task.pages()]
    assert len(labels) == 2
    assert (await task.page(labels[1]).evaluate("1")) == 1


async def test_b156_b157_popup_after_round_and_report(rounds, server):
    server.page("/b157-child", "late popup")
    url = server.page("/b157", "<p>opener</p>")
    # the popup opens from a timer, not from anything the round awaits; the round waits for its
    # document to be complete (state, not time): by then the browser has announced the target
    loaded = "(w) => window[w] && window[w].location.pathname === '/b157-child' && window[w].document.readyState === 'complete'"
    first = rounds.run(
        "task = await task_space('late-popups')\n"
        "page = task.page('p1')\n"
        f"await page.goto({url!r})\n"
        "await page.evaluate(\"setTimeout(() => { window.w1 = window.open('/b157-child') }, 300); 1\")\n"
        f"await page.wait_for_function({loaded!r}, 'w1')\n"
        "print('own output')\n"
    )
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "own output" in out and "[ego-browser:pages]" in out
    assert out.index("own output") < out.index("[ego-browser:pages]")
    assert "Unhandled page p2 from p1: " + server.url("/b157-child") in out
    # a popup opened after the round ended is adopted and usable in the next round
    second = rounds.run(
        "task = await task_space('late-popups')\n"
        "await task.page('p1').evaluate(\"setTimeout(() => { window.w2 = window.open('/b157-child?after') }, 300); 1\")\n"
        "print('round two')\n"
    )
    assert second.returncode == 0, second.stderr
    third = rounds.run(
        "task = await task_space('late-popups')\n"
        f"await task.page('p1').wait_for_function({loaded!r}, 'w2')\n"
        "print(await task.page('p2').url())\n"
        "print(await task.page('p3').url())\n"
    )
    assert third.returncode == 0, third.stderr
    assert third.stdout.count("/b157-child") == 2 and "?after" in third.stdout
    assert "[ego-browser:pages]" not in third.stdout


async def test_an_agents_popup_is_attached_before_its_first_call(host, task, server):
    """The agent's next call is nearly always on the popup: the host attaches it as it appears
    (while the receipt is made and the agent reads it), not when that call comes."""
    server.page("/early-child", "<a href='/x'>child link</a>", title="Child")
    page = task.page("p1")
    await page.goto(server.page("/early", LINK.format(href="/early-child")))
    receipt = await click(host, page, "#l")
    tid = receipt.popups[0]["target_id"]
    pending = host._attaching.get(tid)
    assert tid in host.drivers or pending is not None, "the popup waits for its first call to be attached"
    if pending is not None:
        await asyncio.wait_for(asyncio.shield(pending), 30)
    assert tid in host.drivers and not host.drivers[tid].closed
    popup = task.page(receipt.popups[0]["label"])
    await popup.wait_for_url("**/early-child")
    assert (await popup.find("text=child link"))[0]["tag"] == "a"
