"""How a round reports what its script raised: the script's own frames, its line, its error.

Shared by the runner (the script's exception) and the round watch (a background task's).
"""

from __future__ import annotations

import traceback
from types import TracebackType

__all__ = ["_failure"]


def _script_frames(tb: TracebackType | None, filename: str) -> list[traceback.FrameSummary]:
    return [f for f in traceback.extract_tb(tb) if f.filename == filename]


def _failure(exc: BaseException, filename: str, source: str) -> str:
    from ..errors import EgoError

    frames = _script_frames(exc.__traceback__, filename)
    lines = source.splitlines()
    where = ""
    if frames:
        last = frames[-1]
        line = lines[last.lineno - 1].strip() if last.lineno and 0 < last.lineno <= len(lines) else ""
        where = f"  at line {last.lineno}: {line}"
    if isinstance(exc, EgoError):
        return f"{exc.code}: {exc.message}" + (f"\n{where}" if where else "")
    out = []
    if len(frames) > 1:
        out.append("Traceback (script frames):")
        for f in frames[:-1]:
            src = lines[f.lineno - 1].strip() if f.lineno and 0 < f.lineno <= len(lines) else ""
            out.append(f"  line {f.lineno} in {f.name}: {src}")
    out.append(f"{type(exc).__name__}: {exc}")
    if where:
        out.append(where)
    return "\n".join(out)
