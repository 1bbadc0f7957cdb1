"""Where a long-running host's memory goes: tracemalloc between two rounds of the soak's work.

    .venv/bin/python benchmarks/soak_trace.py [--from 100] [--to 400] [--top 15]

Runs the rounds of ``benchmarks/soak.py`` (phase 2) against an in-process host (the same
host code, in this process, so that tracemalloc sees its allocations), takes a tracemalloc
snapshot after round ``--from`` and another after round ``--to``, and prints the lines whose
retained memory grew the most in between (by allocation site, 1 frame), with the growth per
100 rounds. Bounded caches that are not yet full show here too: read the sizes against their
caps. Prints markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

import peers  # noqa: E402
from pages import serve  # noqa: E402
from soak import _one_round  # noqa: E402  (also registers the soak's two large pages)


async def main_async(opts: argparse.Namespace) -> str:
    home = Path(tempfile.mkdtemp(prefix="ego-soak-trace-"))
    env = peers.ego_env(str(home))
    os.environ.update({"EGO_BROWSER_HOME": str(home), "EGO_BROWSER_CHROMIUM": env["EGO_BROWSER_CHROMIUM"]})
    os.environ.pop("EGO_BROWSER_CDP_URL", None)
    import ego_browser
    from ego_browser.client.channel import InProcessChannel, set_default_channel

    tracemalloc.start(1)
    snaps: dict[int, tracemalloc.Snapshot] = {}
    errors: list[str] = []
    started = time.perf_counter()
    try:
        with serve() as site:
            async with ego_browser.embedded() as host:
                set_default_channel(InProcessChannel(host))
                for n in range(opts.to + 1):
                    if n in (opts.from_, opts.to):
                        gc.collect()
                        snaps[n] = tracemalloc.take_snapshot().filter_traces(
                            [tracemalloc.Filter(False, tracemalloc.__file__)])
                        print(f"  snapshot at round {n}: {tracemalloc.get_traced_memory()[0] / 1e6:.1f} MB traced",
                              flush=True)
                    if n == opts.to:
                        break
                    try:
                        await asyncio.wait_for(_one_round(n, site, {}), 120)
                    except Exception as exc:  # noqa: BLE001 - reported; the run goes on
                        errors.append(f"round {n}: {type(exc).__name__}: {exc}"[:200])
                set_default_channel(None)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    stats = snaps[opts.to].compare_to(snaps[opts.from_], "lineno")
    per = 100 / (opts.to - opts.from_)
    total = sum(s.size_diff for s in stats)
    lines = [
        "### Soak: tracemalloc between two rounds", "",
        f"Command: `.venv/bin/python benchmarks/soak_trace.py --from {opts.from_} --to {opts.to}` "
        f"({(time.perf_counter() - started) / 60:.0f} min, {len(errors)} rounds failed; 1-minute load average "
        f"at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)", "",
        f"Retained Python memory grew {total / 1024:+.0f} KB from round {opts.from_} to {opts.to} "
        f"({total * per / 1024:+.0f} KB per 100 rounds). Largest growth by line:", "",
        "| allocation site | KB at round " + str(opts.to) + " | KB per 100 rounds | blocks per 100 rounds |",
        "|---|---:|---:|---:|",
    ]
    for s in stats[: opts.top]:
        frame = s.traceback[0]
        where = frame.filename
        for root in (str(ROOT) + "/", sys.prefix + "/"):
            where = where.replace(root, "")
        lines.append(f"| {where}:{frame.lineno} | {s.size / 1024:.0f} | {s.size_diff * per / 1024:+.1f} | "
                     f"{s.count_diff * per:+.0f} |")
    for e in errors[:5]:
        lines.append(f"- {e}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="from_", type=int, default=100)
    ap.add_argument("--to", type=int, default=400)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--out", default=None, help="also write the markdown here")
    opts = ap.parse_args(argv)
    text = asyncio.run(main_async(opts))
    print(text)
    if opts.out:
        Path(opts.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
