"""The agent-browser baseline of bench_density.py: one daemon and one Chromium per session.

The same agents, sites and checks as the ego rows, through agent-browser's CLI (one process
per command, as an agent calls it): ``open``, ``snapshot``, ``fill``, ``click``, ``get text``;
every 4th round the popup (``click`` then ``tab``) and every 4th a ``download``. CPU groups:
round (this process and the CLI processes it reaps), host (the session daemons), browser and
renderer (their Chromiums). Memory per space is everything the daemons and their browsers take
(nothing is shared between sessions), divided by the sessions.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import density_procs as procs
import peers
from density_site import agent_origin, check

__all__ = ["missing", "run_size"]


def missing() -> str | None:
    return peers.missing("agent-browser")


def _ab(session: str, *argv: str) -> str:
    out = peers.agent_browser(*argv, session=session, timeout=120)
    assert out is not None
    return out[0]


def _round(session: str, origin: str, who: str, i: int, crosstalk: list[str], tmp: str) -> None:
    _ab(session, "open", f"{origin}/agent?who={who}&r={i}")
    check(_ab(session, "snapshot"), who, i, "snapshot", crosstalk)
    _ab(session, "fill", "#name", f"{who} round {i}")
    _ab(session, "click", "#save")
    saved = _ab(session, "get", "text", "#out").strip()
    if saved != f"saved {who} round {i} by {who}":
        crosstalk.append(f"{who} round {i} click: read {saved!r}")
    if i % 4 == 1:
        _ab(session, "click", "#pop")  # the popup becomes the session's current tab
        check(_ab(session, "get", "text", "#tag"), who, i, "popup", crosstalk)
        _ab(session, "tab", "close")  # back to the agent's tab
    if i % 4 == 3:
        path = os.path.join(tmp, f"{who}-{i}.txt")
        _ab(session, "download", "#dl", path)
        body = Path(path).read_text()[:100]
        check(body.replace("report of ", "tag ").replace(" round ", "/"), who, i, "download", crosstalk)
        os.unlink(path)


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _daemons(prefix: str) -> tuple[list[int], list[int]]:
    """(daemon pids, their Chromium pids) of this run's sessions: the daemons detach (they are
    not our children), and other people's agent-browser sessions are not ours to count."""
    kids = procs._children()
    daemons = []
    for entry in os.listdir("/proc"):
        pid = int(entry) if entry.isdigit() else 0
        if pid and pid != os.getpid() and peers.AB_BIN.name.encode() in procs._cmdline(pid) \
                and f"AGENT_BROWSER_SESSION={prefix}".encode() in _environ(pid):
            daemons.append(pid)
    browsers = [k for d in daemons for k in kids.get(d, []) if b"chrom" in procs._cmdline(k)]
    return daemons, browsers


def run_size(n: int, rounds: int, port: int, run_cls: Any) -> Any:
    run = run_cls("agent-browser", n)
    prefix = f"density-{os.getpid()}-{n}-"
    sessions = [f"{prefix}a{i + 1}" for i in range(n)]
    tmp = tempfile.mkdtemp(prefix="ego-bench-density-ab-")
    with ThreadPoolExecutor(max_workers=max(1, n)) as pool:
        try:
            def start(session: str) -> str | None:
                try:
                    _ab(session, "open", "about:blank")
                    return None
                except Exception as exc:  # noqa: BLE001 - a daemon that does not start fails its agent's rounds
                    return str(exc)[:160]

            # daemons and browsers up (at 50 on 2 cores one may not answer: its rounds count as failed)
            not_up = dict(zip(sessions, pool.map(start, sessions)))
            daemons, browsers = _daemons(prefix)
            groups = procs.Groups(roots={"round": [os.getpid()], "host": daemons, "chromium": browsers},
                                  chromium={"chromium"})

            def agent(k: int) -> None:
                who = f"a{k + 1}"
                mine = run.per_agent.setdefault(who, [])
                if not_up[sessions[k]]:
                    run.failures.extend(f"{who} round {i}: not started ({not_up[sessions[k]]})" for i in range(rounds))
                    return
                for i in range(rounds):
                    t0 = time.perf_counter()
                    try:
                        _round(sessions[k], agent_origin(port, who), who, i, run.crosstalk, tmp)
                    except Exception as exc:  # noqa: BLE001 - counted, the agent goes on
                        run.failures.append(f"{who} round {i}: {str(exc)[:160]}")
                        continue
                    dt = time.perf_counter() - t0
                    run.times.append(dt)
                    run.kinds.append("popup" if i % 4 == 1 else "download" if i % 4 == 3 else "plain")
                    mine.append(dt)

            cpu0, (busy0, total0) = procs.cpu_by_group(groups), procs.machine_busy()
            t0 = time.perf_counter()
            list(pool.map(agent, range(n)))
            run.wall = time.perf_counter() - t0
            cpu1, (busy1, total1) = procs.cpu_by_group(groups), procs.machine_busy()
            run.load = os.getloadavg()
            run.rounds = len(run.times)
            used = {k: cpu1.get(k, 0.0) - cpu0.get(k, 0.0) for k in cpu1}
            run.cpu = {k: v / max(1, run.rounds) for k, v in used.items()}
            run.busy = sum(v for k, v in used.items() if ":" not in k) / (run.wall * (os.cpu_count() or 1))
            run.machine_busy = (busy1 - busy0) / max(1e-9, total1 - total0)
            mem = procs.pss_by_group(groups)
            run.mem_active = {k: mem.get(k, 0.0) / n for k in ("host", "browser", "renderer")}
            run.mem_active["total"] = sum(run.mem_active.values())
        finally:
            list(pool.map(peers.agent_browser_close, sessions))
            _end_leftovers(prefix)
    return run


def _end_leftovers(prefix: str) -> None:
    """Kill this run's daemons and their browsers that a close did not end (at 50 sessions on a
    loaded machine closes time out): left running, 32 daemons and ~380 Chromium processes kept
    the load near 200 and the Grid run after them could not start. Only this run's sessions
    (by their AGENT_BROWSER_SESSION prefix), by pid."""
    daemons, browsers = _daemons(prefix)
    kids = procs._children()
    for pid in reversed(procs.tree(daemons + browsers, set(), kids)):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
