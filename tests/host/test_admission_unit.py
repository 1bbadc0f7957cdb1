"""Admission order: a freed turn goes to the oldest waiter, never more than the limit run."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.errors import HostOverloaded
from ego_browser.host.core.admission import Admission, admitted


@pytest.mark.asyncio
async def test_turns_go_in_arrival_order_and_never_exceed_the_limit():
    adm = Admission(limit=2, queue_max=100, wait=30)
    order: list[int] = []
    running = peak = 0
    gates = [asyncio.Event() for _ in range(12)]

    async def call(i: int) -> None:
        nonlocal running, peak
        async with adm.turn("page.click", 60):
            order.append(i)
            running += 1
            peak = max(peak, running)
            await gates[i].wait()
            running -= 1

    tasks = []
    for i in range(12):
        tasks.append(asyncio.ensure_future(call(i)))
        await asyncio.sleep(0)  # each arrives after the previous one queued
    for i in range(12):
        gates[i].set()
    await asyncio.gather(*tasks)
    assert order == list(range(12)) and peak == 2
    assert adm.active == 0 and adm.queued == 0


@pytest.mark.asyncio
async def test_a_full_queue_refuses_at_once():
    adm = Admission(limit=1, queue_max=1, wait=30)
    release = asyncio.Event()

    async def hold() -> None:
        async with adm.turn("page.goto", 60):
            await release.wait()

    holders = [asyncio.ensure_future(hold()) for _ in range(2)]
    await asyncio.sleep(0)
    with pytest.raises(HostOverloaded) as info:
        async with adm.turn("page.snapshot", 60):
            pass
    assert info.value.queued == 1 and info.value.active == 1 and adm.refused == 1
    release.set()
    await asyncio.gather(*holders)


def test_waits_the_persons_operations_and_clean_ups_never_queue():
    for op in ("page.wait_popup", "page.arm_download", "page.accept_dialog", "spaces.take_over", "task.finish",
               "host.status", "page.events", "dashboard.open", "task_space", "list_task_spaces"):
        assert not admitted(op), op
    for op in ("page.goto", "page.click", "page.snapshot", "page.fill", "page.evaluate", "page.cdp"):
        assert admitted(op), op


@pytest.mark.asyncio
async def test_the_wait_for_a_turn_is_not_taken_from_the_calls_own_time():
    adm = Admission(limit=1, queue_max=4, wait=5)
    release = asyncio.Event()

    async def hold() -> None:
        async with adm.turn("page.goto", 60):
            await release.wait()

    holder = asyncio.ensure_future(hold())
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()

    async def click() -> str:
        # a 0.2 s deadline, like a request's; it waits for its turn longer than that
        async with asyncio.timeout(0.2) as timer, adm.turn("page.click", 0.2, timer):
            await asyncio.sleep(0.1)  # its own work fits its own time
        return "done"

    call = asyncio.ensure_future(click())
    past = loop.create_future()
    loop.call_later(0.4, past.set_result, None)  # twice the call's deadline, spent waiting
    await past
    release.set()
    assert await call == "done"
    await holder


def test_the_host_runs_one_call_more_than_it_has_cores(monkeypatch):
    """More calls at once than the cores only share them, each slower and dearer (issue 31 §2:
    50 agents on 2 cores cost 1.42x one agent's CPU per round at 8 at once, 1.14x at 2)."""
    from ego_browser import config

    monkeypatch.delenv("EGO_BROWSER_MAX_ACTIVE", raising=False)
    for cores, limit in ((1, 2), (2, 3), (8, 9)):
        monkeypatch.setattr("os.cpu_count", lambda cores=cores: cores)
        assert config.max_active() == limit and Admission().limit == limit
    monkeypatch.setenv("EGO_BROWSER_MAX_ACTIVE", "12")
    assert Admission().limit == 12


@pytest.mark.asyncio
async def test_a_wait_on_a_space_does_not_count_the_time_its_calls_wait_for_a_turn():
    """A download waiter armed before its click: the click's wait for a turn moves the waiter's
    deadline (capped at the queue's own limit), the request's deadline with it."""
    from ego_browser.driver.downloads import PageDownloads

    adm = Admission(limit=1, queue_max=4, wait=5)
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def hold(space: int) -> None:
        async with adm.turn("page.click", 60, None, space):
            await release.wait()

    holder = asyncio.ensure_future(hold(1))
    await asyncio.sleep(0)
    downloads: PageDownloads[str] = PageDownloads()
    token = downloads.arm("/tmp", "p1")
    async with asyncio.timeout(0.3 + 5) as timer:
        from ego_browser.host.core import admission as adm_mod

        reset = adm_mod._TIMER.set(timer)
        with adm.clock(2) as clock:
            deadline = loop.time() + 0.2
            waiter = asyncio.ensure_future(downloads.wait(token, 200, lambda: clock.remaining(deadline)))
            click = asyncio.ensure_future(hold(2))  # space 2's click waits for its turn
            past = loop.create_future()
            loop.call_later(0.5, past.set_result, None)  # past the waiter's own 0.2 s
            await past
            assert not waiter.done() and clock.waited() > 0.2
            release.set()
            await asyncio.gather(holder, click)
            assert downloads.offer("the file") == "/tmp"
            assert await waiter == "the file"
        adm_mod._TIMER.reset(reset)
    # another space's waits never move it
    with adm.clock(3) as other:
        assert other.waited() == 0
