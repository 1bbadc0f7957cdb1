"""Soak: many agents at once, then a long run against one background host, sampled for growth.

    .venv/bin/python benchmarks/soak.py [--agents 10] [--agent-rounds 20] [--rounds 1000]
                                        [--every 50] [--out FILE] [--write-docs]

Phase 1, load: ``--agents`` agents run ``--agent-rounds`` rounds each, all at once, every
round a real ``python -m ego_browser`` process with its own space; each round checks what it
read back (a value only that agent and round wrote), so "right" means right, not "exited 0".

Phase 2, soak: ``--rounds`` rounds against the same host. Each round is a fresh connection to
the host (as a round process makes) and does what a busy agent does: in its long-lived space
it navigates p1 between two pages of ~240 refs and takes a full snapshot (each navigation
stales the previous refs, so p1's stale list grows to its 10,000 cap), clicks by ref, opens a
page, snapshots and closes it (a closed-page row per round); then it makes a space and
finishes it (a finished space per round). The round process itself is left out on purpose:
host growth is what is measured, and 1,000 interpreter start-ups would only slow it down.

Every ``--every`` rounds it samples the host: RSS (VmRSS), open fds, browser tabs and tabs no
space lists (``host.status``), and the state store (bytes on disk, page rows, space rows,
bytes of stored ref ledgers). The report gives the least-squares slope of each per 100
rounds, over the whole run and over its second half: bounded retention shows as a second-half
slope near zero. Prints markdown; ``--out`` also writes it to a file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

import peers  # noqa: E402
from pages import PAGES, large_page, serve  # noqa: E402

PAGES["/soak-a"] = large_page(60).encode()
PAGES["/soak-b"] = large_page(61).encode()


# -- phase 1: many agents at once --------------------------------------------------------------


AGENT_ROUND = """\
t = await task_space({space!r})
p = t.page('p1')
if {first}:
    await p.goto({url!r})
