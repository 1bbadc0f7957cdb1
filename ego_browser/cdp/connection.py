"""One browser websocket, many flat sessions: the asyncio shell over ``cdp/protocol.py``.

The protocol core does the bookkeeping (ids, the pending table, ``sessionId`` routing,
decoding, typed error replies); this shell adds what needs an event loop: a future per
request, a deadline on every request, the reader task, and connection loss that rejects
everything pending. Feature state (frames, dialogs, network) lives in ``driver/``.

Subscribers are plain callables run from the reader; they must not block. A subscriber that
returns a coroutine gets it scheduled as a task owned by the connection (cancelled on close),
so the reader never awaits a handler. Subscriber exceptions go to the loop's exception
handler, never silently dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, Protocol as _Protocol

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from ..errors import BrowserUnavailable, CdpChannelUnavailable
from .protocol import ANY_SESSION, ERROR, EVENT, REPLY, Handler, Protocol

__all__ = ["Connection", "Session", "ANY_SESSION", "DEFAULT_TIMEOUT"]

logger = logging.getLogger("ego_browser.cdp")

class Socket(_Protocol):
    """What the connection needs of its transport: a websocket, or the keeper's pipe stream."""

    async def send(self, message: str) -> None: ...
    async def close(self) -> None: ...
    def __aiter__(self) -> AsyncIterator[str | bytes]: ...


#: called once when the connection ends, with the error that ended it (None: closed by us)
CloseHandler = Callable[[BaseException | None], Any]

#: seconds; callers pass their own deadline, this is the backstop
DEFAULT_TIMEOUT = 30.0
#: what a blocked session still sends (``Connection.block_session``): the answer to the dialog
_NEVER_BLOCKED = frozenset({"Page.handleJavaScriptDialog"})


