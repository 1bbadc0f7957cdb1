"""Issue 28 §7 measured: the repeat variants of the whole-task benchmark, in a section of their own.

    .venv/bin/python benchmarks/tasks/repeat.py [--tasks catalog] [--latency 3] [--trials 3]
    .venv/bin/python benchmarks/tasks/run.py --repeat [--runs 3]  # the same, from the task runner

For each task with variants (``trace_repeat.VARIANTS``: catalog, comments, booking, tickets;
``repeat_more.py``: orders and the SPA set), one sequence
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
experienced time <= 0.3x, bytes <= 0.2x), and their tool time against agent-browser's (the 2nd
against a run with its daemon running, the 3rd against one whose first call starts its daemon
and browser, as the 3rd's first round starts our host). Prints the section; it writes no file (figures for
docs/benchmarks.md come from the integrator's quiet run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import agents  # noqa: E402  (puts benchmarks/ and the checkout on sys.path)
import registry  # noqa: E402
import trace_repeat  # noqa: E402
from agents import EgoAgent, TraceFailed  # noqa: E402
from trace_ego import HEAD  # noqa: E402

#: the step errors a drifted tool may stop with (it never reports success on a wrong page)
STEP_ERRORS = ("EGO_LEARNED_STEP_NOT_FOUND", "EGO_LEARNED_POSTCONDITION_FAILED")

#: seconds between one attempt's end and the next one's first round, on both sides. An agent
#: reads what a round printed and thinks before its next round (the experienced time counts
#: ``latency`` per turn for that); rounds sent back to back, milliseconds apart, would measure
#: a host still making the next space's tab and round process in the background (the tickets
#: tool's 2nd attempt: 0.94 s back to back, 0.85 s a 1.5 s pause later, 5 interleaved pairs)
TURN_GAP = 1.0

#: the drift attempt's parameters (another record than the other attempts')
DRIFT = {"catalog": {"price": "88.80", "stock": "9"}, "comments": {"author": "likefarm"},
         "booking": {"company": "Eichen Textil KG", "email": "mail@eichen.example", "phone": "+43 1 2345678",
                     "country": "Austria", "date": "2027-11-20", "guests": "40", "room": "Main hall (250)",
                     "notes": "Two lecterns."},
         "tickets": {"ticket": "T-302", "customer_typed": "Eichen", "customer": "Eichen Textil KG",
                     "agent": "Lukas Hahn"}}


@dataclass
class Spec:
    """One task's repeat variants: its attempts and how each is judged on the app's state."""
    tool: str
    prepare: Callable[[Any], list[dict]]          # the app -> each attempt's parameters
    first: Callable[..., str]                      # (agent, url, space, params) -> answer
    again: Callable[..., str]
    check: Callable[[Any, dict, object, set], tuple[bool, str]]
    drift: Callable[[Any, list[dict]], dict]       # the app, the attempts' params -> the drift's params
    call: Callable[[dict], str]                    # the drift round's tool call (its answer printed)


def _catalog_drift(app: Any, used: list[dict]) -> dict:
    names = {v["product"] for v in used}
    return {"product": next(p["name"] for p in app.products if p["name"] not in names), **DRIFT["catalog"]}


def _comments_prepare(app: Any) -> list[dict]:
    app.add_spammers()
    return [dict(v) for v in trace_repeat.VARIANTS["comments"]]


def _booking_prepare(app: Any) -> list[dict]:
    import app_booking

    folder = tempfile.mkdtemp(prefix="ego-bench-booking-")
    path = os.path.join(folder, app_booking.TASK["file_name"])
    with open(path, "wb") as fh:
        fh.write(app_booking.TASK["file_body"])
    first = {k: v for k, v in app_booking.TASK.items() if k != "file_body"}
    first.update(file_path=path)
    later = [{**v, "file_path": path} for v in trace_repeat.VARIANTS["booking"][1:]]
    DRIFT["booking"]["file_path"] = path
    return [first, *later]


def _booking_check(app: Any, v: dict, _answer: object, _done: set) -> tuple[bool, str]:
    want = {**v, "phone": v.get("phone_fixed") or v["phone"]}
    return app.check_for(want)


SPECS = {
    "catalog": Spec(
        "edit_product", trace_repeat.fill_variants, trace_repeat.catalog_first, trace_repeat.catalog_again,
        lambda app, v, answer, _done: trace_repeat.check_catalog(app, v, answer), _catalog_drift,
        lambda v: (f"result = await tools.edit_product(page, product={v['product']!r}, price={v['price']!r}, "
                   f"stock={v['stock']!r})\nanswer = await page.input_value('[name=price]')\n")),
    "comments": Spec(
        "delete_comments", _comments_prepare, trace_repeat.comments_first, trace_repeat.comments_again,
        lambda app, v, _answer, done: app.check_author(v["author"], done),
        lambda app, used: dict(DRIFT["comments"]),
        lambda v: f"result = await tools.delete_comments(page, author={v['author']!r})\nanswer = None\n"),
    "booking": Spec(
        "book_venue", _booking_prepare, trace_repeat.booking_first, trace_repeat.booking_again, _booking_check,
        lambda app, used: dict(DRIFT["booking"]),
        lambda v: ("result = await tools.book_venue(page, organisation=" + repr(v["company"]) + ", contact_email="
                   + repr(v["email"]) + ", phone=" + repr(v["phone"]) + ", country=" + repr(v["country"])
                   + ", event_date=" + repr(v["date"]) + ", number_of_guests=" + repr(v["guests"]) + ", room="
                   + repr(v["room"]) + ", notes=" + repr(v["notes"]) + ", files=" + repr(v["file_path"])
                   + ")\nanswer = None\n")),
    "tickets": Spec(
        "update_ticket", lambda app: [dict(v) for v in trace_repeat.VARIANTS["tickets"]], trace_repeat.tickets_first,
        trace_repeat.tickets_again, lambda app, v, _answer, done: app.check_for(v, done),
        lambda app, used: dict(DRIFT["tickets"]),
        lambda v: (f"result = await tools.update_ticket(page, ticket={v['ticket']!r}, "
                   f"customer_typed={v['customer_typed']!r}, customer={v['customer']!r}, assignee={v['agent']!r})\n"
                   "answer = None\n")),
}

import repeat_more  # noqa: E402  (the orders task and the SPA set, in a file of their own)

SPECS.update(repeat_more.specs(Spec))


def drift_round(agent: EgoAgent, url: str, space: str, spec: Spec, params: dict) -> dict:
    """The tool on the drifted app: its outcome as the round saw it ({ok, code, step, answer})."""
    out = agent.round(HEAD.format(space=space) + f"""
