"""A click's move, press and release go out together (driver/actions._click_in_one_go).

What the page sees must not change: the move's handlers run before the press, an overlay that
the move makes appear swallows the whole click (nothing lands on the overlay or the target, the
action reports the cover as before), the swallowing ends with the attempt, and a click that
navigates or opens a dialog returns as it did.
"""

from __future__ import annotations

import pytest

from ego_browser.errors import NotActionable
from tests.cdp_recorder import record_cdp

EVENTS = """<button id=b style='width:200px;height:60px'>b</button>
<script>
  window.seen = [];
  for (const t of ['pointerover', 'mouseenter', 'mousemove', 'pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'])
    document.getElementById('b').addEventListener(t, (e) => { if (e.isTrusted) window.seen.push(t); });
</script>"""

COVER = """<button id=b style='width:200px;height:60px' onclick='window.hits.push("b")'>b</button>
<script>
  window.hits = [];
  document.getElementById('b').addEventListener('mouseenter', () => {
    if (document.getElementById('cover')) return;
    const c = document.createElement('div');
    c.id = 'cover';
    c.textContent = 'cookie banner';
    c.style = 'position:fixed;inset:0;background:#eee;z-index:9';
    c.onclick = () => window.hits.push('cover');
    c.onmousedown = () => window.hits.push('cover-down');
    document.body.appendChild(c);
  });
</script>"""


def _watch_presses(rec) -> list:
    """The outcome of the last mouse move at the moment each press is sent ("pending": the
    press went out while the move was unanswered)."""
    seen: list = []
    record = rec.record

    def watch(entry):
        if entry.params.get("type") == "mousePressed":
            moves = [s for s in rec.sent if s.params.get("type") == "mouseMoved"]
            seen.append(moves[-1].outcome if moves else None)
        record(entry)

    rec.record = watch
    return seen


async def test_the_move_reaches_the_page_before_the_press(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/og-events", EVENTS))
    await page.click("#b")  # the first action of the page (its input state), then the one watched
    await page.mouse.move(5, 300)  # off the button, so the watched click enters it again
    await page.evaluate("window.seen = []")
    with record_cdp(host) as rec:
        move_when_pressed = _watch_presses(rec)
        await page.click("#b")
    # the press went out while the move was still unanswered: one go, no wait for a frame
    assert move_when_pressed == ["pending"], move_when_pressed
    seen = await page.evaluate("window.seen")
    assert seen[:3] == ["pointerover", "mouseenter", "mousemove"], seen
    assert seen[3:] == ["pointerdown", "mousedown", "pointerup", "mouseup", "click"], seen


async def test_an_overlay_the_move_brings_swallows_the_click_and_is_reported(task, server):
    page = task.page("p1")
    await page.goto(server.page("/og-cover", COVER))
    with pytest.raises(NotActionable) as info:
        await page.click("#b", timeout=1500)
    assert "intercepts pointer events" in str(info.value) and "cookie banner" in str(info.value)
    assert await page.evaluate("window.hits") == []  # neither the target nor the cover got it
    # the listeners of the failed attempts are gone: the cover itself takes a click
    await page.click("#cover")
    assert await page.evaluate("window.hits") == ["cover-down", "cover"]


async def test_a_double_click_in_one_go(task, server):
    page = task.page("p1")
    await page.goto(server.page("/og-dbl", "<button id=b style='width:200px;height:60px' "
                                "ondblclick='window.d = (window.d || 0) + 1' onclick='window.c = (window.c || 0) + 1'>b</button>"))
    await page.dblclick("#b")
    assert await page.evaluate("[window.c, window.d]") == [2, 1]


async def test_a_click_scrolled_into_view_goes_out_in_one_go_too(host, task, server):
    """An element below the fold is wheeled into view (B109), then prepared like one in view:
    its press goes out with the move, and the page sees the usual sequence."""
    page = task.page("p1")
    await page.goto(server.page("/og-far", "<div style='height:2400px'>tall</div>" + EVENTS))
    await page.evaluate("window.wheels = 0; addEventListener('wheel', (e) => { if (e.isTrusted) window.wheels++; }, true)")
    with record_cdp(host) as rec:
        move_when_pressed = _watch_presses(rec)
        await page.click("#b")
    assert await page.evaluate("window.wheels") >= 1  # scrolled by trusted wheel events
    assert move_when_pressed == ["pending"], move_when_pressed
    seen = await page.evaluate("window.seen")
    assert seen[-5:] == ["pointerdown", "mousedown", "pointerup", "mouseup", "click"], seen
    assert "mouseenter" in seen and seen.index("mouseenter") < seen.index("pointerdown"), seen
