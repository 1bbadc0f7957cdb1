"""Framing between rounds and the host: a 4-byte big-endian length, then one orjson document.

Requests are ``{"i": id, "op": name, "a": args}``; answers ``{"i": id, "r": result}`` or
``{"i": id, "e": {"code", "message", "attrs"}}``. Events the host pushes unasked carry no id.
"""

from __future__ import annotations

import struct

import orjson

__all__ = ["HEADER", "encode", "decode", "MAX_FRAME"]

HEADER = struct.Struct(">I")
MAX_FRAME = 256 * 1024 * 1024


def encode(doc: dict) -> bytes:
    body = orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> dict:
    return orjson.loads(body)
