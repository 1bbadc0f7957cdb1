"""The person's dashboard (issue 14): served by the host, reachable only with its token, driven
here in a real Chromium by ego_browser itself (a "viewer" space of the same host), against agent
spaces whose pages the test serves.

Every wait is on an outcome (a DOM state in the dashboard, a host state); nothing is timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

import ego_browser
from ego_browser.dashboard import ensure_started
from ego_browser.errors import InvalidArgument, InvalidState, TaskSpaceUserInControl
from ego_browser.states import Ownership

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

#: a page whose colour the agent flips (the live view must show it), with an input that
#: records whether each key event was trusted, and a confirm() whose answer it keeps
AGENT_PAGE = """<style>body{margin:0} #box{position:fixed;inset:0;background:rgb(220,0,0)}
#f{position:fixed;left:0;top:0;width:100vw;height:100vh;font-size:40px;background:transparent;border:0;color:#fff}</style>
<div id=box></div><input id=f autocomplete=off>
<button id=green style="position:fixed;right:0;bottom:0;z-index:2" onclick="box.style.background='rgb(0,200,0)'">green</button>
<button id=ask style="position:fixed;right:0;top:0;z-index:2" onclick="window.answer=confirm('Proceed?')">ask</button>
<script>window.keys=[];f.addEventListener('keydown',e=>keys.push([e.key,e.isTrusted]));</script>"""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()


@pytest.fixture
async def dash(host):
    return await ensure_started(host)


@pytest.fixture
async def viewer(dash):
    """A space of the same host whose page is the dashboard (opened with the printed URL)."""
    v = await ego_browser.task_space("dashboard-viewer")
    page = v.page("p1")
    await page.goto(dash.url)
    await page.wait_for_function("document.getElementById('conn').textContent === 'connected'")
    yield page
    await v.finish(keep=[])


async def _open_space(viewer, space_id: int) -> None:
    await viewer.evaluate("(id) => { location.hash = '#/space/' + id; }", space_id)
    await viewer.wait_for_function(
        "(id) => document.getElementById('sp-title').textContent.endsWith('#' + id)", space_id)


async def _live_pixel(viewer) -> list[int]:
    """The colour at the centre of the live view, as the person sees it."""
    return await viewer.evaluate("""() => {
        const img = document.getElementById('live-img');
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data.slice(0, 3));
    }""")


async def _wait_pixel(viewer, colour: str) -> None:
    """Until the centre of the live view is clearly red or green (the page's box)."""
    await viewer.wait_for_function("""(colour) => {
        const img = document.getElementById('live-img');
        if (!img.naturalWidth) return false;
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        const [r, gr] = g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
        return colour === 'red' ? r > 150 && gr < 80 : gr > 150 && r < 80;
    }""", colour, timeout=20000)


@contextlib.asynccontextmanager
async def _watched_agent(viewer, server, name: str):
    """An agent space whose page is AGENT_PAGE (red), shown in the dashboard's live view."""
    t = await ego_browser.task_space(name)
    try:
        page = t.page("p1")
        await page.goto(server.page(f"/{name}.html", AGENT_PAGE))
        await _open_space(viewer, t.space_id)
        await _wait_pixel(viewer, "red")
        yield page
    finally:
        await t.finish(keep=[])


async def _until(check, what: str, timeout: float = 30.0) -> None:
    """Poll a state no event reports (the page's own value), within a deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.05)


# -- the token, the cookie, the origin --------------------------------------------------------


async def test_a_request_without_the_token_gets_403_and_the_token_becomes_a_strict_cookie(dash):
    base = f"http://127.0.0.1:{dash.port}/"
    status, _h, body = await asyncio.to_thread(_get, base)
    assert status == 403 and b"Forbidden" in body
    status, _h, _b = await asyncio.to_thread(_get, base + "static/app.js")
    assert status == 403
    status, _h, _b = await asyncio.to_thread(_get, base + "?token=not-the-token")
    assert status == 403
    status, headers, _b = await asyncio.to_thread(_get, dash.url)
    assert status == 303 and headers["Location"] == "/"  # the token leaves the address bar
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    status, headers, body = await asyncio.to_thread(_get, base, {"Cookie": cookie.split(";")[0]})
    assert status == 200 and b"<title>ego_browser dashboard</title>" in body
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    # a page of another site, carrying the cookie (the browser would send it): refused
    status, _h, _b = await asyncio.to_thread(
        _get, base, {"Cookie": cookie.split(";")[0], "Sec-Fetch-Site": "same-site"})
    assert status == 403
    # a Host that is not loopback (DNS rebinding): refused even with the cookie
    status, _h, _b = await asyncio.to_thread(_get, base, {"Cookie": cookie.split(";")[0], "Host": "evil.example"})
    assert status == 403


async def test_the_websocket_refuses_another_origin_and_a_missing_cookie(dash):
    _s, headers, _b = await asyncio.to_thread(_get, dash.url)
    cookie = headers["Set-Cookie"].split(";")[0]
    url = f"ws://127.0.0.1:{dash.port}/ws"
    for extra in ({"Cookie": cookie, "Origin": "http://evil.example"},
                  {"Cookie": cookie, "Origin": "http://127.0.0.1:1"},  # another local port: not ours
                  {"Origin": f"http://127.0.0.1:{dash.port}"}):
        with pytest.raises(InvalidStatus) as info:
            async with ws_connect(url, additional_headers=extra, origin=None, open_timeout=10):
                pass
        assert info.value.response.status_code == 403
    async with ws_connect(url, additional_headers={"Cookie": cookie}, origin=f"http://127.0.0.1:{dash.port}",
                          open_timeout=10) as ws:
        first = await asyncio.wait_for(ws.recv(), 10)
        assert '"t":"spaces"' in first


async def test_a_page_in_the_browser_cannot_read_or_drive_the_dashboard(dash, viewer, server):
    """The viewer's visit left the cookie in the browser: another local page still gets nothing."""
    refused = dash.refused
    url = server.page("/dash-probe.html", "<p>probe</p>")
    probe = await ego_browser.task_space("dashboard-probe")
    try:
        page = probe.page("p1")
        await page.goto(url)
        result = await page.evaluate("""async (port) => {
            const out = {};
            try { const r = await fetch(`http://127.0.0.1:${port}/`, {credentials: 'include'});
                  out.fetch = r.status + ' ' + (await r.text()).slice(0, 40); }
            catch (e) { out.fetch = 'blocked'; }
            try { const r = await fetch(`http://127.0.0.1:${port}/`, {credentials: 'include', mode: 'no-cors'});
                  out.opaque = r.type; }
            catch (e) { out.opaque = 'blocked'; }
            out.ws = await new Promise((resolve) => {
                const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
                ws.onmessage = (ev) => resolve('message: ' + ev.data.slice(0, 20));
                ws.onerror = () => resolve('refused');
                setTimeout(() => resolve('no answer'), 10000);
            });
            return out;
        }""", dash.port)
        assert result["fetch"] == "blocked", result  # no CORS: nothing readable
        assert result["opaque"] in ("opaque", "blocked"), result
        assert result["ws"] == "refused", result
        assert dash.refused >= refused + 2  # the server itself said no, not only the page's rules
    finally:
        await probe.finish(keep=[])


# -- the pages ---------------------------------------------------------------------------------


async def test_the_list_shows_two_spaces_with_their_ownership(host, dash, viewer, server):
    url = server.page("/dash-list.html", "<title>Kettles</title><p>kettles</p>", title="Kettles")
    a = await ego_browser.task_space("dash-list-agent")
    b = await ego_browser.task_space("dash-list-person")
    try:
        await a.set_status("Comparing kettles")
        await a.page("p1").goto(url)
        await host.handle("spaces.take_over", {"space": b.space_id})  # what the CLI sends
        await viewer.wait_for_function("""([a, b]) => {
            const card = (id) => document.querySelector(`.card[data-space="${id}"]`);
            return card(a) && card(b) && card(a).querySelector('.badge').textContent === 'agent'
                && card(b).querySelector('.badge').textContent === 'you'
                && card(a).textContent.includes('Comparing kettles') && card(a).textContent.includes('Kettles')
                && card(a).querySelector('img.thumb[src^="data:image/jpeg"]') !== null;
        }""", [a.space_id, b.space_id], timeout=20000)
    except Exception:  # say in the log what the person saw, and what each cast had captured
        cards = await viewer.evaluate("""(ids) => ids.map((id) => {
            const c = document.querySelector(`.card[data-space="${id}"]`);
            return c ? c.outerHTML.slice(0, 600) : 'no card ' + id; })""", [a.space_id, b.space_id])
        print("cards:", cards, "casts (frames, restarts in a row):",
              {t: (c.frames, c.checks) for t, c in dash.casts.casts.items()}, sep="\n")
        raise
    finally:
        for t in (a, b):
            await host.handle("spaces.give_back", {"space": t.space_id})
            await t.finish(keep=[])


async def test_the_live_view_shows_the_agent_acting(dash, viewer, server):
    url = server.page("/dash-live.html", AGENT_PAGE)
    t = await ego_browser.task_space("dash-live")
    try:
        page = t.page("p1")
        await page.goto(url)
        await _open_space(viewer, t.space_id)
        await _wait_pixel(viewer, "red")  # red, as the page is
        before = await viewer.evaluate("window.egoDashboard.shown.length")
        await page.click("#green")
        await _wait_pixel(viewer, "green")  # the frame after the agent's click
        assert await viewer.evaluate("window.egoDashboard.shown.length") > before
        # the agent's pointer is drawn where it clicked (the button, bottom right)
        await viewer.wait_for_function("""() => { const p = document.getElementById('pointer');
            return !p.hidden && parseFloat(p.style.left) > 50 && parseFloat(p.style.top) > 50; }""")
        # the action the agent ran shows as its last action
        await viewer.wait_for_function("document.getElementById('sp-action').textContent.includes('page.click')")
        # the navigation shows in the space's event log
        await page.goto(url + "?again")
        await viewer.wait_for_function("""(u) => Array.from(document.querySelectorAll('#log li'))
            .some((li) => li.textContent.includes('navigation') && li.textContent.includes(u))""", url + "?again")
    finally:
        await t.finish(keep=[])


async def test_the_frames_are_as_large_as_the_view_shows_them(dash, viewer, server):
    """A frame larger than its view cost the agent's browser and the view pixels nobody sees:
    the live view's frames are its width (device pixels), and follow it when it is resized."""
    async with _watched_agent(viewer, server, "dash-size") as page:
        # the page (1280 px) is wider than the view: its frames are exactly as wide as the view
        width = "Math.round(document.getElementById('live').clientWidth * devicePixelRatio)"
        await viewer.wait_for_function(f"document.getElementById('live-img').naturalWidth === {width}", timeout=20000)
        wide = await viewer.evaluate(width)
        # the person narrows the view: the cast starts again at the new width
        await viewer.evaluate("() => { document.getElementById('live').style.flex = '0 0 300px'; return 1 }")
        await viewer.wait_for_function(f"state.liveWidth === {width}")
        narrow = await viewer.evaluate("state.liveWidth")
        assert narrow < wide
        await page.click("#green")
        await viewer.wait_for_function(f"document.getElementById('live-img').naturalWidth === {narrow}", timeout=20000)
        await _wait_pixel(viewer, "green")
        assert dash.casts.casts[page.target_id].cast_size[0] == narrow


async def test_a_hidden_dashboard_tab_takes_no_frames(host, dash, viewer, server):
    """A dashboard tab nobody sees (another tab in front) stops its live views: the agent's
    browser captures nothing for it; shown again, it gets the page's picture at once."""
    async with _watched_agent(viewer, server, "dash-hidden") as page:
        target = page.target_id

        async def cast() -> bool:
            return target in dash.casts.casts

        assert await cast()
        # what the browser does when another tab comes to the front (headless tabs are never hidden)
        await viewer.evaluate("""() => { Object.defineProperty(document, 'hidden', {value: true, configurable: true});
            document.dispatchEvent(new Event('visibilitychange')); return 1 }""")
        await _until(lambda: _not(cast), "the live view's screencast stopped")
        await page.click("#green")  # the agent acts meanwhile: the hidden tab is not sent its frames
        await viewer.evaluate("""() => { Object.defineProperty(document, 'hidden', {value: false, configurable: true});
            document.dispatchEvent(new Event('visibilitychange')); return 1 }""")
        await _wait_pixel(viewer, "green")
        assert await cast()


async def _not(check) -> bool:
    return not await check()


async def test_a_space_without_a_picture_yet_shows_none_not_the_last_ones(host, dash, viewer, server):
    """Switching to a space whose tab has sent no frame yet must not leave the previous space's
    picture in the live view (the person would take it for this space's page)."""
    t = await ego_browser.task_space("dash-stale")
    try:
        page = t.page("p1")
        await page.goto(server.page("/dash-stale.html", AGENT_PAGE))
        await _open_space(viewer, t.space_id)
        await _wait_pixel(viewer, "red")
        # the viewer's own space: its tab is the dashboard itself, never cast, so it has no picture
        own = next(s.id for s in host.store.spaces() if s.name == "dashboard-viewer")
        await _open_space(viewer, own)
        await viewer.wait_for_function("!document.getElementById('live-img').hasAttribute('src')")
    finally:
        await t.finish(keep=[])


async def test_the_dashboard_reads_at_360_px_and_the_caption_is_never_over_the_page(dash, viewer, server):
    """Issue 34: the space view broke at 420 px and the agent's caption covered the top of the
    live page. At 360 px nothing scrolls sideways, the caption is a row above the view and the
    events list goes under it; the list of spaces fits too."""
    await (await ego_browser.task_space("dashboard-viewer")).set_viewport(360, 740)
    await viewer.wait_for_function("innerWidth === 360")
    async with _watched_agent(viewer, server, "dash-narrow") as page:
        await page.click("#green", note="A caption long enough to wrap over two lines at this width")
        await viewer.wait_for_function("!document.getElementById('label').hidden || "
                                       "document.getElementById('sp-action').textContent.includes('A caption')")
        box = await viewer.evaluate("""() => {
            const r = (id) => document.getElementById(id).getBoundingClientRect();
            const l = r('label'), v = r('live'), a = document.querySelector('aside').getBoundingClientRect();
            return {wide: document.documentElement.scrollWidth, label_bottom: l.bottom, label_h: l.height,
                    live_top: v.top, live_w: v.width, live_bottom: v.bottom, aside_top: a.top};
        }""")
        assert box["wide"] <= 360, box
        assert box["label_h"] > 0 and box["label_bottom"] <= box["live_top"], box  # never over the page
        assert box["live_w"] >= 300 and box["aside_top"] >= box["live_bottom"], box
    # the list, with a space whose long name has no place to break
    long = await ego_browser.task_space("a-long-space-name-with-no-spaces-in-it-at-all-" * 2)
    try:
        await viewer.evaluate("() => { location.hash = '#/'; }")
        await viewer.wait_for_function("(id) => !document.getElementById('list').hidden && "
                                       "document.querySelector(`[data-space='${id}']`)", long.space_id)
        assert await viewer.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        await long.finish(keep=[])


async def test_an_action_note_shows_while_the_action_runs(dash, viewer, server):
    """note= (declared on actions) is drawn over the live view while the action runs."""
    import threading

    from tests.server import Response

    release = threading.Event()

    def hold(_req):
        release.wait(60)
        return Response("ok", content_type="text/plain")

    server.route("/dash-note-release", hold)
    url = server.page("/dash-note.html", """<p>waiting</p><script>
        fetch('/dash-note-release').then(() => { const b = document.createElement('button'); b.id = 'late';
        b.textContent = 'Late'; document.body.appendChild(b); });</script>""")
    t = await ego_browser.task_space("dash-note")
    try:
        page = t.page("p1")
        await page.goto(url)
        await _open_space(viewer, t.space_id)
        click = asyncio.ensure_future(page.click("#late", note="Adding the kettle to the cart", timeout=30000))
        try:
            await viewer.wait_for_function("""() => { const l = document.getElementById('label');
                return !l.hidden && l.textContent === 'page.click: Adding the kettle to the cart'; }""")
        finally:
            release.set()
        await click
        await viewer.wait_for_function(
            "document.getElementById('sp-action').textContent === 'last: page.click on p1: Adding the kettle to the cart'")
        # label= (the pointer's caption) reaches the person too: it is not the page's label
        await page.click("#late", label="The late button")
        await viewer.wait_for_function(
            "document.getElementById('sp-action').textContent === 'last: page.click on p1: The late button'")
    finally:
        release.set()
        await t.finish(keep=[])


async def test_take_over_type_and_give_back_from_the_ui(host, dash, viewer, server):
    url = server.page("/dash-type.html", AGENT_PAGE)
    t = await ego_browser.task_space("dash-type")
    try:
        page = t.page("p1")
        await page.goto(url)
        await _open_space(viewer, t.space_id)
        await _wait_pixel(viewer, "red")
        await viewer.click("#sp-take")
        await viewer.wait_for_function("document.getElementById('live').classList.contains('held')")
        assert host.store.space(t.space_id).ownership == Ownership.USER
        with pytest.raises(TaskSpaceUserInControl):
            await page.click("#green")  # the agent's next call is refused
        # the person clicks into the page and types: the keys reach it as trusted input
        await viewer.click("#live-img")
        await viewer.keyboard.type("hi")
        driver = host.drivers[page.target_id]

        async def typed() -> bool:
            # read past the gate (the agent's evaluate is refused while the person holds the space)
            res = await driver.session.send("Runtime.evaluate", {"expression": "f.value", "returnByValue": True})
            return res["result"]["value"] == "hi"

        await _until(typed, "the typed text in the page")
        await viewer.fill("#sp-note", "logged in; carry on")
        await viewer.click("#sp-give")
        await viewer.wait_for_function("!document.getElementById('live').classList.contains('held')")
        assert host.store.space(t.space_id).ownership == Ownership.AGENT
        # the note reaches the agent once, in the report of its next round that uses the space
        report = await host.handle("round.report", {"spaces": [t.space_id], "touched": []})
        assert report["person_notes"] == [{"space_id": t.space_id, "note": "logged in; carry on"}]
        assert (await host.handle("round.report", {"spaces": [t.space_id], "touched": []}))["person_notes"] == []
        keys = await page.evaluate("window.keys")  # the agent continues
        assert keys == [["h", True], ["i", True]]
        await page.click("#green")
    finally:
        host.features.dashboard.notes.pop(t.space_id, None)
        await t.finish(keep=[])


async def test_a_permission_prompt_reaches_the_person_as_a_notification(host, dash, viewer, server):
    t = await ego_browser.task_space("dash-permission")
    try:
        page = t.page("p1")
        await page.goto(server.page("/dash-perm.html", "<p>where are you?</p>"))
        await viewer.wait_for_function("(id) => document.querySelector(`.card[data-space=\"${id}\"]`) !== null",
                                       t.space_id)
        await page.evaluate("() => { navigator.geolocation.getCurrentPosition(() => {}, () => {}); return 1 }")
        await viewer.wait_for_function("""() => Array.from(document.querySelectorAll('.notice'))
            .some((n) => n.textContent.includes('"dash-permission" needs you: a page asks for permission (location)'))""")
        assert host.store.space(t.space_id).reason == "location"
    finally:
        await host.handle("spaces.give_back", {"space": t.space_id})
        await t.finish(keep=[])


async def _ask_location(page) -> None:
    await page.evaluate("() => { navigator.geolocation.getCurrentPosition(() => {}, () => {}); return 1 }")


async def _permission_state(host, page, name: str) -> str:
    # read past the gate: the space may still be the person's
    res = await host.drivers[page.target_id].session.send("Runtime.evaluate", {
        "expression": f"navigator.permissions.query({{name: {name!r}}}).then((s) => s.state)",
        "awaitPromise": True, "returnByValue": True})
    return res["result"]["value"]


@pytest.mark.parametrize("button,state", [("#perm-allow", "granted"), ("#perm-block", "denied")])
async def test_a_permission_prompt_is_answered_from_the_ui(host, dash, viewer, server, button, state):
    """The person allows (or blocks) the permission a page asked for: the page's origin gets it in
    that space's context, and the space goes back to the agent, which carries on."""
    t = await ego_browser.task_space(f"dash-perm-{state}")
    try:
        page = t.page("p1")
        server.page("/dash-perm-answer.html", "<p>where are you?</p>")
        # an origin of its own (Chromium resolves *.localhost to this machine): Chromium remembers
        # prompts dismissed for a host, and other tests ask 127.0.0.1 and localhost for the location
        origin = server.url("/", host=f"dash-perm-{state}.localhost").rstrip("/")
        await page.goto(origin + "/dash-perm-answer.html")
        assert await _permission_state(host, page, "geolocation") == "prompt"
        await _ask_location(page)
        await _until(lambda: _held(host, t.space_id), "the prompt handing the space over")
        await _open_space(viewer, t.space_id)
        await viewer.wait_for_function("""(origin) => !document.getElementById('perm').hidden
            && document.getElementById('perm-text').textContent === origin + ' asks for your location'
            && !document.getElementById('perm-allow').disabled""", origin)
        await viewer.click(button)
        await viewer.wait_for_function("document.getElementById('perm').hidden")
        await _until(lambda: _agents(host, t.space_id), "the space given back")
        # the agent's own calls work again and see the person's answer
        assert await page.evaluate(
            "() => navigator.permissions.query({name: 'geolocation'}).then((s) => s.state)") == state
        assert await page.evaluate("location.origin") == origin
        log = [e["text"] for e in dash.activity.logs.get(t.space_id, ())]
        verb = "allowed" if state == "granted" else "blocked"
        assert f"the person {verb} location for {origin}" in log
        # answered: nothing waits any more, and a second answer is refused with a reason
        with pytest.raises(InvalidState, match="no permission prompt waits"):
            await dash.control.run({"op": "permission", "space": t.space_id, "setting": "granted"})
    finally:
        await t.finish(keep=[])


async def _held(host, space_id: int) -> bool:
    return host.store.space(space_id).ownership == Ownership.USER


async def _agents(host, space_id: int) -> bool:
    return host.store.space(space_id).ownership == Ownership.AGENT


async def test_a_permission_answer_needs_a_setting_and_a_waiting_prompt(host, dash):
    t = await ego_browser.task_space("dash-perm-bad")
    try:
        with pytest.raises(InvalidArgument, match="setting must be granted or denied"):
            await dash.control.run({"op": "permission", "space": t.space_id, "setting": "yes"})
        with pytest.raises(InvalidState, match="no permission prompt waits"):
            await dash.control.run({"op": "permission", "space": t.space_id, "setting": "denied"})
    finally:
        await t.finish(keep=[])


async def test_a_dialog_is_answered_from_the_ui(host, dash, viewer, server):
    url = server.page("/dash-dialog.html", AGENT_PAGE)
    t = await ego_browser.task_space("dash-dialog")
    try:
        page = t.page("p1")
        await page.goto(url)
        receipt = await page.click("#ask")
        assert receipt.dialog is not None and receipt.dialog["message"] == "Proceed?"
        await t.set_status("Please confirm the order")
        await t.hand_off()
        # the hand-off reaches the person as a notification with the agent's reason
        await viewer.wait_for_function("""() => Array.from(document.querySelectorAll('.notice'))
            .some((n) => n.textContent.includes('Please confirm the order'))""")
        await _open_space(viewer, t.space_id)
        await viewer.wait_for_function("""() => !document.getElementById('dialog').hidden
            && document.getElementById('dialog-text').textContent.includes('Proceed?')
            && !document.getElementById('dialog-accept').disabled""")
        await viewer.click("#dialog-accept")
        await viewer.wait_for_function("document.getElementById('dialog').hidden")
        await host.handle("take_over_task_space", {"space": t.space_id})
        assert await page.evaluate("window.answer") is True
    finally:
        await t.finish(keep=[])



def test_the_cli_starts_the_host_and_prints_the_url(fresh_rounds):
    """``python -m ego_browser dashboard`` starts a host when none runs; the URL works once
    (then the cookie), and a second call gives the same dashboard."""
    import json

    out = fresh_rounds.cli("dashboard", "--json", timeout=120)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["url"].startswith(f"http://127.0.0.1:{info['port']}/?token=")
    status, headers, _b = _get(info["url"])
    assert status == 303 and "HttpOnly" in headers["Set-Cookie"]
    assert _get(f"http://127.0.0.1:{info['port']}/")[0] == 403
    again = fresh_rounds.cli("dashboard", timeout=60)
    assert again.returncode == 0 and info["url"] in again.stdout and "ssh -L" in again.stdout


async def test_the_person_navigates_opens_a_tab_chooses_a_file_and_closes_the_space(host, dash, viewer, server, tmp_path):
    page_a = server.page("/dash-nav-a.html", "<p>first</p>")
    page_b = server.page("/dash-nav-b.html", """<style>input{position:fixed;inset:0;width:100vw;height:100vh}</style>
        <input type=file id=up>""")
    upload = tmp_path / "receipt.txt"
    upload.write_text("paid")
    t = await ego_browser.task_space("dash-nav")
    page = t.page("p1")
    await page.goto(page_a)
    await _open_space(viewer, t.space_id)
    await viewer.click("#sp-take")
    await viewer.wait_for_function("!document.getElementById('nav-go').disabled")
    await viewer.fill("#nav-url", page_b)
    await viewer.click("#nav-go")
    await viewer.wait_for_function("(u) => document.getElementById('nav-url').value === u", page_b, timeout=60000)
    driver = host.drivers[page.target_id]

    async def painted() -> bool:
        res = await driver.session.send("Runtime.evaluate", {
            "expression": "!!document.getElementById('up') && "
                          "performance.getEntriesByName('first-contentful-paint').length > 0", "returnByValue": True})
        return res["result"]["value"] is True

    # the address shows the new page once it has committed, and the live view may still show the
    # old one: Chromium drops a click that comes before the new document's first paint (a quiet
    # whole run clicked that early once), and a person clicks on what they see
    await _until(painted, "the new page's first paint")
    # a click into the page opens its file chooser: the dashboard offers to answer it
    await _wait_pixel_any(viewer)
    await viewer.click("#live-img")
    await viewer.wait_for_function("!document.getElementById('chooser').hidden", timeout=60000)
    await viewer.fill("#chooser-paths", str(upload))
    await viewer.click("#chooser-send")
    await viewer.wait_for_function("document.getElementById('chooser').hidden", timeout=20000)

    async def chosen() -> bool:
        res = await driver.session.send("Runtime.evaluate", {"expression": "up.files.length ? up.files[0].name : ''",
                                                             "returnByValue": True})
        return res["result"]["value"] == "receipt.txt"

    await _until(chosen, "the chosen file in the page's input")
    await viewer.click("#tab-new")
    await viewer.wait_for_function("document.querySelectorAll('#tabs .tab').length === 2")
    receipt = await viewer.click("#sp-close")  # asks first (a confirm() in the dashboard page)
    assert receipt.dialog is not None and "Close this space" in receipt.dialog["message"]
    await viewer.accept_dialog()
    await viewer.wait_for_function("document.getElementById('sp-title').textContent.includes('(closed)')")
    assert host.store.space(t.space_id) is None
    with pytest.raises(ego_browser.EgoError) as info:
        await page.url()
    assert info.value.code == "EGO_TASK_SPACE_NOT_FOUND"


async def _wait_pixel_any(viewer) -> None:
    await viewer.wait_for_function("window.egoDashboard.shown.length > 0", timeout=20000)
