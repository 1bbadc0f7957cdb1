"""Scale-out: N agents on one local browser vs on a two-node Selenium Grid (issue 16).

- **rounds**: N agents (1, 4, 8, 16), each in its own task space, each doing ROUNDS rounds
  at once; a round is what an agent step does: ``goto`` the actions page, ``snapshot``,
  ``fill``, ``click``, ``evaluate``. Reported: rounds/s over all agents, p50/p95 round time.
  The same runs on a host with the local browser and on a host whose spaces live on a
  Grid (hub + two nodes on this machine, ``tests/grid.py``; 8 spaces per browser, so 16
  agents use two Grid sessions).
- **per call**: ``Runtime.evaluate("1")`` on one page of one Grid session, through the Grid's
  CDP proxy (``se:cdp``) vs directly on that Chromium's DevTools port: the proxy's own cost
  (target ≤ 1.3×), interleaved blocks, medians.

On one machine the Grid adds no CPU: all browsers share the same cores, so the Grid's rows
show its overhead, not its capacity; per node capacity is extrapolated from the measured
per-space cost in the report.

    .venv/bin/python benchmarks/bench_scale.py [--agents 1,4,8,16] [--rounds 10] [--calls 300]
    .venv/bin/python benchmarks/bench_scale.py --quick     # agents 1,8; 5 rounds; 300 calls (~2 min)
    .venv/bin/python benchmarks/bench_scale.py --per-call  # only the per-call comparison (~1 min)
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

from pages import serve  # noqa: E402

AGENTS = [int(x) for x in os.environ.get("BENCH_SCALE_AGENTS", "1,4,8,16").split(",")]
ROUNDS = int(os.environ.get("BENCH_SCALE_ROUNDS", "10"))
CALLS = int(os.environ.get("BENCH_SCALE_CALLS", "300"))
BLOCKS = 5
TARGET = 1.3


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


async def _agent_rounds(name: str, url: str, rounds: int, times: list[float], seen: list[int] | None = None,
                        host: object = None) -> None:
    import ego_browser

    task = await ego_browser.task_space(name)
    if seen is not None:
        seen.append(len(host.browser.members))  # type: ignore[attr-defined]  # the Host in use
    page = task.page("p1")
    try:
        for i in range(rounds):
            t0 = time.perf_counter()
            await page.goto(url)
            await page.snapshot()
            await page.fill("#name", f"agent {name} round {i}")
            await page.click("#btn")
            await page.evaluate("document.title")
            times.append(time.perf_counter() - t0)
    finally:
        await task.finish(keep=[])


def _cpu_seconds(groups: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds used so far by each group of process trees: every live process's own time
    plus the time of the children it reaped (closed tabs' renderers). A group's tree stops
    where another group's root starts (the Grid's JVMs are children of this process too).
    CPU time, unlike wall time, hardly depends on what else the machine runs."""
    ticks = os.sysconf("SC_CLK_TCK")
    kids: dict[int, list[int]] = {}
    own: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                f = fh.read().rsplit(b") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        kids.setdefault(int(f[1]), []).append(int(entry))
        own[int(entry)] = sum(int(x) for x in f[11:15])  # utime stime cutime cstime
    roots = {pid for pids in groups.values() for pid in pids}
    out = {}
    for name, pids in groups.items():
        seen: set[int] = set()
        todo = [p for p in pids if p in own]
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            todo += [k for k in kids.get(pid, []) if k not in roots]
        out[name] = sum(own[p] for p in seen) / ticks
    return out


async def _host_runs(kind: str, grid_url: str | None, url: str, grid: object = None) -> list[dict]:
    from ego_browser.client.channel import InProcessChannel, reset_channel, use_channel
    from ego_browser.host.core import features
    from ego_browser.host.core.host import Host
    from ego_browser.host.core.dispatch import load_all

    load_all()
    home = Path(tempfile.mkdtemp(prefix=f"ego-bench-scale-{kind}-"))
    if grid_url:
        os.environ["EGO_BROWSER_GRID_URL"] = grid_url
    else:
        os.environ.pop("EGO_BROWSER_GRID_URL", None)
    host = Host(features=features.build, home=home, embedded=True)
    await host.start()
    token = use_channel(InProcessChannel(host))
    rows = []
    try:
        await _agent_rounds(f"{kind}-warm", url, 2, [])  # first page load, first session
        groups: dict[str, list[int]] = {"host": [os.getpid()]}
        if grid is not None:
            groups["hub"] = [grid.hub.proc.pid]  # type: ignore[attr-defined]  # tests.grid.Grid
            groups["nodes"] = [n.proc.pid for n in grid.nodes]  # type: ignore[attr-defined]
        else:
            proc = host.browser.process
            groups["browser"] = sorted({proc.pid, proc.leader} - {0}) if proc is not None else []
        for n in AGENTS:
            times: list[float] = []
            seen: list[int] = []
            cpu0 = _cpu_seconds(groups)
            t0 = time.perf_counter()
            await asyncio.gather(*(_agent_rounds(f"{kind}-{n}-{i}", url, ROUNDS, times, seen, host) for i in range(n)))
            wall = time.perf_counter() - t0
            cpu1 = _cpu_seconds(groups)
            cpu = {k: (cpu1[k] - cpu0[k]) / max(1, len(times)) for k in groups}
            rows.append({"kind": kind, "agents": n, "rounds": len(times), "wall": wall,
                         "rps": len(times) / wall, "p50": _pct(times, 0.5), "p95": _pct(times, 0.95),
                         "browsers": max(seen), "cpu": cpu, "load": os.getloadavg()[0]})
    finally:
        reset_channel(token)
        await host.stop(kill_browser=True)
        os.environ.pop("EGO_BROWSER_GRID_URL", None)
    return rows


async def _per_call(grid_url: str, url: str) -> dict:
    """One Grid session; the same page driven three ways, interleaved blocks: directly on the
    Chromium's DevTools port (the floor), through the node's own se/cdp endpoint (what the
    host uses when it can reach the node) and through the hub (the hub's router, then the
    node: what it falls back to)."""
    import urllib.request

    import orjson

    from ego_browser.browser.grid import GridClient
    from ego_browser.browser.providers import grid_chrome_args
    from ego_browser.cdp import Connection

    client = GridClient(grid_url)
    session = await client.new_session(grid_chrome_args())
    conns: dict[str, Connection] = {}
    try:
        debugger = session.capabilities.get("goog:chromeOptions", {}).get("debuggerAddress", "")
        with urllib.request.urlopen(f"http://{debugger}/json/version", timeout=10) as resp:
            direct_ws = orjson.loads(resp.read())["webSocketDebuggerUrl"]
        for name, ws in (("direct", direct_ws), ("node", session.node_cdp_url), ("hub", session.cdp_url)):
            conns[name] = await Connection.connect(ws)
        tid = (await conns["hub"].send("Target.createTarget", {"url": url}))["targetId"]
        sids = {}
        for name, conn in conns.items():
            sids[name] = (await conn.send("Target.attachToTarget", {"targetId": tid, "flatten": True}))["sessionId"]
        samples: dict[str, list[float]] = {name: [] for name in conns}
        for name, conn in conns.items():
            for _ in range(50):  # warm-up (the JVMs' JIT)
                await conn.send("Runtime.evaluate", {"expression": "1"}, session_id=sids[name])
        for _ in range(BLOCKS):
            for name, conn in conns.items():
                for _ in range(CALLS // BLOCKS):
                    t0 = time.perf_counter()
                    await conn.send("Runtime.evaluate", {"expression": "1"}, session_id=sids[name])
                    samples[name].append(time.perf_counter() - t0)
    finally:
        for conn in conns.values():
            await conn.close()
        await client.release(session.session_id)
    med = {name: statistics.median(v) for name, v in samples.items()}
    out: dict = {"load": os.getloadavg()[0]}
    for name, v in samples.items():
        out[f"{name}_ms"] = med[name] * 1000
        out[f"{name}_p95"] = _pct(v, 0.95) * 1000
    out["ratio"] = med["node"] / med["direct"]
    out["hub_ratio"] = med["hub"] / med["direct"]
    return out


async def measure(rounds: bool = True) -> tuple[list[dict], dict]:
    from tests.grid import start_grid

    rows: list[dict] = []
    with serve() as site:
        url = site.url("/actions")
        if rounds:
            rows += await _host_runs("local", None, url)
        grid = await asyncio.to_thread(start_grid)
        try:
            if rounds:
                rows += await _host_runs("grid", grid.url, url, grid)
            call = await _per_call(grid.url, url)
        finally:
            await asyncio.to_thread(grid.stop)
    return rows, call


def _section(rows: list[dict], call: dict) -> str:
    out = [
        "## Scale-out: local browser vs a two-node Selenium Grid (bench_scale.py)",
        "",
        f"N agents at once, each in its own space, {ROUNDS} rounds each (goto, snapshot, fill, click, "
        "evaluate on /actions); one host in-process. Grid: hub + two nodes on this machine "
        "(EGO_BROWSER_SPACES_PER_BROWSER=8). rounds/s is over the whole run, which on the Grid includes asking "
        "it for a session (none is open between runs: the policy gives idle sessions back); browsers is "
        "the most open at once.",
        "",
        "CPU per round is the CPU time of the processes involved (this host process, which also serves the "
        "pages; the local Chromium; or the hub, and the nodes with their chromedriver and Chromium) over the run, "
        "divided by its rounds: unlike wall time it hardly depends on the rest of the machine's load.",
        "",
        "| browser | agents | rounds | browsers | rounds/s | p50 round (ms) | p95 round (ms) | CPU ms per round | load |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    if not rows:
        out = out[:2]  # --per-call: no rounds were run
    for r in rows:
        cpu = ", ".join(f"{k} {v * 1000:.0f}" for k, v in r["cpu"].items())
        out.append(f"| {r['kind']} | {r['agents']} | {r['rounds']} | {r['browsers']} | {r['rps']:.1f} | "
                   f"{r['p50'] * 1000:.0f} | {r['p95'] * 1000:.0f} | {cpu} | {r['load']:.1f} |")
    ok = "meets" if call["ratio"] <= TARGET else "misses"
    out += [
        "",
        f"Per call (`Runtime.evaluate(\"1\")`, {CALLS} calls each way, interleaved blocks, same page of one Grid "
        f"session, load average {call['load']:.1f} at the end): Chromium's own DevTools port {call['direct_ms']:.2f} ms "
        f"(p95 {call['direct_p95']:.2f}); the node's se/cdp endpoint, which the host uses, {call['node_ms']:.2f} ms "
        f"(p95 {call['node_p95']:.2f}): **{call['ratio']:.2f}×** ({ok} the ≤ {TARGET}× target); through the hub "
        f"(the fallback when the node is out of reach) {call['hub_ms']:.2f} ms (p95 {call['hub_p95']:.2f}): "
        f"{call['hub_ratio']:.2f}×.",
    ]
    top = {r["kind"]: r for r in rows if r["agents"] == max(AGENTS)}
    if "grid" in top:
        g = top["grid"]["cpu"]
        node_ms, hub_ms, host_ms = g["nodes"] * 1000, g["hub"] * 1000, g["host"] * 1000
        out += [
            "",
            f"Sizing (from the CPU per round at {max(AGENTS)} agents): a round costs the nodes {node_ms:.0f} ms of CPU "
            f"(chromedriver, Chromium, the node's proxy), the hub {hub_ms:.0f} ms and the host {host_ms:.0f} ms. "
            "An agent doing one round per second therefore needs about "
            f"{node_ms / 1000:.2f} node cores, {hub_ms / 1000:.2f} hub cores and {host_ms / 1000:.2f} host cores "
            "(one machine's cores serve everything here, so the Grid adds no throughput on it: the wall-clock "
            "columns show its cost, the CPU column what each machine must bring).",
        ]
    return "\n".join(out)


def run(rounds: bool = True) -> list[str]:
    rows, call = asyncio.run(measure(rounds))
    return [_section(rows, call)]


if __name__ == "__main__":
    started = time.perf_counter()
    if "--quick" in sys.argv:
        AGENTS, ROUNDS = [1, 8], 5
    if "--agents" in sys.argv:
        AGENTS = [int(x) for x in sys.argv[sys.argv.index("--agents") + 1].split(",")]
    if "--rounds" in sys.argv:
        ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1])
    if "--calls" in sys.argv:
        CALLS = int(sys.argv[sys.argv.index("--calls") + 1])
    print("\n\n".join(run(rounds="--per-call" not in sys.argv)))
    print(f"\n(bench_scale took {time.perf_counter() - started:.0f} s)")
