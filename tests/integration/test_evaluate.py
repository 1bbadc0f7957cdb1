"""evaluate, cdp and events (BEHAVIOURS.md B162–B169, B172–B173)."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser import CdpError, EgoTimeout, InvalidArgument, PageEvaluationTimeout, PageScriptError


async def test_b162_b172_basics(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b162", "<p>x</p>"))
    assert await page.evaluate("1 + 1") == 2
    assert await page.evaluate("(x) => x.a * 2", {"a": 21}) == 42
    assert await page.evaluate("undefined") is None
    assert await page.evaluate("() => {}") is None
    with pytest.raises(PageScriptError, match="boom"):
        await page.evaluate("() => { throw new Error('boom') }")
    with pytest.raises(InvalidArgument):
        await page.evaluate("1 + 1", 5)
    with pytest.raises(PageScriptError, match="arg"):
        await page.evaluate("() => missingVar")


async def test_b164_busy_loop_is_terminated(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b164", "<p>x</p>"))
    await page.evaluate("window.fired = false; setTimeout(() => window.fired = true, 50); 1")
    with pytest.raises(PageEvaluationTimeout) as info:
        await page.evaluate("() => { while (true) {} }")
    e = info.value
    assert e.code == "EGO_PAGE_EVALUATION_TIMED_OUT"
    assert (e.execution_stopped, e.may_have_late_effects, e.page_responsive) == (True, True, True)
    assert await page.evaluate("1") == 1  # the page answers again: the loop was stopped, not left running
    await page.wait_for_function("() => window.fired", timeout=2000)


async def test_b165_script_throwing_terminated_message(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b165", "<p>x</p>"))
    with pytest.raises(PageScriptError, match="Execution was terminated"):
        await page.evaluate("() => { throw new Error('Execution was terminated') }")


async def test_b166_blocked_after_transport_limit_is_interrupted(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b166", "<p>x</p>"))
    # the loop runs in a callback after the evaluation returned its promise: V8's own limit
    # does not cover it, so the transport limit is reached with the renderer still blocked
    with pytest.raises(PageEvaluationTimeout) as info:
        await page.evaluate("() => new Promise(r => setTimeout(() => { while (true) {} }, 0))")
    e = info.value
    assert e.execution_stopped is True and e.page_responsive is True
    assert await page.evaluate("2") == 2


async def test_b167_pending_promise_abandoned(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b167", "<p>x</p>"))
    with pytest.raises(PageEvaluationTimeout) as info:
        await page.evaluate("() => new Promise(r => setTimeout(() => { window.late = 1; r(1) }, 16000))")
    e = info.value
    assert (e.execution_stopped, e.may_have_late_effects, e.page_responsive) == (False, True, True)
    await page.wait_for_function("() => window.late === 1", timeout=5000)
    with pytest.raises(EgoTimeout, match="2500"):
        await page.wait_for_function("() => new Promise(r => setTimeout(() => r(false), 1200))", timeout=2500)


async def test_b168_b173_cdp(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b168", "<button id=b style='width:100px;height:40px'"
                                " onclick='window.trusted = event.isTrusted'>x</button>"))
    targets = await task.cdp("Target.getTargets")
    assert any(t["type"] == "page" for t in targets["targetInfos"])
    for kind in ("mousePressed", "mouseReleased"):
        await page.cdp("Input.dispatchMouseEvent", {"type": kind, "x": 50, "y": 20, "button": "left", "clickCount": 1})
    assert await page.evaluate("window.trusted") is True
    a, b = await asyncio.gather(
        page.cdp("Runtime.evaluate", {"expression": "'a'", "returnByValue": True}),
        page.cdp("Runtime.evaluate", {"expression": "'b'", "returnByValue": True}),
    )
    assert a["result"]["value"] == "a" and b["result"]["value"] == "b"
    shot = await page.cdp("Page.captureScreenshot")
    assert shot["data"]
    with pytest.raises(EgoTimeout, match="CDP request timed out: Runtime.evaluate"):
        await page.cdp("Runtime.evaluate", {"expression": "new Promise(r => setTimeout(r, 500))", "awaitPromise": True},
                       timeout=50)
    with pytest.raises(CdpError) as info:
        await page.cdp("DOM.noSuchMethod")
    assert info.value.method == "DOM.noSuchMethod" and info.value.cdp_code is not None and info.value.cdp_message
    with pytest.raises(InvalidArgument):
        await task.cdp("Runtime.evaluate", {"expression": "1"})


async def test_b169_events_per_page(task, server):
    a, b = task.page("p1"), await task.new_page()
    await a.goto(server.page("/b169a", "<script>console.log('A')</script>"))
    await b.goto(server.page("/b169b", "<script>console.log('B')</script>"))
    got_a = a.events()
    assert any(e["method"] == "Runtime.consoleAPICalled" for e in got_a)
    assert a.events() == []
    got_b = b.events()
    assert any(e["method"] == "Runtime.consoleAPICalled" and e["params"]["args"][0]["value"] == "B" for e in got_b)


async def test_b171_blob_worker(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b171", "<script>const w = new Worker(URL.createObjectURL(new Blob("
                                "[\"postMessage('worker-ready')\"], {type: 'text/javascript'})));"
                                "w.onmessage = (e) => window.msg = e.data;</script>"))
    await page.wait_for_function("() => window.msg === 'worker-ready'", timeout=5000)
