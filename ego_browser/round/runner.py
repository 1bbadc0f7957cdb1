"""The stdin runner: one agent script per round, top-level ``await``, errors an agent can read.

``EgoError`` → ``CODE: message`` and ``  at line N: <source line>`` on stderr, exit 1.
Other exceptions → ``Type: message`` with the same line and a short traceback of the
script's own frames, exit 1. ``SyntaxError`` → message, line, column, source line and caret,
exit 2, and nothing runs. Work the script would drop silently (a coroutine never awaited, a
background task that failed or was cut off) fails the round too (``round/watch.py``).
"""

from __future__ import annotations

import ast
import asyncio
import os
import sys
import time
from types import CodeType
from typing import Any

# the names a round finds preloaded (API.md §13), generated from the schema
from .._exports import RUNNER_GLOBALS
from .watch import RoundWatch
from .script_errors import _failure

__all__ = ["run_source", "compile_script", "script_globals", "RUNNER_GLOBALS"]

def script_globals() -> dict[str, Any]:
    import json
    import re

    import ego_browser

    ns: dict[str, Any] = {
        "__name__": "__main__", "__builtins__": __builtins__,
        "ego_browser": ego_browser, "asyncio": asyncio, "json": json, "re": re,
    }
    for name in RUNNER_GLOBALS:
        if name not in ns:
            ns[name] = getattr(ego_browser, name)
    return ns


def compile_script(source: str, filename: str) -> CodeType:
    # typeshed types compile() with flags as Any (some flags make it return an AST); these make code
    code: CodeType = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    return code


def _syntax_error(exc: SyntaxError, source: str) -> str:
    lineno = exc.lineno or 0
    col = exc.offset or 0
    lines = source.splitlines()
    text = lines[lineno - 1] if 0 < lineno <= len(lines) else (exc.text or "").rstrip("\n")
    out = [f"SyntaxError: {exc.msg} (line {lineno}, column {col})", f"  {text}"]
    out.append("  " + " " * max(col - 1, 0) + "^")
    return "\n".join(out)


async def _end_routes() -> None:
    from ..client.channel import peek_channel

    round_ = getattr(peek_channel(), "round", None)
    if round_ is not None and getattr(round_, "route_tasks", None):
        from ..client.routes import end_routes

        await end_routes(round_)


async def _report_pages(source: str | None = None, status: int = 0, error: str | None = None,
                        started: float | None = None) -> None:
    """List pages adopted in the background that this round never touched, and print once a
    notice the host has for the person (its state store was found damaged and replaced). The
    same report gives the host's journal the round's script and outcome."""
    from ..client.round import current_round

    round_ = current_round()
    if not round_.used_spaces:
        return
    try:
        report = await asyncio.wait_for(round_.channel.call(
            "round.report", {"spaces": sorted(round_.used_spaces), "touched": sorted(round_.touched),
                             "token": round_.token, "script": source, "status": "ok" if status == 0 else "failed",
                             "error": error, "started": started}), 5)
    except Exception:
        return
    if isinstance(report, list):  # a host from before notices
        report = {"pages": report}
    if report.get("notice"):
        print(f"[ego-browser:notice]\n{report['notice']}")
    for row in report.get("person_notes") or ():
        print(f"[ego-browser:person] the person gave space {row['space_id']} back with a note: {row['note']}")
    rows = report.get("pages") or []
    if rows:
        print("[ego-browser:pages]")
        for r in rows:
            print(f"Unhandled page {r['label']} from {r.get('opener') or 'unknown'}: {r.get('url') or ''}")


#: set on a round's code object when it awaits at top level (inspect.CO_COROUTINE)
_CO_COROUTINE = 0x0080


def _run_plain(code: CodeType, ns: dict[str, Any], filename: str, source: str, watch: RoundWatch) -> int:
    """A script without top-level ``await`` needs no event loop of ours (a trivial round stays cheap)."""
    status = 0
    failure = None
    try:
        eval(code, ns)  # noqa: S307 - running the agent's script is the point
    except SystemExit as exc:
        code_ = exc.code
        status = code_ if isinstance(code_, int) else (0 if code_ is None else 1)
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("KeyboardInterrupt", file=sys.stderr)
        status = 130
    except BaseException as exc:
        failure = _failure(exc, filename, source)
        watch.failed = exc
        status = 1
    finally:
        sys.stdout.flush()
    _drop_script_objects(ns)
    return _report(watch, failure, status)


