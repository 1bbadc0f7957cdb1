"""Snapshot benchmark: ours vs Playwright ``aria_snapshot(mode="ai")``, agent-browser
``snapshot`` and browser-use's DOM state text, in the same run, on the standard pages.

Pages (``benchmarks/pages.py``): ``/large`` (500 rows × link, text cell, button, input) and
``/login``. For each page:

- **ours**: ``take_snapshot`` (the host's engine, default options: refs and locators on) on a
  Chromium from our launcher, full_page and viewport. *Cold* = the first snapshot after a
  navigation, with a new ledger (text returned); *cold + ids* also waits for the backend node
  ids that are fetched right after the text (what the first ref action waits for at most).
  *Warm* = a repeated snapshot of the same document.
- **Playwright**: ``aria_snapshot(mode="ai")`` on the same binary; cold = first call after
  ``goto``. Our calls and Playwright's are interleaved so that machine load hits both alike.
- **agent-browser**: ``agent-browser snapshot`` (wall time of the CLI call, as an agent pays it).
- **browser-use**: ``get_browser_state_summary`` + ``llm_representation`` (timed inside its own
  process), default (viewport ±1000 px) and full page.

Also: the capture alternatives we measured (``Accessibility.getFullAXTree``,
``DOMSnapshot.captureSnapshot``, our walker) and the Cython core vs its pure-Python twin on
the large page's node table. A peer that is not installed prints "n/a" with the reason.

    .venv/bin/python benchmarks/bench_snapshot.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pages  # noqa: E402
import peers  # noqa: E402

from ego_browser.cdp.connection import Connection  # noqa: E402
from ego_browser.snapshot import CdpSnapshotTarget, RefLedger, take_snapshot  # noqa: E402
from ego_browser.snapshot import engine, twin  # noqa: E402

WARM = 9
COLD = 5
PATHS = ("/large", "/login")
TARGET_SIZE = 0.6
TARGET_TIME = 0.35


def _ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1000 if xs else float("nan")


async def _ours_and_playwright(site, results: dict) -> None:
    with peers.ego_chromium() as bp:
        conn = await Connection.connect(bp.ws_url)
        t = await CdpSnapshotTarget.new_page(conn)
        async with peers.playwright_page() as pw:
            if pw is None:
                results["playwright_missing"] = peers.missing("playwright") or "unavailable"
            for path in PATHS:
                url = site.url(path)
                r = results.setdefault(path, {})
                s: dict[str, list[float]] = {}
                for _ in range(COLD):
                    for scope, label in (("full_page", "full"), ("only_within_viewport", "viewport")):
                        await t.goto(url)
                        led = RefLedger("bench")
                        t0 = time.perf_counter()
                        text = await take_snapshot(t, led, scope=scope)
                        t1 = time.perf_counter()
                        await engine.settle(led)
                        t2 = time.perf_counter()
                        s.setdefault(f"ours_{label}_cold", []).append(t1 - t0)
                        s.setdefault(f"ours_{label}_cold_ids", []).append(t2 - t0)
                        r[f"ours_{label}_bytes"] = len(text.encode())
                    if pw is not None:
                        await pw.goto(url)
                        t0 = time.perf_counter()
                        pw_text = await pw.aria_snapshot(mode="ai")
                        s.setdefault("pw_cold", []).append(time.perf_counter() - t0)
                        # Playwright's ref numbers grow with every snapshot of a page: its size is
                        # taken from a first snapshot (the smallest it prints)
                        r["pw_bytes"] = min(r.get("pw_bytes", 1 << 60), len(pw_text.encode()))
                await t.goto(url)
                led = RefLedger("bench")
                await take_snapshot(t, led, scope="full_page")
                if pw is not None:
                    await pw.goto(url)
                    await pw.aria_snapshot(mode="ai")
                for _ in range(WARM):
                    for scope, label in (("full_page", "full"), ("only_within_viewport", "viewport")):
                        t0 = time.perf_counter()
                        await take_snapshot(t, led, scope=scope)
                        s.setdefault(f"ours_{label}_warm", []).append(time.perf_counter() - t0)
                    if pw is not None:
                        t0 = time.perf_counter()
                        await pw.aria_snapshot(mode="ai")
                        s.setdefault("pw_warm", []).append(time.perf_counter() - t0)
                text = await take_snapshot(t, led, scope="full_page", include_stable_locator=False)
                r["ours_full_noloc_bytes"] = len(text.encode())
                text = await take_snapshot(t, led, scope="full_page", interactive=True)
                r["ours_interactive_bytes"] = len(text.encode())
                for k, v in s.items():
                    r[k + "_ms"] = _ms(v)
                if path == "/large":
                    await _captures(t, r)
                    await _core_ratio(t, r)
        await t.close()
        await conn.close()


async def _captures(t, r: dict) -> None:
    import orjson

    from ego_browser.snapshot.capture import STRIDE, capture_frame
    from ego_browser.snapshot.worlds import Worlds

    s = t.main_session
    for label, method, params in (
        ("cap_fullaxtree", "Accessibility.getFullAXTree", {}),
        ("cap_domsnapshot", "DOMSnapshot.captureSnapshot", {"computedStyles": [], "includeDOMRects": True}),
        ("cap_getdocument", "DOM.getDocument", {"depth": -1, "pierce": True}),
    ):
        ts = []
        res = None
        for _ in range(5):
            t0 = time.perf_counter()
            res = await s.send(method, params, timeout=60)
            ts.append(time.perf_counter() - t0)
        r[label + "_ms"] = _ms(ts)
        r[label + "_bytes"] = len(orjson.dumps(res))
    frame = t.frames()[0]
    ts = []
    cap = None
    worlds = Worlds()  # the page's: later captures reuse the first one's world, as a host's do
    for _ in range(5):
        t0 = time.perf_counter()
        cap = await capture_frame(frame, viewport=False, locs=True, all_keys=False, worlds=worlds)
        ts.append(time.perf_counter() - t0)
    r["cap_walker_ms"] = _ms(ts)
    r["cap_walker_rows"] = len(cap.rows) // STRIDE


async def _core_ratio(t, r: dict) -> None:
    """Time the Cython core and the twin on the large page's own node table (best of many)."""
    from ego_browser.snapshot.capture import STRIDE as S, capture_frame

    frame = t.frames()[0]
    cap = await capture_frame(frame, viewport=False, locs=True, all_keys=False)
    rows = cap.rows
    fl = rows[3::S]
    lids = rows[4::S]
    keys = [(frame.frame_id, cap.loader_id, cap.lids[lids[i]]) if f & 1 else None for i, f in enumerate(fl)]
    table = (rows[0::S], rows[1::S], rows[2::S], fl, keys, rows[5::S],
             [c.split("\x1f", 1)[0] if c else "" for c in rows[6::S]], rows[7::S], rows[8::S])
    best = {"cython": float("inf"), "twin": float("inf")}
    texts = {}
    for _ in range(25):  # interleaved, best of 25 each
        for name, core in (("cython", engine._core), ("twin", twin)):
            refs: dict = {}
            t0 = time.perf_counter()
            text, _, _ = core.render_tree(*table, refs, 1, True, True)
            best[name] = min(best[name], time.perf_counter() - t0)
            texts[name] = text
    assert texts["cython"] == texts["twin"]
    r["core_nodes"] = len(fl)
    r["core_cython_ms"] = best["cython"] * 1000
    r["core_twin_ms"] = best["twin"] * 1000


