"""Many agents on one machine (issue 31 §2): N agents, each in its own space, at once.

Each agent runs ROUNDS rounds of a realistic mix on its own site (``density_site.py``): ``goto``
its page, ``snapshot``, ``fill``, ``click`` (and read what the click saved); every 4th round
(from the 2nd) also opens a popup and reads it, every 4th (from the 4th) downloads a file and
reads it. A round that raises is a failure; a round that reads another agent's name (in its
snapshot, popup, file or saved text) or storage another agent wrote is cross-talk.

Per size: rounds/s over all agents; p50/p95 round time and their ratio to one agent alone;
fairness (p95 / median, and the slowest agent's mean round against the mean); how busy the
cores were with the run's processes; CPU seconds per round split by process (``round``: this
process, the agents' client code; ``host``: the ego host daemon; ``browser``: Chromium's
browser, GPU, utility and zygote processes; ``renderer``); PSS per space (Chromium's included)
right after the rounds (active) and once every idle space's tabs are frozen (idle, after
``--freeze-idle`` seconds without a call). Each size runs on a fresh background host (its own
home, its own Chromium). The site runs in its own process, counted nowhere.

The same bench runs against agent-browser (one daemon and Chromium per session) as the
baseline row, where it is installed (``benchmarks/setup_peers.sh``); ``--grid`` also places
spaces on a two-node Selenium Grid (``tests/grid.py``) and reports the spaces and sessions on
each node (checked against the nodes' own session lists) and their evenness (fewest / most).

    .venv/bin/python benchmarks/bench_density.py --sizes 1,10,25,50 --rounds 20 --write-docs
    .venv/bin/python benchmarks/bench_density.py --sizes 2,5 --rounds 3       # a check (~2 min)
    make bench-density                                                        # the first line
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

import density_procs as procs  # noqa: E402
from density_site import agent_origin, check  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
HEADING = "## Many agents on one machine (bench_density.py)"


@dataclass
class Run:
    tool: str
    agents: int
    rounds: int = 0
    wall: float = 0.0
    times: list[float] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # each round's kind (kind_of), parallel to times
    per_agent: dict[str, list[float]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    crosstalk: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU s per round by process group
    busy: float = 0.0  # the run's processes' CPU / (wall × cores)
    machine_busy: float = 0.0  # the whole machine's
    mem_active: dict[str, float] = field(default_factory=dict)  # MB per space by group
    mem_idle: dict[str, float] = field(default_factory=dict)
    frozen: int = 0
    churn: tuple[int, int] = (0, 0)  # tabs frozen and woken while the rounds ran (each costs a GC)
    refused: int = 0  # calls refused with EGO_HOST_OVERLOADED (then repeated after a pause)
    limit: int = 0  # the host's admission limit (calls at once)
    yielded: int = 0  # trace captures that waited for the agents' calls (and were shared)
    idle_cpu: dict[str, float] = field(default_factory=dict)  # CPU % of a core per space: before/after freezing
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    nodes: dict[str, int] = field(default_factory=dict)  # Grid: spaces per node (every node, 0 included)
    node_browsers: dict[str, int] = field(default_factory=dict)  # Grid: our sessions per node
    cdp: dict[str, float] = field(default_factory=dict)  # CDP commands/events per round, by method


def kind_of(i: int) -> str:
    """A round's kind: popup and download rounds do more than plain ones."""
    return "popup" if i % 4 == 1 else "download" if i % 4 == 3 else "plain"


def by_kind(r: Run) -> dict[str, float]:
    """p95 / median within each kind of round: the spread that is waiting, not a longer mix."""
    out = {}
    for kind in sorted(set(r.kinds)):
        ts = [t for t, k in zip(r.times, r.kinds) if k == kind]
        if ts:
            out[kind] = pct(ts, 0.95) / statistics.median(ts)
    return out


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else 0.0


# -- ego ------------------------------------------------------------------------------------


