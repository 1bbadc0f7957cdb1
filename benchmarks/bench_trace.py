"""What the trace costs (issue 33 §4): a navigation + action loop with the trace's pictures off
and on, and the video's encoding time; one private host per setting, runs alternated.

Each iteration: ``goto /actions``, ``click #btn``, ``fill #name``, ``select_option #color``, timed
from the agent's side (the background host over its socket). The journal (and the requests it
keeps) is always on: it has no switch to compare against; its rows are a SQLite insert each.

    .venv/bin/python benchmarks/bench_trace.py          # BENCH_TRACE_N iterations (default 30) x 2 runs
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pages import serve  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
N = int(os.environ.get("BENCH_TRACE_N", "30"))


async def _child(base: str, video: str | None) -> dict[str, float]:
    import ego_browser

    task = await ego_browser.task_space("bench-trace")
    page = task.page("p1")
    times = []
    for i in range(N + 3):
        t0 = time.perf_counter()
        await page.goto(base + "/actions")
        await page.click("#btn")
        await page.fill("#name", f"v{i}")
        await page.select_option("#color", "green" if i % 2 else "blue")
        if i >= 3:
            times.append((time.perf_counter() - t0) * 1000)
    out = {"median_ms": statistics.median(times), "p90_ms": sorted(times)[int(len(times) * 0.9)]}
    if video:
        t0 = time.perf_counter()
        made = await task.record_video(video)
        out["video_s"] = time.perf_counter() - t0
        out["video_frames"] = made["frames"]
    await task.finish(keep=[])
    return out


def _run(base: str, pictures: str, video: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="ego-bench-trace-") as home:
        env = {**os.environ, "EGO_BROWSER_HOME": home, "EGO_BROWSER_TRACE_PICTURES": pictures,
               "PYTHONPATH": str(ROOT)}
        target = os.path.join(home, "v.webm") if video else ""
        try:
            proc = subprocess.run([sys.executable, __file__, "--child", base, target], env=env, capture_output=True,
                                  text=True, timeout=900)
            if proc.returncode != 0:
                raise SystemExit(proc.stderr)
            return json.loads(proc.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], env=env, capture_output=True,
                           timeout=120)


def main() -> None:
    with serve() as site:
        rows: dict[str, list[dict[str, float]]] = {"pictures off": [], "pictures on": []}
        for _ in range(2):
            rows["pictures off"].append(_run(site.base, "0", False))
            rows["pictures on"].append(_run(site.base, "1", True))
    for name, runs in rows.items():
        med = statistics.median(r["median_ms"] for r in runs)
        extra = ""
        if "video_s" in runs[0]:
            extra = f", video {runs[0]['video_s']:.1f} s for {runs[0]['video_frames']} frames"
        print(f"{name}: median {med:.1f} ms per iteration (runs: {[round(r['median_ms'], 1) for r in runs]}){extra}")
    off = statistics.median(r["median_ms"] for r in rows["pictures off"])
    on = statistics.median(r["median_ms"] for r in rows["pictures on"])
    print(f"pictures on vs off: {100 * (on - off) / off:+.1f}%")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(asyncio.run(_child(sys.argv[2], sys.argv[3] or None))))
    else:
        main()