class Connection:
    """A CDP connection to one browser endpoint: ``ws://…/devtools/browser/…``, or
    ``unix:PATH``, the keeper of a Chromium we launched (see ``cdp/pipe.py``)."""

    def __init__(self, ws: Socket, url: str) -> None:
        self.url = url
        self._ws = ws
        self._protocol = Protocol()
        self._pending = self._protocol.pending  # the same dict, for send()'s finally
        self._close_handlers: list[CloseHandler] = []
        #: session id -> what a new request on it fails with at once (``block_session``)
        self._blocked: dict[str, Callable[[str], Exception]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop = asyncio.get_running_loop()
        self._reader = self._loop.create_task(self._read_loop(), name="ego-cdp-reader")

    # -- life cycle -------------------------------------------------------------------------

    @classmethod
    async def connect(cls, url: str, *, timeout: float = 10.0) -> Connection:
        if url.startswith("unix:"):  # a keeper's private socket (browser/keeper.py)
            from .pipe import connect_unix

            return cls(await connect_unix(url[5:], timeout=timeout), url)
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
        except Exception as exc:  # noqa: BLE001 - refused, bad URL, handshake, timeout: all mean no browser there
            raise BrowserUnavailable(
                f"cannot connect to the browser's CDP endpoint {url}: {exc}; check that the browser "
                "is running (ego-browser doctor)",
                endpoint=url,
            ) from exc
        return cls(ws, url)

    @property
    def closed(self) -> bool:
        return self._protocol.closed is not None

    async def close(self) -> None:
        """Close the socket, reject what is pending, and leave no task or callback behind."""
        if self._protocol.closed is None:
            self._fail_all("CDP connection closed")
        try:
            await self._ws.close()
        except Exception:  # noqa: BLE001 - the socket may already be gone; the state above is what matters
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

    def on_close(self, handler: CloseHandler) -> Callable[[], None]:
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

        Raises ``CdpError`` (the browser's code and message, and the method; its subclass in
        ``cdp/errors.py`` says why: ``ContextDestroyed``, ``NodeNotFound``, ...), ``EgoTimeout``
        naming the method at the deadline, ``CdpChannelUnavailable`` if the connection or
        the session goes away first.
        """
        if self._blocked and session_id is not None and method not in _NEVER_BLOCKED:
            blocked = self._blocked.get(session_id)
            if blocked is not None:
                raise blocked(method)
        fut: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        msg_id, text = self._protocol.command(method, params, session_id, fut)
        handle = self._loop.call_later(timeout, self._expire, msg_id, timeout) if timeout else None
        try:
            await self._ws.send(text)
        except ConnectionClosed as exc:
            self._protocol.forget(msg_id)
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
        expired = self._protocol.expire(msg_id, timeout)
        if expired is not None and not expired[0].done():
            expired[0].set_exception(expired[1])

    def reject_session(self, session_id: str, reason: str, exc: Exception | None = None) -> None:
        """Fail every pending request of one session (its target went away, or a dialog now
        blocks it: pass ``exc`` to say so). Requests already answered keep their answer."""
        for fut, error in self._protocol.reject_session(session_id, reason, exc):
            if not fut.done():
                fut.set_exception(error)

    def block_session(self, session_id: str, error: Callable[[str], Exception]) -> Callable[[], None]:
        """Fail one session's pending requests with ``error(method)``, and its new ones at once,
        until the returned function is called (a dialog blocks its renderer: a request sent now
        would wait for its deadline). ``Page.handleJavaScriptDialog`` still goes out."""
        for fut, exc in self._protocol.reject_session(session_id, "blocked"):
            if not fut.done():
                fut.set_exception(error(getattr(exc, "method", None) or ""))
        self._blocked[session_id] = error

        def unblock() -> None:
            if self._blocked.get(session_id) is error:
                del self._blocked[session_id]

        return unblock

    # -- events -----------------------------------------------------------------------------

    def on(self, method: str, handler: Handler, *, session_id: object = ANY_SESSION) -> Callable[[], None]:
        """Subscribe ``handler(params, session_id)``; returns the function that unsubscribes."""
        return self._protocol.subscribe(method, handler, session_id)

    def subscriber_count(self) -> int:
        return self._protocol.subscriber_count()

    def traffic(self) -> tuple[dict[str, int], dict[str, int]]:
        """(commands sent, events received) so far, by method."""
        return dict(self._protocol.sent), dict(self._protocol.events)

    def _dispatch(self, method: str, params: dict[str, Any], session_id: str | None) -> None:
        for handler in self._protocol.handlers_for(method, session_id):
            try:
                result = handler(params, session_id)
            except Exception as exc:  # noqa: BLE001 - a subscriber's bug is reported, never kills the reader
                self._loop.call_exception_handler(
                    {"message": f"CDP event handler for {method} failed", "exception": exc}
                )
                continue
            if asyncio.iscoroutine(result):
                self._spawn(result)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = self._loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            if not isinstance(exc, (ConnectionClosed, CdpChannelUnavailable)):
                self._loop.call_exception_handler({"message": "CDP task failed", "exception": exc, "task": task})

    # -- reader -----------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        error: BaseException | None = None
        receive = self._protocol.receive
        try:
            async for raw in self._ws:
                found = receive(raw)
                if found is None:
                    continue
                if found[0] is REPLY:
                    if not found[1].done():
                        found[1].set_result(found[2])
                elif found[0] is EVENT:
                    self._dispatch(found[1], found[2], found[3])
                elif found[0] is ERROR and not found[1].done():
                    found[1].set_exception(found[2])
        except ConnectionClosed as exc:
            error = exc
        except asyncio.CancelledError:
            error = None
            raise
        except Exception as exc:  # noqa: BLE001 - the socket itself failed: the connection can't be trusted any more
            error = exc
            logger.exception("CDP reader failed")
        finally:
            if self._protocol.closed is None:
                self._fail_all(f"CDP connection lost: {error or 'closed'}", cause=error)

    def _fail_all(self, reason: str, cause: BaseException | None = None) -> None:
        for fut, exc in self._protocol.close(reason):
            if not fut.done():
                fut.set_exception(exc)
        handlers, self._close_handlers = self._close_handlers, []
        for handler in handlers:
            try:
                handler(cause)
            except Exception as err:  # noqa: BLE001 - one close handler's bug must not skip the others
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
    ) -> Coroutine[Any, Any, dict[str, Any]]:
        return self.connection.send(method, params, session_id=self.session_id, timeout=timeout)

    def on(self, method: str, handler: Handler) -> Callable[[], None]:
        return self.connection.on(method, handler, session_id=self.session_id)

    def __repr__(self) -> str:
        return f"<Session {self.session_id[:8]}>"


def _discard(items: list[CloseHandler], item: CloseHandler) -> None:
    try:
        items.remove(item)
    except ValueError:
        pass