async def _direct(fn: Any) -> Any:
    return await fn()


async def ego_round(page: Any, origin: str, who: str, i: int, crosstalk: list[str], call: Any = _direct) -> None:
    """One round; ``call(fn)`` makes each call (the agents repeat a call the host refused)."""
    await call(lambda: page.goto(f"{origin}/agent?who={who}&r={i}"))
    check(await call(page.snapshot), who, i, "snapshot", crosstalk)
    await call(lambda: page.fill("#name", f"{who} round {i}"))
    await call(lambda: page.click("#save"))
    saved = await call(lambda: page.evaluate("document.querySelector('#out').textContent"))
    if saved != f"saved {who} round {i} by {who}":
        crosstalk.append(f"{who} round {i} click: read {saved!r}")
    if i % 4 == 1:
        popup = await call(lambda: _expect(page, "popup", "#pop"))
        check(await call(popup.snapshot), who, i, "popup", crosstalk)
        await call(popup.close)
    if i % 4 == 3:
        download = await call(lambda: _expect(page, "download", "#dl"))
        body = Path(await call(download.path)).read_text()
        check(body[:100].replace("report of ", "tag ").replace(" round ", "/"), who, i, "download", crosstalk)
        await call(download.delete)


async def _expect(page: Any, event: str, selector: str) -> Any:
    """Click ``selector`` and return the ``event`` it causes. A click the host refuses (nothing of it
    ran) leaves this step with its waiter cancelled, so the agent repeats the step with a fresh one:
    the waiter's time is the clicked page's, not the queue's."""
    async with page.expect_event(event) as info:
        await page.click(selector)
    return await info.value


async def _polite(call: Any, run: Run, tries: int = 5) -> Any:
    """``await call()``, pausing and repeating it when the host refuses it at its admission
    limit (EGO_HOST_OVERLOADED says the call did not run: what an agent is told to do); counted."""
    from ego_browser.errors import HostOverloaded

    for attempt in range(tries):
        try:
            return await call()
        except HostOverloaded:
            run.refused += 1
            if attempt == tries - 1:
                raise
            await asyncio.sleep(0.5 * (attempt + 1))


async def ego_agent(name: str, origin: str, who: str, rounds: int, run: Run, ready: list[Any],
                    go: asyncio.Event, done: asyncio.Queue[str], leave: asyncio.Event) -> None:
    import ego_browser
    from ego_browser.client.channel import SocketChannel, use_channel

    channel = SocketChannel()
    use_channel(channel)  # each agent talks to the host over its own connection
    try:
        try:
            task = await _polite(lambda: ego_browser.task_space(name), run)
        except Exception as exc:  # noqa: BLE001 - counted: this agent never ran
            run.failures.append(f"{who} space: {getattr(exc, 'code', type(exc).__name__)}: {str(exc)[:160]}")
            ready.append(None)
            return
        ready.append(task)
        await go.wait()
        page = task.page("p1")
        mine = run.per_agent.setdefault(who, [])
        for i in range(rounds):
            t0 = time.perf_counter()
            try:
                # EGO_HOST_OVERLOADED says the refused call did not run: the agent repeats that call
                await ego_round(page, origin, who, i, run.crosstalk, lambda fn: _polite(fn, run))
            except Exception as exc:  # noqa: BLE001 - counted, the agent goes on
                run.failures.append(f"{who} round {i}: {getattr(exc, 'code', type(exc).__name__)}: {str(exc)[:160]}")
                continue
            dt = time.perf_counter() - t0
            run.times.append(dt)
            run.kinds.append(kind_of(i))
            mine.append(dt)
        done.put_nowait(who)
        await leave.wait()  # the space stays open (and goes idle) until the measurements are taken
        try:
            await task.finish(keep=[])
        except ego_browser.EgoError:
            pass
    finally:
        done.put_nowait(who)  # (again, if the rounds never ran: the count only needs one per agent)
        await channel.aclose()