def _agent_browser(site, results: dict) -> None:
    why = peers.missing("agent-browser")
    if why:
        results["agent_browser_missing"] = why
        return
    session = "bench-snapshot"
    try:
        for path in PATHS:
            r = results.setdefault(path, {})
            peers.agent_browser("open", site.url(path), session=session, timeout=120)
            out, first = peers.agent_browser("snapshot", session=session, timeout=120)
            ts = []
            for _ in range(5):
                out, sec = peers.agent_browser("snapshot", session=session, timeout=120)
                ts.append(sec)
            r["ab_first_ms"] = first * 1000
            r["ab_ms"] = _ms(ts)
            r["ab_bytes"] = len(out.encode())
    except Exception as exc:  # noqa: BLE001 - a peer failing is a row, not a crash
        results["agent_browser_missing"] = f"failed: {exc}"[:300]
    finally:
        peers.agent_browser_close(session)


def _browser_use(site, results: dict) -> None:
    why = peers.missing("browser-use")
    if why:
        results["browser_use_missing"] = why
        return
    try:
        for path in PATHS:
            r = results.setdefault(path, {})
            for full, label in ((False, "bu"), (True, "bu_full")):
                data = peers.browser_use_state_full(site.url(path), repeat=3, full_page=full)
                r[label + "_ms"] = _ms(data["seconds"])
                r[label + "_bytes"] = data["bytes"]
    except Exception as exc:  # noqa: BLE001
        results["browser_use_missing"] = f"failed: {exc}"[:300]


def measure(results: dict | None = None) -> dict:
    """Measure everyone; ``results[path][metric]`` (ms, bytes) plus ``*_missing`` reasons."""
    results = {} if results is None else results
    with pages.serve() as site:
        asyncio.run(_ours_and_playwright(site, results))
        _agent_browser(site, results)
        _browser_use(site, results)
    return results


def _f(v, fmt="{:.1f}") -> str:
    return "n/a" if v is None or v != v else fmt.format(v)


def _ratio(a, b) -> str:
    return "n/a" if not a or not b or a != a or b != b else f"{a / b:.2f}×"


