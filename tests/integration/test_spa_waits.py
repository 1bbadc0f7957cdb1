"""Waits on single-page apps (issue 29 points 4, 7, 8): a selector several nodes match, a
document with unsaved edits, a page that draws after load and after server round trips."""

from __future__ import annotations

import json
import threading

import pytest

from ego_browser import NavigationBlocked, SelectorAmbiguous

from tests.server import Response

# -- point 4: wait_for_selector is not strict ------------------------------------------------

FILES_APP = """
<div role=tablist><span id=tabs></span></div>
<h1 id=title>Untitled</h1>
<ul id=files><li>report.py</li></ul>
<button id=new onclick="create()">New file</button>
<script>
function create() {
  // the app answers after a round trip of its own: the name shows in the list, a tab, the title
  setTimeout(() => {
    document.getElementById('files').insertAdjacentHTML('beforeend', '<li>notes.txt</li>');
    document.getElementById('tabs').insertAdjacentHTML('beforeend', '<span role=tab>notes.txt</span>');
    document.getElementById('title').textContent = 'notes.txt';
  }, 150);
}
</script>"""


async def test_wait_for_selector_is_not_strict_as_playwright(task, server):
    """A natural SPA wait ("the new file's name shows") matches the list row, the tab and the
    title: it returns once the first is there instead of failing with SelectorAmbiguous;
    strict=True still insists on one. Actions stay strict."""
    page = task.page("p1")
    await page.goto(server.page("/spa-files", FILES_APP))
    await page.click("#new")
    assert await page.wait_for_selector("text=notes.txt", timeout=5000) is True
    assert await page.wait_for_selector("text=notes.txt", state="attached", timeout=5000) is True
    assert await page.wait_for_selector("text=notes.txt >> nth=2", timeout=5000) is True
    with pytest.raises(SelectorAmbiguous) as info:
        await page.wait_for_selector("text=notes.txt", timeout=2000, strict=True)
    assert info.value.count == 3
    with pytest.raises(SelectorAmbiguous):
        await page.click("text=notes.txt", timeout=2000)


async def test_wait_for_selector_state_is_the_first_matchs(task, server):
    """As Playwright: with several matches, visible/hidden is the state of the first one."""
    page = task.page("p1")
    await page.goto(server.page("/spa-first", "<p class=m style='display:none'>a</p><p class=m>b</p>"))
    assert await page.wait_for_selector(".m", state="hidden", timeout=3000) is True
    assert await page.wait_for_selector(".m", state="attached", timeout=3000) is True


# -- point 7: goto away from unsaved edits ---------------------------------------------------

DIRTY_EDITOR = """
<textarea id=ed style='width:300px;height:80px'></textarea>
<script>
document.getElementById('ed').addEventListener('input', () => {
  window.onbeforeunload = (e) => { e.preventDefault(); e.returnValue = ''; return ''; };
});
</script>"""


async def _dirty(page, server, path: str) -> str:
    url = server.page(path, DIRTY_EDITOR)
    await page.goto(url)
    await page.click("#ed")  # a trusted gesture: Chromium asks before leaving only after one
    await page.fill("#ed", "print(1)")
    return url


async def test_goto_from_unsaved_edits_raises_and_says_what_to_call(task, server):
    page = task.page("p1")
    url = await _dirty(page, server, "/spa-dirty")
    target = server.page("/spa-dirty-next", "<p id=next>next</p>")
    with pytest.raises(NavigationBlocked) as info:
        await page.goto(target, timeout=5000)
    err = info.value
    assert err.code == "EGO_NAVIGATION_BLOCKED" and err.url == target
    assert err.dialog is not None and err.dialog["type"] == "beforeunload"
    assert "accept_dialog()" in str(err) and 'on_beforeunload="accept"' in str(err)
    # the caller chooses: staying keeps the edits and the page answers again
    assert await page.dismiss_dialog() is True
    assert await page.url() == url
    assert await page.evaluate("document.getElementById('ed').value") == "print(1)"


async def test_goto_accepts_beforeunload_when_asked(task, server):
    page = task.page("p1")
    await _dirty(page, server, "/spa-dirty-accept")
    target = server.page("/spa-dirty-accept-next", "<p id=next>next</p>")
    receipt = await page.goto(target, timeout=10000, on_beforeunload="accept")
    assert receipt.dialog is None
    assert await page.url() == target
    assert await page.evaluate("document.getElementById('next').textContent") == "next"


async def test_reload_of_unsaved_edits_raises_or_accepts(task, server):
    page = task.page("p1")
    url = await _dirty(page, server, "/spa-dirty-reload")
    with pytest.raises(NavigationBlocked) as info:
        await page.reload(timeout=5000)
    assert info.value.url == url and "reload(on_beforeunload=" in str(info.value)
    assert await page.dismiss_dialog() is True
    assert await page.evaluate("document.getElementById('ed').value") == "print(1)"
    receipt = await page.reload(timeout=10000, on_beforeunload="accept")
    assert receipt.dialog is None
    assert await page.evaluate("document.getElementById('ed').value") == ""


# -- point 8: wait for the page to settle ----------------------------------------------------

LATE_APP = """
<main id=app><p>Loading…</p></main>
<script>
addEventListener('load', async () => {
  const data = await (await fetch('/spa-late-data')).json();
  // the framework renders on its next tick, then asks for more
  setTimeout(async () => {
    document.getElementById('app').innerHTML = '<h2>' + data.title + '</h2><output id=out></output>';
    const more = await (await fetch('/spa-late-more')).json();
    setTimeout(() => {
      document.getElementById('app').insertAdjacentHTML('beforeend',
        '<button id=run onclick="run()">' + more.button + '</button>');
    }, 150);
  }, 150);
});
async function run() {
  document.getElementById('out').textContent = 'running…';
  const r = await (await fetch('/spa-late-run')).json();
  setTimeout(() => { document.getElementById('out').textContent = 'Result: ' + r.value; }, 100);
}
</script>"""


