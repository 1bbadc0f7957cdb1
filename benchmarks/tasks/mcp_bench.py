"""The admin tasks over MCP: ``ego-browser mcp`` against Playwright MCP (issue 34 §2).

    .venv/bin/python benchmarks/tasks/run.py --mcp [--runs N] [--tasks orders,catalog]

Both servers are driven by the official MCP Python SDK's stdio client (``mcp_agents``), on the
same Chromium (/usr/bin/chromium) and the same apps as ``run.py`` (a fresh app per run and task,
judged by its own state). The agent for ``ego-browser mcp`` sends the rounds of ``trace_ego.py``
(the round code the skill teaches) through its one tool; the agent for Playwright MCP makes the
calls of ``trace_pwmcp.py`` (navigate, snapshot, act by ref). Reported per task and in total:
success, calls (turns), bytes returned to the agent, tool time (as the client sees it), and the
ratios ego / Playwright MCP; plus each server's tool listing, which the agent reads once per
session. Set-up is not task time: both browsers are up before the first task. Prints the
tables; writes nothing (figures for docs/benchmarks.md come from the integrator's quiet run).
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time

import agents
import mcp_agents
import registry
import trace_ego
import trace_pwmcp
from run import _settle, task_data

TOOLS = ("ego-mcp", "playwright-mcp")
#: issue 34 §2: the same success, and at most half Playwright MCP's bytes
BYTES_TARGET = 0.5


def _one(task: registry.Task, tool: str, agent: mcp_agents.McpServer, run: int) -> dict:
    app = task.app()
    # in the server's working directory: Playwright MCP uploads only files under its workspace root
    tmp = tempfile.mkdtemp(prefix="ego-mcp-task-", dir=agent.cwd if tool == "playwright-mcp" else None)
    rec = {"task": task.key, "tool": tool, "run": run, "success": False, "detail": ""}
    agent.cost = agents.Cost()
    try:
        data = task_data(task, tmp)
        with app.serve() as srv:
            url = srv.url(task.start)
            answer = None
            try:
                if tool == "ego-mcp":
                    answer = trace_ego.TRACES[task.key](agent, url, f"{task.key}-mcp{run}-{time.time_ns()}", data)
                else:
                    answer = trace_pwmcp.TRACES[task.key](agent, url, data)
            except Exception as exc:  # noqa: BLE001 (a failed trace is a failed run, reported)
                rec["detail"] = f"{type(exc).__name__}: {str(exc)[:1500]}"
            ok, why = app.check(answer)
            rec["success"] = bool(ok) and not rec["detail"]
            rec["detail"] = rec["detail"] or why
            _settle(app)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cost = agent.cost
    rec.update(seconds=cost.seconds, calls=cost.turns, bytes=cost.bytes)
    return rec


def _start_pw(scratch: str) -> mcp_agents.PlaywrightMcp:
    pw = mcp_agents.PlaywrightMcp(scratch)
    pw.start()
    pw.call("browser_navigate", {"url": "about:blank"})
    return pw


def benchmark(runs: int, keys: list[str], log=print) -> dict:
    missing = mcp_agents.pw_mcp_missing()
    if missing:
        raise SystemExit(f"bench mcp: {missing}")
    home = tempfile.mkdtemp(prefix="ego-mcp-home-")
    scratch = tempfile.mkdtemp(prefix="pw-mcp-")
    host = agents.EgoAgent(home)
    ego = mcp_agents.EgoMcpAgent(home)
    pw: mcp_agents.PlaywrightMcp | None = None
    records: list[dict] = []
    load0 = os.getloadavg()
    try:
        # set-up, not task time: each server's browser is up before the first task
        host.start()
        ego.start()
        ego.round('task = await task_space("warm-up")\nawait task.page("p1").goto("about:blank")\n'
                  'await task.finish(keep=[])\n')
        pw = _start_pw(scratch)
        agents_by_tool = {"ego-mcp": ego, "playwright-mcp": pw}
        for run in range(runs):
            order = TOOLS[run % 2:] + TOOLS[:run % 2]
            for key in keys:
                for tool in order:
                    rec = _one(registry.TASKS[key], tool, agents_by_tool[tool], run + 1)
                    records.append(rec)
                    if tool == "playwright-mcp" and not rec["success"]:
                        # a failed trace may leave a modal state (a file chooser) that would fail the
                        # next task too: a fresh server, started outside the task's time
                        pw.stop()
                        pw = agents_by_tool[tool] = _start_pw(scratch)
                    log(f"run {run + 1} {key:9s} {tool:15s} {'ok  ' if rec['success'] else 'FAIL'} "
                        f"{rec['seconds']:6.2f}s calls={rec['calls']:2d} bytes={rec['bytes']:6d}"
                        + ("" if rec["success"] else f"  ({rec['detail'][:400]})"))
        schema = {"ego-mcp": ego.schema_bytes(), "playwright-mcp": pw.schema_bytes()}
        tool_count = {"ego-mcp": len(ego.tools), "playwright-mcp": len(pw.tools)}
        guide = ego.resource_bytes("ego-browser://guide")
    finally:
        for server in (ego, pw):
            if server is not None:
                server.stop()
        host.stop()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return {"records": records, "runs": runs, "tasks": keys, "schema": schema, "tool_count": tool_count, "guide": guide,
            "load_start": load0, "load_end": os.getloadavg()}


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows) if rows else 0.0


def render(result: dict) -> str:
    recs = result["records"]
    lines = [f"### Admin tasks over MCP: ego-browser mcp vs Playwright MCP ({result['runs']} run(s), medians; "
             f"load average {result['load_start'][0]:.1f} -> {result['load_end'][0]:.1f})", "",
             "| task | tool | success | calls | bytes | tool s |", "|---|---|---|---|---|---|"]
    totals: dict[str, dict[str, float]] = {t: {"ok": 0, "n": 0, "calls": 0, "bytes": 0, "seconds": 0} for t in TOOLS}
    for key in result["tasks"]:
        for tool in TOOLS:
            rows = [r for r in recs if r["task"] == key and r["tool"] == tool]
            ok = sum(r["success"] for r in rows)
            t = totals[tool]
            t["ok"] += ok
            t["n"] += len(rows)
            for k in ("calls", "bytes", "seconds"):
                t[k] += _median(rows, k)
            lines.append(f"| {key} | {tool} | {ok}/{len(rows)} | {_median(rows, 'calls'):.0f} | "
                         f"{_median(rows, 'bytes'):,.0f} | {_median(rows, 'seconds'):.2f} |")
    for tool in TOOLS:
        t = totals[tool]
        lines.append(f"| **total** | {tool} | {t['ok']:.0f}/{t['n']:.0f} | {t['calls']:.0f} | {t['bytes']:,.0f} | "
                     f"{t['seconds']:.2f} |")
    e, p = totals["ego-mcp"], totals["playwright-mcp"]

    def ratio(k: str) -> str:
        return f"{e[k] / p[k]:.2f}" if p[k] else "n/a"

    lines += ["", f"Ratios ego-browser mcp / Playwright MCP (sums of the per-task medians): calls {ratio('calls')}, "
                  f"bytes {ratio('bytes')}, tool time {ratio('seconds')}.",
              f"Tool listing the agent reads once per session: ego-browser mcp {result['tool_count']['ego-mcp']} tool, "
              f"{result['schema']['ego-mcp']:,} bytes; Playwright MCP {result['tool_count']['playwright-mcp']} tools, "
              f"{result['schema']['playwright-mcp']:,} bytes. The usage guide ego-browser mcp's tool asks the agent to read "
              f"once (the resource ego-browser://guide): {result['guide']:,} bytes, not in the task bytes above."]
    once_e = result["schema"]["ego-mcp"] + result["guide"]
    once_p = result["schema"]["playwright-mcp"]
    if p["bytes"]:
        lines.append(f"With those one-time reads counted once (ego: listing + guide; Playwright MCP: listing): "
                     f"{e['bytes'] + once_e:,.0f} vs {p['bytes'] + once_p:,.0f} bytes, "
                     f"ratio {(e['bytes'] + once_e) / (p['bytes'] + once_p):.2f}.")
    same = e["ok"] >= p["ok"]
    lines.append(f"Targets (issue 34 §2): same success: {'met' if same else 'NOT met'} "
                 f"({e['ok']:.0f}/{e['n']:.0f} vs {p['ok']:.0f}/{p['n']:.0f}); bytes <= {BYTES_TARGET}x Playwright MCP's: "
                 f"{'met' if p['bytes'] and e['bytes'] <= BYTES_TARGET * p['bytes'] else 'NOT met'} ({ratio('bytes')}).")
    return "\n".join(lines)


def run(runs: int | None = None, keys: list[str] | None = None) -> str:
    runs = runs or int(os.environ.get("BENCH_MCP_RUNS", "1"))
    keys = [k for k in (keys or registry.SETS["admin"]) if k in trace_pwmcp.TRACES]
    return render(benchmark(runs, keys, log=lambda s: print(s, flush=True)))
