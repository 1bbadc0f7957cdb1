"""CDP without I/O: commands in, frames out; frames in, replies and events out.

This is the whole protocol logic of a CDP client, with no socket, no event loop and no
clock: request id allocation, the pending table (what each id was for), ``sessionId``
routing of events to subscribers, tolerant decoding (a hostile page's lone surrogate must
not cost the connection), and error replies turned into typed errors (``cdp/errors.py``).

I/O shells drive it: the asyncio :class:`~ego_browser.cdp.connection.Connection` (over a
websocket or the keeper's pipe socket) and the fake browser of ``ego_browser.testing``.
A shell hands every frame it reads to :meth:`Protocol.receive` and acts on what it returns;
the *waiter* stored for a request is the shell's business (an asyncio future there), the
core only gives it back.

The reply path is the transport's hot loop: ``receive`` returns plain tuples and does one
dict lookup per frame, so the shell costs what the old single-module connection cost.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import Counter
from collections.abc import Callable
from typing import Any, Final, Literal, TypeAlias

import orjson

from .. import jsonsafe
from ..errors import CdpChannelUnavailable, CdpError, EgoTimeout, InvalidArgument
from .errors import from_reply

__all__ = ["Protocol", "Received", "ANY_SESSION", "REPLY", "ERROR", "EVENT", "encode_reply", "encode_event", "encode_error"]

logger = logging.getLogger("ego_browser.cdp")

#: subscribe to an event whatever session it comes from
ANY_SESSION: Any = object()

#: what ``receive`` found: ``(REPLY, waiter, result)``, ``(ERROR, waiter, CdpError)``,
#: ``(EVENT, method, params, session_id)``; ``None`` for a frame with nothing to act on
REPLY: Final = "reply"
ERROR: Final = "error"
EVENT: Final = "event"

#: one frame's meaning, tagged by its first member (shells narrow on ``found[0] is REPLY``)
Received: TypeAlias = (
    tuple[Literal["reply"], Any, dict[str, Any]]
    | tuple[Literal["error"], Any, CdpError]
    | tuple[Literal["event"], str, dict[str, Any], "str | None"]
)

Handler = Callable[[dict[str, Any], "str | None"], Any]

_dumps = orjson.dumps
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
#: the id of a reply too broken to parse (Chromium writes it first), so its caller still hears
_REPLY_ID = re.compile(r'\s*\{\s*"id"\s*:\s*(\d+)\s*,')


class Protocol:
    """The state of one CDP connection, client side."""

    __slots__ = ("_ids", "pending", "handlers", "closed", "sent", "events")

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        #: id -> (waiter, method, session_id); never replaced, so shells may keep a reference
        self.pending: dict[int, tuple[Any, str, str | None]] = {}
        #: (method, session_id | ANY_SESSION) -> handlers
        self.handlers: dict[tuple[str, object], list[Handler]] = {}
        #: why the connection ended (None while it is open)
        self.closed: CdpChannelUnavailable | None = None
        #: commands sent and events received, by method: every one is work for the browser
        #: process, which relays all CDP (``host status`` shows them; bench_density divides by rounds)
        self.sent: Counter[str] = Counter()
        self.events: Counter[str] = Counter()

    # -- commands ---------------------------------------------------------------------------

    def command(
        self, method: str, params: dict[str, Any] | None, session_id: str | None, waiter: Any
    ) -> tuple[int, str]:
        """Allocate an id for one command, remember ``waiter`` for its reply, and return
        ``(id, frame)``. Raises ``CdpChannelUnavailable`` once closed and ``InvalidArgument``
        for parameters with no JSON form (nothing is registered then)."""
        if self.closed is not None:
            raise CdpChannelUnavailable(f"CDP channel unavailable: {method} (connection closed)", method=method)
        msg_id = next(self._ids)
        message: dict[str, Any] = {"id": msg_id, "method": method}
        if params:
            message["params"] = params
        if session_id is not None:
            message["sessionId"] = session_id
        try:
            text = _dumps(message).decode()
        except TypeError:
            text = _encode_slow(message, method)
        self.pending[msg_id] = (waiter, method, session_id)
        self.sent[method] += 1
        return msg_id, text

    def forget(self, msg_id: int) -> tuple[Any, str, str | None] | None:
        """Stop waiting for a reply (sent failed, caller gave up); returns the entry if any."""
        return self.pending.pop(msg_id, None)

    def expire(self, msg_id: int, timeout: float) -> tuple[Any, EgoTimeout] | None:
        """The deadline of ``msg_id`` passed: its waiter and the timeout error, if still pending."""
        entry = self.pending.pop(msg_id, None)
        if entry is None:
            return None
        waiter, method, _ = entry
        ms = round(timeout * 1000)
        return waiter, EgoTimeout(f"CDP request timed out: {method} (after {ms}ms)", api=method, timeout_ms=ms)

    def reject_session(
        self, session_id: str, reason: str, exc: Exception | None = None
    ) -> list[tuple[Any, Exception]]:
        """Every pending request of one session, with the error it fails with."""
        failed = []
        for msg_id, (waiter, method, sid) in list(self.pending.items()):
            if sid == session_id:
                del self.pending[msg_id]
                failed.append((waiter, exc if exc is not None else CdpChannelUnavailable(
                    f"CDP channel unavailable: {method} ({reason})", method=method)))
        return failed

    def close(self, reason: str) -> list[tuple[Any, Exception]]:
        """The connection ended: every pending request with its error; no subscriber stays."""
        self.closed = CdpChannelUnavailable(reason, method=None)
        pending = list(self.pending.values())
        self.pending.clear()  # in place: a shell may hold the dict itself (its hot path does)
        self.handlers.clear()
        return [
            (waiter, CdpChannelUnavailable(f"CDP channel unavailable: {method} ({reason})", method=method))
            for waiter, method, _ in pending
        ]

    # -- frames from the browser --------------------------------------------------------------

    def receive(self, raw: str | bytes) -> Received | None:
        """Read one frame. Returns a ``REPLY``/``ERROR``/``EVENT`` tuple, or None when there is
        nothing to do (a late reply, a frame of an unexpected shape: logged and dropped)."""
        try:
            msg = _loads(raw)
        except _JSONDecodeError:
            return self._receive_slow(raw)
        return self._route(msg, raw)

    def _route(self, msg: Any, raw: str | bytes) -> Received | None:
        try:
            msg_id = msg.get("id")
            if msg_id is not None:
                entry = self.pending.pop(msg_id, None)
                if entry is None:
                    return None  # expired already
                err = msg.get("error")
                if err is None:
                    return (REPLY, entry[0], msg.get("result", {}))
                return (ERROR, entry[0], from_reply(entry[1], entry[2], err))
            method = msg.get("method")
            if method:
                self.events[method] += 1
            return (EVENT, method, msg.get("params", {}), msg.get("sessionId")) if method else None
        except Exception as exc:  # noqa: BLE001 - any shape of hostile frame: drop it, keep the connection
            logger.warning("CDP frame dropped (%s): %.200s", exc, raw)
            return None

    def _receive_slow(self, raw: str | bytes) -> Received | None:
        """A frame orjson refused (a page's lone surrogate, usually): decode it tolerantly. If it
        is not JSON at all, drop it; when it was a reply, fail that one request, never the rest."""
        try:
            msg = jsonsafe.loads(raw)
            if isinstance(msg, dict):
                return self._route(msg, raw)
            problem = f"a JSON {type(msg).__name__}, not an object"
        except ValueError as exc:
            problem = str(exc)
        text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
        logger.warning("CDP frame dropped (%s): %.200s", problem, text)
        match = _REPLY_ID.match(text)
        entry = self.pending.pop(int(match.group(1)), None) if match else None
        if entry is None:
            return None
        waiter, method, session_id = entry
        return (ERROR, waiter, CdpError(f"{method}: the browser's reply could not be read ({problem})",
                                        method=method, cdp_code=None, cdp_message=problem, session_id=session_id))

    # -- subscriptions --------------------------------------------------------------------------

    def subscribe(self, method: str, handler: Handler, session_id: object = ANY_SESSION) -> Callable[[], None]:
        """Add ``handler(params, session_id)``; returns the function that removes it."""
        key = (method, session_id)
        self.handlers.setdefault(key, []).append(handler)

        def off() -> None:
            handlers = self.handlers.get(key)
            if handlers is not None:
                _discard(handlers, handler)
                if not handlers:
                    self.handlers.pop(key, None)

        return off

    def handlers_for(self, method: str, session_id: str | None) -> tuple[Handler, ...]:
        """The subscribers of one event: those of its session, then those of any session."""
        handlers = self.handlers
        found = handlers.get((method, session_id))
        anyh = handlers.get((method, ANY_SESSION))
        if anyh:
            found = found + anyh if found else anyh
        return tuple(found) if found else ()

    def subscriber_count(self) -> int:
        return sum(len(h) for h in self.handlers.values())


# -- the browser's side, for fake peers (ego_browser.testing) -------------------------------------

def encode_reply(msg_id: int, result: dict[str, Any], session_id: str | None = None) -> str:
    frame: dict[str, Any] = {"id": msg_id, "result": result}
    if session_id is not None:
        frame["sessionId"] = session_id
    return jsonsafe.dumps(frame).decode()


def encode_error(
    msg_id: int, message: str, code: int = -32000, data: Any = None, session_id: str | None = None
) -> str:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    frame: dict[str, Any] = {"id": msg_id, "error": error}
    if session_id is not None:
        frame["sessionId"] = session_id
    return jsonsafe.dumps(frame).decode()


def encode_event(method: str, params: dict[str, Any] | None = None, session_id: str | None = None) -> str:
    frame: dict[str, Any] = {"method": method, "params": params or {}}
    if session_id is not None:
        frame["sessionId"] = session_id
    return jsonsafe.dumps(frame).decode()


def _encode_slow(message: dict[str, Any], method: str) -> str:
    """A command whose parameters orjson refuses: lone surrogates are sent as U+FFFD; a value
    with no JSON form is the caller's argument error (nothing is sent)."""
    try:
        return jsonsafe.dumps(message).decode()
    except jsonsafe.Unencodable as exc:
        where = exc.path.removeprefix("params.")
        raise InvalidArgument(
            f"{method}: {where} cannot be sent to the browser: {exc}; pass JSON values only "
            "(str, bool, None, finite numbers, ints within 64 bits, lists and dicts)",
            api=method, option=where, expected="a JSON-serialisable value",
        ) from exc


def _discard(items: list[Handler], item: Handler) -> None:
    try:
        items.remove(item)
    except ValueError:
        pass
