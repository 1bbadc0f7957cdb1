"""``snapshot(changes=True)`` vs a full snapshot, step by step along a whole task.

The trace is the demo task (``demo/site``, the shop of ``demo/run_demo.py``) with the in-page
steps an agent takes between navigations: type a query, open the cheapest kettle, add it to the
cart twice, open the cart, go to checkout, pick a shipping option. After every step we print
what an agent would look at: the full snapshot (default viewport scope, as ``print(await
page.snapshot())``), and what ``changes=True`` prints instead (the same text the host prints:
``host.snapshot_ops._changes`` over the same two snapshots).

    .venv/bin/python benchmarks/bench_changes.py
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import peers  # noqa: E402

from ego_browser.cdp.connection import Connection  # noqa: E402
from ego_browser.host.ops.snapshot_ops import _changes  # noqa: E402
from ego_browser.snapshot import CdpSnapshotTarget, RefLedger, take_snapshot  # noqa: E402
from ego_browser.cli.demo_site import LocalHTTPServer  # noqa: E402

SITE = ROOT / "demo" / "site"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _serve() -> tuple[LocalHTTPServer, str]:
    httpd = LocalHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def _steps(base: str) -> list[tuple[str, str, bool]]:
    """(label, JavaScript run in the page or a URL to open, is_navigation)."""
    return [
        ("open the shop", base + "/", True),
        ("type the query", "document.getElementById('q').value = 'kettle'", False),
        ("search", base + "/search.html?q=kettle", True),
        ("open the cheapest", base + "/product.html?id=k3", True),
        ("add to cart", "document.getElementById('add').click()", False),
        ("add again", "document.getElementById('add').click()", False),
        ("open the cart", base + "/cart.html", True),
        ("checkout", base + "/checkout.html", True),
        ("pick express", "const s = document.getElementById('shipping'); s.selectedIndex = s.options.length - 1;"
                         "s.dispatchEvent(new Event('change', {bubbles: true}))", False),
    ]


async def measure() -> list[dict]:
    httpd, base = _serve()
    rows = []
    try:
        with peers.ego_chromium() as bp:
            conn = await Connection.connect(bp.ws_url)
            t = await CdpSnapshotTarget.new_page(conn)
            led = RefLedger("bench-changes")
            prev = None
            for label, what, nav in _steps(base):
                if nav:
                    await t.goto(what)
                else:
                    await t.evaluate(what)
                await peers.settled(t)
                body = await take_snapshot(t, led)
                changed = _changes(prev, body)
                rows.append({"step": label, "navigation": nav, "full": len(body.encode()),
                             "changes": len(changed.encode()), "text": changed})
                prev = body
            await t.close()
            await conn.close()
    finally:
        httpd.shutdown()
    return rows


def sections(rows: list[dict]) -> list[str]:
    table = peers.md_table(["step", "kind", "full snapshot bytes", "changes=True bytes", "ratio"], [
        [r["step"], "navigation" if r["navigation"] else "in-page", r["full"], r["changes"],
         f"{r['changes'] / r['full']:.2f}×"] for r in rows])
    inpage = [r for r in rows if not r["navigation"]]
    tot_full = sum(r["full"] for r in rows)
    tot_changes = sum(r["changes"] for r in rows)
    note = (f"\nWhole trace: {tot_changes} bytes with changes=True after every step vs {tot_full} with full "
            f"snapshots ({tot_changes / tot_full:.2f}×); in-page steps alone: "
            f"{sum(r['changes'] for r in inpage)} vs {sum(r['full'] for r in inpage)} bytes. After a navigation "
            "the page is new, so changes=True prints the whole snapshot with a one-line note.")
    return ["### Snapshot: changes=True along the demo task\n\n" + table + note]


def run() -> list[str]:
    return sections(asyncio.run(measure()))


if __name__ == "__main__":
    rows = asyncio.run(measure())
    print("\n\n".join(sections(rows)))
    if "-v" in sys.argv:
        for r in rows:
            print(f"\n--- {r['step']}\n{r['text']}")