async def _status() -> dict[str, Any]:
    from ego_browser.client.channel import current_channel

    return await current_channel().call("host.status", {})  # type: ignore[no-any-return]


def _groups(status: dict[str, Any], grid: Any = None) -> procs.Groups:
    if grid is not None:  # the Grid's Java processes are ours, not the round's: hub, and nodes with their browsers
        return procs.Groups(roots={"round": [os.getpid()], "host": [status["pid"]], "grid": [grid.hub.proc.pid],
                                   "chromium": [n.proc.pid for n in grid.nodes]}, chromium={"chromium"})
    return procs.Groups(roots={"round": [os.getpid()], "host": [status["pid"]],
                               "chromium": [status["browser_pid"]] if status.get("browser_pid") else []},
                        chromium={"chromium"})


def _per_space(now: dict[str, float], base: dict[str, float], n: int) -> dict[str, float]:
    keys = ("host", "browser", "renderer")
    out = {k: (now.get(k, 0.0) - base.get(k, 0.0)) / n for k in keys}
    out["total"] = sum(out.values())
    return out


async def _placement(run: Run, grid: Any) -> None:
    """Spaces and sessions per Grid node, from each space's "browser" ("grid NODE session ID"),
    every node the hub lists counted (an unused node counts 0); a session the node itself does
    not list is a failure (the listing would be wrong about where the space runs)."""
    import ego_browser

    run.nodes = {str(n.get("uri", "")).rstrip("/"): 0 for n in grid.status().get("nodes", [])}
    running = grid.sessions()  # asked of each node
    sessions: dict[str, set[str]] = {}
    for info in await ego_browser.list_task_spaces():
        if not str(info.get("name", "")).startswith("density-"):
            continue
        node, _, session = str(info.get("browser") or "?").removeprefix("grid ").partition(" session ")
        run.nodes[node] = run.nodes.get(node, 0) + 1
        sessions.setdefault(node, set()).add(session)
        if session not in running.get(node, []):
            run.failures.append(f"{info.get('name')}: session {session} is not on node {node}")
    run.node_browsers = {k: len(sessions.get(k, ())) for k in run.nodes}


def evenness(nodes: dict[str, int]) -> tuple[float, int]:
    """(fewest / most spaces per node: 1.0 is even, 0 a node left idle; most − fewest)."""
    if not nodes or not max(nodes.values()):
        return 0.0, 0
    return min(nodes.values()) / max(nodes.values()), max(nodes.values()) - min(nodes.values())


async def _wait_frozen(n: int, limit: float) -> int:
    end = time.monotonic() + limit
    while True:
        frozen = int((await _status()).get("frozen_tabs", 0))
        if frozen >= n or time.monotonic() > end:
            return frozen
        await asyncio.sleep(0.5)  # a bench polls the host's own count; tests wait on events


async def _idle_cpu(groups: procs.Groups, n: int, seconds: float) -> float:
    c0 = procs.cpu_by_group(groups)
    await asyncio.sleep(seconds)
    c1 = procs.cpu_by_group(groups)
    used = sum(c1.get(k, 0.0) - c0.get(k, 0.0) for k in ("host", "browser", "renderer"))
    return 100 * used / seconds / n


