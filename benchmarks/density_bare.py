"""Chromium alone under bench_density's load: what the cores allow before any code of ours runs.

The same machine, Chromium, flags and pages as ``bench_density.py`` (``density_site.py``: one
origin per agent), driven by raw CDP with nothing of ego_browser in the loop: no host, no
domains beyond ``Page``, no preloaded worlds, no journal, no pictures. N tabs, each in a window
of its own, each running ROUNDS rounds: navigate to its page and wait for ``load``, then one
``Runtime.evaluate`` that fills the field, clicks Save and reads what it saved; every 4th round
(from the 2nd) also clicks the popup link, waits for the popup's target and closes it. At most
``--at-once`` commands run at once (as the host admits cores + 1 calls). Downloads are left out.

Per size: rounds/s, how busy the cores were with Chromium's processes, and Chromium's CPU per
round by process role. Issue 31 §2 asks, of the full stack, rounds/s at 10 agents >= 1.25x one
agent's and CPU per round at 50 agents <= 1.1x one agent's; these rows say what Chromium itself
does with the same rounds on these cores.

    .venv/bin/python benchmarks/density_bare.py --sizes 1,10,50 --rounds 20 [--no-popups]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import density_procs as procs  # noqa: E402
from density_site import agent_origin  # noqa: E402

from ego_browser.browser.launcher import launch_chromium  # noqa: E402
from ego_browser.cdp.connection import Connection  # noqa: E402

#: seconds any one step may take before the size is reported as failed
STEP_TIMEOUT = 60.0
_FILL_CLICK = ("(() => { const f = document.querySelector('#name'); f.value = 'x'; "
               "document.querySelector('#save').click(); return document.querySelector('#out').textContent; })()")
_KEYS = ("chromium:main", "chromium:gpu-process", "chromium:NetworkService", "renderer")


class Tab:
    def __init__(self, conn: Connection, session_id: str, target_id: str, origin: str, who: str) -> None:
        self.conn, self.sid, self.tid, self.origin, self.who = conn, session_id, target_id, origin, who
        self.loaded = asyncio.Event()
        conn.on("Page.loadEventFired", lambda _p, _s: self.loaded.set(), session_id=session_id)

    async def send(self, method: str, params: dict | None = None) -> dict:
        return await self.conn.send(method, params or {}, session_id=self.sid, timeout=STEP_TIMEOUT)


async def _open(conn: Connection, origin: str, who: str) -> Tab:
    t = await conn.send("Target.createTarget", {"url": "about:blank", "newWindow": True})
    sid = (await conn.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True}))["sessionId"]
    tab = Tab(conn, sid, t["targetId"], origin, who)
    await tab.send("Page.enable")
    return tab


async def _popup(tab: Tab, popups: asyncio.Queue[str], gate: asyncio.Semaphore) -> None:
    async with gate:
        await tab.send("Runtime.evaluate", {"expression": "document.querySelector('#pop').click()", "userGesture": True})
    target = await asyncio.wait_for(popups.get(), STEP_TIMEOUT)
    async with gate:
        await tab.conn.send("Target.closeTarget", {"targetId": target}, timeout=STEP_TIMEOUT)


async def _round(tab: Tab, i: int, gate: asyncio.Semaphore, popups: asyncio.Queue[str] | None) -> None:
    async with gate:
        tab.loaded.clear()
        await tab.send("Page.navigate", {"url": f"{tab.origin}/agent?who={tab.who}&r={i}"})
        await asyncio.wait_for(tab.loaded.wait(), STEP_TIMEOUT)
    async with gate:
        await tab.send("Runtime.evaluate", {"expression": _FILL_CLICK, "returnByValue": True})
    if i % 4 == 1 and popups is not None:
        await _popup(tab, popups, gate)


async def size(n: int, rounds: int, at_once: int, port: int, popups: bool = True) -> dict[str, float]:
    browser = launch_chromium(tempfile.mkdtemp(prefix="ego-bench-bare-"), debugging_port=True)
    try:
        conn = await Connection.connect(browser.ws_url)
        groups = procs.Groups(roots={"chromium": [browser.pid]}, chromium={"chromium"})
        await conn.send("Target.setDiscoverTargets", {"discover": True})
        tabs = [await _open(conn, agent_origin(port, f"a{j + 1}"), f"a{j + 1}") for j in range(n)]
        queues: dict[str, asyncio.Queue[str]] = {t.tid: asyncio.Queue() for t in tabs}
        mine = (lambda tab: queues[tab.tid]) if popups else (lambda tab: None)

        def created(params: dict, _sid: str | None) -> None:
            info = params.get("targetInfo") or {}
            if info.get("type") == "page" and info.get("openerId") in queues:
                queues[info["openerId"]].put_nowait(info["targetId"])

        conn.on("Target.targetCreated", created)
        gate = asyncio.Semaphore(at_once)
        # one warm-up round each: every renderer started, every page seen once
        await asyncio.gather(*(_round(t, 0, gate, mine(t)) for t in tabs))
        cpu0, (busy0, total0) = procs.cpu_by_group(groups), procs.machine_busy()
        t0 = time.perf_counter()

        async def agent(tab: Tab) -> None:
            for i in range(1, rounds + 1):
                await _round(tab, i, gate, mine(tab))

        await asyncio.gather(*(agent(t) for t in tabs))
        wall = time.perf_counter() - t0
        cpu1, (busy1, total1) = procs.cpu_by_group(groups), procs.machine_busy()
        done = n * rounds
        used = {k: cpu1.get(k, 0.0) - cpu0.get(k, 0.0) for k in cpu1}
        out = {"agents": n, "rounds": done, "rounds_s": done / wall,
               "busy": sum(v for k, v in used.items() if ":" not in k) / (wall * (os.cpu_count() or 1)),
               "cpu_ms": 1000 * sum(v for k, v in used.items() if ":" not in k) / done,
               "machine_busy": (busy1 - busy0) / max(1e-9, total1 - total0)}
        out.update({k: 1000 * used.get(k, 0.0) / done for k in _KEYS})
        return out
    finally:
        try:
            os.kill(browser.pid, 9)
        except ProcessLookupError:
            pass


def table(rows: list[dict[str, float]]) -> str:
    one = rows[0]
    lines = ["| agents | rounds | rounds/s | vs 1 | busy | CPU ms/round | vs 1 | main | gpu-process | NetworkService "
             "| renderer |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['agents']:.0f} | {r['rounds']:.0f} | {r['rounds_s']:.2f} | "
                     f"{r['rounds_s'] / one['rounds_s']:.2f}x | {100 * r['busy']:.0f}% | {r['cpu_ms']:.0f} | "
                     f"{r['cpu_ms'] / one['cpu_ms']:.2f}x | " + " | ".join(f"{r[k]:.0f}" for k in _KEYS) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1,10,50", help="tab counts, comma-separated (default 1,10,50); the first is the base")
    ap.add_argument("--rounds", type=int, default=20, help="rounds per tab (default 20)")
    ap.add_argument("--at-once", type=int, default=(os.cpu_count() or 1) + 1,
                    help="commands in flight at most (default cores + 1, as the host admits calls)")
    ap.add_argument("--no-popups", action="store_true", help="rounds without the popup every 4th round")
    args = ap.parse_args()
    site = subprocess.Popen([sys.executable, str(Path(__file__).with_name("density_site.py"))],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(site.stdout.readline())  # type: ignore[union-attr]
        rows = []
        for n in (int(x) for x in args.sizes.split(",")):
            rows.append(asyncio.run(size(n, args.rounds, args.at_once, port, popups=not args.no_popups)))
            print(f"{n} tabs: {rows[-1]['rounds_s']:.2f} rounds/s, {rows[-1]['cpu_ms']:.0f} ms CPU/round", flush=True)
    finally:
        site.kill()
    print(f"\nChromium alone, {args.rounds} rounds per tab{' (no popups)' if args.no_popups else ''}, "
          f"{args.at_once} commands at once, "
          f"load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())} at the end:\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
