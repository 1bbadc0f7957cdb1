"""Page text in answers is marked as page content (issue 32, point 2).

A round prints what the host answers next to the runtime's own messages: lines that start with
``[ego-browser:`` (the runner's notices, the person's notes) and errors as ``EGO_CODE: message``.
A page that writes such a line into its title, text, a script result or an error would pass for
the runtime. Nothing the host answers for a page operation is the runtime speaking, so in those
answers (results and errors) every ``[ego-browser:`` becomes ``[page-text:ego-browser:`` and a
line starting with ``EGO_CODE:`` gets ``[page-text] `` in front: the agent sees page content for
what it is, and the runtime's prefixes stay the runtime's.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["mark", "mark_error", "RUNTIME_PREFIX", "PAGE_PREFIX"]

RUNTIME_PREFIX = "[ego-browser:"
PAGE_PREFIX = "[page-text:ego-browser:"
_CODE_LINE = re.compile(r"(?m)^(EGO_[A-Z0-9_]+:)")


def _text(s: str) -> str:
    if RUNTIME_PREFIX in s:
        s = s.replace(RUNTIME_PREFIX, PAGE_PREFIX)
    if "EGO_" in s:
        s = _CODE_LINE.sub(r"[page-text] \1", s)
    return s


def mark(value: Any) -> Any:
    """``value`` (a JSON-like tree) with page text that imitates the runtime marked as page text."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {k: mark(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mark(v) for v in value]
    return value


def mark_error(exc: BaseException) -> None:
    """The same for an error on its way out (its message quotes the page: a script's error, a title)."""
    from ...errors import EgoError

    if isinstance(exc, EgoError):
        exc.message = _text(exc.message)
    exc.args = tuple(mark(a) for a in exc.args)