import json
await page.goto({url!r})
try:
{textwrap.indent(spec.call(params), "    ")}    print(json.dumps({{"ok": bool(result.get("ok")), "answer": answer}}))
except EgoError as e:
    print(json.dumps({{"ok": False, "code": e.code, "step": getattr(e, "step", None), "message": str(e)[:300]}}))
await task.finish(keep=[])
""")
    return json.loads(out.strip().splitlines()[-1])


def _row(kind: str, cost: agents.Cost, ok: bool, why: str, latency: float) -> dict:
    # a round that had to start the host says how long that took (the 3rd attempt's restart)
    starts = [float(m) for out in cost.transcript
              for m in re.findall(r"done: starting the browser host .*? after ([\d.]+) s", out)]
    return {"attempt": kind, "turns": cost.turns, "seconds": cost.seconds, "bytes": cost.bytes,
            "experienced": cost.seconds + cost.turns * latency, "ok": ok, "why": why, "host_start": sum(starts)}


def listing_in_context(agent: EgoAgent, home: str) -> None:
    """The agent starts with the machine's tool listing in its context (what ``ego-browser mcp``
    puts in its tool's description): its bytes are read, it costs no turn."""
    from ego_browser.learning import learned

    text = learned.listing(Path(home) / "learned")
    if not text:
        raise TraceFailed("no learned tool listed for the agent's context")
    agent.cost.add(0.0, text, calls=0, turn=False)


