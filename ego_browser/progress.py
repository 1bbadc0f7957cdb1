"""Progress lines for steps that take a while (issue 34 point 7).

A step that is still running after ``after`` seconds says so on stderr, once, then every
``every`` seconds, and says when it ends; a quick step prints nothing. A timer thread does the
talking, so the step itself (sync or async, in the round's or a command's process) is not
touched. Lines start with ``[ego-browser:progress]`` so a reader can tell them from the
round's own output; stdout is never used (a ``--json`` report stays one object).
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Progress", "PREFIX"]

PREFIX = "[ego-browser:progress]"


class Progress:
    def __init__(self, what: str, *, after: float = 2.0, every: float = 10.0, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream
        self.after = after
        self.every = every
        self._said = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0

    def _say(self, line: str) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            stream.write(f"{PREFIX} {line}\n")
            stream.flush()
        except (OSError, ValueError):  # a closed stream must not break the step
            pass

    def _run(self) -> None:
        wait = self.after
        while not self._stop.wait(wait):
            self._said = True
            self._say(f"{self.what} ({time.monotonic() - self._started:.0f} s so far)")
            wait = self.every

    def __enter__(self) -> Progress:
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="ego-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._said:
            outcome = "done" if kind is None else "stopped"
            self._say(f"{outcome}: {self.what} after {time.monotonic() - self._started:.1f} s")
