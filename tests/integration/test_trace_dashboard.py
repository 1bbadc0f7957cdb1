"""Issue 33 §2: the dashboard's timeline of a space (rounds -> actions -> pictures, requests)."""

from __future__ import annotations

import ego_browser
from tests.integration.test_dashboard import _open_space, dash, viewer  # noqa: F401 - fixtures

PAGE = "<title>t</title><button id=go onclick=\"fetch('/tl-data.json').then(() => document.title = 'done')\">Go</button>"


async def test_the_dashboard_shows_a_space_timeline_with_pictures_and_requests(dash, viewer, server):  # noqa: F811
    from tests.server import Response

    server.route("/tl.html", PAGE)
    server.route("/tl-data.json", Response('{"ok": true}', content_type="application/json"))
    task = await ego_browser.task_space("timeline")
    page = task.page("p1")
    await page.goto(server.url("/tl.html"))
    await page.click("#go")
    await page.wait_for_function("document.title === 'done'")
    await _open_space(viewer, task.space_id)
    href = await viewer.evaluate("document.getElementById('sp-trace').href")
    assert href.endswith(f"/trace/{task.space_id}/")
    # followed from the dashboard's own page (a same-origin navigation, as the link is): a typed
    # URL without the token is refused since the dashboard stopped trusting Sec-Fetch-Site: none
    await viewer.evaluate("(h) => { location.href = h; }", href)
    await viewer.wait_for_url(href)
    await viewer.wait_for_selector("li.action[data-op='page.click']")
    await viewer.wait_for_function("[...document.images].length > 0 && [...document.images].every((i) => i.complete)")
    shown = await viewer.evaluate("""() => ({
        ops: [...document.querySelectorAll('li.action')].map((li) => li.dataset.op),
        widths: [...document.images].map((i) => i.naturalWidth),
        urls: [...document.querySelectorAll('table.requests td.url')].map((t) => t.textContent),
    })""")
    assert shown["ops"] == ["page.goto", "page.click"]
    assert shown["widths"] and all(w > 0 for w in shown["widths"])
    assert server.url("/tl.html") in shown["urls"] and server.url("/tl-data.json") in shown["urls"]
    await task.finish(keep=[])
