"""Work a round's script would otherwise drop silently (issue 13, point 6).

- A coroutine the script made but never awaited (``page.click("#go")`` without ``await``) did
  nothing: Python only warns when it is collected, and the round used to exit 0. We catch that
  moment (CPython hands every never-awaited coroutine to ``warnings._warn_unawaited_coroutine``)
  and turn it into :class:`~ego_browser.errors.MissingAwait` naming the script line that made
  the coroutine (``sys.set_coroutine_origin_tracking_depth`` records it).
- A background task the script started (``asyncio.create_task``) that failed with nobody
  looking, or was still running when the script ended (``asyncio.run`` cancels it), is
  reported the same way: the line that started it and what happened.

Only coroutines and tasks made *by the script* (the frame that created the coroutine is the
script's) are judged: the library's own are none of the script's business.
A failure found while the script runs cancels the script's main task, so the round stops at
its next ``await`` instead of going on as if the dropped call had happened.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from ..errors import MissingAwait

#: frames recorded per coroutine at creation: only its creator counts. A coroutine the script's
#: own code made (``page.click(...)``, ``work()``) has a script frame there; the library's
#: coroutines and tasks, made while the script awaits it, have a library frame there (looking
#: deeper would blame the script for them)
_ORIGIN_DEPTH = 1


class RoundWatch:
    """Installed for the duration of one script; ``problems`` are ready-to-print reports."""

    def __init__(self, filename: str, source: str) -> None:
        self.filename = filename
        self.lines = source.splitlines()
        self.problems: list[str] = []
        self.missing: list[MissingAwait] = []
        #: what the script raised, if anything (for the round's JSON report)
        self.failed: BaseException | None = None
        self._saved: tuple[Any, int] | None = None
        self._main: Any = None  # the script's asyncio task, cancelled on the first problem
        self.cancelled_main = False

    # ------------------------------------------------------------------ install

    def install(self) -> None:
        self._saved = (getattr(warnings, "_warn_unawaited_coroutine", None), sys.get_coroutine_origin_tracking_depth())
        # CPython's private hook for "coroutine ... was never awaited" (no stub describes it)
        warnings._warn_unawaited_coroutine = self._unawaited  # type: ignore[attr-defined]
        sys.set_coroutine_origin_tracking_depth(_ORIGIN_DEPTH)

    def uninstall(self) -> None:
        if self._saved is None:
            return
        hook, depth = self._saved
        if hook is not None:
            warnings._warn_unawaited_coroutine = hook  # type: ignore[attr-defined]  # see install()
        sys.set_coroutine_origin_tracking_depth(depth)
        self._saved = None

    def watch_loop(self, loop: Any, main_task: Any) -> None:
        """Judge the loop's unhandled task errors; ``main_task`` is cancelled on a problem."""
        self._main = main_task
        loop.set_exception_handler(self._loop_exception)

    def stop_cancelling(self) -> None:
        """The script is over: later findings are only reported (the clean-up must not be cut)."""
        self._main = None

    # ------------------------------------------------------------------ where

    def script_line(self, origin: Any) -> int | None:
        """The script line that made a coroutine, if the script's own code made it."""
        if origin:
            filename, lineno, _func = origin[0]
            if filename == self.filename:
                return int(lineno)
        return None

    def _where(self, lineno: int) -> str:
        text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        return f"  at line {lineno}: {text}"

    def _flag(self, report: str) -> None:
        self.problems.append(report)
        main = self._main
        if main is not None and not main.done() and not self.cancelled_main:
            self.cancelled_main = True
            main.get_loop().call_soon(self._cancel_main, main)

    def _cancel_main(self, main: Any) -> None:
        # the script may have ended between the finding and this callback: its clean-up (the
        # pages report, closing the channel) must not be cut, nor print an internal traceback
        if self._main is main and not main.done():
            main.cancel()

    # ------------------------------------------------------------------ coroutines

    def _unawaited(self, coro: Any) -> None:
        lineno = self.script_line(getattr(coro, "cr_origin", None))
        if lineno is None:
            hook = self._saved[0] if self._saved else None
            if hook is not None:
                hook(coro)
            return
        name = getattr(coro, "__name__", None) or "coroutine"  # the method as the script spelt it (no mixin names)
        text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        err = MissingAwait(
            f"missing await: {name}() was called without await at line {lineno}, so it never ran; "
            f"write `await` before the call (or keep the coroutine and await it later)",
            line=lineno,
            call=name,
        )
        self.missing.append(err)
        self._flag(f"{err.code}: {err.message}\n  at line {lineno}: {text}")

    # ------------------------------------------------------------------ tasks

    def task_line(self, task: Any) -> int | None:
        get_coro = getattr(task, "get_coro", None)
        coro = get_coro() if get_coro is not None else None
        return self.script_line(getattr(coro, "cr_origin", None))

    def _loop_exception(self, loop: Any, context: dict[str, Any]) -> None:
        task = context.get("future") or context.get("task")
        exc = context.get("exception")
        lineno = self.task_line(task) if task is not None else None
        if lineno is None or exc is None:
            loop.default_exception_handler(context)
            return
        self.report_task_failure(task, lineno, exc)

    def report_task_failure(self, task: Any, lineno: int, exc: BaseException) -> None:
        from .script_errors import _failure

        started = self._where(lineno).replace("  at", "  started at", 1)
        failure = _failure(exc, self.filename, "\n".join(self.lines))
        self._flag(f"Background task {task.get_name()} failed (nothing awaited it):\n{started}\n{failure}")

    def pending_tasks(self, current: Any) -> list[Any]:
        """Report the script's tasks still running when the script ended; the caller cancels them."""
        import asyncio

        found = []
        for task in asyncio.all_tasks():
            if task is current or task.done():
                continue
            lineno = self.task_line(task)
            if lineno is None:
                continue
            found.append(task)
            self.problems.append(
                f"Background task {task.get_name()} was still running when the script ended and was cancelled:\n"
                f"{self._where(lineno).replace('  at', '  started at', 1)}\n"
                "  await it (or asyncio.gather(...) the tasks) before the script ends"
            )
        return found
