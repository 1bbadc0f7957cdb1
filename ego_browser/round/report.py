"""``ego-browser --json``: the round's outcome as one JSON object.

The round runs where it always does (the warm worker's child, or this process); its output
goes to files the command reads back, and the runner writes this report next to them: the
exit status, the duration, the error (code, message, script line) and the page calls it made
with their receipts. ``run_json`` prints the whole as one object on the real stdout.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

import orjson

from .watch import RoundWatch

__all__ = ["run_json", "write_report"]


def _error(watch: RoundWatch, filename: str) -> dict[str, Any] | None:
    from ..errors import EgoError

    exc: BaseException | None = watch.failed
    if exc is None and watch.missing:
        exc = watch.missing[0]
    if exc is None:
        return {"code": None, "message": watch.problems[0], "line": None} if watch.problems else None
    line = getattr(exc, "line", None)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    if frames:
        line = frames[-1].lineno
    if isinstance(exc, EgoError):
        return {"code": exc.code, "message": exc.message, "line": line}
    return {"code": None, "type": type(exc).__name__, "message": str(exc), "line": line}


def _calls() -> list[dict[str, Any]]:
    from ..client.channel import peek_channel

    found = getattr(peek_channel(), "round", None)
    calls = getattr(found, "calls", None)
    return list(calls) if isinstance(calls, list) else []


def write_report(path: str, watch: RoundWatch, filename: str, status: int, seconds: float) -> None:
    report = {"status": status, "duration_ms": round(seconds * 1000, 1), "error": _error(watch, filename),
              "calls": _calls()}
    with open(path, "wb") as fh:
        fh.write(orjson.dumps(report, default=str))


def run_json(run: Callable[[], int]) -> int:
    """Run ``run()`` (a round) with its streams in files, then print the JSON report."""
    with tempfile.TemporaryDirectory(prefix="ego-round-") as tmp:
        out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        report_path = os.path.join(tmp, "report.json")
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.environ["EGO_BROWSER_ROUND_REPORT"] = report_path
        try:
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                try:
                    status = run()
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os.dup2(saved[0], 1)
                    os.dup2(saved[1], 2)
        finally:
            os.environ.pop("EGO_BROWSER_ROUND_REPORT", None)
            for fd in saved:
                os.close(fd)
        try:
            with open(report_path, "rb") as fh:
                report = orjson.loads(fh.read())
        except (OSError, orjson.JSONDecodeError):
            # the round never reached the runner (a syntax error, a worker that failed early)
            report = {"status": status, "duration_ms": None, "error": None, "calls": []}
        with open(out_path, "rb") as fh:
            stdout = fh.read().decode("utf-8", "replace")
        with open(err_path, "rb") as fh:
            stderr = fh.read().decode("utf-8", "replace")
    report["status"] = status
    if report.get("error") is None and status != 0 and stderr.strip():
        report["error"] = {"code": None, "message": stderr.strip().splitlines()[0], "line": None}
    report = {"ok": status == 0, **report, "stdout": stdout, "stderr": stderr}
    sys.stdout.write(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")
    sys.stdout.flush()
    return status
