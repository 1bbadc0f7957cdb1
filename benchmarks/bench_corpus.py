"""Snapshots of real-world pages: coverage and state agreement against Chromium's own
accessibility tree, and bytes and time next to Playwright's ``aria_snapshot(mode="ai")``.

The corpus (``benchmarks/corpus.py``): 100+ HTML pages from five Debian documentation
packages, each made by a different generator, served on 127.0.0.1. Per page, on one
Chromium from our launcher and one Playwright Chromium (same binary), interleaved:

- **text coverage**: every visible text string of every frame (the same oracle as the
  fidelity tests) is found in our full-page snapshot;
- **control coverage**: every enabled, visible control with a box (button, input, select,
  textarea, link with href, iframe) carries a ref bound to that element; controls with a
  zero-size box are counted separately (no pointer can reach them, so they get no ref);
- **state agreement**: for every ref whose node Chromium's AX tree knows, checked,
  disabled, expanded, selected, level and value agree with ``Accessibility.getFullAXTree``;
- **bytes and time**: our first full-page snapshot after a navigation (and the
  ``interactive=True`` mode) vs Playwright's first ``aria_snapshot(mode="ai")``.

    .venv/bin/python benchmarks/bench_corpus.py [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import peers  # noqa: E402

from ego_browser.cdp.connection import Connection  # noqa: E402
from ego_browser.snapshot import CdpSnapshotTarget, RefLedger, take_snapshot  # noqa: E402
from ego_browser.snapshot.engine import settle  # noqa: E402
from ego_browser.snapshot.twin import parse_snapshot  # noqa: E402

TARGETS = {"text": 0.995, "controls": 0.995, "states": 0.99, "bytes": 0.6, "time": 0.3, "time_p90": 0.6,
           "interactive_bytes": 0.3}
STATE_FIELDS = ("checked", "disabled", "expanded", "selected", "level", "value")
VALUE_ROLES = {"textbox", "searchbox", "textarea", "spinbutton", "slider", "progressbar", "combobox", "listbox"}
PAGE_TIMEOUT = 30.0

_VISIBLE_TEXTS = r"""(() => { const out = [];
  const walk = (root) => { const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      if (n.nodeType === 1) { if (n.shadowRoot) walk(n.shadowRoot); continue; }
      const p = n.parentElement; if (!p || ['SCRIPT','STYLE','NOSCRIPT','TITLE','OPTION'].includes(p.tagName)) continue;
      if (!p.checkVisibility({visibilityProperty: true}) || p.closest('[aria-hidden=true]')) continue;
      const t = n.data.replace(/[\s\u00a0]+/g, ' ').trim(); if (t && !/^[\u200b-\u200f\u2060\ufeff]+$/.test(t)) out.push(t); } };
  walk(document); return out; })()"""

# controls an agent can act on; zero-size ones are returned apart (second array)
_CONTROLS = r"""(() => { const out = [], flat = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (!el.matches('button, input:not([type=hidden]), select, textarea, a[href], iframe')) continue;
      if (el.disabled || !el.checkVisibility({visibilityProperty: true}) || el.closest('[aria-hidden=true]')) continue;
      if (el.tagName === 'IFRAME' && el.loading === 'lazy') continue;
      const r = el.getBoundingClientRect(); (r.width * r.height > 0 ? out : flat).push(el); } };
  walk(document); return [out, flat]; })()"""

_REF = re.compile(r"\bref=(\d+)")
_HEAD = re.compile(r'^\s*(?:[+~-] )?\s*[\w-]+(?: "(?:[^"\\]|\\.)*")?')


def _groups_and_value(line: str) -> tuple[list[str], str | None]:
    """The bracket groups after role and name (nested brackets kept whole) and the ": value"."""
    m = _HEAD.match(line)
    rest = line[m.end():] if m else line
    groups: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == " ":
            i += 1
        elif rest[i] == "[":
            depth, j = 0, i
            while j < len(rest):
                depth += {"[": 1, "]": -1}.get(rest[j], 0)
                if depth == 0:
                    break
                j += 1
            groups.append(rest[i + 1:j])
            i = j + 1
        elif rest.startswith(": ", i):
            return groups, rest[i + 2:]
        else:
            break
    return groups, None


def parse_states(line: str) -> dict[str, object]:
    """Our line's states in the AX tree's terms (absent flags are False / None)."""
    groups, value = _groups_and_value(line)
    tokens = {t.strip() for g in groups for t in g.split(",")}
    out: dict[str, object] = {
        "checked": "mixed" if "checked=mixed" in tokens else ("true" if "checked" in tokens else "false"),
        "disabled": "disabled" in tokens,
        "expanded": True if "expanded" in tokens else (False if "collapsed" in tokens else None),
        "selected": "selected" in tokens,
        "level": None,
        "value": value,
    }
    for t in tokens:
        if t.startswith("level="):
            out["level"] = int(t[6:])
    return out


_NO_STATE: dict[str, object] = {"checked": "false", "disabled": False, "expanded": None, "selected": False,
                                 "level": None, "value": None}


def ax_states(node: dict) -> dict[str, object]:
    props = {p["name"]: p.get("value", {}).get("value") for p in node.get("properties", [])}
    checked = props.get("checked")
    return {
        "checked": str(checked).lower() if checked is not None else "false",
        "disabled": bool(props.get("disabled")),
        "expanded": props.get("expanded"),
        "selected": bool(props.get("selected")),
        "level": props.get("level"),
        "value": node.get("value", {}).get("value"),
    }


def states_agree(ours: dict, theirs: dict, role: str) -> list[str]:
    """The fields on which our line and Chromium disagree (empty = agreement)."""
    bad = []
    for f in STATE_FIELDS:
        a, b = ours.get(f), theirs.get(f)
        if f == "level" and role != "heading":
            continue
        if f == "value":
            if role not in VALUE_ROLES or role == "combobox" and b is None:
                continue
            a, b = (a or ""), (" ".join(str(b).split()) if b is not None else "")
            if a.endswith("…") and b.startswith(a[:-1]):
                continue
        if f == "selected" and role not in ("option", "tab", "row", "gridcell", "treeitem"):
            continue
        if a != b:
            bad.append(f)
    return bad


async def _world(frame) -> int:
    w = await frame.session.send("Page.createIsolatedWorld", {"frameId": frame.frame_id, "worldName": "corpus-oracle"})
    return w["executionContextId"]


async def _frame_oracle(frame) -> tuple[list[str], set[int], int, dict[int, dict]]:
    ctx = await _world(frame)
    r = await frame.session.send("Runtime.evaluate", {"expression": _VISIBLE_TEXTS, "returnByValue": True,
                                                      "contextId": ctx})
    texts = r["result"]["value"]
    r = await frame.session.send("Runtime.evaluate", {
        "expression": _CONTROLS, "contextId": ctx,
        "serializationOptions": {"serialization": "deep", "maxDepth": 3,
                                 "additionalParameters": {"maxNodeDepth": 0, "includeShadowTree": "none"}}})
    boxed, flat = r["result"]["deepSerializedValue"]["value"]
    controls = {v["value"]["backendNodeId"] for v in boxed["value"]}
    params = {"frameId": frame.frame_id} if frame.parent_frame_id else {}
    try:
        ax = await frame.session.send("Accessibility.getFullAXTree", params)
    except Exception:  # noqa: BLE001 - an OOPIF's own session takes no frame id
        ax = await frame.session.send("Accessibility.getFullAXTree")
    nodes = {n["backendDOMNodeId"]: n for n in ax["nodes"]
             if n.get("backendDOMNodeId") is not None and not n.get("ignored")}
    return texts, controls, len(flat["value"]), nodes


async def _loaded(t: CdpSnapshotTarget) -> None:
    for _ in range(100):
        r = await t.main_session.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        if r["result"].get("value") == "complete":
            break
        await asyncio.sleep(0.05)
    await t.refresh()


async def measure_page(t: CdpSnapshotTarget, pw, url: str, interactive: bool) -> dict:
    row: dict = {"url": url}
    await t.goto(url)
    await _loaded(t)
    led = RefLedger("corpus")
    t0 = time.perf_counter()
    text = await take_snapshot(t, led, scope="full_page")
    row["ours_s"] = time.perf_counter() - t0
    row["ours_bytes"] = len(text.encode())
    if interactive:
        row["ours_i_bytes"] = len((await take_snapshot(t, RefLedger("corpus-i"), scope="full_page",
                                                       interactive=True)).encode())
    if pw is not None:
        await pw.goto(url)
        t0 = time.perf_counter()
        pw_text = await pw.aria_snapshot(mode="ai")
        row["pw_s"] = time.perf_counter() - t0
        row["pw_bytes"] = len(pw_text.encode())
    await settle(led)
    body = " ".join(text.split("\n", 1)[-1].split())
    body_unescaped = body.replace('\\"', '"').replace("\\\\", "\\")
    lines = {int(m.group(1)): ln for ln in text.splitlines() for m in [_REF.search(ln)] if m}
    texts_total = texts_found = controls_total = controls_found = flat_total = 0
    states_total = states_ok = stateful = stateful_ok = 0
    misses: list[str] = []
    for f in t.frames():
        try:
            texts, controls, flat, nodes = await _frame_oracle(f)
        except Exception as exc:  # noqa: BLE001 - a frame that went away while measuring
            misses.append(f"frame {f.frame_id[:8]}: {type(exc).__name__}")
            continue
        for s in texts:
            texts_total += 1
            if s in body or s in body_unescaped:
                texts_found += 1
            elif len(misses) < 5:
                misses.append(f"text {s[:60]!r}")
        bound: dict[int, int] = {}
        for ref in lines:
            try:
                b = led.lookup(ref)
            except Exception:  # noqa: BLE001
                continue
            if b.frame_id == f.frame_id:
                bound[b.backend_node_id] = ref
        controls_total += len(controls)
        controls_found += len(controls & bound.keys())
        flat_total += flat
        for backend, ref in bound.items():
            node = nodes.get(backend)
            if node is None:
                continue
            role = node.get("role", {}).get("value", "")
            if role == "textbox" and "password" in lines[ref]:
                continue
            states_total += 1
            theirs = ax_states(node)
            bad = states_agree(parse_states(lines[ref]), theirs, role)
            # refs whose node has some state in Chromium's eyes: what the notation is for
            has_state = bool(states_agree(_NO_STATE, theirs, role))
            stateful += has_state
            if not bad:
                states_ok += 1
                stateful_ok += has_state
            elif len(misses) < 10:
                misses.append(f"state @{ref} {role} {bad}: {lines[ref].strip()[:80]}")
    row.update(texts=texts_total, texts_found=texts_found, controls=controls_total,
               controls_found=controls_found, zero_size_controls=flat_total, states=states_total,
               states_ok=states_ok, stateful=stateful, stateful_ok=stateful_ok, misses=misses)
    return row


def _frac(a: int, b: int) -> float:
    return a / b if b else 1.0


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))] if xs else float("nan")


async def collect(limit: int | None = None) -> tuple[list[dict], str | None]:
    interactive = "interactive" in inspect.signature(take_snapshot).parameters
    rows: list[dict] = []
    with corpus.serve() as site, peers.ego_chromium() as bp:
        paths = site.paths[:limit] if limit else site.paths
        conn = await Connection.connect(bp.ws_url)
        t = await CdpSnapshotTarget.new_page(conn)
        async with peers.playwright_page() as pw:
            for path in paths:
                try:
                    rows.append(await asyncio.wait_for(measure_page(t, pw, site.url(path), interactive),
                                                       PAGE_TIMEOUT))
                except Exception as exc:  # noqa: BLE001 - one bad page is reported, not fatal
                    rows.append({"url": site.url(path), "error": f"{type(exc).__name__}: {exc}"[:200]})
                    await t.close()
                    t = await CdpSnapshotTarget.new_page(conn)
        await t.close()
        await conn.close()
    missing = peers.missing("playwright")
    return rows, missing


def report(rows: list[dict], pw_missing: str | None) -> str:
    ok = [r for r in rows if "error" not in r]
    text = [_frac(r["texts_found"], r["texts"]) for r in ok]
    ctl = [_frac(r["controls_found"], r["controls"]) for r in ok]
    st = [_frac(r["states_ok"], r["states"]) for r in ok]
    both = [r for r in ok if "pw_s" in r]
    tr = [r["ours_s"] / r["pw_s"] for r in both if r["pw_s"] > 0]
    br = [r["ours_bytes"] / r["pw_bytes"] for r in both if r["pw_bytes"]]
    ir = [r["ours_i_bytes"] / r["pw_bytes"] for r in both if r.get("ours_i_bytes") and r["pw_bytes"]]
    med = statistics.median
    figures = [
        ("text coverage (median page)", _pct(med(text)) if text else "—", f"≥ {_pct(TARGETS['text'])}"),
        ("text coverage (all strings)", _pct(_frac(sum(r["texts_found"] for r in ok), sum(r["texts"] for r in ok))), ""),
        ("control coverage (median page)", _pct(med(ctl)) if ctl else "—", f"≥ {_pct(TARGETS['controls'])}"),
        ("control coverage (all controls)",
         _pct(_frac(sum(r["controls_found"] for r in ok), sum(r["controls"] for r in ok))), ""),
        ("zero-size controls (no ref by design)", str(sum(r["zero_size_controls"] for r in ok)), ""),
        ("state agreement (median page)", _pct(med(st)) if st else "—", f"≥ {_pct(TARGETS['states'])}"),
        ("state agreement (all refs)", _pct(_frac(sum(r["states_ok"] for r in ok), sum(r["states"] for r in ok))), ""),
        ("state agreement (refs that have a state)",
         _pct(_frac(sum(r["stateful_ok"] for r in ok), sum(r["stateful"] for r in ok)))
         + f" of {sum(r['stateful'] for r in ok)}", ""),
        ("bytes / Playwright (median)", f"{med(br):.2f}×" if br else "—", f"≤ {TARGETS['bytes']}×"),
        ("interactive=True bytes / Playwright (median)", f"{med(ir):.2f}×" if ir else "—",
         f"≤ {TARGETS['interactive_bytes']}×"),
        ("time / Playwright (median)", f"{med(tr):.2f}×" if tr else "—", f"≤ {TARGETS['time']}×"),
        ("time / Playwright (p90)", f"{_p90(tr):.2f}×" if tr else "—", f"≤ {TARGETS['time_p90']}×"),
    ]
    out = [f"### Real-world corpus ({len(ok)} pages measured, {len(rows) - len(ok)} failed; "
           f"sources: {', '.join(p for p, *_ in corpus.SOURCES)})", ""]
    if pw_missing:
        out += [f"Playwright: n/a ({pw_missing})", ""]
    out.append(peers.md_table(["figure", "value", "target"], figures))
    by_src: dict[str, list[dict]] = {}
    for r in ok:
        by_src.setdefault(r["url"].split("/")[3], []).append(r)
    src_rows = []
    for src, rs in by_src.items():
        b = [r["ours_bytes"] / r["pw_bytes"] for r in rs if r.get("pw_bytes")]
        tm = [r["ours_s"] / r["pw_s"] for r in rs if r.get("pw_s")]
        src_rows.append([src, len(rs), f"{statistics.median(r['ours_s'] for r in rs) * 1000:.1f}",
                         f"{statistics.median(r['pw_s'] for r in rs if 'pw_s' in r) * 1000:.1f}" if tm else "—",
                         f"{statistics.median(b):.2f}×" if b else "—", f"{statistics.median(tm):.2f}×" if tm else "—",
                         _pct(_frac(sum(r["texts_found"] for r in rs), sum(r["texts"] for r in rs))),
                         _pct(_frac(sum(r["controls_found"] for r in rs), sum(r["controls"] for r in rs))),
                         _pct(_frac(sum(r["states_ok"] for r in rs), sum(r["states"] for r in rs)))])
    out += ["", peers.md_table(["source", "pages", "ours ms", "PW ms", "bytes/PW", "time/PW", "text", "controls",
                                "states"], src_rows)]
    misses = [f"- {r['url'].split('/', 3)[-1]}: " + "; ".join(r["misses"][:3]) for r in ok if r["misses"]]
    errors = [f"- {r['url'].split('/', 3)[-1]}: {r['error']}" for r in rows if "error" in r]
    if misses:
        out += ["", "Misses (first 3 per page, up to 15 pages):", *misses[:15]]
    if errors:
        out += ["", "Failed pages:", *errors]
    return "\n".join(out)


def run() -> list[str]:
    gone = corpus.missing_sources()
    if len(gone) == len(corpus.SOURCES):
        return [f"### Real-world corpus\n\nn/a: no corpus package installed ({', '.join(gone)}; "
                "run benchmarks/setup_peers.sh)"]
    rows, pw_missing = asyncio.run(collect())
    return [report(rows, pw_missing)]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="measure only the first N pages")
    a = ap.parse_args()
    r, m = asyncio.run(collect(a.limit))
    print(report(r, m))
