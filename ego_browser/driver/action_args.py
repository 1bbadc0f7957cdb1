"""Option checks shared by the element actions (messages name the API and the option)."""

from __future__ import annotations

import math
from typing import Any

from ..errors import InvalidArgument

__all__ = ["_bad", "_validate_pointer", "_validate_position"]


def _bad(api: str, option: str, expected: str, got: Any) -> InvalidArgument:
    return InvalidArgument(f"{api}: {option} must be {expected} (got {got!r})", api=api, option=option, expected=expected)


def _validate_pointer(api: str, *, button: str = "left", click_count: int = 1, delay: float = 0,
                      position: Any = None) -> None:
    if button not in ("left", "middle", "right"):
        raise _bad(api, "button", "one of left, middle, right", button)
    # the schema checks these on the way in; the driver repeats them for in-process callers
    from ..schema.validate import MAX_CLICKS, MAX_DELAY_MS

    if isinstance(click_count, bool) or not isinstance(click_count, int) or not 1 <= click_count <= MAX_CLICKS:
        raise _bad(api, "click_count", f"an int from 1 to {MAX_CLICKS}", click_count)
    if (isinstance(delay, bool) or not isinstance(delay, (int, float)) or not math.isfinite(delay)
            or not 0 <= delay <= MAX_DELAY_MS):
        raise _bad(api, "delay", f"a number of milliseconds from 0 to {MAX_DELAY_MS}", delay)
    _validate_position(api, "position", position)


def _validate_position(api: str, option: str, position: Any) -> None:
    if position is None:
        return
    ok = isinstance(position, dict) and set(position) == {"x", "y"} and all(
        isinstance(position[k], (int, float)) and not isinstance(position[k], bool) and math.isfinite(position[k])
        for k in ("x", "y")
    )
    if not ok:
        raise _bad(api, option, 'a point {"x": float, "y": float}', position)
