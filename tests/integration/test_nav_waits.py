"""Navigation, load states and waits (BEHAVIOURS.md B32–B49)."""

from __future__ import annotations

import re
import threading
import time

import pytest

from ego_browser import EgoTimeout, NavigationTimeout, SelectorAmbiguous, UrlOpenedInPopup

from tests.cdp_recorder import record_cdp
from tests.server import Response

SLOW_IMG = "<img src='/slow-img.png'>"


def slow_image(server, path="/slow-img.png", delay=0.7):
    server.route(path, Response(b"\x89PNG", content_type="image/png", delay=delay))


async def test_b32_headers_delayed_not_committed(task, server):
    url = server.route("/b32", Response("late", delay=1.0))
    with pytest.raises(NavigationTimeout) as info:
        await task.page("p1").goto(url, timeout=100)
    assert info.value.code == "EGO_NAVIGATION_TIMEOUT"
    assert info.value.committed is False
    assert "wait_for_load_state" not in str(info.value)


async def test_b33_committed_then_streaming(task, server):
    # the first bytes come at once and the end 4 s later: the 2 s timeout falls between the two
    # however slow the machine is (commit needs only the first bytes)
    url = server.route("/b33", Response("<p>start</p>", chunks=[(4.0, b"<p>end</p>")]))
    page = task.page("p1")
    with pytest.raises(NavigationTimeout) as info:
        await page.goto(url, timeout=2000)
    assert info.value.committed is True and info.value.url == url
    assert info.value.ready_state == "loading"
    assert 'page.wait_for_load_state("load")' in str(info.value)
    assert await page.url() == url
    await page.wait_for_load_state("load", timeout=15000)
    assert await page.evaluate("document.readyState") == "complete"


async def test_b34_commit_with_referer(task, server):
    rest = threading.Event()  # the document's end is held back until the checks are done
    url = server.route("/b34", Response("<p id=m>marker</p><script>window.mark=1</script>", chunks=[(rest, b"<p>end</p>")]))
    page = task.page("p1")
    try:
        await page.goto(url, wait_until="commit", referer="http://127.0.0.1:1/ref")
        state = await page.evaluate("[document.readyState, document.referrer]")
        assert state[0] == "loading"
        assert state[1] == "http://127.0.0.1:1/ref"
    finally:
        rest.set()


async def test_b35_b36_domcontentloaded_then_load(task, server):
    slow_image(server, "/b35.png", 3.0)
    url = server.page("/b35", "<img src='/b35.png'>")
    page = task.page("p1")
    await page.goto(url, wait_until="domcontentloaded")
    assert await page.evaluate("document.readyState") == "interactive"
    with pytest.raises(EgoTimeout, match=r"wait_for_load_state\(load\) timed out"):
        await page.wait_for_load_state("load", timeout=100)
    # it gave up at its own deadline, not at the load: the 3 s image is still on its way
    assert await page.evaluate("document.readyState") == "interactive"
    await page.wait_for_load_state("load", timeout=15000)
    assert await page.evaluate("document.readyState") == "complete"


async def test_b37_networkidle_tracks_requests_from_before(task, server):
    slow_image(server, "/b37.png", 0.7)
    # the 700 ms request starts while the document loads (a fetch does not hold the load event);
    # a timer would race the 500 ms idle window on a loaded machine
    url = server.page("/b37", "<script>var t0 = performance.timeOrigin</script>"
                      "<script>window.done = fetch('/b37.png?' + Math.random()).then(r => r.blob())"
                      ".then(() => window.finished = true)</script>")
    page = task.page("p1")
    t0 = time.monotonic()
    await page.goto(url, wait_until="networkidle")
    assert time.monotonic() - t0 >= 1.0
    assert await page.evaluate("document.readyState") == "complete"
    assert await page.evaluate("window.finished") is True
    t0 = time.monotonic()
    await page.reload(wait_until="networkidle")
    assert time.monotonic() - t0 >= 1.0
    assert await page.evaluate("window.finished") is True