def _drop_script_objects(ns: dict[str, Any]) -> None:
    """Let go of what the script kept, so a coroutine it stored and never awaited, or a failed
    task it stored and never looked at, is judged now (by the RoundWatch) and not at exit.
    Reference counting frees nearly all of them; the young generations are collected for the
    ones in a cycle (a full collection costs a trivial round several ms for nothing)."""
    import gc

    ns.clear()
    gc.collect(1)


def _report(watch: RoundWatch, failure: str | None, status: int) -> int:
    """Print the dropped work first (it is usually the cause), then the script's own error."""
    sys.stdout.flush()
    for problem in watch.problems:
        print(problem, file=sys.stderr)
    if failure is not None:
        print(failure, file=sys.stderr)
    if watch.problems and status == 0:
        return 1
    return status


def run_source(source: str, filename: str = "<round>", *, ns: dict[str, Any] | None = None,
               loop: asyncio.AbstractEventLoop | None = None) -> int:
    """Run one round's script. The warm worker's spare child passes ``ns`` (from
    :func:`script_globals`) and a fresh event ``loop`` it made before the round arrived."""
    try:
        code = compile_script(source, filename)
    except SyntaxError as exc:
        sys.stdout.flush()
        print(_syntax_error(exc, source), file=sys.stderr)
        return 2
    # register the source so tracebacks (and pdb) can show script lines
    import linecache

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    if os.environ.get("EGO_BROWSER_LOG"):  # the worker's child: the round's own env asked for it
        from ..logsetup import to_stderr

        to_stderr()
    ns = script_globals() if ns is None else ns
    watch = RoundWatch(filename, source)
    watch.install()
    report = os.environ.get("EGO_BROWSER_ROUND_REPORT")
    started = time.perf_counter() if report else 0.0
    status = 1
    try:
        if not code.co_flags & _CO_COROUTINE:
            status = _run_plain(code, ns, filename, source, watch)
        else:
            status = _run_async(code, ns, filename, source, watch, loop)
        return status
    finally:
        watch.uninstall()
        if report:
            from .report import write_report

            write_report(report, watch, filename, status, time.perf_counter() - started)


def _run_async(code: CodeType, ns: dict[str, Any], filename: str, source: str, watch: RoundWatch,
               loop: asyncio.AbstractEventLoop | None) -> int:
    status = 0

    async def main() -> None:
        nonlocal status
        current = asyncio.current_task()
        watch.watch_loop(asyncio.get_running_loop(), current)
        failure = None
        error_code = None
        started = time.time()
        try:
            result = eval(code, ns)  # noqa: S307 - running the agent's script is the point
            if asyncio.iscoroutine(result):
                await result
        except asyncio.CancelledError:
            if not watch.cancelled_main:
                raise
            # the watch stopped the script at its first await after dropped work; reported below
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            failure = _failure(exc, filename, source)
            watch.failed = exc
            error_code = getattr(exc, "code", None) or type(exc).__name__
            status = 1
        finally:
            sys.stdout.flush()
            watch.stop_cancelling()
            await _end_routes()  # its handler routes end with the round (their tasks are ours, not the script's)
            pending = watch.pending_tasks(current)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=5)
            _drop_script_objects(ns)
            status = _report(watch, failure, status)
            await _report_pages(source, status, error_code, started)
            from ..client.channel import process_channel

            channel = process_channel()
            if channel is not None:
                await channel.aclose()

    def made_ahead() -> asyncio.AbstractEventLoop:
        assert loop is not None
        asyncio.set_event_loop(loop)  # as asyncio.run() does with the loop it makes
        return loop

    try:
        # asyncio.run() is exactly Runner(); run(); close(): with a loop made ahead, only its
        # creation (≈1 ms: epoll, the self-pipe) leaves the round's path
        with asyncio.Runner(loop_factory=None if loop is None else made_ahead) as runner:
            runner.run(main())
    except SystemExit as exc:
        code_ = exc.code
        return code_ if isinstance(code_, int) else (0 if code_ is None else 1)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", file=sys.stderr)
        return 130
    finally:
        sys.stdout.flush()
    return status
