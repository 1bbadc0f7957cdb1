"""URL patterns the host matches itself (routes, request waits, the request log): refuse the
ones whose matching could hold the host's loop for minutes.

Python's ``re`` backtracks, never yields and has no timeout; the host matches every request
URL of a page against its routes on its one event loop. A pattern built from hostile input
(a page's text, a URL) such as ``(a+)+$``, or a glob with dozens of ``**``, takes exponential or
high-polynomial time on a URL made for it (a page chooses its URLs), and every space of the
host would wait. So a pattern with an unbounded repeat inside another unbounded repeat, or with
more than ``MAX_UNBOUNDED`` unbounded repeats, or longer than ``MAX_LENGTH``, is refused with
``EGO_INVALID_ROUTE_PATTERN`` before it is used. Ordinary globs (``**/api/*``) and regexes pass.
"""

from __future__ import annotations

import importlib
from typing import Any

# the parsed form ``re`` itself uses (no second parser to drift); untyped, private to ``re``
_c: Any = importlib.import_module("re._constants")
_p: Any = importlib.import_module("re._parser")

__all__ = ["pattern_problem", "MAX_UNBOUNDED", "MAX_LENGTH"]

#: unbounded repeats (``*``, ``+``, ``{n,}``) one pattern may have
MAX_UNBOUNDED = 12
#: characters of one pattern
MAX_LENGTH = 4096
#: a bounded repeat wider than this counts as unbounded (``a{1,100000}``)
_WIDE = 100

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}


def _walk(items: Any, inside: bool, counts: list[int]) -> bool:
    """True when an unbounded repeat sits inside another; counts[0] += each unbounded repeat."""
    for op, av in items:
        if op in _REPEATS:
            lo, hi, sub = av
            unbounded = hi == _c.MAXREPEAT or hi - lo > _WIDE
            if unbounded:
                counts[0] += 1
                if inside:
                    return True
            if _walk(sub, inside or unbounded, counts):
                return True
        elif op == _c.SUBPATTERN:
            if _walk(av[-1], inside, counts):
                return True
        elif op == _c.BRANCH:
            if any(_walk(branch, inside, counts) for branch in av[1]):
                return True
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            if _walk(av[1], inside, counts):
                return True
        elif op == getattr(_c, "ATOMIC_GROUP", None) and _walk(av, inside, counts):
            return True
    return False


def pattern_problem(regex: str, flags: int = 0) -> str | None:
    """Why matching ``regex`` could take too long (None: it cannot)."""
    if len(regex) > MAX_LENGTH:
        return f"it is {len(regex)} characters long (at most {MAX_LENGTH})"
    counts = [0]
    if _walk(_p.parse(regex, flags), False, counts):
        return "it repeats a repeat (as in (a+)+), which can take exponential time on a URL made for it"
    if counts[0] > MAX_UNBOUNDED:
        return f"it has {counts[0]} unbounded repeats (*, +, **; at most {MAX_UNBOUNDED})"
    return None