async def test_b38_redirected_favicon_does_not_hold_idle(task):
    # a server of its own: the site's /favicon.ico is asked for by every page load on the site,
    # and on the session's shared server this route made every later load hold a connection
    # for 20 s (six of them and the browser sends no more requests there: gotos failed)
    from tests.server import TestServer

    server = TestServer()
    try:
        server.route("/favicon.ico", Response("", status=302, headers={"Location": "/b38-slow-icon"}))
        # if the redirected icon held idle, the 15 s wait below would time out (the icon takes 20 s)
        server.route("/b38-slow-icon", Response(b"", content_type="image/x-icon", delay=20.0))
        url = server.page("/b38", "<p>hi</p>")
        page = task.page("p1")
        await page.goto(url)
        await page.wait_for_load_state("networkidle", idle_ms=200, timeout=15000)
        await page.goto("about:blank")  # this page's icon fetch ends with it
    finally:
        server.close()


async def test_b39_running_fetch_holds_idle_events_intact(task, server):
    server.route("/b39-api", Response("{}", content_type="application/json", delay=0.8))
    url = server.page("/b39", "<p>x</p>")
    page = task.page("p1")
    await page.goto(url)
    page.events()
    await page.evaluate("console.log('before-idle'); fetch('/b39-api'); 1")
    t0 = time.monotonic()
    await page.wait_for_load_state("networkidle", idle_ms=100)
    assert time.monotonic() - t0 >= 0.6
    logged = [e for e in page.events() if e["method"] == "Runtime.consoleAPICalled"]
    assert any(a.get("value") == "before-idle" for e in logged for a in e["params"]["args"])


async def test_b40_other_pages_do_not_hold_idle(task, server):
    server.route("/b40-poll", Response("{}", content_type="application/json", delay=0.3))
    a, b = task.page("p1"), await task.new_page()
    await a.goto(server.page("/b40a", "<p>a</p><script>console.log('from-a')</script>"))
    await b.goto(server.page("/b40b", "<script>console.log('from-b');"
                             "setInterval(() => fetch('/b40-poll'), 50)</script>"))
    # b is never quiet (a request every 50 ms): a's wait can only return if b's are not counted
    await a.wait_for_load_state("networkidle", idle_ms=200, timeout=15000)
    texts_a = {x.get("value") for e in a.events() if e["method"] == "Runtime.consoleAPICalled" for x in e["params"]["args"]}
    texts_b = {x.get("value") for e in b.events() if e["method"] == "Runtime.consoleAPICalled" for x in e["params"]["args"]}
    assert "from-a" in texts_a and "from-b" not in texts_a
    assert "from-b" in texts_b and "from-a" not in texts_b


async def test_b41_oopif_requests_count(task, server):
    server.route("/b41-frame-img.png", Response(b"\x89PNG", content_type="image/png", delay=0.7))
    server.page("/b41-frame", "<script>setTimeout(() => { new Image().src = '/b41-frame-img.png' }, 10)</script>")
    frame_url = server.url("/b41-frame", host="localhost")
    url = server.page("/b41", f"<iframe id=f src='{frame_url}'></iframe>")
    page = task.page("p1")
    await page.goto(url, wait_until="commit")
    t0 = time.monotonic()
    await page.wait_for_load_state("networkidle", idle_ms=200, timeout=5000)
    assert time.monotonic() - t0 >= 0.65
    # a 3 s frame load: a short networkidle wait times out; removing the frame releases it
    server.route("/b41-slow-frame", Response("<p>late</p>", delay=3.0))
    slow = server.url("/b41-slow-frame", host="localhost")
    await page.evaluate("(src) => { const f = document.createElement('iframe'); f.id = 's'; f.src = src;"
                        " document.body.appendChild(f); }", slow)
    with pytest.raises(EgoTimeout, match=r"networkidle\) timed out"):
        await page.wait_for_load_state("networkidle", idle_ms=100, timeout=250)
    await page.evaluate("document.getElementById('s').remove(); 1")
    await page.wait_for_load_state("networkidle", idle_ms=100, timeout=15000)


