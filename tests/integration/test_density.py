"""Many agents on one host (issue 31 §2): idle spaces are frozen and wake on their next call,
and overload is a clear, immediate error rather than a hang."""

from __future__ import annotations

import asyncio
import time

import pytest

import ego_browser
from ego_browser.errors import HostOverloaded
from ego_browser.host.core.admission import Admission

pytestmark = pytest.mark.asyncio

_STATEFUL = """
<input id="name"><button id="go" onclick="document.querySelector('#out').textContent = 'clicked ' + (++window.clicks)">Go</button>
<p id="out">-</p>
<script>
  window.clicks = 0; window.froze = 0; window.resumed = 0; window.ticks = 0;
  document.addEventListener('freeze', () => window.froze++);
  document.addEventListener('resume', () => window.resumed++);
  setInterval(() => window.ticks++, 10);
</script>
"""


async def _until(admission: Admission, check) -> None:
    """Wait (on the admission's own change notices) until ``check(admission)`` holds."""
    done = asyncio.get_running_loop().create_future()

    def changed() -> None:
        if check(admission) and not done.done():
            done.set_result(None)

    admission.watchers.append(changed)
    try:
        changed()
        await asyncio.wait_for(done, 30)
    finally:
        admission.watchers.remove(changed)


def _target(host, space_id: int, label: str = "p1") -> str:
    return next(r.target_id for r in host.store.pages(space_id) if r.label == label)


