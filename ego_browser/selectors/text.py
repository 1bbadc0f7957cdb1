"""Text rules every selector parser shares: the engine's whitespace normalisation and the
error for a selector that does not parse."""

from __future__ import annotations

import re

from ..errors import InvalidSelector

__all__ = ["normalize_whitespace", "invalid_selector"]

# JavaScript's \s (what the in-page normalisation uses), spelled out for Python.
_JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS_RUN = re.compile(f"[{_JS_WS}]+")
_ZW = re.compile("[\u200b\u00ad]")


def normalize_whitespace(text: str) -> str:
    """The engine's normalisation: drop U+200B/U+00AD, trim, collapse whitespace runs."""
    return _WS_RUN.sub(" ", _ZW.sub("", text)).strip(" ")


def invalid_selector(selector: str, detail: str) -> InvalidSelector:
    return InvalidSelector(f"Invalid selector {selector!r}: {detail}", selector=selector, detail=detail)
