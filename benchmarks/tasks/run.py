"""Whole-task benchmark: ego_browser vs agent-browser vs Playwright on five local admin apps and an SPA.

    .venv/bin/python benchmarks/tasks/run.py [--runs 3] [--set admin|spa] [--tasks orders,booking] [--tools ego,agent-browser] [--no-docs]
    .venv/bin/python benchmarks/tasks/run.py --mcp [--runs 1] [--tasks catalog]   (ego-browser mcp vs Playwright MCP)

For every run, task and tool (the tool order rotates from run to run) a fresh app is served
on 127.0.0.1 and the tool's trace (``trace_ego``, ``trace_ab``, ``trace_pw``) does the task;
success is judged by the app from its server state. Reported per task and in total: tool wall
time, agent turns, CLI calls, bytes printed, success, and the time an agent experiences
(tool time + turns × a nominal model latency of 1, 3 and 10 s), next to the floor (the sum of
the pages' own load times, Navigation Timing). Writes benchmarks/results/tasks.json, the chart
docs/img/bench_tasks.png, and the "bench_tasks" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import agents  # noqa: E402  (puts benchmarks/ and the checkout on sys.path)
import peers  # noqa: E402
import registry  # noqa: E402
import report_spa  # noqa: E402
import trace_ab  # noqa: E402
import trace_ego  # noqa: E402

ROOT = agents.ROOT
TOOLS = ["ego", "agent-browser", "playwright", "ego-inproc", "ego-default"]
#: a diagnostic contender, left out of the targets and the chart: the ego traces with every round's
#: script run in this process (agents.InProcessEgoAgent), so the difference to "ego" is what the
#: round processes cost; ``--no-diagnostic`` leaves it out
DIAGNOSTIC = "ego-inproc"
#: the ego traces with every look the default one (no interactive=True): bytes for default vs
#: interactive looks (issue 30); out of the targets and the chart like the diagnostic
DEFAULT_LOOKS = "ego-default"
LATENCIES = (1.0, 3.0, 10.0)
RESULTS = ROOT / "benchmarks" / "results" / "tasks.json"
CHART = ROOT / "docs" / "img" / "bench_tasks.png"
DOC = ROOT / "docs" / "benchmarks.md"
RUN_TIMEOUT = 180.0


def task_data(task: registry.Task, tmp: str) -> dict:
    data = dict(task.data)
    if "file_name" in data:
        path = os.path.join(tmp, data["file_name"])
        with open(path, "wb") as fh:
            fh.write(data.pop("file_body"))
        data["file_path"] = path
    return data


def _settle(app) -> list[float]:
    """The pages' load times, once the last page's beacon has had a moment to arrive."""
    last, deadline = -1, time.monotonic() + 1.0
    while time.monotonic() < deadline:
        n = len(app.load_times())
        if n == last:
            break
        last = n
        time.sleep(0.2)
    return app.load_times()


def run_one(task: registry.Task, tool: str, run: int, ctx: dict) -> dict:
    app = task.app()
    tmp = tempfile.mkdtemp(prefix="ego-task-")
    rec = {"task": task.key, "tool": tool, "run": run, "success": False, "detail": ""}
    try:
        data = task_data(task, tmp)
        with app.serve() as srv:
            url = srv.url(task.start)
            answer = None
            ego = (agents.EgoAgent(ctx["ego_home"]) if tool == "ego"
                   else agents.InProcessEgoAgent(ctx["ego_home"]) if tool == DIAGNOSTIC
                   else agents.DefaultLooksEgoAgent(ctx["ego_home"]) if tool == DEFAULT_LOOKS else None)
            ab = agents.AgentBrowser(ctx["ab_session"]) if tool == "agent-browser" else None
            cost = ego.cost if ego else ab.cost if ab else agents.Cost()
            try:
                if ego:
                    answer = trace_ego.TRACES[task.key](ego, url, f"{task.key}-r{run}-{time.time_ns()}", data)
                elif ab:
                    answer = trace_ab.TRACES[task.key](ab, url, data)
                else:
                    answer = _playwright(task, url, data, cost, rec)
            except Exception as exc:  # noqa: BLE001 (a failed trace is a failed run, reported)
                rec["detail"] = f"{type(exc).__name__}: {str(exc)[:1500]}"
            ok, why = app.check(answer)
            rec["success"] = bool(ok) and not rec["detail"]
            rec["detail"] = rec["detail"] or why
            rec["loads"] = _settle(app)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if os.environ.get("BENCH_TASK_TRANSCRIPTS"):  # where the bytes go: every round's output, to read
        out_dir = Path(os.environ["BENCH_TASK_TRANSCRIPTS"])
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{task.key}-{tool}-r{run}.txt").write_text(
            "".join(f"=== round {i + 1} ({len(t.encode())} bytes)\n{t}\n" for i, t in enumerate(cost.transcript)))
    rec.update(seconds=cost.seconds, turns=cost.turns, calls=cost.calls, bytes=cost.bytes, floor=sum(rec["loads"]),
               stale_failures=cost.stale_failures, other_failures=len(cost.failed_rounds) - cost.stale_failures,
               failed_rounds=cost.failed_rounds, relooks=cost.relooks, changing_looks=cost.changing_looks)
    return rec


def _playwright(task: registry.Task, url: str, data: dict, cost: agents.Cost, rec: dict) -> str:
    import subprocess

    argv = [agents.PY, str(HERE / "trace_pw.py"), task.key, url, json.dumps(data)]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - t0
    out = proc.stdout + proc.stderr
    cost.add(seconds, out)
    if proc.returncode != 0:
        raise agents.TraceFailed(f"playwright script exited {proc.returncode}: {out[-1500:]}")
    line = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    rec["in_script_seconds"] = line["task_seconds"]
    return line["answer"]


# -- the whole benchmark ----------------------------------------------------------------------


def _cpu_ticks() -> list[int] | None:
    """The machine's CPU time by kind (/proc/stat's first line), or None off Linux."""
    try:
        with open("/proc/stat") as fh:
            return [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def _steal_share(before: list[int] | None, after: list[int] | None) -> float | None:
    """Share of the CPU time the hypervisor gave other guests (steal) between two readings: on a
    shared VM it slows every tool alike, and it is why two quiet runs can differ by half."""
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after[:8]) - sum(before[:8])
    return (after[7] - before[7]) / total if total > 0 else None


def benchmark(runs: int, keys: list[str], log=print, diagnostic: bool = True, only: list[str] | None = None) -> dict:
    missing = {tool: peers.missing(peer) for tool, peer in (("agent-browser", "agent-browser"),
                                                            ("playwright", "playwright"), ("ego", "chromium"),
                                                            (DIAGNOSTIC, "chromium"), (DEFAULT_LOOKS, "chromium"))}
    tools = [t for t in TOOLS if not missing[t] and (diagnostic or t != DIAGNOSTIC) and (not only or t in only)]
    home = tempfile.mkdtemp(prefix="ego-tasks-home-")
    ctx = {"ego_home": home, "ab_session": f"tasks-{os.getpid()}"}
    ego = agents.EgoAgent(home)
    ab = agents.AgentBrowser(ctx["ab_session"])
    records: list[dict] = []
    budget = float(os.environ.get("BENCH_TASK_BUDGET", "960"))
    stopped = ""
    load0 = os.getloadavg()
    cpu0 = _cpu_ticks()
    t_start = time.time()
    try:
        # set-up, not task time: each tool's browser is up before the first task (as for an agent
        # that has used the tool before); Playwright launches its own in every script
        warm_up = ('task = await task_space("warm-up")\nawait task.page("p1").goto("about:blank")\n'
                   'await task.finish(keep=[])\n')
        if "ego" in tools or DIAGNOSTIC in tools or DEFAULT_LOOKS in tools:
            ego.start()
            ego.round(warm_up)
        if DIAGNOSTIC in tools:
            # the runner's imports and the host connection of this process, paid once here and
            # not by the first diagnostic task
            agents.InProcessEgoAgent(home).round(warm_up)
        if "agent-browser" in tools:
            ab.start()
        for run in range(runs):
            if run and time.time() - t_start > budget:
                # bounded: a busy machine gets fewer runs, said so in the report, not a longer wait
                stopped = f"stopped after {run} of {runs} runs: the {budget:.0f} s budget was spent"
                log(stopped)
                break
            order = tools[run % len(tools):] + tools[:run % len(tools)]
            for key in keys:
                for tool in order:
                    rec = run_one(registry.TASKS[key], tool, run + 1, ctx)
                    records.append(rec)
                    log(f"run {run + 1} {key:10s} {tool:13s} {'ok  ' if rec['success'] else 'FAIL'} "
                        f"{rec['seconds']:6.2f}s turns={rec['turns']:2d} calls={rec['calls']:2d} "
                        f"bytes={rec['bytes']:6d} floor={rec['floor']:.2f}s"
                        + (f" stale={rec['stale_failures']} other={rec['other_failures']} relooks={rec['relooks']}"
                           f" changing={rec['changing_looks']}" if key in registry.SETS["spa"] else "")
                        + ("" if rec["success"] else f"  ({rec['detail'][:300]})"))
    finally:
        if "agent-browser" in tools:
            ab.stop()
        if "ego" in tools or DIAGNOSTIC in tools or DEFAULT_LOOKS in tools:
            ego.stop()
        shutil.rmtree(home, ignore_errors=True)
    return {"records": records, "tools": tools, "missing": {k: v for k, v in missing.items() if v},
            "runs": runs, "runs_done": len({r["run"] for r in records}), "stopped": stopped, "tasks": keys, "load_start": load0, "load_end": os.getloadavg(),
            "steal": _steal_share(cpu0, _cpu_ticks()),
            "seconds": time.time() - t_start, "cpus": os.cpu_count(), "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t_start))}


# -- numbers ------------------------------------------------------------------------------------


def summarize(result: dict) -> dict:
    """Medians per (task, tool) over the runs that succeeded (over all when none did: a failed run's
    time is a timeout, not the task's cost); totals are sums of those medians."""
    per: dict[tuple[str, str], dict] = {}
    for key in result["tasks"]:
        for tool in result["tools"]:
            recs = [r for r in result["records"] if r["task"] == key and r["tool"] == tool]
            if not recs:
                continue
            ok = [r for r in recs if r["success"]] or recs
            med = {f: statistics.median(r[f] for r in ok) for f in ("seconds", "turns", "calls", "bytes", "floor")}
            med["success"] = sum(r["success"] for r in recs)
            med["n"] = len(recs)
            ins = [r["in_script_seconds"] for r in recs if "in_script_seconds" in r]
            med["in_script"] = statistics.median(ins) if ins else None
            per[(key, tool)] = med
    totals = {}
    for tool in result["tools"]:
        rows = [per[(k, tool)] for k in result["tasks"] if (k, tool) in per]
        totals[tool] = {f: sum(r[f] for r in rows) for f in ("seconds", "turns", "calls", "bytes", "floor")}
        totals[tool]["success"] = sum(r["success"] for r in rows)
        totals[tool]["n"] = sum(r["n"] for r in rows)
        ins = [r["in_script"] for r in rows if r["in_script"] is not None]
        totals[tool]["in_script"] = sum(ins) if len(ins) == len(rows) and ins else None
    # the floor is a property of the pages: the median over every run of every tool
    floors = {k: statistics.median(r["floor"] for r in result["records"] if r["task"] == k) for k in result["tasks"]}
    return {"per": per, "totals": totals, "floors": floors}


def experienced(row: dict, latency: float) -> float:
    return row["seconds"] + row["turns"] * latency


def _f(x: float) -> str:
    return f"{x:.2f}"


def render(result: dict, summary: dict, command: str, chart_rel: str | None,
           title: str = "Whole tasks on local apps (benchmarks/tasks/)") -> str:
    per, totals, floors = summary["per"], summary["totals"], summary["floors"]
    tools = result["tools"]
    out = [f"### {title}", ""]
    out.append(f"Command: `{command}` · {result.get('runs_done', result['runs'])} runs, tool order rotated each run · "
               f"started {result['started']} · {result['cpus']} CPUs · load average "
               f"{result['load_start'][0]:.2f} at the start, {result['load_end'][0]:.2f} at the end · "
               f"{result['seconds']:.0f} s in all"
               + (f" · {result['steal'] * 100:.0f}% of the CPU time went to other guests of the host (steal)"
                  if result.get("steal") is not None else "") + ".")
    if max(result["load_start"][0], result["load_end"][0]) > (result["cpus"] or 1):
        out.append("")
        out.append("**Warning: the machine was busy (load above the CPU count); every figure is inflated.**")
    if result.get("stopped"):
        out.append("")
        out.append(f"**{result['stopped']}** (`BENCH_TASK_BUDGET`).")
    if result["missing"]:
        out.append("")
        out.append("Skipped: " + "; ".join(f"{k}: {v}" for k, v in result["missing"].items()))
    out.append("")
    out.append("Medians over the runs that succeeded (a failed run is counted in *success*, and its time, often a "
               "tool's own timeout, is left out). *tool s*: wall time of every call the agent made (each round, CLI "
               "process or script, whole); *turns*: calls the agent had to read before the next one (one round; "
               "one shell command, `&&`-chained CLI calls when their arguments were known; one script); *calls*: "
               "CLI processes; *KB*: bytes printed to the agent; *agent s @3*: tool s + turns × 3 s of model "
               "latency; *floor*: the sum of the pages' own load times (Navigation Timing) in that task.")
    out.append("")
    head = ["task", "tool", "success", "tool s", "turns", "calls", "KB", "agent s @1", "agent s @3", "agent s @10", "floor s"]
    rows = []
    for key in result["tasks"]:
        for tool in tools:
            r = per.get((key, tool))
            if not r:
                continue
            tool_s = _f(r["seconds"]) + (f" ({_f(r['in_script'])} in script)" if r["in_script"] is not None else "")
            rows.append([registry.TASKS[key].title if tool == tools[0] else "", tool, f"{r['success']}/{r['n']}",
                         tool_s, f"{r['turns']:g}", f"{r['calls']:g}", f"{r['bytes'] / 1000:.1f}",
                         *(_f(experienced(r, lat)) for lat in LATENCIES), _f(floors[key]) if tool == tools[0] else ""])
    out.append(peers.md_table(head, rows))
    out.append("")
    out.append("**Totals** (sums of the per-task medians):")
    out.append("")
    rows = []
    for tool in tools:
        t = totals[tool]
        tool_s = _f(t["seconds"]) + (f" ({_f(t['in_script'])} in script)" if t["in_script"] is not None else "")
        rows.append([tool, f"{t['success']}/{t['n']}", tool_s, f"{t['turns']:g}", f"{t['calls']:g}",
                     f"{t['bytes'] / 1000:.1f}", *(_f(experienced(t, lat)) for lat in LATENCIES)])
    out.append(peers.md_table(["tool", "success", "tool s", "turns", "calls", "KB", "agent s @1", "agent s @3",
                               "agent s @10"], rows))
    out.append("")
    if "agent-browser" in totals:
        a = totals["agent-browser"]
        solo = {**a, "turns": a["calls"]}
        out.append(f"agent-browser with one CLI call per turn (its guide's loop, no `&&` chains): {a['calls']:g} turns, "
                   + ", ".join(f"agent s @{lat:g} = {_f(experienced(solo, lat))}" for lat in LATENCIES) + ".")
        out.append("")
    out.append(f"Floor (sum of the pages' load times over the {len(floors)} tasks): {_f(sum(floors.values()))} s.")
    out.append("")
    if "ego" in totals:
        e = totals["ego"]
        lines = []

        def target(name: str, mine: float, theirs: float, limit: float) -> None:
            r = mine / theirs if theirs else float("nan")
            lines.append([name, f"{r:.2f}×", f"≤ {limit}×", "met" if r <= limit else "**not met**"])

        if "agent-browser" in totals:
            a = totals["agent-browser"]
            target("agent-experienced time @3 s vs agent-browser", experienced(e, 3), experienced(a, 3), 0.25)
            solo = {**a, "turns": a["calls"]}
            target("… vs agent-browser with one call per turn", experienced(e, 3), experienced(solo, 3), 0.25)
            target("tool time vs agent-browser", e["seconds"], a["seconds"], 0.8)
            target("bytes vs agent-browser", e["bytes"], a["bytes"], 0.5)
            target("turns vs agent-browser", e["turns"], a["turns"], 0.3)
            target("turns vs agent-browser CLI calls", e["turns"], a["calls"], 0.3)
        if "playwright" in totals:
            p = totals["playwright"]
            target("tool time vs Playwright (script process)", e["seconds"], p["seconds"], 0.8)
            if p["in_script"]:
                target("tool time vs Playwright (in script, browser up)", e["seconds"], p["in_script"], 0.8)
        lines.append(["success", f"{e['success']}/{e['n']}", "100%", "met" if e["success"] == e["n"] else "**not met**"])
        out.append(peers.md_table(["ego_browser target", "measured", "target", ""], lines))
        out.append("")
        if DIAGNOSTIC in totals:
            out.append(_diagnostic_line(e, totals[DIAGNOSTIC], totals.get("agent-browser")))
            out.append("")
        if DEFAULT_LOOKS in totals:
            d = totals[DEFAULT_LOOKS]
            ab_bytes = totals["agent-browser"]["bytes"] if "agent-browser" in totals else 0
            out.append(f"Looks (*{DEFAULT_LOOKS}*, not a target: the ego traces with every snapshot the default "
                       f"look): {d['bytes'] / 1000:.1f} KB with default looks, {e['bytes'] / 1000:.1f} KB with "
                       "interactive=True where the traces use it"
                       + (f" ({d['bytes'] / ab_bytes:.2f}× and {e['bytes'] / ab_bytes:.2f}× agent-browser's)"
                          if ab_bytes else "") + f"; {d['success']}/{d['n']} succeeded.")
            out.append("")
    if chart_rel:
        out.append(f"![Whole-task benchmark]({chart_rel})")
        out.append("")
    if any(k in registry.SETS["spa"] for k in result["tasks"]):
        out.append(report_spa.block(result, summary, {k: registry.TASKS[k].title for k in result["tasks"]}))
    fails = [r for r in result["records"] if not r["success"]]
    if fails:
        out.append("Failed runs:")
        out.append("")
        for r in fails:
            first = " ".join(r["detail"].split("\n", 2)[:2])[:300]
            out.append(f"- run {r['run']} {r['task']} {r['tool']}: {first}")
        out.append("")
    return "\n".join(out)


def _diagnostic_line(ego: dict, inproc: dict, ab: dict | None) -> str:
    """What the round processes cost: the same traces with no process per round."""
    saved = ego["seconds"] - inproc["seconds"]
    rounds = ego["turns"] or 1
    text = (f"Diagnostic (*{DIAGNOSTIC}*, not a target): the ego traces with every round's script run inside the "
            f"benchmark's own process, against the same host: {_f(inproc['seconds'])} s, so the {ego['turns']:g} "
            f"round processes cost {_f(saved)} s ({saved / rounds * 1000:.0f} ms each: a process started and waited "
            "for, its interpreter's start, the hand-off to the warm worker and its exit)")
    if ab and ab["seconds"]:
        text += (f"; without them ego's tool time would be {inproc['seconds'] / ab['seconds']:.2f}× agent-browser's "
                 f"(with them {ego['seconds'] / ab['seconds']:.2f}×)")
    return text + "."


def chart(result: dict, summary: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    per, floors = summary["per"], summary["floors"]
    tools = [t for t in result["tools"] if t not in (DIAGNOSTIC, DEFAULT_LOOKS)]
    keys = result["tasks"]
    colors = {"ego": "#417690", "agent-browser": "#d98c2b", "playwright": "#6a9f58"}
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), dpi=100, gridspec_kw={"width_ratios": [1.6, 1]})
    width = 0.8 / max(1, len(tools))
    ax = axes[0]
    for i, tool in enumerate(tools):
        xs = [k + (i - (len(tools) - 1) / 2) * width for k in range(len(keys))]
        tool_s = [per[(key, tool)]["seconds"] if (key, tool) in per else 0 for key in keys]
        model_s = [per[(key, tool)]["turns"] * 3 if (key, tool) in per else 0 for key in keys]
        ax.bar(xs, tool_s, width, color=colors[tool], label=f"{tool}: tool time")
        ax.bar(xs, model_s, width, bottom=tool_s, color=colors[tool], alpha=0.35, label=f"{tool}: turns × 3 s")
    for k, key in enumerate(keys):
        ax.hlines(floors[key], k - 0.45, k + 0.45, colors="black", linestyles="dashed", linewidth=1,
                  label="floor (page loads)" if k == 0 else None)
    ax.set_xticks(range(len(keys)), [registry.TASKS[k].title.split(".")[0] + ". " + k for k in keys])
    ax.set_ylabel("seconds (median of runs)")
    ax.set_title("Agent-experienced time per task (tool + 3 s/turn)")
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    ax = axes[1]
    lats = list(LATENCIES)
    for i, tool in enumerate(tools):
        t = summary["totals"][tool]
        xs = [j + (i - (len(tools) - 1) / 2) * width for j in range(len(lats))]
        ax.bar(xs, [experienced(t, lat) for lat in lats], width, color=colors[tool], label=tool)
    ax.set_xticks(range(len(lats)), [f"{lat:g} s/turn" for lat in lats])
    ax.set_title("Total over the tasks, by model latency per turn")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


