"""Take docs/img/dashboard_list.png, dashboard_space.png and dashboard_permission.png with ego_browser itself.

Two agent spaces work on the demo shop (demo/site): one searching, one handed to the person at
checkout; a third space opens the dashboard (the URL ``dashboard.open`` gives) and is
screenshotted on the list and on the live view of the first space; then a fourth agent's page
asks for the location, and the dashboard is screenshotted on that space with its Allow/Block bar.

    .venv/bin/python scripts/dashboard_screenshots.py
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import os
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["EGO_BROWSER_HOME"] = tempfile.mkdtemp(prefix="ego-dash-shots-")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


async def main() -> None:
    import ego_browser
    from ego_browser.client.channel import InProcessChannel, set_default_channel
    from ego_browser.dashboard import ensure_started

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(ROOT / "demo" / "site")))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    shop = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        async with ego_browser.embedded() as host:
            set_default_channel(InProcessChannel(host))
            kettles = await ego_browser.task_space("compare-kettles")
            await kettles.set_status("Comparing kettle prices")
            k = kettles.page("p1")
            await k.goto(f"{shop}/index.html")
            checkout = await ego_browser.task_space("checkout")
            await checkout.page("p1").goto(f"{shop}/checkout.html")
            await checkout.set_status("Please log in to pay, then give the space back")
            dash = await ensure_started(host)
            viewer = await ego_browser.task_space("dashboard")
            await viewer.set_viewport(1400, 900)
            v = viewer.page("p1")
            await v.goto(dash.url)
            # the two agents' pages (the dashboard's own tab is never cast)
            await v.wait_for_function("document.querySelectorAll('.card img.thumb[src]').length >= 2", timeout=30000)
            await checkout.hand_off()
            await v.wait_for_function("document.querySelector('.notice') !== null", timeout=30000)
            out = ROOT / "docs" / "img"
            await v.screenshot(path=str(out / "dashboard_list.png"))
            await v.evaluate("(id) => { location.hash = '#/space/' + id; }", kettles.space_id)
            await v.wait_for_function("window.egoDashboard.shown.length > 0", timeout=30000)
            before = await v.evaluate("window.egoDashboard.shown.length")
            await k.goto(f"{shop}/search.html?q=kettle")  # shows in the live view and the event log
            await v.wait_for_function("(n) => window.egoDashboard.shown.length > n", before, timeout=30000)
            await k.mouse.move(640, 300)  # the agent's pointer, drawn over the live view
            await v.wait_for_function("!document.getElementById('pointer').hidden", timeout=30000)
            await v.screenshot(path=str(out / "dashboard_space.png"))
            stores = await ego_browser.task_space("nearest-store")
            await stores.set_status("Finding the nearest store")
            s = stores.page("p1")
            await s.goto(f"{shop}/index.html")
            await s.evaluate("() => { navigator.geolocation.getCurrentPosition(() => {}, () => {}); return 1 }")
            await v.evaluate("(id) => { location.hash = '#/space/' + id; }", stores.space_id)
            await v.wait_for_function("""(tid) => !document.getElementById('perm').hidden
                && window.egoDashboard.shown.some((f) => f.target === tid)""", s.target_id, timeout=30000)
            await v.screenshot(path=str(out / "dashboard_permission.png"))
            print("wrote", *(out / f"dashboard_{n}.png" for n in ("list", "space", "permission")))
    finally:
        httpd.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
