"""How each tool is driven in a trace, and what a run costs: wall time, turns, bytes printed.

A *turn* is one tool call the agent makes and then reads before deciding the next one:
- ego_browser: one round, ``python -m ego_browser`` with a script on stdin;
- agent-browser: one shell command, which may chain several CLI calls with ``&&`` when the
  agent already knows every argument (e.g. fills from one snapshot); each CLI call is its own
  process of the native binary, timed whole, as in PEERS.md;
- Playwright: one Python script for the whole task, run as its own process.
Bytes are everything the call printed (stdout + stderr): what the agent reads next.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
ROOT = BENCH.parent
for _p in (str(HERE), str(BENCH), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import peers  # noqa: E402

PY = os.environ.get("BENCH_PYTHON") or sys.executable


class TraceFailed(RuntimeError):
    """A call failed or printed something the agent could not act on (the run is a failure)."""


@dataclass
class Cost:
    seconds: float = 0.0
    turns: int = 0
    calls: int = 0
    bytes: int = 0
    transcript: list[str] = field(default_factory=list)
    #: the SPA traces' round outcomes (benchmarks/tasks/README.md defines them): rounds or turns
    #: that failed because a ref no longer named its node, other failed ones (their error codes),
    #: re-looks a settled look would have saved, looks whose header said the page was changing
    stale_failures: int = 0
    failed_rounds: list[str] = field(default_factory=list)
    relooks: int = 0
    changing_looks: int = 0

    def add(self, seconds: float, out: str, *, calls: int = 1, turn: bool = True) -> None:
        self.seconds += seconds
        self.turns += 1 if turn else 0
        self.calls += calls
        self.bytes += len(out.encode())
        self.transcript.append(out)


class EgoAgent:
    """Runs rounds against a background host of a private ``EGO_BROWSER_HOME``."""

    def __init__(self, home: str) -> None:
        self.env = peers.ego_env(home)
        self.cost = Cost()

    def start(self) -> None:
        proc = subprocess.run([PY, "-m", "ego_browser", "host", "start"], env=self.env, capture_output=True, text=True,
                              timeout=120, cwd=str(ROOT), stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise RuntimeError(f"ego host start failed: {proc.stderr or proc.stdout}")

    def stop(self) -> None:
        subprocess.run([PY, "-m", "ego_browser", "host", "stop"], env=self.env, capture_output=True, text=True,
                       timeout=60, cwd=str(ROOT), stdin=subprocess.DEVNULL)

    def round(self, script: str, timeout: float = 120) -> str:
        t0 = time.perf_counter()
        proc = subprocess.run([PY, "-m", "ego_browser"], input=script, env=self.env, capture_output=True, text=True,
                              timeout=timeout, cwd=str(ROOT))
        seconds = time.perf_counter() - t0
        out = proc.stdout + proc.stderr
        self.cost.add(seconds, out)
        if proc.returncode != 0:
            raise TraceFailed(f"round exited {proc.returncode}:\n{out[-3000:]}")
        return out


class DefaultLooksEgoAgent(EgoAgent):
    """The ego traces with every snapshot the default look: ``interactive=True`` is left out of
    each round's script, so the bytes say what default looks cost on the same task."""

    def round(self, script: str, timeout: float = 120) -> str:
        script = re.sub(r"(, )?interactive=True(, )?", lambda m: ", " if m.group(1) and m.group(2) else "", script)
        return super().round(script, timeout)


class InProcessEgoAgent(EgoAgent):
    """Diagnostic, not a way an agent works: each round's script runs inside the benchmark's own
    process (``runner.run_source``), against the same background host, so what is left is the
    rounds' work without their process (the interpreter's start, the hand-off to the warm worker).
    The difference to ``EgoAgent`` on the same traces is what the round start costs."""

    def round(self, script: str, timeout: float = 120) -> str:
        import contextlib
        import io

        from ego_browser.round import runner

        saved = {k: os.environ.get(k) for k in ("EGO_BROWSER_HOME", "EGO_BROWSER_CHROMIUM")}
        os.environ.update({k: self.env[k] for k in saved})
        buf = io.StringIO()
        t0 = time.perf_counter()
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
                code = runner.run_source(script, "<round>")
        finally:
            seconds = time.perf_counter() - t0
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        out = buf.getvalue()
        self.cost.add(seconds, out)
        if code != 0:
            raise TraceFailed(f"round exited {code}:\n{out[-3000:]}")
        return out


class AgentBrowser:
    """One agent-browser session (its daemon and Chromium), called through the native binary."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.cost = Cost()

    def start(self) -> None:
        # the daemon and its Chromium start on the first call; that is set-up, not task time
        peers.agent_browser("open", "about:blank", session=self.session, timeout=120)

    def stop(self) -> None:
        peers.agent_browser_close(self.session)

    def shell(self, *commands: list[str], timeout: float = 60) -> list[str]:
        """One turn: ``agent-browser A && agent-browser B ...``; stops at the first failure like ``&&``."""
        outs: list[str] = []
        seconds = 0.0
        failed = None
        for argv in commands:
            out, secs, code = agent_browser_call(argv, self.session, timeout)
            seconds += secs
            outs.append(out)
            if code != 0:
                failed = f"agent-browser {' '.join(argv)} exited {code}: {out[-2000:]}"
                break
        self.cost.add(seconds, "".join(outs), calls=len(outs))
        if failed:
            raise TraceFailed(failed)
        return outs

    def run(self, *argv: str, timeout: float = 60) -> str:
        return self.shell(list(argv), timeout=timeout)[0]


def agent_browser_call(argv: list[str], session: str, timeout: float) -> tuple[str, float, int]:
    env = peers.agent_browser_env(session)
    t0 = time.perf_counter()
    proc = subprocess.run([str(peers.AB_BIN), *argv], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    return proc.stdout + proc.stderr, time.perf_counter() - t0, proc.returncode