async def ego_size(n: int, rounds: int, port: int, freeze_idle: float, grid: Any = None) -> Run:
    import ego_browser

    home = tempfile.mkdtemp(prefix=f"ego-bench-density-{n}-")
    os.environ["EGO_BROWSER_HOME"] = home
    os.environ["EGO_BROWSER_FREEZE_IDLE"] = str(freeze_idle)
    os.environ["EGO_BROWSER_PAGE_BUDGET"] = "8"
    grid_url = grid.url if grid is not None else None
    if grid_url:
        os.environ["EGO_BROWSER_GRID_URL"] = grid_url
    run = Run("ego_browser" + (" (Grid)" if grid_url else ""), n)
    try:
        status = await _status()  # starts the host and its browser
        groups = _groups(status, grid)
        renderers = procs.count_kind(groups, "renderer")
        warm = await ego_browser.task_space("warm-up")  # the first navigation's one-off costs
        await ego_round(warm.page("p1"), agent_origin(port, "a0"), "a0", 1, [])
        await warm.finish(keep=[])
        # memory with no space open: once the warm-up's renderer is gone (a dying one would
        # make the first spaces look cheaper than nothing); the one-off costs stay in the base
        end = time.monotonic() + 15
        while procs.count_kind(groups, "renderer") > renderers and time.monotonic() < end:
            await asyncio.sleep(0.2)
        base = procs.pss_by_group(groups)
        names = [f"a{i + 1}" for i in range(n)]
        ready: list[Any] = []
        go, leave = asyncio.Event(), asyncio.Event()
        done: asyncio.Queue[str] = asyncio.Queue()
        agents = [asyncio.ensure_future(ego_agent(f"density-{who}", agent_origin(port, who), who, rounds, run, ready,
                                                  go, done, leave)) for who in names]
        while len(ready) < n:  # every space open (or given up) before the clock starts
            await asyncio.sleep(0.05)
        tasks = [t for t in ready if t is not None]
        before = await _status()
        cpu0, (busy0, total0) = procs.cpu_by_group(groups), procs.machine_busy()
        t0 = time.perf_counter()
        go.set()
        finished: set[str] = set()
        while len(finished) < n:  # every agent's rounds are over
            finished.add(await done.get())
        run.wall = time.perf_counter() - t0
        cpu1, (busy1, total1) = procs.cpu_by_group(groups), procs.machine_busy()
        run.load = os.getloadavg()
        run.rounds = len(run.times)
        used = {k: cpu1.get(k, 0.0) - cpu0.get(k, 0.0) for k in cpu1}
        run.cpu = {k: v / max(1, run.rounds) for k, v in used.items()}
        after = await _status()
        if grid_url:
            await _placement(run, grid)
        for kind, key in (("command", "cdp_commands"), ("event", "cdp_events")):
            old = before.get(key) or {}
            for method, count in (after.get(key) or {}).items():
                if count - old.get(method, 0):
                    run.cdp[f"{kind}:{method}"] = (count - old.get(method, 0)) / max(1, run.rounds)
        run.limit = int(after.get("calls_limit", 0))
        run.yielded = int(after.get("pictures_yielded", 0)) - int(before.get("pictures_yielded", 0))
        run.churn = (int(after.get("freezes", 0)) - int(before.get("freezes", 0)),
                     int(after.get("wakes", 0)) - int(before.get("wakes", 0)))
        cores = os.cpu_count() or 1
        run.busy = sum(v for k, v in used.items() if ":" not in k) / (run.wall * cores)
        run.machine_busy = (busy1 - busy0) / max(1e-9, total1 - total0)
        run.mem_active = _per_space(procs.pss_by_group(groups), base, n)
        if freeze_idle > 0:
            run.idle_cpu["live"] = await _idle_cpu(groups, n, min(3.0, freeze_idle * 0.6))
            run.frozen = await _wait_frozen(n, freeze_idle * 3 + 30)
            run.idle_cpu["frozen"] = await _idle_cpu(groups, n, 3.0)
            run.mem_idle = _per_space(procs.pss_by_group(groups), base, n)
        leave.set()
        await asyncio.gather(*agents, return_exceptions=True)
    finally:
        try:  # a loaded machine can take long to stop a host of 50 spaces; never leave it running
            subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], capture_output=True, timeout=180)
        except subprocess.TimeoutExpired:
            print(f"host of {home} did not stop in 180 s: EGO_BROWSER_HOME={home} python -m ego_browser host stop",
                  file=sys.stderr)
        os.environ.pop("EGO_BROWSER_GRID_URL", None)
    return run


