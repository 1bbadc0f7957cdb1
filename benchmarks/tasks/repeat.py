"""Issue 28 §7 measured: the repeat variants of the whole-task benchmark, in a section of their own.

    .venv/bin/python benchmarks/tasks/repeat.py [--tasks catalog] [--latency 3]
    .venv/bin/python benchmarks/tasks/run.py --repeat            # the same, from the task runner

For each task with variants (``trace_repeat.VARIANTS``; the catalog task so far), one sequence
on one host home: the *first* attempt explores and ends with ``task.learn``/``task.save_tool``;
the *second* and *third* use other parameters and start from the tool listing (the third after
a host restart); the *drift* attempt runs the tool once more after the app's markup changed
(``drift``: renamed ids and classes, moved buttons, an extra confirmation page). Each attempt is
judged on the app's own state. A drift attempt either heals (the tool reports success and the
app shows the right record) or fails with its step error (``EGO_LEARNED_STEP_NOT_FOUND`` or
``EGO_LEARNED_POSTCONDITION_FAILED``); the one result that must never happen is a tool that
reports success while the app does not show it (``wrong success``).

Reports per attempt turns, tool time, agent-experienced time (tool time + ``latency`` s per
turn), bytes and success, and the 2nd/3rd attempts against the 1st (targets: turns and
experienced time <= 0.3x, bytes <= 0.2x). Prints the section; it writes no file (figures for
docs/benchmarks.md come from the integrator's quiet run).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import agents  # noqa: E402  (puts benchmarks/ and the checkout on sys.path)
import registry  # noqa: E402
import trace_repeat  # noqa: E402
from agents import EgoAgent, TraceFailed  # noqa: E402
from trace_ego import HEAD  # noqa: E402

#: the step errors a drifted tool may stop with (it never reports success on a wrong page)
STEP_ERRORS = ("EGO_LEARNED_STEP_NOT_FOUND", "EGO_LEARNED_POSTCONDITION_FAILED")

#: the drift attempt's parameters (another product than the other attempts')
DRIFT = {"catalog": {"price": "88.80", "stock": "9"}}


def catalog_drift(agent: EgoAgent, url: str, space: str, task: dict) -> dict:
    """The tool on the drifted app: its outcome as the round saw it ({ok, code, step, answer})."""
    agent.round(HEAD.format(space=space) + f"await page.goto({url!r})\nprint(await page.snapshot(interactive=True))\n")
    args = {"product": task["product"], "price": task["price"], "stock": task["stock"]}
    out = agent.round(HEAD.format(space=space) + f"""
import json
try:
    result = await tools.edit_product(page, **{json.dumps(args)})
    print(json.dumps({{"ok": bool(result.get("ok")), "answer": await page.input_value("[name=price]")}}))
except EgoError as e:
    print(json.dumps({{"ok": False, "code": e.code, "step": getattr(e, "step", None), "message": str(e)[:300]}}))