async def test_b42_default_state_is_load(task, server):
    url = server.route("/b42", Response("<p>a</p>", chunks=[(0.5, b"<p>b</p>")]))
    page = task.page("p1")
    await page.goto(url, wait_until="commit")
    await page.wait_for_load_state()
    assert await page.evaluate("document.readyState") == "complete"
    assert await page.evaluate("document.body.innerText.includes('b')") is True


async def test_b43_reload_fresh_document(task, server):
    hold = threading.Event()  # set: the next document's end is held back until `release`
    release = threading.Event()

    def b43(_req):
        gate = release if hold.is_set() else threading.Event()
        if gate is not release:
            gate.set()
        return Response("<p>x</p>", chunks=[(gate, b"<p>y</p>")])

    url = server.route("/b43", b43)
    page = task.page("p1")
    await page.goto(url)
    tid = (await task.tabs())[0]["target_id"]
    await page.evaluate("window.sentinel = 1")
    await page.reload()
    assert await page.evaluate("window.sentinel") is None
    assert await page.evaluate("document.readyState") == "complete"
    assert (await task.tabs())[0]["target_id"] == tid and page.label == "p1"
    hold.set()
    try:
        await page.reload(wait_until="commit")
        assert await page.evaluate("document.readyState") == "loading"
    finally:
        release.set()


async def test_b44_wait_for_function(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b44", "<div style='height:3000px'>tall</div>"
                                "<script>window.t0 = Date.now(); setTimeout(() => window.ready = Date.now(), 300)</script>"))
    assert await page.wait_for_function("() => window.ready", None, timeout=3000) is True
    waited = await page.evaluate("window.ready - window.t0")
    assert waited >= 250
    await page.evaluate("setTimeout(() => window.n = 5, 100); 1")
    assert await page.wait_for_function("(x) => window.n === x", 5, timeout=3000, polling=20) is True
    await page.evaluate("setTimeout(() => scrollTo(0, 200), 100); 1")
    assert await page.wait_for_function("window.scrollY > 0", timeout=3000) is True
    with pytest.raises(EgoTimeout, match="wait_for_function timed out after 200ms"):
        await page.wait_for_function("() => false", timeout=200)


async def test_b45_wait_for_selector(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b45", "<audio id=au></audio><a href='/b45-next' style='display:none'>n</a>"
                                "<script>setTimeout(() => { const d = document.createElement('div'); d.id = 'late';"
                                " d.textContent = 'late'; document.body.appendChild(d); }, 200)</script>"))
    assert await page.wait_for_selector("#late", timeout=3000, state="visible") is True
    assert await page.wait_for_selector("#au", state="attached", timeout=1000) is True
    assert await page.wait_for_selector("loc=href:/b45-next", state="attached", timeout=1000) is True
    assert await page.wait_for_selector("#au", state="hidden", timeout=1000) is True
    await page.evaluate("setTimeout(() => document.getElementById('late').remove(), 100); 1")
    assert await page.wait_for_selector("#late", state="detached", timeout=3000) is True
    with pytest.raises(EgoTimeout):
        await page.wait_for_selector("#never", timeout=200)


async def test_b46_popup_url_glob_and_callable(task, server):
    server.page("/b46/next", "<p>next</p>")
    page = task.page("p1")
    await page.goto(server.page("/b46", "<p>opener</p>"))
    waiter = page.wait_for_event("popup")
    await page.evaluate("window.open('/b46/next?step=2'); 1")
    popup = await waiter
    await popup.wait_for_url("**/next?step=*")
    await popup.wait_for_url(lambda u: "step=2" in u)


async def test_b47_url_opened_in_popup(task, server):
    server.page("/b47/done", "<p>done</p>")
    page = task.page("p1")
    await page.goto(server.page("/b47", "<p>opener</p>"))
    waiter = page.wait_for_event("popup")
    await page.evaluate("window.open('/b47/done'); 1")
    popup = await waiter
    with pytest.raises(UrlOpenedInPopup) as info:  # (a missed popup would be a 15 s EgoTimeout)
        await page.wait_for_url("**/b47/done", timeout=15000)
    assert info.value.code == "EGO_URL_OPENED_IN_POPUP"
    assert info.value.popup_label == popup.label
    assert f'task.page("{popup.label}")' in str(info.value)


