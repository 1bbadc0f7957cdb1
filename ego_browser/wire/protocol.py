"""The round <-> host protocol: framing, the envelope and each request's deadline.

Both the client (``client/channel.py``) and the host (``host/core/server.py``,
``host/core/dispatch.py``) import this module; it imports nothing of ours but ``jsonsafe`` and
``config``, so a round never loads the host package for it.

Framing: a 4-byte big-endian length, then one JSON document.

Requests are ``{"i": id, "op": name, "a": args}``; answers ``{"i": id, "r": result}`` or
``{"i": id, "e": {"code", "message", "attrs"}}``. Events the host pushes unasked carry no id.
The arguments ``a`` carry an envelope the host takes off before binding the rest against the
operation's declaration: ``space``, the page ``label`` and the round's input token ``proc``
(``schema/wire.envelope`` derives which of them each operation takes).

Deadlines: the host allows a request its own ``timeout`` plus :data:`MARGIN` (else its
backstop), the round waits that plus :data:`REPLY_MARGIN`: the round never gives up first.

Both sides encode through :mod:`ego_browser.jsonsafe`: a lone surrogate travels as U+FFFD
instead of failing the frame, and a value with no JSON form raises ``jsonsafe.Unencodable``
so the sender can answer with an error rather than with silence.
"""

from __future__ import annotations

import struct
from typing import Any

import orjson

from .. import jsonsafe

__all__ = ["HEADER", "encode", "decode", "MAX_FRAME", "Unencodable", "MARGIN", "REPLY_MARGIN", "request_deadline"]

HEADER = struct.Struct(">I")

#: extra seconds past a call's own timeout before the host gives up on it
MARGIN = 5.0
#: extra seconds a round waits past the host's own deadline for a request (``client/channel.py``)
REPLY_MARGIN = 10.0
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


def request_deadline(kwargs: dict[str, Any], default: float | None = None) -> float:
    """Seconds the host allows one request: its ``timeout`` (ms) plus ``MARGIN``, else the op's
    own default, never past the backstop (``EGO_BROWSER_REQUEST_DEADLINE``). A round waits this
    long plus its own margin (``REPLY_MARGIN``), so it never gives up before the host."""
    from .. import config

    backstop = config.request_deadline()
    timeout = kwargs["timeout"] if "timeout" in kwargs else None
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 < timeout < 1e12:
        return timeout / 1000 + MARGIN
    return min(default, backstop) if default else backstop