# -- report ---------------------------------------------------------------------------------


def _verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def section(runs: list[Run], rounds: int, freeze_idle: float, peer_note: str = "") -> str:
    ego = [r for r in runs if r.tool == "ego_browser"]
    one = next((r for r in ego if r.agents == 1), None)
    cores = os.cpu_count() or 1
    out = [
        HEADING, "",
        f"N agents at once, each in its own space on its own site, {rounds} rounds each: goto, snapshot, fill, "
        "click and read back; a popup every 4th round and a download every 4th (bench_density.py has the "
        f"mix). {cores} cores; each size on a fresh background host. CPU per round by process: round (the agents' "
        "client), host (the ego daemon), browser (Chromium's browser, GPU, utility, zygote), renderer. Memory is "
        "PSS per space over the host's and Chromium's processes, less the same with no space open (after a warm-up "
        "space came and went): right after "
        f"the rounds (active), and once the idle spaces' tabs are frozen ({freeze_idle:g} s without a call). "
        "Busy is the run's processes' CPU over wall × cores; load is the 1/5/15-minute load average at the end. "
        "p95/p50 same kind is the worst of that ratio within plain, popup and download rounds (a popup round "
        "does more than a plain one, so the overall ratio mixes work with waiting); slowest agent is the "
        "slowest agent's mean round over the mean of all agents' means. Refused counts calls the host refused at "
        "its admission limit (EGO_HOST_OVERLOADED); the agent pauses and repeats the round, as the error says.",
        "",
        "| tool | agents | rounds | fail | cross-talk | refused | rounds/s | p50 ms | p95 ms | p95/p50 | p95/p50 same kind | p50 vs 1 | p95 vs 1 | rounds/s vs 1 | slowest agent | "
        "busy | CPU ms/round: round, host, browser, renderer | MB/space active | MB/space idle (frozen) | "
        "MB/space active: host, browser, renderer | MB/space idle: host, browser, renderer | "
        "idle CPU %/space live → frozen | load |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|---|---|",
    ]
    for r in runs:
        p50, p95 = statistics.median(r.times) if r.times else 0.0, pct(r.times, 0.95)
        means = [statistics.mean(v) for v in r.per_agent.values() if v]
        slow = max(means) / statistics.mean(means) if means else 0.0
        # the Grid row against the local one agent (the same tool, its browser on this machine)
        base = next((x for x in runs if x.tool == r.tool.split(" (")[0] and x.agents == 1), None)
        vs1 = p50 / statistics.median(base.times) if base and base.times else 0.0
        p95vs1 = p95 / pct(base.times, 0.95) if base and base.times else 0.0
        rate = r.rounds / r.wall if r.wall else 0.0
        ratevs1 = rate / (base.rounds / base.wall) if base and base.wall and base.rounds else 0.0
        cpu = ", ".join(f"{r.cpu.get(k, 0.0) * 1000:.0f}" for k in ("round", "host", "browser", "renderer"))
        idle = (f"{r.mem_idle.get('total', 0):.1f} ({r.frozen}/{r.agents})" if r.mem_idle else "–")
        icpu = (f"{r.idle_cpu.get('live', 0):.2f} → {r.idle_cpu.get('frozen', 0):.2f}" if r.idle_cpu else "–")
        split = [", ".join(f"{m.get(k, 0.0):.1f}" for k in ("host", "browser", "renderer")) if m else "–"
                 for m in (r.mem_active, r.mem_idle)]
        out.append(
            f"| {r.tool} | {r.agents} | {r.rounds} | {len(r.failures)} | {len(r.crosstalk)} | {r.refused} | "
            f"{r.rounds / r.wall if r.wall else 0:.2f} | {p50 * 1000:.0f} | {p95 * 1000:.0f} | {p95 / p50 if p50 else 0:.2f} | "
            f"{max(by_kind(r).values(), default=0):.2f} | "
            f"{vs1:.2f}× | {p95vs1:.2f}× | {ratevs1:.2f}× | {slow:.2f}× | {r.busy * 100:.0f}% | {cpu} | {r.mem_active.get('total', 0):.1f} | {idle} | "
            f"{split[0]} | {split[1]} | {icpu} | {' / '.join(f'{x:.1f}' for x in r.load)} |")
    if peer_note:
        out += ["", peer_note]
    out += ["", *where_cpu_goes(runs), "", *cdp_per_round(runs)]
    out += ["", *targets(ego, one)]
    for r in runs:
        if r.nodes:
            even, spread = evenness(r.nodes)
            out += ["", f"Grid placement at {r.agents} agents over {len(r.nodes)} nodes, spaces per node (their "
                    "sessions): " + ", ".join(f"{k}: {v} ({r.node_browsers.get(k, 0)})" for k, v in sorted(r.nodes.items()))
                    + f"; evenness (fewest / most spaces per node) {even:.2f}, most − fewest {spread} (even: at most "
                    f"one apart, {_verdict(spread <= 1)})."]
    problems = [p for r in runs for p in (r.failures + r.crosstalk)[:5]]
    if problems:
        out += ["", "First failures and cross-talk seen:", "", *(f"- {p}" for p in problems[:20])]
    return "\n".join(out) + "\n"