await task.finish(keep=[])
""")
    return json.loads(out.strip().splitlines()[-1])


def _row(kind: str, cost: agents.Cost, ok: bool, why: str, latency: float) -> dict:
    return {"attempt": kind, "turns": cost.turns, "seconds": cost.seconds, "bytes": cost.bytes,
            "experienced": cost.seconds + cost.turns * latency, "ok": ok, "why": why}


def run_catalog(latency: float, log=print) -> list[dict]:
    task = registry.TASKS["catalog"]
    app = task.app()
    variants = trace_repeat.fill_variants(app)
    home = tempfile.mkdtemp(prefix="ego-bench-repeat-")
    rows: list[dict] = []
    first = EgoAgent(home)
    try:
        with app.serve() as srv:
            url = srv.url(task.start)
            try:
                answer = trace_repeat.catalog_first(first, url, "repeat-1", variants[0])
                ok, why = trace_repeat.check_catalog(app, variants[0], answer)
            except TraceFailed as e:
                ok, why = False, str(e)[-300:]
            rows.append(_row("1st (explores, learns)", first.cost, ok, why, latency))
            log(f"  catalog 1st: {rows[-1]['turns']} turns, ok={ok}")
            for n, data in enumerate(variants[1:], 2):
                if n == 3:
                    first.stop()  # the host restarts: the tool is in the user's home, not the host
                again = EgoAgent(home)
                try:
                    answer = trace_repeat.catalog_again(again, url, f"repeat-{n}", data)
                    ok, why = trace_repeat.check_catalog(app, data, answer)
                except TraceFailed as e:
                    ok, why = False, str(e)[-300:]
                label = "2nd (other record)" if n == 2 else "3rd (after a host restart)"
                rows.append(_row(label, again.cost, ok, why, latency))
                log(f"  catalog {label}: {again.cost.turns} turns, ok={ok}")
            used = {v["product"] for v in variants}
            product = next(p["name"] for p in app.products if p["name"] not in used)
            data = {"product": product, **DRIFT["catalog"]}
            app.drift = True
            drift = EgoAgent(home)
            outcome = catalog_drift(drift, url, "repeat-drift", data)
            right, why = trace_repeat.check_catalog(app, data, outcome.get("answer"))
            if outcome.get("ok"):
                kind, ok = ("healed", True) if right else ("WRONG SUCCESS", False)
            elif outcome.get("code") in STEP_ERRORS:
                kind, ok = f"step error {outcome['code']} (step {outcome.get('step')})", True
            else:
                kind, ok = f"other failure {outcome.get('code')}: {outcome.get('message')}", False
            rows.append(_row("drift", drift.cost, ok, kind, latency))
            log(f"  catalog drift: {kind}")
    finally:
        first.stop()
        shutil.rmtree(home, ignore_errors=True)
    return rows


def render(results: dict[str, list[dict]], latency: float) -> str:
    lines = ["### Repeat variants (issue 28 §7)", "",
             f"Agent-experienced time = tool time + {latency:g} s per turn. Ratios are against the 1st attempt "
             "(targets: turns and experienced time <= 0.3x, bytes <= 0.2x; drift: healed or a step error, "
             "never a wrong success).", "",
             "| task | attempt | turns | tool time (s) | experienced (s) | bytes | vs 1st: turns / experienced / bytes "
             "| success |", "|---|---|---:|---:|---:|---:|---|---|"]
    for key, rows in results.items():
        base = rows[0]
        for r in rows:
            ratio = "" if r is base or r["attempt"] == "drift" else (
                f"{r['turns'] / base['turns']:.2f}x / {r['experienced'] / base['experienced']:.2f}x / "
                f"{r['bytes'] / base['bytes']:.2f}x")
            what = "yes" if r["ok"] else "NO"
            if r["attempt"] == "drift" or not r["ok"]:
                what += f" ({r['why']})"
            lines.append(f"| {key} | {r['attempt']} | {r['turns']} | {r['seconds']:.1f} | {r['experienced']:.1f} | "
                         f"{r['bytes']:,} | {ratio} | {what} |")
    return "\n".join(lines) + "\n"


RUNNERS = {"catalog": run_catalog}


def run(keys: list[str] | None = None, latency: float = 3.0, log=print) -> str:
    results = {}
    for key in keys or list(RUNNERS):
        if key not in RUNNERS:
            raise SystemExit(f"no repeat variants for task {key!r} (have: {', '.join(RUNNERS)})")
        log(f"repeat variants: {key}")
        results[key] = RUNNERS[key](latency, log)
    return render(results, latency)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default="", help="comma-separated task keys (default: every task with variants)")
    ap.add_argument("--latency", type=float, default=3.0, help="seconds an agent's turn costs (default 3)")
    args = ap.parse_args()
    print(run([k for k in args.tasks.split(",") if k] or None, args.latency))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
