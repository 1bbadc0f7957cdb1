"""One browser websocket, many flat sessions.

The transport and nothing else: request ids mapped to futures, ``sessionId`` routing, event
fan-out to any number of subscribers, a deadline on every request, and connection loss that
rejects everything pending. Feature state (frames, dialogs, network) lives in ``driver/``.

Subscribers are plain callables run from the reader; they must not block. A subscriber that
returns a coroutine gets it scheduled as a task owned by the connection (cancelled on close),
so the reader never awaits a handler. Subscriber exceptions go to the loop's exception
handler, never silently dropped.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections.abc import Callable
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .. import jsonsafe
from ..errors import BrowserUnavailable, CdpChannelUnavailable, CdpError, EgoTimeout, InvalidArgument

__all__ = ["Connection", "Session", "ANY_SESSION", "DEFAULT_TIMEOUT"]

logger = logging.getLogger("ego_browser.cdp")

#: subscribe to an event whatever session it comes from
ANY_SESSION = object()
#: seconds; callers pass their own deadline, this is the backstop
DEFAULT_TIMEOUT = 30.0

Handler = Callable[[dict[str, Any], "str | None"], Any]

_dumps = orjson.dumps
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
#: the id of a reply too broken to parse (Chromium writes it first), so its caller still hears
_REPLY_ID = re.compile(r'\s*\{\s*"id"\s*:\s*(\d+)\s*,')


class Connection:
    """A CDP connection to one browser endpoint: ``ws://…/devtools/browser/…``, or
    ``unix:PATH``, the keeper of a Chromium we launched (see ``cdp/pipe.py``)."""

    def __init__(self, ws: ClientConnection, url: str) -> None:
        self.url = url
        self._ws = ws
        self._ids = itertools.count(1)
        # id -> (future, method, session_id)
        self._pending: dict[int, tuple[asyncio.Future, str, str | None]] = {}
        # (method, session_id | ANY_SESSION) -> handlers
        self._handlers: dict[tuple[str, object], list[Handler]] = {}
        self._close_handlers: list[Callable[[BaseException | None], Any]] = []
        self._tasks: set[asyncio.Task] = set()
        self._closed: BaseException | None = None
        self._loop = asyncio.get_running_loop()
        self._reader = self._loop.create_task(self._read_loop(), name="ego-cdp-reader")

    # -- life cycle -------------------------------------------------------------------------

    @classmethod
    async def connect(cls, url: str, *, timeout: float = 10.0) -> Connection:
        if url.startswith("unix:"):  # a keeper's private socket (browser/keeper.py)
            from .pipe import connect_unix

            return cls(await connect_unix(url[5:], timeout=timeout), url)  # type: ignore[arg-type]
        try:
            ws = await asyncio.wait_for(
                connect(
                    url,
                    compression=None,  # loopback: compressing costs more than it saves
                    max_size=None,  # AX trees and screenshots are large
                    ping_interval=None,  # the browser never pings; CDP has its own liveness
                    open_timeout=timeout,
                    close_timeout=1,
                    write_limit=2**20,
                ),
                timeout,
            )
        except (OSError, asyncio.TimeoutError, ConnectionClosed, Exception) as exc:
            raise BrowserUnavailable(
                f"cannot connect to the browser's CDP endpoint {url}: {exc}; check that the browser "
                "is running (python -m ego_browser doctor)",
                endpoint=url,
            ) from exc
        return cls(ws, url)

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def close(self) -> None:
        """Close the socket, reject what is pending, and leave no task or callback behind."""
        if self._closed is None:
            self._fail_all(CdpChannelUnavailable("CDP connection closed", method=None))
        try:
            await self._ws.close()
        except Exception:  # the socket may already be gone; the state above is what matters
            pass
        if not self._reader.done():
            self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)
        await self._cancel_tasks()

    async def _cancel_tasks(self) -> None:
        tasks = [t for t in self._tasks if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()

    def on_close(self, handler: Callable[[BaseException | None], Any]) -> Callable[[], None]:
        self._close_handlers.append(handler)
        return lambda: _discard(self._close_handlers, handler)

    # -- requests ---------------------------------------------------------------------------

    async def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> dict[str, Any]:
        """Send one command and return its ``result`` dict.

        Raises ``CdpError`` (the browser's code and message, and the method), ``EgoTimeout``
        naming the method at the deadline, ``CdpChannelUnavailable`` if the connection or
        the session goes away first.
        """
        if self._closed is not None:
            raise CdpChannelUnavailable(
                f"CDP channel unavailable: {method} (connection closed)", method=method
            )
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
        fut = self._loop.create_future()
        self._pending[msg_id] = (fut, method, session_id)
        handle = self._loop.call_later(timeout, self._expire, msg_id, timeout) if timeout else None
        try:
            await self._ws.send(text)
        except ConnectionClosed as exc:
            self._pending.pop(msg_id, None)
            if handle:
                handle.cancel()
            raise CdpChannelUnavailable(
                f"CDP channel unavailable: {method} (connection lost: {exc})", method=method
            ) from exc
        try:
            return await fut
        finally:
            if handle:
                handle.cancel()
            self._pending.pop(msg_id, None)

    def _expire(self, msg_id: int, timeout: float) -> None:
        entry = self._pending.pop(msg_id, None)
        if entry is None:
            return
        fut, method, _ = entry
        if not fut.done():
            fut.set_exception(
                EgoTimeout(
                    f"CDP request timed out: {method} (after {round(timeout * 1000)}ms)",
                    api=method,
                    timeout_ms=round(timeout * 1000),
                )
            )

    def reject_session(self, session_id: str, reason: str, exc: Exception | None = None) -> None:
        """Fail every pending request of one session (its target went away, or a dialog now
        blocks it: pass ``exc`` to say so). Requests already answered keep their answer."""
        for msg_id, (fut, method, sid) in list(self._pending.items()):
            if sid == session_id:
                del self._pending[msg_id]
                if not fut.done():
                    fut.set_exception(
                        exc if exc is not None
                        else CdpChannelUnavailable(f"CDP channel unavailable: {method} ({reason})", method=method)
                    )

    # -- events -----------------------------------------------------------------------------

    def on(self, method: str, handler: Handler, *, session_id: object = ANY_SESSION) -> Callable[[], None]:
        """Subscribe ``handler(params, session_id)``; returns the function that unsubscribes."""
        key = (method, session_id)
        self._handlers.setdefault(key, []).append(handler)

        def off() -> None:
            handlers = self._handlers.get(key)
            if handlers is not None:
                _discard(handlers, handler)
                if not handlers:
                    self._handlers.pop(key, None)

        return off

    def subscriber_count(self) -> int:
        return sum(len(h) for h in self._handlers.values())

    def _dispatch(self, method: str, params: dict[str, Any], session_id: str | None) -> None:
        handlers = self._handlers
        found = handlers.get((method, session_id))
        anyh = handlers.get((method, ANY_SESSION))
        if anyh:
            found = found + anyh if found else anyh
        if not found:
            return
        for handler in tuple(found):
            try:
                result = handler(params, session_id)
            except Exception as exc:  # report, never kill the reader
                self._loop.call_exception_handler(
                    {"message": f"CDP event handler for {method} failed", "exception": exc}
                )
                continue
            if asyncio.iscoroutine(result):
                self._spawn(result)

    def _spawn(self, coro) -> asyncio.Task:
        task = self._loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            if not isinstance(exc, (ConnectionClosed, CdpChannelUnavailable)):
                self._loop.call_exception_handler({"message": "CDP task failed", "exception": exc, "task": task})

    # -- reader -----------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        error: BaseException | None = None
        pending = self._pending
        try:
            async for raw in self._ws:
                try:
                    msg = _loads(raw)
                except _JSONDecodeError:
                    msg = self._decode_slow(raw)
                    if msg is None:
                        continue
                try:
                    msg_id = msg.get("id")
                    if msg_id is not None:
                        entry = pending.pop(msg_id, None)
                        if entry is None:
                            continue  # expired already
                        fut, method, _ = entry
                        if fut.done():
                            continue
                        err = msg.get("error")
                        if err is None:
                            fut.set_result(msg.get("result", {}))
                        else:
                            fut.set_exception(
                                CdpError(
                                    f"{method}: {err.get('message', 'CDP error')}"
                                    + (f" ({err['data']})" if err.get("data") else ""),
                                    method=method,
                                    cdp_code=err.get("code"),
                                    cdp_message=err.get("message"),
                                )
                            )
                    else:
                        method = msg.get("method")
                        if method:
                            self._dispatch(method, msg.get("params", {}), msg.get("sessionId"))
                except Exception as exc:  # a frame of an unexpected shape: drop it, keep the connection
                    logger.warning("CDP frame dropped (%s): %.200s", exc, raw)
        except ConnectionClosed as exc:
            error = exc
        except asyncio.CancelledError:
            error = None
            raise
        except Exception as exc:  # the socket itself failed: the connection can't be trusted any more
            error = exc
            logger.exception("CDP reader failed")
        finally:
            if self._closed is None:
                self._fail_all(
                    CdpChannelUnavailable(
                        f"CDP connection lost: {error or 'closed'}", method=None
                    ),
                    cause=error,
                )

    def _decode_slow(self, raw: str | bytes) -> dict[str, Any] | None:
        """A frame orjson refused (a page's lone surrogate, usually): decode it tolerantly. If it
        is not JSON at all, drop it; when it was a reply, fail that one request, never the rest."""
        try:
            msg = jsonsafe.loads(raw)
            if isinstance(msg, dict):
                return msg
            problem = f"a JSON {type(msg).__name__}, not an object"
        except ValueError as exc:
            problem = str(exc)
        text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
        logger.warning("CDP frame dropped (%s): %.200s", problem, text)
        match = _REPLY_ID.match(text)
        entry = self._pending.pop(int(match.group(1)), None) if match else None
        if entry is not None and not entry[0].done():
            fut, method, _ = entry
            fut.set_exception(
                CdpError(f"{method}: the browser's reply could not be read ({problem})",
                         method=method, cdp_code=None, cdp_message=problem)
            )
        return None

    def _fail_all(self, exc: CdpChannelUnavailable, cause: BaseException | None = None) -> None:
        self._closed = exc
        pending, self._pending = self._pending, {}
        for fut, method, _ in pending.values():
            if not fut.done():
                fut.set_exception(
                    CdpChannelUnavailable(f"CDP channel unavailable: {method} ({exc.message})", method=method)
                )
        self._handlers.clear()
        handlers, self._close_handlers = self._close_handlers, []
        for handler in handlers:
            try:
                handler(cause)
            except Exception as err:
                self._loop.call_exception_handler({"message": "CDP close handler failed", "exception": err})

    # -- sessions ---------------------------------------------------------------------------

    def session(self, session_id: str) -> Session:
        return Session(self, session_id)


class Session:
    """A flat session (``Target.attachToTarget(flatten=True)``) on a connection."""

    __slots__ = ("connection", "session_id")

    def __init__(self, connection: Connection, session_id: str) -> None:
        self.connection = connection
        self.session_id = session_id

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = DEFAULT_TIMEOUT
    ):
        return self.connection.send(method, params, session_id=self.session_id, timeout=timeout)

    def on(self, method: str, handler: Handler) -> Callable[[], None]:
        return self.connection.on(method, handler, session_id=self.session_id)

    def __repr__(self) -> str:
        return f"<Session {self.session_id[:8]}>"


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
        ) from None


def _discard(items: list, item: Any) -> None:
    try:
        items.remove(item)
    except ValueError:
        pass
