"""One space's hostile arguments never wedge the others (issue 31, point 1).

``page.click(sel, click_count=10**6)`` once sent two million input events, grew Chromium to
5 GB and starved the host's loop, so every other space's calls ran past their deadlines.
Every count and size an action takes is now bounded by its declaration: a value past the
bound is ``InvalidArgument`` (code ``EGO_INVALID_ARGUMENT``) before anything reaches the
browser, from the client and from a raw wire request alike, and the largest accepted values
run as ordinary requests that yield to the rest of the host.
"""

from __future__ import annotations

import asyncio

import pytest

import ego_browser
from ego_browser.errors import InvalidArgument
from ego_browser.host.core.dispatch import MARGIN
from ego_browser.schema import validate

PAGE = ("<button id=b style='width:200px;height:60px' onclick='window.n = (window.n || 0) + 1'>b</button>"
        "<input id=i><div style='height:3000px'></div>")


def _hostile(page):
    """Calls that once ran for minutes, each past one bound."""
    return [
        ("click_count", page.click("#b", click_count=10**6)),
        ("delay", page.click("#b", delay=10**9)),
        ("click_count", page.mouse.click(5, 5, click_count=10**6)),
        ("steps", page.mouse.move(5, 5, steps=10**7)),
        ("click_count", page.mouse.down(click_count=10**6)),
        ("delta_y", page.mouse.wheel(0, 1e300)),
        ("text", page.keyboard.type("x" * 10**5)),
        ("delay", page.keyboard.type("xy", delay=10**8)),
        ("delay", page.keyboard.press("a", delay=10**8)),
        ("key", page.keyboard.press("Shift+" * 10**5 + "a")),
        ("value", page.fill("#i", "x" * (2 * 10**6))),
        ("text", page.keyboard.insert_text("x" * (2 * 10**6))),
    ]


async def _within_own_deadline(call, timeout_ms: float):
    """Await ``call`` no longer than the request deadline the host itself gives it."""
    async with asyncio.timeout(timeout_ms / 1000 + MARGIN):
        return await call


async def test_a_hostile_argument_in_one_space_never_slows_another(host, server):
    url = server.page("/h31-hostile", PAGE)
    a = await ego_browser.task_space("h31-hostile-a")
    b = await ego_browser.task_space("h31-hostile-b")
    try:
        pa, pb = a.page("p1"), b.page("p1")
        await pa.goto(url)
        await pb.goto(url)
        calls = _hostile(pa)
        results = [asyncio.ensure_future(c) for _, c in calls]
        # the other space works as usual, each call inside the deadline the host gives it
        await _within_own_deadline(pb.click("#b"), 3000)
        await _within_own_deadline(pb.fill("#i", "still here"), 3000)
        await _within_own_deadline(pb.goto(url + "?again"), 30000)
        await _within_own_deadline(pb.click("#b"), 3000)
        assert await pb.evaluate("window.n") == 1
        # and every hostile call was refused with a code and a message naming the bound
        outcomes = await asyncio.gather(*results, return_exceptions=True)
        for (option, _), out in zip(calls, outcomes):
            assert isinstance(out, InvalidArgument), (option, out)
            assert out.code == "EGO_INVALID_ARGUMENT" and out.option == option, (option, out)
            assert "at most" in str(out) or " to " in str(out), str(out)
        # nothing reached the page
        assert await pa.evaluate("[window.n || 0, document.querySelector('#i').value]") == [0, ""]
    finally:
        for t in (a, b):
            try:
                await t.finish(keep=[])
            except ego_browser.EgoError:
                pass


async def test_the_host_refuses_an_unbounded_argument_a_round_sends_raw(task, server):
    """A round that skips the client's checks meets the same bounds in the host."""
    host = task._channel.host
    page = task.page("p1")
    await page.goto(server.page("/h31-raw", PAGE))
    at = {"space": task.space_id, "label": page.label}
    for op, args, option in [
        ("page.click", {"selector": "#b", "click_count": 10**6}, "click_count"),
        ("mouse.click", {"x": 5, "y": 5, "click_count": 1000}, "click_count"),
        ("mouse.move", {"x": 5, "y": 5, "steps": 10**6}, "steps"),
        ("keyboard.type", {"text": "x" * 20000}, "text"),
        ("task.set_viewport", {"width": 10**6, "height": 10**6}, "width"),
    ]:
        with pytest.raises(InvalidArgument) as info:
            await host.handle(op, {**at, **args} if not op.startswith("task.") else {"space": task.space_id, **args})
        assert info.value.option == option
    assert await page.evaluate("window.n || 0") == 0


async def test_the_largest_accepted_values_end_inside_their_deadline_while_others_work(host, server):
    """The worst call the bounds let through (10 clicks with the longest delay, the longest
    typed text) runs as an ordinary request: another space's calls meanwhile finish inside
    their own deadlines, and the heavy click ends at its deadline at the latest."""
    url = server.page("/h31-heavy", PAGE)
    a = await ego_browser.task_space("h31-heavy-a")
    b = await ego_browser.task_space("h31-heavy-b")
    try:
        pa, pb = a.page("p1"), b.page("p1")
        await pa.goto(url)
        await pb.goto(url)
        heavy_click = asyncio.ensure_future(
            pa.click("#b", click_count=validate.MAX_CLICKS, delay=validate.MAX_DELAY_MS, timeout=1000))
        await pa.focus("#i")
        heavy_type = asyncio.ensure_future(pa.keyboard.type("x" * validate.MAX_TYPED))
        for _ in range(3):
            await _within_own_deadline(pb.click("#b"), 3000)
        await _within_own_deadline(pb.goto(url + "?next"), 30000)
        assert await _within_own_deadline(pb.evaluate("document.readyState"), 3000) == "complete"
        try:
            await _within_own_deadline(heavy_click, 1000)
        except ego_browser.EgoTimeout:
            pass  # the host's own deadline ended it
        heavy_type.cancel()
        await asyncio.gather(heavy_type, return_exceptions=True)
    finally:
        for t in (a, b):
            try:
                await t.finish(keep=[])
            except ego_browser.EgoError:
                pass
