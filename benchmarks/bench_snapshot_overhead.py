"""What a snapshot of a small page costs over the walker itself (issue 12 point 4).

On the agent's path (``page.snapshot()`` through the host, here in-process with
``ego_browser.embedded()``), on the ~2 KB ``/login`` page:

- **walker**: the in-page walker alone — one ``Runtime.evaluate`` of ``__egoSnap`` in a world
  where it is already installed (the floor any snapshot pays);
- **snapshot warm**: ``page.snapshot()`` of a document already snapshotted once;
- **snapshot cold**: the first ``page.snapshot()`` after a ``goto`` (new document: isolated
  world created, walker installed, backend ids fetched after the text is returned);
- **first ref action cold**: ``click`` on a ref of that cold snapshot (it waits for the
  deferred backend ids at most).

Each call's CDP commands are recorded, so the overhead is explained, not only timed: the
report lists, per kind of call, the median count of commands it waited for (and of those it
left running, such as handle releases) and the median time spent in each method. Calls are interleaved; medians over ``N`` iterations after a warm-up.

    .venv/bin/python benchmarks/bench_snapshot_overhead.py
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

N = int(os.environ.get("BENCH_SNAPSHOT_OVERHEAD_N", "30"))
WARMUP = 3


def _ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1000 if xs else float("nan")


class _Calls:
    def __init__(self, conn) -> None:
        self.conn = conn
        self.orig = conn.send
        self.log: list[tuple[str, float, float]] = []
        conn.send = self._send

    async def _send(self, method, params=None, **kw):
        t0 = time.perf_counter()
        try:
            return await self.orig(method, params, **kw)
        finally:
            self.log.append((method, t0, time.perf_counter()))

    def take(self) -> list[tuple[str, float, float]]:
        out, self.log = self.log, []
        return out


def run() -> str:
    """The markdown section (``benchmarks/run_all.py`` calls this in a child process)."""
    return asyncio.run(_run())


async def _run() -> str:
    os.environ.setdefault("EGO_BROWSER_HOME", tempfile.mkdtemp(prefix="ego-bench-snapov-"))
    import pages

    import ego_browser
    from ego_browser.client.channel import InProcessChannel, set_default_channel
    from ego_browser.snapshot.capture import _SERIALIZE, WORLD_NAME

    times: dict[str, list[float]] = defaultdict(list)
    counts: dict[str, list[int]] = defaultdict(list)
    background: dict[str, list[int]] = defaultdict(list)
    per_method: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with pages.serve() as site:
        url = site.url("/login")
        async with ego_browser.embedded() as host:
            set_default_channel(InProcessChannel(host))
            task = await ego_browser.task_space("bench-snapshot-overhead")
            page = task.page("p1")
            await page.goto(url)
            await page.snapshot()
            row = next(r for r in host.store.pages(page.space_id) if r.label == "p1")
            driver = host.drivers[row.target_id]
            calls = _Calls(host.browser.conn)

            async def walker() -> None:
                # the floor: the walker alone, in its own world (installed above)
                frame = driver.frames.main
                res = await frame.session.send("Page.createIsolatedWorld",
                                               {"frameId": frame.frame_id, "worldName": WORLD_NAME})
                calls.take()
                t0 = time.perf_counter()
                await frame.session.send("Runtime.evaluate", {
                    "expression": "__egoSnap(null, {viewport: true, locs: true, marks: true, eager: false,"
                                  " allKeys: false, countAll: false, reset: false})",
                    "contextId": res["executionContextId"], "serializationOptions": _SERIALIZE,
                })
                times["walker"].append(time.perf_counter() - t0)
                calls.take()

            async def timed(name: str, coro) -> None:
                calls.take()
                t0 = time.perf_counter()
                await coro
                t1 = time.perf_counter()
                times[name].append(t1 - t0)
                await asyncio.sleep(0.05)  # let fire-and-forget commands land in the log
                log = calls.take()
                # commands still running when the call returned did not cost the caller
                waited = [(m, b - a) for m, a, b in log if b <= t1]
                counts[name].append(len(waited))
                background[name].append(len(log) - len(waited))
                by: dict[str, float] = defaultdict(float)
                for m, dt in waited:
                    by[m] += dt
                for m, dt in by.items():
                    per_method[name][m].append(dt)

            for i in range(WARMUP + N):
                await page.goto(url)
                calls.take()
                await timed("snapshot cold", page.snapshot())
                text = await page.snapshot()
                await timed("snapshot warm", page.snapshot())
                await walker()
                await page.goto(url)
                cold = await page.snapshot()
                ref = next(re.search(r"\[ref=(\d+)", line).group(1) for line in cold.splitlines()
                           if "checkbox" in line and "[ref=" in line)
                await timed("first ref action cold", page.click(f"@{ref}"))
                if i < WARMUP:
                    for d in (times, counts, background, per_method):
                        d.clear()
                    assert "Sign in" in text
            await task.finish(keep=[])
            set_default_channel(None)
    lines = ["## Snapshot overhead on a small page (/login, ~2 KB)", "",
             f"In-process host, medians of {N} interleaved iterations; load average at the end: "
             f"{os.getloadavg()[0]:.1f}.", "",
             "| call | median ms | CDP commands awaited (+ left running) | where the time goes (median ms per method) |",
             "|---|---:|---:|---|"]
    for name in ("walker", "snapshot warm", "snapshot cold", "first ref action cold"):
        methods = per_method.get(name, {})
        top = sorted(((statistics.median(v) * 1000, m) for m, v in methods.items()), reverse=True)[:4]
        where = ", ".join(f"{m} {ms:.1f}" for ms, m in top) or "—"
        n = statistics.median(counts[name]) if counts.get(name) else 1
        bg = statistics.median(background[name]) if background.get(name) else 0
        lines.append(f"| {name} | {_ms(times[name]):.1f} | {n:g}" + (f" (+{bg:g})" if bg else "") + f" | {where} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