#: a heading inside the section under which people write about the runs; the runner keeps it
NOTES = "### Notes on the runs"


def update_doc(section: str, doc: Path = DOC) -> None:
    """Replace (or append) the ``## bench_tasks`` section of docs/benchmarks.md, atomically.

    What stands under ``NOTES`` in the old section (the runs' history, what moved the figures)
    is kept after the new tables: it used to be lost at every run."""
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    block = "## bench_tasks\n\n" + section.rstrip() + "\n"
    start = text.find("\n## bench_tasks\n")
    if start == -1:
        text = text.rstrip() + "\n\n" + block
    else:
        end = text.find("\n## ", start + 1)
        old = text[start + 1:end + 1] if end != -1 else text[start + 1:]
        at = old.find("\n" + NOTES + "\n")
        if at != -1:
            block += old[at:].rstrip("\n") + "\n"
        text = text[:start + 1] + block + (text[end:] if end != -1 else "")
    tmp = doc.with_suffix(".md.tmp")
    tmp.write_text(text)
    os.replace(tmp, doc)


def command() -> str:
    if os.environ.get("BENCH_COMMAND"):
        return os.environ["BENCH_COMMAND"]
    return "make bench-tasks" if os.environ.get("MAKELEVEL") else "python " + " ".join(sys.argv)