def run_task(key: str, latency: float, log=print, listing: str = "round") -> list[dict]:
    spec = SPECS[key]
    task = registry.TASKS[key]
    app = task.app()
    variants = spec.prepare(app)
    home = tempfile.mkdtemp(prefix="ego-bench-repeat-")
    rows: list[dict] = []
    done: set[str] = set()  # what the attempts so far handled (the comments' authors)
    first = EgoAgent(home)
    try:
        with app.serve() as srv:
            url = srv.url(task.start)
            for n, params in enumerate(variants, 1):
                if n > 1:
                    time.sleep(TURN_GAP)  # the agent's turn (TURN_GAP)
                if n == 3:
                    first.stop()  # the host restarts: the tool is in the user's home, not the host
                agent = first if n == 1 else EgoAgent(home)
                try:
                    if n == 1:
                        answer = spec.first(agent, url, f"repeat-{n}", params)
                    else:
                        if listing == "context":
                            listing_in_context(agent, home)
                        answer = spec.again(agent, url, f"repeat-{n}", params, listing)
                    ok, why = spec.check(app, params, answer, done)
                except TraceFailed as e:
                    ok, why = False, str(e)[-300:]
                done |= {str(v) for v in params.values()}
                label = {1: "1st (explores, learns)", 2: "2nd (other record)", 3: "3rd (after a host restart)"}[n]
                rows.append(_row(label, agent.cost, ok, why, latency))
                log(f"  {key} {label}: {agent.cost.turns} turns, {agent.cost.bytes} bytes, ok={ok} {why if not ok else ''}")
            params = spec.drift(app, variants)
            time.sleep(TURN_GAP)
            app.drift = True
            drift = EgoAgent(home)
            try:
                outcome = drift_round(drift, url, "repeat-drift", spec, params)
            except TraceFailed as e:
                outcome = {"ok": False, "code": None, "message": str(e)[-300:]}
            right, why = spec.check(app, params, outcome.get("answer"), done)
            if outcome.get("ok"):
                kind, ok = ("healed", True) if right else (f"WRONG SUCCESS ({why})", False)
            elif outcome.get("code") in STEP_ERRORS:
                kind, ok = f"step error {outcome['code']} (step {outcome.get('step')})", True
            else:
                kind, ok = f"other failure {outcome.get('code')}: {outcome.get('message')}", False
            rows.append(_row("drift", drift.cost, ok, kind, latency))
            log(f"  {key} drift: {kind}")
    finally:
        first.stop()
        shutil.rmtree(home, ignore_errors=True)
    return rows


def ab_seconds(key: str, log=print) -> dict[str, float] | None:
    """agent-browser's tool time on the task (it remembers nothing: every attempt explores), or
    None when it is not installed (benchmarks/setup_peers.sh) or its trace failed.

    Two runs, each paying what the attempt it is set against pays: ``warm``, its daemon already
    running (its start is set-up, as in run.py; the 2nd attempt's host runs too), and ``cold``,
    a new session whose first call starts its daemon and Chromium (the 3rd attempt's first round
    starts our host and browser, and that is counted: so is agent-browser's start)."""
    import peers

    if peers.missing("agent-browser"):
        log(f"  {key} agent-browser: not installed (benchmarks/setup_peers.sh), no comparison")
        return None
    warm = _ab_run(key, "warm", log)
    cold = _ab_run(key, "cold", log) if warm is not None else None
    if warm is None:
        return None
    return {"warm": warm, **({"cold": cold} if cold is not None else {})}