def where_cpu_goes(runs: list[Run]) -> list[str]:
    """Chromium's CPU per round by process role (the browser column above, split)."""
    kinds = sorted({k.split(":", 1)[1] for r in runs for k in r.cpu if k.startswith("chromium:")})
    if not kinds:
        return []
    out = ["Where Chromium's CPU goes, ms per round by process role (main is the browser process; "
           "NetworkService, StorageService ... are its utility processes):", "",
           "| tool | agents | " + " | ".join(kinds) + " |", "|---|---:|" + "---:|" * len(kinds)]
    for r in runs:
        out.append(f"| {r.tool} | {r.agents} | "
                   + " | ".join(f"{r.cpu.get('chromium:' + k, 0.0) * 1000:.0f}" for k in kinds) + " |")
    return out


def cdp_per_round(runs: list[Run]) -> list[str]:
    """What the host asked of the browser per round (every CDP message crosses the browser
    process): totals by size, and the busiest methods at the largest size."""
    ego = [r for r in runs if r.cdp]
    if not ego:
        return []
    out = ["CDP traffic per round (the browser process relays every command and event): "
           + "; ".join(f"{r.agents} agents: {sum(v for k, v in r.cdp.items() if k.startswith('command:')):.0f} commands, "
                       f"{sum(v for k, v in r.cdp.items() if k.startswith('event:')):.0f} events" for r in ego) + "."]
    top = max(ego, key=lambda r: r.agents)
    busiest = sorted(top.cdp.items(), key=lambda kv: -kv[1])[:12]
    out.append(f"Busiest at {top.agents} agents: " + ", ".join(f"{k.split(':', 1)[1]} ({k.split(':', 1)[0]}) {v:.1f}"
                                                        for k, v in busiest) + ".")
    one = next((r for r in ego if r.agents == 1), None)
    if one is not None and top is not one:
        # what a round asks more of the browser when many spaces run: the per-space tax, if any
        grew = sorted(((k, top.cdp.get(k, 0.0) - one.cdp.get(k, 0.0)) for k in set(top.cdp) | set(one.cdp)),
                      key=lambda kv: -abs(kv[1]))[:8]
        out.append(f"Per round at {top.agents} agents against 1, the largest changes: "
                   + ", ".join(f"{k.split(':', 1)[1]} ({k.split(':', 1)[0]}) {v:+.1f}" for k, v in grew) + ".")
    out.append("Trace captures per round (each costs the renderer, the GPU process and the browser a frame; they "
               "yield to calls waiting for a turn, shared by the actions meanwhile): "
               + "; ".join(f"{r.agents} agents: {r.cdp.get('command:Page.captureScreenshot', 0.0):.1f} "
                           f"({r.yielded} yielded; {r.limit} calls at once)" for r in ego) + ".")
    churn = [f"{r.agents} agents: {r.churn[0]} frozen, {r.churn[1]} woken" for r in ego if any(r.churn)]
    if churn:
        out.append("Tabs frozen and woken while the rounds ran (each freeze collects the page's garbage): "
                   + "; ".join(churn) + ".")
    return out