SET_TITLES = {"admin": "Whole tasks on local apps (benchmarks/tasks/)",
              "spa": "Whole tasks on a single-page app (benchmarks/tasks/app_spa.py, issue 29)"}


def subset(result: dict, keys: list[str]) -> dict:
    """The result restricted to some tasks (one set's tables and targets are its own)."""
    return {**result, "tasks": [k for k in result["tasks"] if k in keys],
            "records": [r for r in result["records"] if r["task"] in keys]}


def render_sets(result: dict, command_line: str, chart_to: Path | None) -> str:
    """One block of tables per task set present (admin first): totals and targets never mix sets."""
    blocks = []
    for name, keys in registry.SETS.items():
        part = subset(result, keys)
        if not part["tasks"]:
            continue
        summary = summarize(part)
        # the chart belongs to the section: a run that leaves the docs alone leaves it alone too
        chart_rel = ("img/bench_tasks.png" if name == "admin" and chart_to is not None and chart(part, summary, chart_to)
                     else None)
        blocks.append(render(part, summary, command_line, chart_rel, SET_TITLES[name]))
    return "\n".join(blocks)


def run(runs: int | None = None, keys: list[str] | None = None, write_doc: bool = False,
        diagnostic: bool = True, only: list[str] | None = None) -> list[str]:
    runs = runs or int(os.environ.get("BENCH_TASK_RUNS", "3"))
    keys = keys or list(registry.TASKS)
    result = benchmark(runs, keys, log=lambda s: print(s, flush=True), diagnostic=diagnostic, only=only)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1, default=str))
    section = render_sets(result, command(), CHART if write_doc else None)
    if write_doc:
        update_doc(section)
    return [section]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=None,
                    help="runs of each task (with --repeat: trials of each task's sequence, medians; default 1)")
    ap.add_argument("--tasks", default="", help="comma-separated task keys (default: all)")
    ap.add_argument("--set", choices=sorted(registry.SETS), default="",
                    help="one task set: admin (five admin jobs) or spa (the single-page app); default: both")
    ap.add_argument("--tools", default="", help=f"comma-separated tools (default: all of {','.join(TOOLS)})")
    ap.add_argument("--no-docs", action="store_true", help="print the section, leave docs/benchmarks.md alone")
    ap.add_argument("--no-diagnostic", action="store_true",
                    help=f"leave out the {DIAGNOSTIC} contender (the round processes' cost)")
    ap.add_argument("--repeat", action="store_true",
                    help="only the repeat variants (issue 28 §7: learn, repeat, restart, drift), in their own section")
    ap.add_argument("--listing", choices=("round", "context"), default="round",
                    help="with --repeat: a later attempt opens the start page to see the tools (round) or starts "
                         "with the tool listing in its context (context: ego-browser mcp's tool description)")
    ap.add_argument("--mcp", action="store_true",
                    help="only the admin tasks over MCP: ego-browser mcp against Playwright MCP (mcp_bench.py)")
    args = ap.parse_args()
    keys = [k for k in args.tasks.split(",") if k] or (registry.SETS[args.set] if args.set else None)
    only = [t for t in args.tools.split(",") if t] or None
    if args.mcp:  # its own section (mcp_bench.py); it writes no figures into the docs
        import mcp_bench

        print(mcp_bench.run(args.runs, keys))
        return 0
    if args.repeat:  # its own section (repeat.py); it writes no figures into the docs
        import repeat

        print(repeat.run(keys, listing=args.listing, trials=max(1, args.runs or 1)))
        return 0
    try:
        section = run(args.runs, keys, write_doc=not args.no_docs, diagnostic=not args.no_diagnostic, only=only)[0]
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 1
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
