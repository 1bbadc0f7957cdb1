"""A fake browser for unit tests of code that drives CDP: no Chromium, no socket.

:class:`FakeBrowser` plays the browser's side of one CDP connection. The client side is the
real thing: :meth:`FakeBrowser.connect` returns an :class:`ego_browser.cdp.Connection` (the
asyncio shell over the sans-I/O protocol core) whose stream is in memory, so replies, typed
errors, events, deadlines and connection loss take exactly the code paths they take against
Chromium. Use it to test driver logic (navigation waits, the lost-context retry, dialog
handling) quickly and deterministically; keep real-Chromium tests for what Chromium does.

    browser = FakeBrowser()
    browser.reply("Target.attachToTarget", {"sessionId": "S1"})
    browser.fail("DOM.resolveNode", "No node with given id found")   # -> NodeNotFound
    browser.hang("Page.navigate")                                     # answer it later
    conn = await browser.connect()
    ...
    nav = await browser.command("Page.navigate")       # wait until the client sent it
    nav.reply({"frameId": "F", "loaderId": "L2"})
    browser.emit("Page.lifecycleEvent", {...}, session_id="S1")
    assert browser.sent("Page.navigate")[0].params["url"] == "https://example.com/"
    browser.drop()                                        # the connection is lost

Methods with no script are answered ``{}`` (what Chromium answers to ``*.enable`` and most
setters), so a test scripts only the replies its code reads. A script can be a dict, a
function ``(params, session_id) -> dict``, or an error (:meth:`fail`); ``once=True`` scripts
apply to the next matching command only, and take precedence over standing ones.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from websockets.exceptions import ConnectionClosed

from .cdp.connection import Connection
from .cdp.protocol import encode_error, encode_event, encode_reply

__all__ = ["FakeBrowser", "Command", "Failure"]

#: a script: the result dict, a function of (params, session_id) giving it, or a Failure
Script = Any


@dataclass(frozen=True)
class Failure:
    """An error reply: the browser's ``message``, JSON-RPC ``code`` and optional ``data``."""

    message: str
    code: int = -32000
    data: Any = None


@dataclass
class Command:
    """One command the client sent. A hung command is answered with :meth:`reply`/:meth:`fail`."""

    id: int
    method: str
    params: dict[str, Any]
    session_id: str | None
    _browser: FakeBrowser = field(repr=False)
    answered: bool = False

    def reply(self, result: dict[str, Any] | None = None) -> None:
        self._answer(encode_reply(self.id, result or {}, self.session_id))

    def fail(self, message: str, code: int = -32000, data: Any = None) -> None:
        self._answer(encode_error(self.id, message, code, data, self.session_id))

    def _answer(self, frame: str) -> None:
        if self.answered:
            raise RuntimeError(f"{self.method} (id {self.id}) was answered already")
        self.answered = True
        self._browser.push(frame)


