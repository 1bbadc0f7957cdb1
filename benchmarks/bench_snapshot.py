"""Snapshot benchmark: ours (full_page, viewport) vs Playwright ``aria_snapshot(mode="ai")``.

Pages from ``benchmarks/pages.py``: the large page (500-row table) and the login form.
Medians of warm runs (a cold first snapshot is reported apart), output sizes, the capture
alternatives (``Accessibility.getFullAXTree``, ``DOMSnapshot.captureSnapshot``, our walker)
and the Cython core vs its pure-Python twin on the large page's node table.

    .venv/bin/python benchmarks/bench_snapshot.py

``run(results)`` fills ``results`` (a dict) so that other benchmark scripts can add columns.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pages  # noqa: E402

from ego_browser.browser.launcher import launch_chromium  # noqa: E402
from ego_browser.cdp.connection import Connection  # noqa: E402
from ego_browser.snapshot import CdpSnapshotTarget, RefLedger, take_snapshot  # noqa: E402
from ego_browser.snapshot import engine, twin  # noqa: E402

PW_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RUNS = 9
PATHS = ("/large", "/login")


def _median(xs):
    return statistics.median(xs) * 1000


async def _ours(site, results: dict) -> None:
    with tempfile.TemporaryDirectory() as profile:
        bp = launch_chromium(profile)
        try:
            conn = await Connection.connect(bp.ws_url)
            t = await CdpSnapshotTarget.new_page(conn)
            for path in PATHS:
                await t.goto(site.url(path))
                led = RefLedger("bench")
                t0 = time.perf_counter()
                text = await take_snapshot(t, led, scope="full_page")
                cold = time.perf_counter() - t0
                r = results.setdefault(path, {})
                r["ours_full_cold_ms"] = cold * 1000
                for scope, label in (("full_page", "ours_full"), ("only_within_viewport", "ours_viewport")):
                    ts = []
                    for _ in range(RUNS):
                        t0 = time.perf_counter()
                        text = await take_snapshot(t, led, scope=scope)
                        ts.append(time.perf_counter() - t0)
                    r[label + "_ms"] = _median(ts)
                    r[label + "_bytes"] = len(text.encode())
                text = await take_snapshot(t, led, scope="full_page", include_stable_locator=False)
                r["ours_full_noloc_bytes"] = len(text.encode())
                if path == "/large":
                    await _captures(t, r)
                    await _core_ratio(t, r)
            await t.close()
            await conn.close()
        finally:
            bp.terminate()


async def _captures(t, r: dict) -> None:
    s = t.main_session
    for label, method, params in (
        ("cap_fullaxtree", "Accessibility.getFullAXTree", {}),
        ("cap_domsnapshot", "DOMSnapshot.captureSnapshot", {"computedStyles": [], "includeDOMRects": True}),
    ):
        ts = []
        size = 0
        for _ in range(5):
            t0 = time.perf_counter()
            res = await s.send(method, params, timeout=60)
            ts.append(time.perf_counter() - t0)
        import orjson

        size = len(orjson.dumps(res))
        r[label + "_ms"] = _median(ts)
        r[label + "_bytes"] = size
    from ego_browser.snapshot.capture import capture_frame

    frame = t.frames()[0]
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        cap = await capture_frame(frame, viewport=False, locs=True, all_keys=False)
        ts.append(time.perf_counter() - t0)
    r["cap_walker_ms"] = _median(ts)
    r["cap_walker_rows"] = len(cap.rows) // 7


async def _core_ratio(t, r: dict) -> None:
    """Time the Cython core and the twin on the large page's own node table."""
    from ego_browser.snapshot.capture import capture_frame

    frame = t.frames()[0]
    cap = await capture_frame(frame, viewport=False, locs=True, all_keys=False)
    rows = cap.rows
    fl = rows[3::7]
    lids = rows[4::7]
    keys = [(frame.frame_id, cap.loader_id, cap.lids[lids[i]]) if f & 1 else None for i, f in enumerate(fl)]
    table = (rows[0::7], rows[1::7], rows[2::7], fl, keys, rows[5::7],
             [c.split("\x1f", 1)[0] if c else "" for c in rows[6::7]])
    out = {}
    for name, core in (("cython", engine._core), ("twin", twin)):
        ts = []
        for _ in range(15):
            refs: dict = {}
            t0 = time.perf_counter()
            text, _, _ = core.render_tree(*table, refs, 1, True, True)
            ts.append(time.perf_counter() - t0)
        out[name] = (min(ts), text)
    assert out["cython"][1] == out["twin"][1]
    r["core_nodes"] = len(fl)
    r["core_cython_ms"] = out["cython"][0] * 1000
    r["core_twin_ms"] = out["twin"][0] * 1000


def _playwright(site, results: dict) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=PW_ARGS)
        try:
            pg = b.new_page()
            for path in PATHS:
                pg.goto(site.url(path))
                pg.aria_snapshot(mode="ai")
                ts = []
                for _ in range(RUNS):
                    t0 = time.perf_counter()
                    s = pg.aria_snapshot(mode="ai")
                    ts.append(time.perf_counter() - t0)
                r = results.setdefault(path, {})
                r["playwright_ai_ms"] = _median(ts)
                r["playwright_ai_bytes"] = len(s.encode())
        finally:
            b.close()


def run(results: dict) -> dict:
    """Measure ours and Playwright's; fill and return ``results[path][metric]``."""
    with pages.serve() as site:
        asyncio.run(_ours(site, results))
        _playwright(site, results)
    return results


def table(results: dict) -> str:
    rows = ["| page | ours full_page ms (cold) | ours viewport ms | Playwright ai ms | full/PW time | "
            "ours full bytes (no loc) | PW bytes | size ratio |",
            "|---|---|---|---|---|---|---|---|"]
    for path, r in results.items():
        pw = r.get("playwright_ai_ms")
        pwb = r.get("playwright_ai_bytes")
        rows.append(
            f"| {path} | {r['ours_full_ms']:.1f} ({r['ours_full_cold_ms']:.1f}) | {r['ours_viewport_ms']:.1f} | "
            f"{pw:.1f} | {r['ours_full_ms'] / pw:.2f}× | {r['ours_full_bytes']} ({r['ours_full_noloc_bytes']}) | "
            f"{pwb} | {r['ours_full_bytes'] / pwb:.2f}× ({r['ours_full_noloc_bytes'] / pwb:.2f}×) |"
            if pw else f"| {path} | {r['ours_full_ms']:.1f} | {r['ours_viewport_ms']:.1f} | – | – | "
            f"{r['ours_full_bytes']} | – | – |"
        )
    big = results.get("/large", {})
    if "core_cython_ms" in big:
        rows += ["", "| capture on /large | median ms | payload bytes |", "|---|---|---|",
                 f"| Accessibility.getFullAXTree | {big['cap_fullaxtree_ms']:.1f} | {big['cap_fullaxtree_bytes']} |",
                 f"| DOMSnapshot.captureSnapshot | {big['cap_domsnapshot_ms']:.1f} | {big['cap_domsnapshot_bytes']} |",
                 f"| in-page walker (warm, {big['cap_walker_rows']} rows) | {big['cap_walker_ms']:.1f} | – |",
                 "", f"Core on /large ({big['core_nodes']} nodes): Cython {big['core_cython_ms']:.2f} ms, "
                 f"twin {big['core_twin_ms']:.2f} ms, ratio {big['core_twin_ms'] / big['core_cython_ms']:.1f}×"]
    return "\n".join(rows)


if __name__ == "__main__":
    print(table(run({})))