async def test_wait_for_settled_after_load_and_after_a_round_trip(task, server):
    """The app draws after load (two fetches, each rendered a tick later) and after a click's
    fetch: wait_for_settled returns once all of it is on screen, and the snapshot header says
    when the document is still changing."""
    release = threading.Event()
    server.route("/spa-late-data", Response(b"", content_type="application/json",
                                            chunks=[(release, json.dumps({"title": "Report ready"}).encode())]))
    server.route("/spa-late-more", Response(json.dumps({"button": "Run"}), content_type="application/json", delay=0.3))
    server.route("/spa-late-run", Response(json.dumps({"value": 42}), content_type="application/json", delay=0.4))
    page = task.page("p1")
    try:
        await page.goto(server.page("/spa-late", LATE_APP))
        early = await page.snapshot()
        header = early.splitlines()[0]
        assert "Report ready" not in early
        assert "(changing: 1 request(s) in flight; page.wait_for_settled())" in header, header
        # still fetching at the deadline: not settled, and it says why
        state = await page.wait_for_settled(quiet_ms=200, timeout=600)
        assert state["settled"] is False and "request(s) in flight" in state["busy"], state
    finally:
        release.set()
    state = await page.wait_for_settled(quiet_ms=600, timeout=15000)
    assert state["settled"] is True and state["busy"] is None, state
    text = await page.snapshot()
    assert "Report ready" in text and 'button "Run"' in text, text
    assert "(changing" not in text.splitlines()[0]
    await page.click("#run")
    state = await page.wait_for_settled(quiet_ms=600, timeout=15000)
    assert state["settled"] is True, state
    assert "Result: 42" in await page.snapshot()


async def test_wait_for_settled_is_bounded_on_a_page_that_never_settles(task, server):
    page = task.page("p1")
    await page.goto(server.page("/spa-ticker", (
        "<p id=t>0</p><script>let n = 0; setInterval(() => { document.getElementById('t').textContent = ++n }, 50)"
        "</script>")))
    state = await page.wait_for_settled(quiet_ms=400, timeout=1500)
    assert state == {"settled": False, "waited_ms": state["waited_ms"], "busy": "the DOM kept changing"}
    assert 1400 <= state["waited_ms"] < 6000
    assert "(changing: DOM changing for" in (await page.snapshot()).splitlines()[0]


async def test_wait_for_settled_on_a_quiet_page_returns_after_quiet_ms(task, server):
    page = task.page("p1")
    await page.goto(server.page("/spa-static", "<p>static</p>"))
    state = await page.wait_for_settled(quiet_ms=100, timeout=5000)
    assert state["settled"] is True and state["waited_ms"] < 5000


async def test_a_request_that_stays_open_does_not_hold_the_wait_for_ever(task, server):
    """An EventSource or a long poll stays in flight: past LONG_REQUEST it no longer counts."""
    from ego_browser.driver.settle import LONG_REQUEST

    never = threading.Event()
    server.route("/spa-stream", Response(b"", content_type="text/event-stream", chunks=[(never, b"data: x\n\n")]))
    page = task.page("p1")
    try:
        await page.goto(server.page("/spa-open", "<p>feed</p><script>new EventSource('/spa-stream')</script>"))
        state = await page.wait_for_settled(quiet_ms=200, timeout=LONG_REQUEST * 1000 + 8000)
        assert state["settled"] is True, state
        # the stream counted while it was fresh, then stopped counting
        assert LONG_REQUEST * 1000 - 1000 <= state["waited_ms"] < LONG_REQUEST * 1000 + 8000, state
        assert "(changing" not in (await page.snapshot()).splitlines()[0]
    finally:
        never.set()


async def test_an_actions_own_change_does_not_mark_the_header(task, server):
    """One action's effect is one short run of changes: the snapshot right after it does not
    send the agent off to wait (only a page still drawing or fetching does)."""
    page = task.page("p1")
    await page.goto(server.page("/spa-one-change", (
        "<button id=b onclick=\"document.getElementById('o').textContent = 'Saved'\">Save</button><p id=o></p>")))
    await page.click("#b")
    text = await page.snapshot()
    assert "Saved" in text and "(changing" not in text.splitlines()[0], text


async def test_a_fetch_whose_body_the_page_never_reads_does_not_hold_the_settle_wait(task, server):
    """An app that loads its chunks with ``await fetch(url)`` and never reads the bodies (no-store: no
    cache drains them) leaves each
    request "loading" in the protocol though its answer came: the page settles once the answers
    are in, not when such requests are old enough to be taken for long polls (5 s)."""
    server.route("/unread-chunk", Response("/* chunk */", content_type="text/javascript", delay=0.1,
                                           headers={"Cache-Control": "no-store"}))
    url = server.page("/unread-boot", """<p id=s>loading</p><script>
(async () => { for (let i = 0; i < 4; i++) await fetch('/unread-chunk?' + i);
               document.getElementById('s').textContent = 'ready'; })();
</script>""")
    page = task.page("p1")
    await page.goto(url)
    state = await page.wait_for_settled(timeout=4000)
    assert state["settled"] is True and state["waited_ms"] < 3500, state
    assert await page.inner_text("#s") == "ready"