def _ab_run(key: str, how: str, log=print) -> float | None:
    import trace_ab

    task = registry.TASKS[key]
    app = task.app()  # a fresh app each run: the run before changed the records
    ab = agents.AgentBrowser(f"repeat-{key}-{how}-{os.getpid()}")
    try:
        if how == "warm":
            ab.start()
            ab.cost = agents.Cost()  # its daemon's start is set-up, as in run.py
        with app.serve() as srv, tempfile.TemporaryDirectory() as tmp:
            import run as task_run

            time.sleep(TURN_GAP)  # as before each of our later attempts
            answer = trace_ab.TRACES[key](ab, srv.url(task.start), task_run.task_data(task, tmp))
        ok, why = app.check(answer)
        if not ok:  # a run that did not do the task is no yardstick
            log(f"  {key} agent-browser ({how}) did not do the task ({why}): no comparison")
            return None
        log(f"  {key} agent-browser ({how}): {ab.cost.seconds:.1f} s tool time, {ab.cost.turns} turns")
        return ab.cost.seconds
    except Exception as e:  # noqa: BLE001 - a comparison that failed is reported as missing
        log(f"  {key} agent-browser ({how}) failed: {str(e)[:300]}")
        return None
    finally:
        ab.stop()


def _ab_pair(value: float | dict[str, float] | None) -> tuple[float | None, float | None]:
    """(warm, cold) of ``ab_seconds``'s answer (a bare number: warm only)."""
    if isinstance(value, dict):
        return value.get("warm"), value.get("cold")
    return value, None


def _vs_ab(second: float, third: float | None, ab: float | dict[str, float] | None) -> float | None:
    """The 2nd and 3rd attempts' tool time against agent-browser's: the 2nd against its warm run,
    the 3rd against its cold one (both sides pay their start once); without a cold run, the mean
    of the two against the warm run."""
    warm, cold = _ab_pair(ab)
    if not warm:
        return None
    if third is None:
        return second / warm
    if cold:
        return (second + third) / (warm + cold)
    return (second + third) / (2 * warm)


def _ratios(rows: list[dict]) -> dict[str, float]:
    base, later = rows[0], [r for r in rows[1:] if r["attempt"] != "drift"]
    return {k: sum(r[k] for r in later) / (len(later) * base[k]) if base[k] else float("nan")
            for k in ("turns", "experienced", "bytes", "seconds")}


def _vs_ab_overall(results: dict[str, list[dict]], ab: dict[str, Any]) -> float | None:
    """Every task's 2nd and 3rd attempts against agent-browser's runs of the same tasks (sums)."""
    ours = theirs = 0.0
    for key, rows in results.items():
        later = [r["seconds"] for r in rows[1:] if r["attempt"] != "drift"]
        warm, cold = _ab_pair(ab.get(key))
        if not warm or not later:
            return None
        ours += sum(later[:2])
        theirs += warm + (cold if len(later) > 1 and cold else warm if len(later) > 1 else 0.0)
    return ours / theirs if theirs else None


def _ab_counts(value: Any) -> str:
    """How many of agent-browser's runs did the task, when there were several."""
    if not isinstance(value, dict) or value.get("trials", 1) <= 1:
        return ""
    n = value["trials"]
    return f"; agent-browser did the task in {value.get('warm_done', 0)} of {n} warm and {value.get('cold_done', 0)} of {n} cold runs"


TARGETS = {"turns": 0.3, "experienced": 0.3, "bytes": 0.2}


def _verdict(value: float, target: float) -> str:
    return f"{value:.2f}x ({'met' if value <= target else 'MISSED'}, target <= {target}x)"