async def test_b48_wait_for_timeout(task):
    t0 = time.monotonic()
    await task.page("p1").wait_for_timeout(25)
    assert time.monotonic() - t0 >= 0.02


async def test_b49_regex_exact_and_timeout(task, server):
    server.page("/b49/done", "<p>done</p>")
    page = task.page("p1")
    await page.goto(server.page("/b49", "<p>start</p>"))
    done = server.url("/b49/done")
    await page.evaluate("setTimeout(() => location.href = '/b49/done', 100); 1")
    await page.wait_for_url(re.compile(r"/done$"), timeout=5000)
    await page.wait_for_url(done)
    with pytest.raises(EgoTimeout, match="wait_for_url timed out"):
        await page.wait_for_url("**/never", timeout=200)


async def test_wait_for_function_keeps_waiting_across_a_navigation(task, server):
    # the pending in-page promise dies with the document ("Inspected target navigated or closed"):
    # the wait goes on in the new document instead of surfacing a CDP error
    b = server.page("/wff-b", "<script>setTimeout(() => window.ready = true, 50)</script>")
    a = server.page("/wff-a", f"<script>setTimeout(() => location.href = {b!r}, 300)</script>")
    page = task.page("p1")
    await page.goto(a)
    assert await page.wait_for_function("() => window.ready === true", timeout=15000) is True
    assert await page.url() == b


async def test_wait_for_selector_counts_by_value_in_the_page_and_its_frames(host, task, server):
    """A CSS or text selector's state is read by value in one call per frame (no element handles
    to read back and release); a match only in an iframe counts, its visibility too; two
    matches in the top document are ambiguous for ``visible``."""
    server.page("/wfs-inner", "<p id=inner>inside</p><p id=gone style='display:none'>x</p>")
    page = task.page("p1")
    await page.goto(server.page("/wfs", "<iframe src='/wfs-inner'></iframe><b class=two>1</b><b class=two>2</b>"))
    await page.wait_for_function("() => document.querySelector('iframe').contentDocument?.getElementById('inner')")
    with record_cdp(host) as rec:
        assert await page.wait_for_selector("#inner", state="visible", timeout=5000) is True
        assert await page.wait_for_selector("text=inside", state="visible", timeout=5000) is True
        assert await page.wait_for_selector("#gone", state="hidden", timeout=5000) is True
        assert await page.wait_for_selector("#nothing", state="detached", timeout=5000) is True
    assert "Runtime.getProperties" not in rec.methods() and "Runtime.releaseObject" not in rec.methods()
    with pytest.raises(SelectorAmbiguous):
        await page.wait_for_selector(".two", state="visible", timeout=2000, strict=True)
    with pytest.raises(EgoTimeout):
        await page.wait_for_selector("#gone", state="visible", timeout=300)


async def test_waits_after_a_watched_navigation_ask_the_page_nothing(host, task, server):
    """A document whose navigation the page was watching from its start ("init") gets its
    lifecycle events: wait_for_load_state and the next action's parse wait read them and send
    no readyState question, which a loading renderer answers late. The load still holds the wait."""
    slow_image(server, "/nav-watched.png", delay=0.5)
    server.page("/nav-watched-2", "<p id=two>two</p><img src='/nav-watched.png'>")
    page = task.page("p1")
    await page.goto(server.page("/nav-watched-1", "<a id=go href='/nav-watched-2'>go</a>"))
    with record_cdp(host) as rec:
        await page.click("#go")
        await page.wait_for_load_state()
        loaded = await page.evaluate("() => document.readyState")
        await page.click("#two")
    asked = [s for s in rec.sent if s.method == "Runtime.evaluate" and s.params.get("expression") == "document.readyState"]
    assert loaded == "complete"
    assert asked == [], asked
