"""``EGO_BROWSER_LOG`` / ``--verbose``: ego_browser's own log lines on stderr (issue 34 point 7).

By default a round and a command log nothing (the host logs to ``run/host.log``). With
``EGO_BROWSER_LOG=debug`` (or info, warning, error; ``--verbose`` is debug for one command) the
``ego_browser`` loggers of this process write to stderr, and a host started under it logs at
that level to its file.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["LEVELS", "level", "to_stderr"]

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
_FORMAT = "[ego-browser:log] %(asctime)s %(levelname)s %(name)s: %(message)s"


def level(default: int | None = None) -> int | None:
    """The level ``EGO_BROWSER_LOG`` asks for, ``default`` when unset; a bad value is an error."""
    raw = os.environ.get("EGO_BROWSER_LOG", "").strip().lower()
    if not raw:
        return default
    if raw not in LEVELS:
        from .errors import InvalidArgument

        raise InvalidArgument(
            f"EGO_BROWSER_LOG={raw!r} is not a level: use one of {', '.join(LEVELS)} (or unset it)",
            api="environment", option="EGO_BROWSER_LOG", expected="|".join(LEVELS),
        )
    return LEVELS[raw]


def to_stderr() -> None:
    """Send the ``ego_browser`` loggers to stderr at the asked level (once per process)."""
    asked = level()
    if asked is None:
        return
    root = logging.getLogger("ego_browser")
    root.setLevel(asked)
    if not any(getattr(h, "_ego_stderr", False) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler._ego_stderr = True  # type: ignore[attr-defined]  # our mark: added once
        root.addHandler(handler)
