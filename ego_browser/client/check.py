"""Argument checks at the public boundary: cheap, and errors that say what to do.

A wrong type or range raises ``InvalidArgument`` naming the API, the option and what was
expected (``page.click: click_count must be a positive integer (got 0)``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..errors import InvalidArgument

__all__ = ["positive_ms", "non_negative_ms", "one_of", "is_str", "positive_int", "opt_str"]


def _fail(api: str, option: str, expected: str, value: Any) -> InvalidArgument:
    shown = repr(value) if not isinstance(value, str) or len(value) < 80 else repr(value[:77] + "...")
    return InvalidArgument(f"{api}: {option} must be {expected} (got {shown})", api=api, option=option, expected=expected)


def positive_ms(api: str, option: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise _fail(api, option, "a positive, finite number of milliseconds", value)
    return value


def non_negative_ms(api: str, option: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise _fail(api, option, "a finite number of milliseconds >= 0", value)
    return value


def positive_int(api: str, option: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _fail(api, option, "a positive integer", value)
    return value


def one_of(api: str, option: str, value: Any, choices: Iterable[str]) -> str:
    choices = tuple(choices)
    if value not in choices:
        raise _fail(api, option, "one of " + ", ".join(repr(c) for c in choices), value)
    return value


def is_str(api: str, option: str, value: Any, *, non_empty: bool = False) -> str:
    if not isinstance(value, str) or (non_empty and not value):
        raise _fail(api, option, "a non-empty str" if non_empty else "a str", value)
    return value


def is_bool(api: str, option: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(api, option, "True or False", value)
    return value


def opt_str(api: str, option: str, value: Any) -> str | None:
    if value is None:
        return None
    return is_str(api, option, value)
