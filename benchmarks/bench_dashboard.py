"""The dashboard's live view: how fast a frame follows the agent, and what watching costs agents.

On the agent path (a private ``EGO_BROWSER_HOME``, the background host reached over its socket):

- **latency**: the agent clicks a button that changes the page (a counter and a colour); the time
  from the start of ``page.click`` to the moment the dashboard page has decoded and shown the
  next frame (``window.egoDashboard.shown``, stamped in the dashboard page with ``Date.now()``;
  same machine, same clock).
- **cost to agents**: median ``page.click`` time (in this process) and median round wall time
  (``python -m ego_browser -e ...``, one click per round) with 1 and 4 live views of the agent's
  space open, each against the same views *not watching* in the same row, interleaved: blocks of
  ``BLOCK`` rounds (and ``BLOCK`` × 2 clicks) alternate between the views showing the agent's
  space (``#/space/ID``) and showing nothing (``#/space/0``), with one untimed click after each
  switch (a view that starts watching starts the page's screencast). Sequential rows drifted by
  10-30% between the two "none" rows of one run, more than the effect measured; the "none"
  rows (no dashboard open at all) are still run before and after, as a check.

Where the dashboards run, two ways, both measured:

- **another browser** (the person's own, as in real use): a second ego_browser home, so a second
  host and a second Chromium, in a child process (``--viewers``) that opens the dashboard tabs
  and reports when each frame was shown. That browser is started once, before its rows (a fresh Chromium's own start-up work lasts
  seconds and fell into the first watched row when each row launched its own), and measured
  first with no dashboard open ("none, another browser open");
- **the agent's browser** (the pessimistic case): tabs in spaces of the agent's own host and
  Chromium, which then decode and paint every frame in the agent's browser, on the same 2 cores.

Targets (issue 14): latency p50 <= 150 ms; 1 and 4 live views <= 1.2x of none (rounds and actions).

    .venv/bin/python benchmarks/bench_dashboard.py      # BENCH_DASH_N=60 BENCH_DASH_ROUNDS=12
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOME = tempfile.mkdtemp(prefix="ego-bench-dash-")
os.environ["EGO_BROWSER_HOME"] = HOME
sys.path.insert(0, str(ROOT))

N = int(os.environ.get("BENCH_DASH_N", "60"))
ROUNDS = int(os.environ.get("BENCH_DASH_ROUNDS", "12"))
WARMUP = 5
#: rounds per block of the interleaved watched / not watched measurement
BLOCK = int(os.environ.get("BENCH_DASH_BLOCK", "4"))
#: the route of a dashboard that shows no space: its tabs take no frames
NOWHERE = "#/space/0"

PAGE = b"""<!doctype html><meta charset=utf-8><title>bench</title>
<style>body{margin:0;font:48px sans-serif} #box{height:60vh;display:flex;align-items:center;justify-content:center}</style>
<div id=box>0</div><button id=btn style="font-size:32px" onclick="
  const n = +box.textContent + 1; box.textContent = n;
  box.style.background = n % 2 ? 'rgb(200,40,40)' : 'rgb(40,160,40)';">next</button>"""


def _serve() -> tuple[Any, str]:
    import threading
    from http.server import BaseHTTPRequestHandler

    from ego_browser.cli.demo_site import LocalHTTPServer

    class H(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *a: Any) -> None:
            pass

    srv = LocalHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/"


#: the row of the other browser running with no dashboard open (a check, as the none rows)
OTHER_NONE = "none, another browser open"


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


async def _open_viewers(ego: Any, url: str, space_id: int, n: int) -> list[Any]:
    out = []
    for i in range(n):
        v = await ego.task_space(f"bench-viewer-{i}-{time.monotonic_ns()}")
        page = v.page("p1")
        await page.goto(url)
        await page.evaluate("(id) => { location.hash = '#/space/' + id; }", space_id)
        await page.wait_for_function("window.egoDashboard.shown.length > 0", timeout=30000)
        out.append(v)
    return out


async def _actions(page: Any, n: int, warmup: int = WARMUP) -> list[float]:
    times = []
    for i in range(n + warmup):
        t0 = time.perf_counter()
        await page.click("#btn")
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1000)
    return times


