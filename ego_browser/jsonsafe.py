"""JSON for our two wires (CDP and host<->round) that a hostile page cannot break.

orjson is the fast path both ways, but it is stricter than the peers we talk to: Chromium
escapes a page's lone UTF-16 surrogate (``console.log('\\ud800')``) as ``"\\ud800"``, which
orjson refuses to decode, and Python strings holding such surrogates (or ints past 64 bits)
are refused by its encoder. One such value must never cost a connection, so on failure we
take a slow path: the standard library's decoder (which accepts the escape), then every lone
surrogate becomes U+FFFD, as a browser does when it renders one. Only the rare bad frame
pays for the slow path.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["loads", "dumps", "scrub", "Unencodable", "INT_MIN", "INT_MAX"]

#: the integers orjson can encode (a signed or unsigned 64-bit machine word)
INT_MIN = -(2**63)
INT_MAX = 2**64 - 1

_SURROGATE = re.compile("[\ud800-\udfff]")
_loads = orjson.loads
_dumps = orjson.dumps


class Unencodable(TypeError):
    """A value has no JSON form (not a str/number/bool/None/list/dict, or an int past 64 bits).

    ``path`` names where it sits (``a.arg[2]``), so the error can tell the caller what to change.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def _parse_int(text: str) -> int | float:
    # the same answer orjson gives: an integer past 64 bits is read as a float
    value = int(text)
    return value if INT_MIN <= value <= INT_MAX else float(value)


def loads(raw: str | bytes) -> Any:
    """Decode a document; lone surrogates come back as U+FFFD. Raises ``ValueError`` when the
    text is not JSON at all."""
    try:
        return _loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        if isinstance(raw, (bytes, bytearray, memoryview)):
            # a byte stream (the browser's pipe) may carry a surrogate as raw, invalid UTF-8
            raw = bytes(raw).decode("utf-8", "replace")
        value = json.loads(raw, parse_int=_parse_int)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not a JSON document: {exc}") from exc
    return scrub(value)


def dumps(doc: Any, *, option: int = 0, big_ints_as_text: bool = False) -> bytes:
    """Encode ``doc``; lone surrogates are sent as U+FFFD. With ``big_ints_as_text`` an int past
    64 bits is sent as its decimal text (for reports, where losing the type beats losing the
    reply). Raises :class:`Unencodable` for what still has no JSON form."""
    try:
        return _dumps(doc, option=option)
    except TypeError:
        pass
    try:
        cleaned = scrub(doc, big_ints_as_text=big_ints_as_text, strict=True)
        return _dumps(cleaned, option=option)
    except RecursionError:
        raise Unencodable("the value is nested too deeply (or contains itself)", "value") from None
    except Unencodable:
        raise
    except TypeError as exc:  # e.g. a circular reference
        raise Unencodable(f"the value has no JSON form: {exc}", "value") from exc


def scrub(value: Any, *, big_ints_as_text: bool = False, strict: bool = False, path: str = "") -> Any:
    """A copy of ``value`` whose strings hold no lone surrogate. With ``strict``, raise
    :class:`Unencodable` for values orjson cannot encode (naming where they are)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return value
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return value
        if big_ints_as_text:
            return str(value)
        if strict:
            raise Unencodable(f"{path or 'value'} is an integer outside the 64-bit range", path or "value")
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = scrub(key) if isinstance(key, str) else key
            out[name] = scrub(item, big_ints_as_text=big_ints_as_text, strict=strict,
                              path=f"{path}.{key}" if path else str(key))
        return out
    if isinstance(value, (list, tuple)):
        return [scrub(item, big_ints_as_text=big_ints_as_text, strict=strict, path=f"{path}[{i}]")
                for i, item in enumerate(value)]
    if strict:
        try:
            _dumps(value)  # a type orjson knows (datetime, dataclass, ...)
        except TypeError:
            raise Unencodable(f"{path or 'value'} is a {type(value).__name__}, which has no JSON form",
                              path or "value") from None
    return value
