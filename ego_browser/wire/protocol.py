"""Framing between rounds and the host: a 4-byte big-endian length, then one JSON document.

Requests are ``{"i": id, "op": name, "a": args}``; answers ``{"i": id, "r": result}`` or
``{"i": id, "e": {"code", "message", "attrs"}}``. Events the host pushes unasked carry no id.

Both sides encode through :mod:`ego_browser.jsonsafe`: a lone surrogate travels as U+FFFD
instead of failing the frame, and a value with no JSON form raises ``jsonsafe.Unencodable``
so the sender can answer with an error rather than with silence.
"""

from __future__ import annotations

import struct
from typing import Any

import orjson

from .. import jsonsafe

__all__ = ["HEADER", "encode", "decode", "MAX_FRAME", "Unencodable"]

HEADER = struct.Struct(">I")
MAX_FRAME = 256 * 1024 * 1024

Unencodable = jsonsafe.Unencodable
_OPTION = orjson.OPT_NON_STR_KEYS
_dumps = orjson.dumps


def encode(doc: dict[str, Any], *, big_ints_as_text: bool = False) -> bytes:
    """One frame. Raises :class:`Unencodable` (a ``TypeError``) naming the bad value's place."""
    try:
        body = _dumps(doc, option=_OPTION)
    except TypeError:
        try:
            body = jsonsafe.dumps(doc, option=_OPTION, big_ints_as_text=big_ints_as_text)
        except RecursionError:
            raise Unencodable("the message is nested deeper than JSON on the wire allows (255 levels)",
                              "value") from None
    if len(body) > MAX_FRAME:
        raise Unencodable(f"the message is {len(body)} bytes, over the {MAX_FRAME}-byte frame limit", "value")
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> dict[str, Any]:
    """Raises ``ValueError`` when the frame is not a JSON object."""
    doc = jsonsafe.loads(body)
    if not isinstance(doc, dict):
        raise ValueError(f"a frame must be a JSON object, not a {type(doc).__name__}")
    return doc