def render(results: dict[str, list[dict]], latency: float, ab: dict[str, Any] | None = None,
           listing: str = "round", trials: int = 1) -> str:
    ab = ab or {}
    how = ("the agent opens the start page in a round of its own; the round's end names the site's tools"
           if listing == "round" else "the agent starts with the machine's tool listing in its context (the MCP "
           "tool's description; its bytes counted, no turn) and calls the tool in its first round")
    lines = ["### Repeat variants (issue 28 §7)", "", f"2nd and 3rd attempts: {how}.", "",
             f"Agent-experienced time = tool time + {latency:g} s per turn. Ratios are against the 1st attempt "
             "(targets: turns and experienced time <= 0.3x, bytes <= 0.2x; drift: healed or a step error, "
             "never a wrong success).", "",
             f"Each later attempt, and each of agent-browser's runs, starts {TURN_GAP:g} s after the one before ended "
             "(the agent's turn: it reads what the last round printed before it sends the next).", "",
             *([f"Each figure is the median of {trials} trials (each task's sequence, then agent-browser's warm and "
                "cold runs, in turn); an attempt succeeded only if it did in every trial.", ""] if trials > 1 else []),
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
    lines += ["", "2nd and 3rd attempts against the 1st (mean of the two), and their tool time against "
              "agent-browser's on the same task (target <= 0.7x): the 2nd against agent-browser with its daemon "
              "running, the 3rd (whose first round starts our host and browser) against agent-browser whose first "
              "call starts its daemon and browser; both sides pay their start once.", ""]
    everything = [r for rows in results.values() for r in rows]
    for key, rows in [*results.items(), ("overall", None)]:
        if rows is None:
            firsts = [rs[0] for rs in results.values()]
            later = [r for rs in results.values() for r in rs[1:] if r["attempt"] != "drift"]
            per = max(1, len(later) // max(1, len(firsts)))
            ratio = {k: sum(r[k] for r in later) / (per * sum(f[k] for f in firsts)) if sum(f[k] for f in firsts)
                     else float("nan") for k in ("turns", "experienced", "bytes", "seconds")}
            ab_ratio = _vs_ab_overall(results, ab)
            ok = all(r["ok"] for r in everything)
        else:
            ratio = _ratios(rows)
            later = [r for r in rows[1:] if r["attempt"] != "drift"]
            ab_ratio = _vs_ab(later[0]["seconds"], later[1]["seconds"] if len(later) > 1 else None,
                              ab.get(key)) if later else None
            ok = all(r["ok"] for r in rows)
        vs_ab = _verdict(ab_ratio, 0.7) if ab_ratio is not None else "n/a (agent-browser not run)"
        lines.append(f"- **{key}**: turns {_verdict(ratio['turns'], TARGETS['turns'])}, experienced "
                     f"{_verdict(ratio['experienced'], TARGETS['experienced'])}, bytes "
                     f"{_verdict(ratio['bytes'], TARGETS['bytes'])}; tool time vs agent-browser {vs_ab}; "
                     f"success {'100%' if ok else 'NOT 100%'}")
        if rows is not None and len(rows) > 2:
            # each attempt against the agent-browser run that pays what it pays
            second, third = rows[1], rows[2]
            warm, cold = _ab_pair(ab.get(key))
            ab_2nd = f"{second['seconds'] / warm:.2f}x" if warm else "n/a"
            ab_3rd = (f"{third['seconds'] / cold:.2f}x (agent-browser's daemon start: {cold - warm:.1f} s)"
                      if warm and cold else "n/a")
            start = (f"the 3rd's host start: {third['host_start']:.1f} s of its {third['seconds']:.1f} s tool time"
                     if third["host_start"] else f"the 3rd took {third['seconds'] - second['seconds']:.1f} s more "
                     "than the 2nd (its first round started the host)")
            lines.append(f"  - 2nd alone: experienced {second['experienced'] / rows[0]['experienced']:.2f}x, tool "
                         f"time vs agent-browser {ab_2nd}; 3rd alone vs agent-browser started cold {ab_3rd}; {start}"
                         + _ab_counts(ab.get(key)))
    return "\n".join(lines) + "\n"


RUNNERS = {key: (lambda latency, log, listing, key=key: run_task(key, latency, log, listing)) for key in SPECS}


def combine_rows(trials: list[list[dict]]) -> list[dict]:
    """One task's attempts over several trials: each attempt's median turns, tool time, bytes and
    host start; it succeeded only if it succeeded in every trial (the first failure says why)."""
    rows = []
    for same in zip(*trials):
        row = dict(same[0])
        for k in ("turns", "seconds", "bytes", "experienced", "host_start"):
            row[k] = statistics.median([r[k] for r in same])
        row["ok"] = all(r["ok"] for r in same)
        whys = list(dict.fromkeys(r["why"] for r in same if r["why"] and (not r["ok"] or r["attempt"] == "drift")))
        bad = next((r["why"] for r in same if not r["ok"]), None)
        row["why"] = bad if bad is not None else "; ".join(whys) or row["why"]
        rows.append(row)
    return rows


def combine_ab(runs: list[dict[str, float] | None], trials: int) -> dict[str, Any] | None:
    """agent-browser's warm and cold medians over the runs that did the task, with how many did."""
    if not any(runs):
        return None
    out: dict[str, Any] = {"trials": trials}
    for how in ("warm", "cold"):
        done = [r[how] for r in runs if r and r.get(how) is not None]
        out[f"{how}_done"] = len(done)
        if done:
            out[how] = statistics.median(done)
    return out if "warm" in out else None


def run(keys: list[str] | None = None, latency: float = 3.0, log=print, compare: bool = True,
        listing: str = "round", trials: int = 1, turn_gap: float | None = None) -> str:
    """``trials``: each task's sequence (ours, then agent-browser's warm and cold runs) this many
    times, interleaved; the section gives each figure's median (one run each side is at the mercy
    of a noisy machine: a ratio moved by 0.1 between two quiet runs)."""
    global TURN_GAP
    if turn_gap is not None:
        TURN_GAP = turn_gap
    results, ab = {}, {}
    chosen = [k for k in keys or list(RUNNERS) if k in RUNNERS]
    skipped = [k for k in keys or () if k not in RUNNERS]
    if keys and not chosen:
        raise SystemExit(f"no repeat variants for tasks {', '.join(keys)} (have: {', '.join(RUNNERS)})")
    for key in skipped:
        log(f"repeat variants: {key} has none yet (have: {', '.join(RUNNERS)})")
    for key in chosen:
        ours, theirs = [], []
        for n in range(trials):
            log(f"repeat variants: {key}" + (f" (trial {n + 1} of {trials})" if trials > 1 else ""))
            ours.append(RUNNERS[key](latency, log, listing))
            if compare:
                theirs.append(ab_seconds(key, log))
        results[key] = combine_rows(ours)
        if compare:
            ab[key] = combine_ab(theirs, trials)
    return render(results, latency, ab, listing, trials)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default="", help="comma-separated task keys (default: every task with variants)")
    ap.add_argument("--latency", type=float, default=3.0, help="seconds an agent's turn costs (default 3)")
    ap.add_argument("--no-compare", action="store_true", help="leave out agent-browser's run of each task")
    ap.add_argument("--turn-gap", type=float, default=TURN_GAP,
                    help=f"seconds between attempts, both sides: the agent's turn (default {TURN_GAP:g})")
    ap.add_argument("--trials", type=int, default=1,
                    help="run each task's sequence and agent-browser's runs this many times; medians (default 1)")
    ap.add_argument("--listing", choices=("round", "context"), default="round",
                    help="how a later attempt learns the tool exists: a round that opens the start page (its end "
                         "names the site's tools), or the listing already in the agent's context (ego-browser mcp)")
    args = ap.parse_args()
    print(run([k for k in args.tasks.split(",") if k] or None, args.latency, compare=not args.no_compare,
              listing=args.listing, trials=max(1, args.trials), turn_gap=max(0.0, args.turn_gap)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
