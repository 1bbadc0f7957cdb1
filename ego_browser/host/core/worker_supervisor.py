"""The host's side of the warm round worker (``round/worker.py``): it keeps one worker process
running while the host runs, restarted when it exits, and holds the worker's lifeline pipe.

The worker runs rounds, so it lives in ``round/``; the host only starts it as a process
(``ego-browser host worker``, run by this Python) and never imports it.

The worker is started once the host has had its first pause (``start_when_quiet``), not as the
host answers "ok": its interpreter and imports are ~0.2 s of CPU, and on 2 cores they ran beside
the first round, the one that started the host (a learned tool's cold run took 85 ms longer,
docs/architecture.md, "The cold round"). That round runs in its own process either way; the next
one comes an agent's turn later, when the worker is there.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .quiet import QuietHost, until_quiet

__all__ = ["Supervisor"]


class Supervisor:
    """Host side: keeps one worker running while the host runs (restarted when it exits)."""

    #: a worker that lived shorter than this is not restarted at once (it keeps failing)
    MIN_LIFE = 5.0

    def __init__(self, run_dir: Any) -> None:
        self.run_dir = run_dir
        self.proc: Any = None
        self.lifeline_w: int | None = None
        self.pidfd: int | None = None
        self.started = 0.0
        self.stopped = False
        self._retry: Any = None

    #: the pause (no request running for this long) that starts the worker, and the longest wait
    #: for one (a host that many agents keep busy)
    QUIET = 0.15
    LATEST = 3.0

    async def start_when_quiet(self, host: QuietHost) -> None:
        """Called as the host answers "ok": the round that started it sends its first call next,
        so the pause is counted from now, not from the host's last request before it."""
        import time

        await until_quiet(host, quiet=self.QUIET, latest=self.LATEST, since=time.monotonic())
        self.start()

    def start(self) -> None:
        import asyncio
        import subprocess
        import time

        if self.stopped:
            return
        r, w = os.pipe()
        log = open(self.run_dir / "worker.out", "ab")  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ego_browser", "host", "worker", "--lifeline", str(r)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(r,), close_fds=True,
            )
        except OSError:
            os.close(w)
            return
        finally:
            os.close(r)
            log.close()
        self.lifeline_w = w
        self.started = time.monotonic()
        try:
            self.pidfd = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):  # no pidfd: the worker is simply not restarted
            self.pidfd = None
            return
        asyncio.get_running_loop().add_reader(self.pidfd, self._exited)

    def _exited(self) -> None:
        import asyncio
        import time

        loop = asyncio.get_running_loop()
        if self.pidfd is not None:
            loop.remove_reader(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = None
        if self.proc is not None:
            self.proc.wait()
        if self.lifeline_w is not None:
            os.close(self.lifeline_w)
            self.lifeline_w = None
        if self.stopped:
            return
        lived = time.monotonic() - self.started
        self._retry = loop.call_later(0 if lived >= self.MIN_LIFE else 30.0, self.start)

    def stop(self) -> None:
        """Close the lifeline: the worker finishes its running rounds and exits."""
        self.stopped = True
        if self._retry is not None:
            self._retry.cancel()
        if self.pidfd is not None:
            try:
                import asyncio

                asyncio.get_running_loop().remove_reader(self.pidfd)
            except RuntimeError:
                pass
            os.close(self.pidfd)
            self.pidfd = None
        if self.lifeline_w is not None:
            os.close(self.lifeline_w)
            self.lifeline_w = None