def targets(ego: list[Run], one: Run | None) -> list[str]:
    """Each target of issue 31 §2, met or not, from these figures."""
    if not ego:
        return []
    lines = ["Targets (issue 31):", ""]
    clean = all(not r.failures and not r.crosstalk for r in ego)
    lines.append(f"- 0 failures and 0 cross-talk at every size: {_verdict(clean)}.")
    ten = next((r for r in ego if r.agents == 10), None)
    if ten and one and one.wall and ten.wall:
        gain = (ten.rounds / ten.wall) / (one.rounds / one.wall)
        lines.append(f"- at 10 agents cores ≥ 90% busy with rounds ({ten.busy * 100:.0f}%) and rounds/s ≥ 1.25× one "
                     f"agent's ({gain:.2f}×): {_verdict(ten.busy >= 0.9 and gain >= 1.25)}.")
    top = max(ego, key=lambda r: r.agents)
    if one and top.agents > 1:
        ratio = _cpu(top) / max(1e-9, _cpu(one))
        lines.append(f"- CPU per round at {top.agents} agents ≤ 1.1× one agent's ({ratio:.2f}×): {_verdict(ratio <= 1.1)}.")
    fair = [(r.agents, pct(r.times, 0.95) / statistics.median(r.times)) for r in ego if r.times]
    lines.append("- p95 ≤ 2.5× median at each size (" + ", ".join(f"{n}: {x:.2f}×" for n, x in fair) + "): "
                 + _verdict(all(x <= 2.5 for _, x in fair)) + " (within one kind of round, worst: "
                 + ", ".join(f"{r.agents}: {max(by_kind(r).values(), default=0):.2f}×" for r in ego) + ").")
    act = max((r.mem_active.get("total", 0.0) for r in ego), default=0.0)
    idle = max((r.mem_idle.get("total", 0.0) for r in ego if r.mem_idle), default=0.0)
    m_act, m_idle = marginal(ego, "mem_active"), marginal(ego, "mem_idle")
    if m_act is not None and m_idle is not None:
        # one space's figure carries the one-off costs of the first (Chromium's network and GPU
        # processes grow once); what a space adds is the slope between the smallest and largest size
        lines.append(f"- memory per idle space ≤ 30 MB and per active space ≤ 80 MB, each space's share as the "
                     f"slope from {min(r.agents for r in ego)} to {top.agents} agents (idle {m_idle:.1f}, active "
                     f"{m_act:.1f}; per size, worst idle {idle:.1f} and active {act:.1f}): "
                     f"{_verdict(m_idle <= 30 and m_act <= 80)}.")
    else:
        lines.append(f"- memory per idle space ≤ 30 MB (worst {idle:.1f}) and per active space ≤ 80 MB (worst "
                     f"{act:.1f}): {_verdict(idle <= 30 and act <= 80 and any(r.mem_idle for r in ego))}.")
    return lines


def marginal(ego: list[Run], key: str) -> float | None:
    """MB one more space adds: the total's slope between the smallest and largest size measured."""
    sized = sorted((r for r in ego if getattr(r, key)), key=lambda r: r.agents)
    if len(sized) < 2 or sized[0].agents == sized[-1].agents:
        return None
    lo, hi = sized[0], sized[-1]
    total = [getattr(r, key)["total"] * r.agents for r in (lo, hi)]
    return (total[1] - total[0]) / (hi.agents - lo.agents)