async def test_an_idle_space_is_frozen_and_its_next_call_wakes_it_with_its_state(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/density-frozen", _STATEFUL))
    await page.fill("#name", "kept across the freeze")
    await page.evaluate("window.mark = 42")
    tid = _target(host, task.space_id)
    frozen: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def seen(target: str) -> None:
        if target == tid and not frozen.done():
            frozen.set_result(target)

    before = host.idle.after
    host.idle.on_frozen.append(seen)
    host.idle.configure(0.3)
    try:
        await asyncio.wait_for(frozen, 60)
        assert tid in host.idle.frozen
    finally:
        host.idle.on_frozen.remove(seen)
        host.idle.configure(before)
    # the agent's next call answers as if nothing happened, and the page kept all its state
    got = await page.evaluate(
        "[window.froze, window.resumed, document.querySelector('#name').value, window.mark]")
    assert got[0] >= 1 and got[1] >= 1, f"the page was not frozen and woken: {got}"
    assert got[2:] == ["kept across the freeze", 42]
    assert tid not in host.idle.frozen
    await page.click("#go")
    assert "clicked 1" in await page.snapshot()


async def _frozen(host, tid: str) -> None:
    """Freeze idle tabs now and wait until ``tid`` is frozen."""
    frozen: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def seen(target: str) -> None:
        if target == tid and not frozen.done():
            frozen.set_result(target)

    before = host.idle.after
    host.idle.on_frozen.append(seen)
    host.idle.configure(0.3)
    try:
        await asyncio.wait_for(frozen, 60)
    finally:
        host.idle.on_frozen.remove(seen)
        host.idle.configure(before)


async def test_a_frozen_space_finishes_cleanly_and_a_popup_opens_from_a_frozen_page(host, server):
    task = await ego_browser.task_space(f"density-frozen-finish-{time.monotonic_ns()}")
    page = task.page("p1")
    details = server.page("/density-details", "<h1>details</h1>", title="Details")
    await page.goto(server.page("/density-opener", f'<a id="pop" href="{details}" target="_blank">details</a>'))
    await _frozen(host, _target(host, task.space_id))
    async with page.expect_event("popup") as info:
        await page.click("#pop")  # the first call after the freeze: it wakes the page and acts
    popup = await info.value
    assert await popup.title() == "Details"
    tids = [r.target_id for r in host.store.pages(task.space_id) if r.target_id]
    await _frozen(host, _target(host, task.space_id))
    await task.finish(keep=[])
    assert not any(host.browser.is_live_page(t) for t in tids)
    assert host.idle.count() == len(host.idle.frozen) and not host.idle.frozen & set(tids)


async def test_a_call_refused_at_the_admission_limit_fails_at_once_and_names_what_to_do(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/density-hold", "<p>hold</p><script>window.hold = new Promise(r => window.go = r)</script>"))
    other = await ego_browser.task_space(f"density-other-{time.monotonic_ns()}")
    saved = host.admission
    host.admission = Admission(limit=1, queue_max=1, wait=30)
    try:
        holder = asyncio.ensure_future(page.evaluate("window.hold.then(() => 'released')"))
        await _until(host.admission, lambda a: a.active == 1)  # the holder has its turn
        waiter = asyncio.ensure_future(other.page("p1").evaluate("'waited'"))
        await _until(host.admission, lambda a: a.queued == 1)
        t0 = time.monotonic()
        with pytest.raises(HostOverloaded) as info:
            await other.page("p1").evaluate("'refused'")
        assert time.monotonic() - t0 < 5, "the refusal must be immediate, not a wait for the deadline"
        err = info.value
        assert err.code == "EGO_HOST_OVERLOADED" and err.active == 1 and err.queued == 1
        assert "EGO_BROWSER_MAX_ACTIVE" in err.message and "repeat" in err.message
        assert not holder.done() and not waiter.done()
        # the call holding the turn ends: the queued one runs next, in order, and nothing was lost
        await host.drivers[_target(host, task.space_id)].session.send(
            "Runtime.evaluate", {"expression": "window.go()"})
        assert await asyncio.wait_for(holder, 30) == "released"
        assert await asyncio.wait_for(waiter, 30) == "waited"
        assert host.admission.active == 0 and host.admission.queued == 0
    finally:
        host.admission = saved
        await other.finish(keep=[])


async def test_a_call_that_waits_too_long_for_its_turn_is_refused_not_left_hanging(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/density-hold2", "<p>hold</p><script>window.hold = new Promise(r => window.go = r)</script>"))
    other = await ego_browser.task_space(f"density-wait-{time.monotonic_ns()}")
    saved = host.admission
    host.admission = Admission(limit=1, queue_max=8, wait=0.5)
    try:
        holder = asyncio.ensure_future(page.evaluate("window.hold.then(() => 'released')"))
        await _until(host.admission, lambda a: a.active == 1)
        with pytest.raises(HostOverloaded) as info:
            await other.page("p1").evaluate("1")
        assert info.value.waited_ms == 500 and info.value.api == "page.evaluate"
        # waits for events (a dialog, a popup) never queue: they cannot hold a turn others need
        assert host.admission.queued == 0
        await host.drivers[_target(host, task.space_id)].session.send(
            "Runtime.evaluate", {"expression": "window.go()"})
        assert await asyncio.wait_for(holder, 30) == "released"
    finally:
        host.admission = saved
        await other.finish(keep=[])


async def test_the_persons_input_wakes_a_frozen_tab_too(host, task, server):
    # the dashboard drives a tab through Host.driver, not through an agent's call
    page = task.page("p1")
    await page.goto(server.page("/density-person", _STATEFUL))
    tid = _target(host, task.space_id)
    await _frozen(host, tid)
    driver = await host.driver(tid)
    assert tid not in host.idle.frozen
    got = await driver.session.send(
        "Runtime.evaluate", {"expression": "[window.froze, window.resumed]", "returnByValue": True}, timeout=10)
    assert got["result"]["value"] == [1, 1]


async def test_a_space_is_idle_from_its_last_calls_end_not_its_start(host, task, server):
    # under load a call can take longer than EGO_BROWSER_FREEZE_IDLE (50 agents: calls waited
    # seconds for their turn): its tab was frozen the moment it ended and woken by the next
    # call, a garbage collection each time (104 freezes in 159 rounds of the density bench)
    page = task.page("p1")
    await page.goto(server.page("/density-long-call", _STATEFUL))
    tid = _target(host, task.space_id)
    before = host.idle.after
    host.idle.configure(1.0)
    try:
        await page.evaluate("new Promise(r => setTimeout(() => r(1), 2500))")  # longer than the idle time
        await host.idle.sweep()  # the sweep right after the call
        assert tid not in host.idle.frozen, "a space was frozen as its call ended"
    finally:
        host.idle.configure(before)
    assert await page.evaluate("window.froze") == 0


async def test_a_popup_waiter_does_not_count_the_time_its_click_waits_for_a_turn(host, task, server):
    """50 agents (issue 31 §2): a popup waiter armed before its click timed out while the click
    waited for its turn. The seconds the space's own calls wait for a turn are not the waiter's."""
    server.page("/density-pop-child", "<p>the details</p>")
    page = task.page("p1")
    await page.goto(server.page("/density-pop", "<a id=pop href='/density-pop-child' target=_blank>open</a>"))
    other = await ego_browser.task_space(f"density-pop-other-{time.monotonic_ns()}")
    opage = other.page("p1")
    await opage.goto(server.page("/density-hold3", "<p>hold</p><script>window.hold = new Promise(r => window.go = r)</script>"))
    saved = host.admission
    host.admission = Admission(limit=1, queue_max=8, wait=30)
    loop = asyncio.get_running_loop()
    try:
        holder = asyncio.ensure_future(opage.evaluate("window.hold.then(() => 'released')"))
        await _until(host.admission, lambda a: a.active == 1)  # another agent's call has the only turn
        async with page.expect_event("popup", timeout=500) as info:
            click = asyncio.ensure_future(page.click("#pop"))
            await _until(host.admission, lambda a: a.queued == 1)
            past = loop.create_future()
            loop.call_later(1.5, past.set_result, None)  # the click waits three times the waiter's time
            await past
            await host.drivers[_target(host, other.space_id)].session.send(
                "Runtime.evaluate", {"expression": "window.go()"})
            await asyncio.wait_for(click, 30)
        popup = await asyncio.wait_for(info.value, 30)
        assert "/density-pop-child" in await popup.url()
        assert await asyncio.wait_for(holder, 30) == "released"
    finally:
        host.admission = saved
        await other.finish(keep=[])