class _OtherBrowser:
    """Dashboard tabs in a browser of their own: this file run with ``--viewers`` in a child
    process (its own EGO_BROWSER_HOME: its own host and Chromium), driven over its stdin."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc

    @classmethod
    async def open(cls, url: str, space_id: int, n: int) -> _OtherBrowser:
        env = {k: v for k, v in os.environ.items() if k != "EGO_BROWSER_HOME"}
        env["PYTHONPATH"] = str(ROOT)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).resolve()), "--viewers", url, str(space_id), str(n),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self = cls(proc)
        assert await self._line() == "ready"
        return self

    async def _line(self) -> str:
        line = await asyncio.wait_for(self.proc.stdout.readline(), 120)
        if not line:
            raise SystemExit("the other browser's viewer process ended")
        return str(line.decode().strip())

    async def ask(self, command: str) -> str:
        self.proc.stdin.write(command.encode() + b"\n")
        await self.proc.stdin.drain()
        return await self._line()

    async def close(self) -> None:
        await self.ask("quit")
        await asyncio.wait_for(self.proc.wait(), 120)


def _viewers_main(url: str, space_id: int, n: int) -> None:
    """The child process of _OtherBrowser: n dashboard tabs; answers 'shown' (frames shown in
    the first), 'at K' (when the first showed frame K, waiting for it), 'open K' (K more tabs)
    and 'quit'."""
    import ego_browser

    async def main() -> None:
        tabs = [v.page("p1") for v in await _open_viewers(ego_browser, url, space_id, n)]
        if not tabs:
            # the browser up with a page of its own (as a person's browser is), no dashboard yet
            blank = await ego_browser.task_space(f"bench-person-{time.monotonic_ns()}")
            await blank.page("p1").goto("about:blank")
        print("ready", flush=True)
        loop = asyncio.get_running_loop()
        while True:
            cmd = (await loop.run_in_executor(None, sys.stdin.readline)).split()
            if not cmd or cmd[0] == "quit":
                break
            if cmd[0] == "shown":
                print(await tabs[0].evaluate("window.egoDashboard.shown.length"), flush=True)
            elif cmd[0] == "route":
                for tab in tabs:
                    await tab.evaluate("(h) => { location.hash = h; }", cmd[1])
                print("routed", flush=True)
            elif cmd[0] == "open":
                tabs += [v.page("p1") for v in await _open_viewers(ego_browser, url, space_id, int(cmd[1]))]
                print("opened", flush=True)
            elif cmd[0] == "at":
                k = int(cmd[1])
                await tabs[0].wait_for_function("(k) => window.egoDashboard.shown.length > k", k, timeout=10000)
                print(await tabs[0].evaluate("(k) => window.egoDashboard.shown[k].at", k), flush=True)
        print("bye", flush=True)

    try:
        asyncio.run(main())
    finally:
        subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], capture_output=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)


async def _latency_other(page: Any, other: _OtherBrowser, n: int) -> list[float]:
    out = []
    for i in range(n + WARMUP):
        seen = int(await other.ask("shown"))
        t0 = time.time() * 1000
        await page.click("#btn")
        at = float(await other.ask(f"at {seen}"))
        if i >= WARMUP:
            out.append(at - t0)
    return out


def _rounds(space: str, n: int, warmup: int = 2) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = f"task = await task_space({space!r})\nawait task.page('p1').click('#btn')"
    times = []
    for i in range(n + warmup):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "ego_browser", "-e", code], env=env, capture_output=True,
                             text=True, timeout=120, stdin=subprocess.DEVNULL)
        if out.returncode != 0:
            raise SystemExit(f"round failed: {out.stderr}")
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1000)
    return times


async def _latency(page: Any, viewer_page: Any, n: int) -> list[float]:
    out = []
    for i in range(n + WARMUP):
        seen = await viewer_page.evaluate("window.egoDashboard.shown.length")
        t0 = time.time() * 1000
        await page.click("#btn")
        shown_at = await viewer_page.wait_for_function(
            "(k) => window.egoDashboard.shown.length > k", seen, timeout=10000)
        assert shown_at is True
        at = await viewer_page.evaluate("(k) => window.egoDashboard.shown[k].at", seen)
        if i >= WARMUP:
            out.append(at - t0)
    return out


async def main() -> list[str]:
    import ego_browser
    from ego_browser.cli.hostctl import call

    srv, url = _serve()
    rows: dict[str, tuple[list[float], list[float]]] = {}
    latency: dict[str, list[float]] = {}

    async def measure(name: str) -> None:
        rows[name] = (await _actions(page, N), await asyncio.to_thread(_rounds, "bench-agent", ROUNDS))

    async def measure_watched(name: str, route: Any) -> None:
        """Blocks of rounds and clicks, alternating between watching and not (see the module doc)."""
        acts: dict[bool, list[float]] = {True: [], False: []}
        rounds: dict[bool, list[float]] = {True: [], False: []}
        blocks = max(1, ROUNDS // BLOCK)
        for b in range(2 * blocks):
            watching = b % 2 == 0
            await route(f"#/space/{agent.space_id}" if watching else NOWHERE)
            await page.click("#btn")  # untimed: the first frame of a view that starts watching
            acts[watching] += await _actions(page, max(1, N // blocks), warmup=0)
            rounds[watching] += await asyncio.to_thread(_rounds, "bench-agent", BLOCK, warmup=0)
        await route(f"#/space/{agent.space_id}")  # watching again, for the rows after this one
        rows[name] = (acts[True], rounds[True])
        unwatched[name] = (acts[False], rounds[False])

    unwatched: dict[str, tuple[list[float], list[float]]] = {}

    async def route_agents_views(viewers: list[Any], h: str) -> None:
        for v in viewers:
            await v.page("p1").evaluate("(h) => { location.hash = h; }", h)

    try:
        agent = await ego_browser.task_space("bench-agent")
        page = agent.page("p1")
        await page.goto(url)
        dash = await call("dashboard.open", {})
        await measure("none (before)")
        other = await _OtherBrowser.open(dash["url"], agent.space_id, 0)
        try:
            await measure(OTHER_NONE)
            for more, n in ((1, 1), (3, 4)):
                assert await other.ask(f"open {more}") == "opened"
                latency[f"{n} live view{'s' * (n > 1)}, another browser"] = await _latency_other(page, other, N)

                async def route_other(h: str) -> None:
                    assert await other.ask(f"route {h}") == "routed"

                await measure_watched(f"{n} live view{'s' * (n > 1)}, another browser", route_other)
        finally:
            await other.close()
        viewers = await _open_viewers(ego_browser, dash["url"], agent.space_id, 1)
        latency["1 live view, the agent's browser"] = await _latency(page, viewers[0].page("p1"), N)
        await measure_watched("1 live view, the agent's browser", lambda h: route_agents_views(viewers, h))
        viewers += await _open_viewers(ego_browser, dash["url"], agent.space_id, 3)
        latency["4 live views, the agent's browser"] = await _latency(page, viewers[0].page("p1"), N)
        await measure_watched("4 live views, the agent's browser", lambda h: route_agents_views(viewers, h))
        for v in viewers:
            await v.finish(keep=[])
        await measure("none (after)")
        await agent.finish(keep=[])
    finally:
        srv.shutdown()
        subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], capture_output=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)

    act_none = statistics.median([statistics.median(rows[k][0]) for k in ("none (before)", "none (after)")])
    round_none = statistics.median([statistics.median(rows[k][1]) for k in ("none (before)", "none (after)")])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lat = [
        "### Live-view latency (agent page.click start -> next frame shown in the dashboard)",
        "",
        f"N={N} clicks per row; load average at the end: {load} (2 CPUs). Another browser: the dashboards are tabs "
        "of a second Chromium (a second ego_browser home), as a person's own browser; the agent's browser: tabs of "
        "the agent's own Chromium (the pessimistic case). With 4 views the latency is read in the first.",
        "",
        "| watching | p50 ms | p90 ms | max ms | target |",
        "|---|---|---|---|---|",
    ]
    for name, xs in latency.items():
        lat.append(f"| {name} | {_pct(xs, .5):.0f} | {_pct(xs, .9):.0f} | {max(xs):.0f} | p50 <= 150 ms |")
    cost = [
        "### Cost to the agent of live views (medians)",
        "",
        f"page.click and rounds (`python -m ego_browser -e` with one click) in blocks of {BLOCK} rounds, alternating "
        "between the views watching the agent's space and showing nothing, in each row (see benchmarks/"
        "bench_dashboard.py); x: watching / not watching in the same row. The none rows: no dashboard open at all, "
        "before and after (a check of the drift).",
        "",
        "| watching | page.click ms | not watching | x | round ms | not watching | x | target |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, (acts, rounds) in rows.items():
        a, r = statistics.median(acts), statistics.median(rounds)
        if name in unwatched:
            ua, ur = (statistics.median(x) for x in unwatched[name])
            cost.append(f"| {name} | {a:.1f} | {ua:.1f} | {a / ua:.2f}x | {r:.0f} | {ur:.0f} | {r / ur:.2f}x | <= 1.2x |")
        else:
            cost.append(f"| {name} | {a:.1f} | | {a / act_none:.2f}x | {r:.0f} | | {r / round_none:.2f}x | |")
    return ["\n".join(lat), "\n".join(cost)]


def run() -> list[str]:
    """For benchmarks/run_all.py: the two tables as markdown sections."""
    return asyncio.run(main())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--viewers"]:
        _viewers_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        raise SystemExit(0)
    for section in run():
        print(section)
        print()