def _cpu(r: Run) -> float:
    return sum(v for k, v in r.cpu.items() if ":" not in k)


def update_doc(text: str, doc: Path = DOC) -> None:
    """Replace (or append) this bench's section of docs/benchmarks.md, atomically."""
    old = doc.read_text() if doc.exists() else "# Benchmarks\n"
    start = old.find("\n" + HEADING + "\n")
    if start == -1:
        new = old.rstrip() + "\n\n" + text
    else:
        end = old.find("\n## ", start + 1)
        new = old[:start + 1] + text + (old[end:] if end != -1 else "")
    tmp = doc.with_suffix(".md.tmp")
    tmp.write_text(new)
    os.replace(tmp, doc)


# -- driver ---------------------------------------------------------------------------------


def start_site() -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, str(HERE / "density_site.py")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def measure(sizes: list[int], rounds: int, freeze_idle: float, peer: bool, grid: bool) -> tuple[list[Run], str]:
    import density_peer

    site, port = start_site()
    runs: list[Run] = []
    note = ""
    try:
        for n in sizes:
            runs.append(asyncio.run(ego_size(n, rounds, port, freeze_idle, None)))
            print(f"ego {n}: {runs[-1].rounds} rounds in {runs[-1].wall:.1f}s, {len(runs[-1].failures)} failures",
                  flush=True)
        if peer:
            why = density_peer.missing()
            if why:
                note = f"agent-browser: not run ({why})."
            for n in ([] if why else sizes):
                runs.append(density_peer.run_size(n, rounds, port, Run))
                print(f"agent-browser {n}: {runs[-1].rounds} rounds in {runs[-1].wall:.1f}s", flush=True)
        if grid:
            from tests.grid import start_grid

            g = start_grid()
            try:
                n = max(sizes)
                runs.append(asyncio.run(ego_size(n, rounds, port, 0, g)))
            finally:
                g.stop()
    finally:
        site.terminate()
        site.wait(timeout=10)
    return runs, note


def run() -> list[str]:
    """For benchmarks/run_all.py (sizes and rounds from BENCH_DENSITY_SIZES / _ROUNDS)."""
    sizes = [int(x) for x in os.environ.get("BENCH_DENSITY_SIZES", "1,10,25,50").split(",")]
    rounds = int(os.environ.get("BENCH_DENSITY_ROUNDS", "20"))
    runs, note = measure(sizes, rounds, 5.0, True, False)
    return [section(runs, rounds, 5.0, note)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1,10,25,50", help="agent counts, comma-separated (default 1,10,25,50)")
    ap.add_argument("--rounds", type=int, default=20, help="rounds per agent (default 20)")
    ap.add_argument("--freeze-idle", type=float, default=5.0,
                    help="EGO_BROWSER_FREEZE_IDLE of the bench's hosts, seconds (default 5; 0 skips the idle phase)")
    ap.add_argument("--no-peer", action="store_true", help="skip the agent-browser baseline")
    ap.add_argument("--grid", action="store_true", help="also run the largest size on a two-node Selenium Grid")
    ap.add_argument("--write-docs", action="store_true", help="replace this bench's section of docs/benchmarks.md")
    a = ap.parse_args()
    started = time.perf_counter()
    sizes = [int(x) for x in a.sizes.split(",")]
    runs, note = measure(sizes, a.rounds, a.freeze_idle, not a.no_peer, a.grid)
    text = section(runs, a.rounds, a.freeze_idle, note)
    print(text)
    if a.write_docs:
        update_doc(text)
        print(f"wrote its section of {DOC}")
    print(f"(bench_density took {time.perf_counter() - started:.0f} s)")
    return 1 if any(r.failures or r.crosstalk for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
