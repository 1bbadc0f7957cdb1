"""Selector resolution on the standard large page: ours vs Playwright's ``locator(sel).count()``.

The page: a 500-row table, each row a link, a text cell, a button and an input (PEERS.md).
Each browser is its own /usr/bin/chromium; the page is served on 127.0.0.1 to both. For each
selector we time, after warm-up, the median of N runs of:

- ``ours count``: :func:`ego_browser.selectors.engine.count` (one CDP round trip; for roles,
  an in-page classification, with Chromium's accessibility tree asked only about the
  candidates whose role or exposure the page cannot be sure of, or about named matches);
- ``ours matches``: :func:`engine.resolve` with ``backend_ids=False``: every Match with its
  element handle and describe() dict (what a strict action needs before choosing one);
- ``+ backendNodeIds``: the same plus one ``DOM.describeNode`` per match (``page.find``);
- ``Playwright count``: ``page.locator(sel).count()``.

``ratio`` = ours count / Playwright (target <= 1.0x). Run: ``python benchmarks/bench_selectors.py``
(or ``run()`` from Python; it returns the rows and prints a markdown table).
"""

from __future__ import annotations

import asyncio
import http.server
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ego_browser.browser.launcher import launch_chromium  # noqa: E402
from ego_browser.cdp.connection import Connection  # noqa: E402
from ego_browser.selectors import engine  # noqa: E402
from ego_browser.selectors.standalone import PageFrames, open_page  # noqa: E402
from ego_browser.cli.demo_site import LocalHTTPServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PW_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

ROWS = 500


def large_page(rows: int = ROWS) -> str:
    body = "".join(
        f'<tr><td><a href="/item/{i}">Item {i}</a></td><td>Description for row {i}</td>'
        f'<td><button class="act">Action {i}</button></td><td><input aria-label="Quantity {i}"></td></tr>'
        for i in range(rows)
    )
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>Large</title></head><body>"
        f"<h1>Large table</h1><table id=tbl><tbody>{body}</tbody></table></body></html>"
    )


#: (label, ours, Playwright)
SELECTORS: list[tuple[str, str, str]] = [
    ("text= (1 match)", "text=description for row 250", "text=description for row 250"),
    ("text= (500)", "text=action", "text=action"),
    ('text="..." exact', 'text="Action 250"', 'text="Action 250"'),
    (":has-text (1)", 'tr:has-text("row 250")', 'tr:has-text("row 250")'),
    (":has-text (500)", 'button:has-text("action")', 'button:has-text("action")'),
    ("role+name (1)", 'loc=role:button[name="Action 250"]', 'role=button[name="Action 250"]'),
    ("role (500)", "loc=role:button", "role=button"),
    ("role name*= (1)", 'loc=role:link[name*="item 250"]', 'role=link[name*="item 250" i]'),
    ("CSS (1)", "#tbl tr:nth-child(251) button", "#tbl tr:nth-child(251) button"),
    ("CSS (500)", "button.act", "button.act"),
    ("CSS >> nth=-1", "td > input >> nth=-1", "td > input >> nth=-1"),
]


class _Server:
    def __init__(self, html: str) -> None:
        body = html.encode()

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a: Any) -> None:
                pass

        self.httpd = LocalHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/large"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()


async def _median_ms(fn, n: int) -> float:
    for _ in range(3):
        await fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


async def _run(n: int) -> list[dict[str, Any]]:
    from playwright.async_api import async_playwright

    server = _Server(large_page())
    proc = launch_chromium(tempfile.mkdtemp(prefix="ego-bench-sel-"))
    rows: list[dict[str, Any]] = []
    try:
        conn = await Connection.connect(proc.ws_url)
        session, _ = await open_page(conn)
        await session.send("Page.enable")
        loaded = asyncio.get_running_loop().create_future()
        off = session.on("Page.loadEventFired", lambda p, s: loaded.done() or loaded.set_result(True))
        await session.send("Page.navigate", {"url": server.url})
        await asyncio.wait_for(loaded, 30)
        off()
        frames = PageFrames(session)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
            page = await browser.new_page()
            await page.goto(server.url)
            for label, ours, theirs in SELECTORS:
                expected = await page.locator(theirs).count()
                got = await engine.count(frames, ours)
                assert got == expected, f"{label}: ours {got} != Playwright {expected}"

                async def ours_resolve(sel: str = ours, ids: bool = True) -> None:
                    await engine.resolve(frames, sel, object_group="bench", backend_ids=ids)
                    await session.send("Runtime.releaseObjectGroup", {"objectGroup": "bench"})

                count_ms = await _median_ms(lambda sel=ours: engine.count(frames, sel), n)
                matches_ms = await _median_ms(lambda sel=ours: ours_resolve(sel, False), n)
                resolve_ms = await _median_ms(ours_resolve, n)
                pw_ms = await _median_ms(lambda sel=theirs: page.locator(sel).count(), n)
                rows.append({
                    "selector": label, "matches": got, "ours_count_ms": count_ms, "ours_matches_ms": matches_ms,
                    "ours_resolve_ms": resolve_ms,
                    "playwright_ms": pw_ms, "ratio": count_ms / pw_ms,
                })
            await browser.close()
        await conn.close()
    finally:
        proc.terminate()
        server.close()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        f"Selector resolution, {ROWS}-row page (medians, ms)",
        "",
        "| selector | matches | ours count | ours matches (handles+describe) | + backendNodeIds | Playwright count() | ratio (count) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['selector']} | {r['matches']} | {r['ours_count_ms']:.2f} | {r['ours_matches_ms']:.2f} | {r['ours_resolve_ms']:.2f} | "
            f"{r['playwright_ms']:.2f} | {r['ratio']:.2f}x |"
        )
    return "\n".join(out)


def measure(n: int = 20) -> list[dict[str, Any]]:
    """The rows: one per selector, medians in ms and our count / Playwright's count."""
    return asyncio.run(_run(n))


def run(n: int = 20) -> list[str]:
    """The markdown section for docs/benchmarks.md (the run_all.py contract)."""
    return ["### Selector resolution on the large page (vs Playwright `.count()`, target <= 1.0x)\n\n"
            + table(measure(n))]


if __name__ == "__main__":
    print("\n\n".join(run(int(sys.argv[1]) if len(sys.argv) > 1 else 20)))