def sections(results: dict) -> list[str]:
    out = []
    pw_na = results.get("playwright_missing")
    ab_na = results.get("agent_browser_missing")
    bu_na = results.get("browser_use_missing")
    head = ["### Snapshot: time (median ms) and size (bytes), same run", ""]
    if pw_na:
        head.append(f"Playwright: n/a ({pw_na})")
    if ab_na:
        head.append(f"agent-browser: n/a ({ab_na})")
    if bu_na:
        head.append(f"browser-use: n/a ({bu_na})")
    rows = []
    for path in PATHS:
        r = results.get(path, {})
        pwc, pww, pwb = r.get("pw_cold_ms"), r.get("pw_warm_ms"), r.get("pw_bytes")
        for label, key in (("ours full_page", "full"), ("ours viewport", "viewport")):
            rows.append([path, label, _f(r.get(f"ours_{key}_cold_ms")), _f(r.get(f"ours_{key}_cold_ids_ms")),
                         _f(r.get(f"ours_{key}_warm_ms")), r.get(f"ours_{key}_bytes", "n/a"),
                         _ratio(r.get(f"ours_{key}_cold_ms"), pwc), _ratio(r.get(f"ours_{key}_warm_ms"), pww),
                         _ratio(r.get(f"ours_{key}_bytes"), pwb)])
        rows.append([path, 'Playwright aria_snapshot(mode="ai")', _f(pwc), "–", _f(pww), pwb or "n/a", "1.00×", "1.00×",
                     "1.00×"])
        rows.append([path, "agent-browser snapshot (CLI wall)", _f(r.get("ab_first_ms")), "–", _f(r.get("ab_ms")),
                     r.get("ab_bytes", "n/a"), _ratio(r.get("ab_first_ms"), pwc), _ratio(r.get("ab_ms"), pww),
                     _ratio(r.get("ab_bytes"), pwb)])
        for label, key in (("browser-use state (viewport ±1000px)", "bu"), ("browser-use state (full page)", "bu_full")):
            rows.append([path, label, "–", "–", _f(r.get(f"{key}_ms")), r.get(f"{key}_bytes", "n/a"), "–",
                         _ratio(r.get(f"{key}_ms"), pww), _ratio(r.get(f"{key}_bytes"), pwb)])
    table = peers.md_table(
        ["page", "who", "cold ms", "cold + ids ms", "warm ms", "bytes", "cold / PW cold", "warm / PW warm",
         "bytes / PW"], rows)
    big = results.get("/large", {})
    notes = [
        "",
        f"Targets on /large (ours full_page, default options): bytes ≤ {TARGET_SIZE}× Playwright; "
        f"first snapshot ≤ {TARGET_TIME}× Playwright. Got: bytes "
        f"{_ratio(big.get('ours_full_bytes'), big.get('pw_bytes'))}, cold {_ratio(big.get('ours_full_cold_ms'), big.get('pw_cold_ms'))} "
        f"(cold + ids {_ratio(big.get('ours_full_cold_ids_ms'), big.get('pw_cold_ms'))}), "
        f"warm {_ratio(big.get('ours_full_warm_ms'), big.get('pw_warm_ms'))}. Without locators: "
        f"{big.get('ours_full_noloc_bytes', 'n/a')} bytes "
        f"({_ratio(big.get('ours_full_noloc_bytes'), big.get('pw_bytes'))}); interactive=True: "
        f"{big.get('ours_interactive_bytes', 'n/a')} bytes "
        f"({_ratio(big.get('ours_interactive_bytes'), big.get('pw_bytes'))}).",
    ]
    out.append("\n".join(head + ["", table] + notes))
    if "core_cython_ms" in big:
        cap = peers.md_table(["capture on /large", "median ms", "payload bytes"], [
            ["Accessibility.getFullAXTree", _f(big["cap_fullaxtree_ms"]), big["cap_fullaxtree_bytes"]],
            ["DOMSnapshot.captureSnapshot", _f(big["cap_domsnapshot_ms"]), big["cap_domsnapshot_bytes"]],
            ["DOM.getDocument(depth -1, pierce)", _f(big["cap_getdocument_ms"]), big["cap_getdocument_bytes"]],
            [f"in-page walker (warm, {big['cap_walker_rows']} rows)", _f(big["cap_walker_ms"]), "–"],
        ])
        core = (f"Core on /large ({big['core_nodes']} nodes, best of 25): Cython {big['core_cython_ms']:.3f} ms, "
                f"twin {big['core_twin_ms']:.3f} ms, ratio {big['core_twin_ms'] / big['core_cython_ms']:.1f}×")
        out.append("### Snapshot: capture alternatives and core\n\n" + cap + "\n\n" + core)
    return out


def run() -> list[str]:
    """The markdown sections for ``run_all.py``."""
    return sections(measure())


if __name__ == "__main__":
    print("\n\n".join(run()))