await p.evaluate('(v) => {{ window.soakValue = v }}', {value!r})
print('VALUE', await p.evaluate('window.soakValue'), await p.url() == {url!r})
"""


def _agent(agent: int, rounds: int, url: str, env: dict[str, str]) -> tuple[int, int, list[str], list[float]]:
    right, times, problems = 0, [], []
    for n in range(rounds):
        value = f"agent{agent}-round{n}"
        script = AGENT_ROUND.format(space=f"soak-agent-{agent}", first=n == 0, url=url, value=value)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "ego_browser"], input=script, env=env, capture_output=True,
                              text=True, timeout=300, cwd=str(ROOT))
        times.append(time.perf_counter() - t0)
        if proc.returncode == 0 and proc.stdout.strip() == f"VALUE {value} True":
            right += 1
        else:
            problems.append(f"agent {agent} round {n}: exit {proc.returncode}: {(proc.stderr or proc.stdout)[-300:]}")
    return right, rounds, problems, times


async def phase_load(agents: int, rounds: int, url: str, env: dict[str, str]) -> dict:
    started = time.perf_counter()
    results = await asyncio.gather(*(asyncio.to_thread(_agent, a, rounds, url, env) for a in range(agents)))
    wall = time.perf_counter() - started
    times = sorted(t for r in results for t in r[3])
    return {
        "right": sum(r[0] for r in results), "total": sum(r[1] for r in results),
        "problems": [p for r in results for p in r[2]], "wall": wall,
        "median": times[len(times) // 2] if times else 0.0, "p95": times[int(len(times) * 0.95)] if times else 0.0,
    }


# -- phase 2: the long run ---------------------------------------------------------------------


def _proc_sample(pid: int) -> tuple[float, int]:
    rss_kb = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
    return rss_kb / 1024, len(os.listdir(f"/proc/{pid}/fd"))


def _store_sample(path: Path) -> dict[str, float]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        pages = db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
        spaces = db.execute("SELECT COUNT(*) FROM spaces").fetchone()[0]
        ledgers = db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM ledgers").fetchone()[0]
    finally:
        db.close()
    return {"page_rows": pages, "space_rows": spaces, "ledger_kb": ledgers / 1024, "db_kb": path.stat().st_size / 1024}


async def _one_round(n: int, site, state: dict) -> None:
    import re

    import ego_browser
    from ego_browser.client.channel import process_channel

    main = await ego_browser.task_space("soak-main")
    p1 = main.page("p1")
    await p1.goto(site.url("/soak-a" if n % 2 else "/soak-b") + f"?n={n}")
    snap = await p1.snapshot(scope="full_page")
    ref = re.search(r'button "Add 3" \[ref=(\d+)', snap)
    if ref is None:
        raise RuntimeError(f"round {n}: no button in the snapshot")
    await p1.click(f"@{ref.group(1)}")
    extra = await main.new_page()
    await extra.goto(site.url("/actions"))
    await extra.snapshot()
    await extra.close()
    churn = await ego_browser.task_space(f"soak-churn-{n}")
    await churn.finish(keep=[])
    channel = process_channel()
    if channel is not None:
        await channel.aclose()  # the next round connects afresh, as a round process does


async def _status() -> dict:
    from ego_browser.client.channel import current_channel

    return await current_channel().call("host.status", {})


async def phase_soak(rounds: int, every: int, site, home: Path) -> tuple[list[dict], list[str]]:
    state: dict = {}
    samples: list[dict] = []
    errors: list[str] = []
    for n in range(rounds + 1):
        if n % every == 0:
            status = await _status()
            rss, fds = _proc_sample(status["pid"])
            samples.append({
                "round": n, "rss_mb": rss, "fds": fds, "tabs": status.get("pages", 0),
                "orphans": status.get("orphan_pages", 0), "store_kb": status.get("store_bytes", 0) / 1024,
                **_store_sample(home / "state.sqlite3"),
            })
            print(f"  round {n}: " + ", ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}"
                                               for k, v in samples[-1].items() if k != "round"), flush=True)
        if n == rounds:
            break
        try:
            await asyncio.wait_for(_one_round(n, site, state), 120)
        except Exception as exc:  # noqa: BLE001 - a failing round is reported, the soak goes on
            errors.append(f"round {n}: {type(exc).__name__}: {exc}"[:300])
    return samples, errors


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs (0 for fewer than two points)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0


def report(load: dict, samples: list[dict], errors: list[str], opts: argparse.Namespace, took: float) -> str:
    lines = ["### Soak: load and growth", "",
             f"Command: `.venv/bin/python benchmarks/soak.py --agents {opts.agents} --agent-rounds "
             f"{opts.agent_rounds} --rounds {opts.rounds} --every {opts.every}` "
             f"({took / 60:.0f} min, 1-minute load average at the end {os.getloadavg()[0]:.1f} on "
             f"{os.cpu_count()} CPUs)", ""]
    lines += [
        f"**Load**: {opts.agents} agents x {opts.agent_rounds} rounds at once, each round a `python -m "
        f"ego_browser` process: **{load['right']}/{load['total']} right**; "
        + (f"round wall time median {load['median']:.2f} s, p95 {load['p95']:.2f} s; "
           if load.get("median") is not None else "")
        + f"{load['wall']:.0f} s in all.", "",
    ]
    for p in load["problems"][:5]:
        lines.append(f"- {p}")
    half = [s for s in samples if s["round"] >= samples[-1]["round"] / 2]
    last = [s for s in samples if s["round"] >= samples[-1]["round"] * 3 / 4]
    xs = [s["round"] / 100 for s in samples]
    hx = [s["round"] / 100 for s in half]
    lx = [s["round"] / 100 for s in last]
    lines += [
        f"**Soak**: {opts.rounds} rounds on one host, sampled every {opts.every}; "
        f"{len(errors)} rounds failed.", "",
        "| metric | first sample | last sample | slope / 100 rounds: all | 2nd half | last quarter |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    names = {"rss_mb": "host RSS (MB)", "fds": "host open fds", "tabs": "browser tabs", "orphans": "tabs no space lists",
             "store_kb": "store on disk (KB, db+wal)", "db_kb": "store database file (KB)", "page_rows": "page rows", "space_rows": "space rows",
             "ledger_kb": "stored ledgers (KB)"}
    for key, name in names.items():
        ys = [float(s[key]) for s in samples]
        hy = [float(s[key]) for s in half]
        ly = [float(s[key]) for s in last]
        lines.append(f"| {name} | {ys[0]:.1f} | {ys[-1]:.1f} | {slope(xs, ys):+.2f} | {slope(hx, hy):+.2f} | "
                     f"{slope(lx, ly):+.2f} |")
    for e in errors[:5]:
        lines.append(f"- {e}")
    return "\n".join(lines) + "\n"


async def main_async(opts: argparse.Namespace) -> str:
    home = Path(tempfile.mkdtemp(prefix="ego-soak-"))
    env = peers.ego_env(str(home))
    os.environ.update({"EGO_BROWSER_HOME": str(home), "EGO_BROWSER_CHROMIUM": env["EGO_BROWSER_CHROMIUM"]})
    os.environ.pop("EGO_BROWSER_CDP_URL", None)
    started = time.perf_counter()
    try:
        with serve() as site:
            print(f"phase 1: {opts.agents} agents x {opts.agent_rounds} rounds", flush=True)
            load = await phase_load(opts.agents, opts.agent_rounds, site.url("/actions"), env)
            print(f"  {load['right']}/{load['total']} right in {load['wall']:.0f}s", flush=True)
            print(f"phase 2: {opts.rounds} rounds", flush=True)
            samples, errors = await phase_soak(opts.rounds, opts.every, site, home)
    finally:
        subprocess.run([sys.executable, "-m", "ego_browser", "host", "stop"], env=env, capture_output=True,
                       timeout=60, cwd=str(ROOT))
        shutil.rmtree(home, ignore_errors=True)
    return report(load, samples, errors, opts, time.perf_counter() - started)


def run() -> list[str]:
    """The ``run_all.py`` contract (not picked up by it: a soak takes too long for ``make bench``)."""
    return [asyncio.run(main_async(argparse.Namespace(agents=10, agent_rounds=20, rounds=1000, every=50)))]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", type=int, default=10)
    ap.add_argument("--agent-rounds", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--out", default=None, help="also write the markdown here")
    ap.add_argument("--write-docs", action="store_true",
                    help="put the figures in docs/benchmarks.md (and benchmarks/soak_last.md, which run_all.py keeps)")
    opts = ap.parse_args(argv)
    text = asyncio.run(main_async(opts))
    print(text)
    if opts.out:
        Path(opts.out).write_text(text)
    if opts.write_docs:
        write_docs(text)
    return 0


def write_docs(text: str) -> None:
    """Replace (or add) the soak section of docs/benchmarks.md; keep a copy for run_all.py."""
    section = "## soak (benchmarks/soak.py, run on its own)\n\n" + text.rstrip() + "\n"
    (HERE / "soak_last.md").write_text(section)
    docs = ROOT / "docs" / "benchmarks.md"
    current = docs.read_text() if docs.exists() else "# Benchmarks\n"
    head, sep, old = current.partition("## soak (benchmarks/soak.py")
    # the sections after the soak's stay (they used to be cut off with the old figures)
    after = old.find("\n## ")
    tail = old[after:].lstrip("\n") if sep and after >= 0 else ""
    docs.write_text(head.rstrip() + "\n\n" + section + ("\n" + tail if tail else ""))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