class FakeBrowser:
    """The browser's side of one CDP connection, scripted by the test."""

    def __init__(self) -> None:
        self.commands: list[Command] = []
        self._standing: dict[tuple[str, str | None], Script] = {}
        self._once: dict[tuple[str, str | None], collections.deque[Script]] = {}
        self._hung: set[tuple[str, str | None]] = set()
        self._stream: _Stream | None = None
        self._sent_waiters: list[tuple[str, asyncio.Future[Command]]] = []

    # -- scripting ----------------------------------------------------------------------------

    def reply(self, method: str, result: dict[str, Any] | Callable[..., Any] | None = None, *,
              session_id: str | None = None, once: bool = False) -> None:
        """Answer ``method`` (on ``session_id``, or any session when None) with ``result``."""
        self._script(method, session_id, {} if result is None else result, once)

    def fail(self, method: str, message: str, code: int = -32000, data: Any = None, *,
             session_id: str | None = None, once: bool = False) -> None:
        """Answer ``method`` with an error reply, as Chromium words it (see ``cdp/errors.py``)."""
        self._script(method, session_id, Failure(message, code, data), once)

    def hang(self, method: str, *, session_id: str | None = None) -> None:
        """Never answer ``method`` by itself; the test answers with ``Command.reply``/``fail``."""
        self._hung.add((method, session_id))

    def _script(self, method: str, session_id: str | None, script: Script, once: bool) -> None:
        key = (method, session_id)
        self._hung.discard(key)
        if once:
            self._once.setdefault(key, collections.deque()).append(script)
        else:
            self._standing[key] = script

    # -- the browser speaking ---------------------------------------------------------------

    def emit(self, method: str, params: dict[str, Any] | None = None, *, session_id: str | None = None) -> None:
        """Send an event (it reaches subscribers after the frames sent before it)."""
        self.push(encode_event(method, params, session_id))

    def push(self, frame: str | bytes) -> None:
        """Send any frame as it is (a malformed one, a reply to an id nobody asked for)."""
        if self._stream is None:
            raise RuntimeError("connect() first")
        self._stream.deliver(frame)

    def drop(self) -> None:
        """Lose the connection: pending requests fail with ``CdpChannelUnavailable``."""
        if self._stream is not None:
            self._stream.lose()

    # -- what the client sent ---------------------------------------------------------------

    def sent(self, method: str | None = None, *, session_id: str | None = None) -> list[Command]:
        """Commands received so far (of ``method``, on ``session_id`` when given), in order."""
        return [c for c in self.commands if (method is None or c.method == method)
                and (session_id is None or c.session_id == session_id)]

    async def command(self, method: str, *, timeout: float = 5.0) -> Command:
        """The first unanswered ``method`` command, waiting (up to ``timeout``) for it to be sent."""
        for c in self.commands:
            if c.method == method and not c.answered:
                return c
        fut: asyncio.Future[Command] = asyncio.get_running_loop().create_future()
        self._sent_waiters.append((method, fut))
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._sent_waiters = [(m, f) for m, f in self._sent_waiters if f is not fut]

    # -- the connection ---------------------------------------------------------------------

    async def connect(self) -> Connection:
        """A real ``Connection`` to this fake browser (close it, or ``drop()``, when done)."""
        self._stream = _Stream(self)
        return Connection(self._stream, "fake:")

    def _received(self, raw: str | bytes) -> None:
        msg = orjson.loads(raw)
        cmd = Command(msg["id"], msg["method"], msg.get("params") or {}, msg.get("sessionId"), self)
        self.commands.append(cmd)
        for method, fut in list(self._sent_waiters):
            if method == cmd.method and not fut.done():
                fut.set_result(cmd)
                break
        script = self._find(cmd)
        if script is _HANG:
            return
        if isinstance(script, Failure):
            cmd.fail(script.message, script.code, script.data)
            return
        try:
            result = script(cmd.params, cmd.session_id) if callable(script) else script
        except Exception as exc:  # noqa: BLE001 - a broken script is the test's bug: say so in its reply
            cmd.fail(f"FakeBrowser script for {cmd.method} raised {exc!r}", -32603)
            return
        if isinstance(result, Failure):
            cmd.fail(result.message, result.code, result.data)
        else:
            cmd.reply(result)

    def _find(self, cmd: Command) -> Script:
        for key in ((cmd.method, cmd.session_id), (cmd.method, None)):
            queue = self._once.get(key)
            if queue:
                return queue.popleft()
            if key in self._hung:
                return _HANG
            if key in self._standing:
                return self._standing[key]
        return {}


_HANG = object()


class _Stream:
    """What ``Connection`` reads and writes, in memory: ``async for`` over frames, ``send``,
    ``close``; loss raises ``ConnectionClosed`` as the websocket and the keeper stream do."""

    def __init__(self, browser: FakeBrowser) -> None:
        self._browser = browser
        self._frames: collections.deque[str | bytes] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._lost = False
        self._closed = False

    def deliver(self, frame: str | bytes) -> None:
        if self._lost or self._closed:
            return
        self._frames.append(frame)
        self._wake()

    def lose(self) -> None:
        self._lost = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> str | bytes:
        while not self._frames:
            if self._lost:
                raise ConnectionClosed(None, None)
            if self._closed:
                raise StopAsyncIteration
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._frames.popleft()

    async def send(self, message: str | bytes) -> None:
        if self._lost or self._closed:
            raise ConnectionClosed(None, None)
        # the browser reads it on a later turn of the loop, as it would from a socket
        asyncio.get_running_loop().call_soon(self._browser._received, message)

    async def close(self) -> None:
        self._closed = True
        self._wake()
