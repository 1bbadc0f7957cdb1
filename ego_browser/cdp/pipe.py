"""The CDP stream of a keeper's Unix socket, shaped like the websocket ``Connection`` reads.

A locally launched Chromium speaks CDP only on its pipe (NUL-terminated JSON messages), which
the keeper (``browser/keeper.py``) serves on a 0600 socket in the private run directory. This
adapter gives ``Connection`` the three things it uses of a websocket: ``async for`` over
messages, ``send`` and ``close``; closing or losing the stream raises ``ConnectionClosed``
the way the websocket did, so the connection's semantics do not change with the transport.
Messages are yielded as ``bytes`` (the JSON decoder takes them as they are).
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

import orjson
from websockets.exceptions import ConnectionClosed

from ..errors import BrowserUnavailable

__all__ = ["PipeStream", "connect_unix", "UNIX_PREFIX"]

#: ``Connection.connect("unix:/path/to/browser.sock")`` reaches a keeper
UNIX_PREFIX = "unix:"
#: above this many unread messages the socket stops being read (the reader is behind)
_HIGH_WATER = 4096
#: ``send`` waits for the kernel to take the data past this many buffered bytes
_WRITE_LIMIT = 2**20


class PipeStream(asyncio.Protocol):
    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._partial = bytearray()
        self._messages: collections.deque[bytes] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._drain: asyncio.Future[None] | None = None
        self._paused_reading = False
        self._lost: BaseException | None = None
        self._eof = False
        self.hello: dict[str, Any] = {}

    # -- protocol callbacks -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a unix socket's: readable and writable
        self._transport = transport
        transport.set_write_buffer_limits(high=_WRITE_LIMIT)

    def data_received(self, data: bytes) -> None:
        end = data.find(b"\0")
        if end < 0:
            self._partial += data
            return
        messages = self._messages
        if self._partial:
            self._partial += data[:end]
            messages.append(bytes(self._partial))
            self._partial.clear()
        else:
            messages.append(data[:end])
        begin = end + 1
        end = data.find(b"\0", begin)
        while end >= 0:
            messages.append(data[begin:end])
            begin = end + 1
            end = data.find(b"\0", begin)
        if begin < len(data):
            self._partial += data[begin:]
        if len(messages) > _HIGH_WATER and not self._paused_reading and self._transport is not None:
            self._paused_reading = True
            self._transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self._eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._eof = True
        self._lost = exc
        self._wake()
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)

    def pause_writing(self) -> None:
        if self._drain is None or self._drain.done():
            self._drain = self._loop.create_future()

    def resume_writing(self) -> None:
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- what Connection uses ---------------------------------------------------------------

    def __aiter__(self) -> PipeStream:
        return self

    async def __anext__(self) -> bytes:
        messages = self._messages
        while not messages:
            if self._eof:
                if self._lost is not None:
                    raise ConnectionClosed(None, None) from self._lost
                raise StopAsyncIteration
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self._paused_reading and len(messages) < _HIGH_WATER // 2 and self._transport is not None:
            self._paused_reading = False
            self._transport.resume_reading()
        return messages.popleft()

    async def send(self, message: str | bytes) -> None:
        if self._eof or self._transport is None or self._transport.is_closing():
            raise ConnectionClosed(None, None)
        if isinstance(message, str):
            message = message.encode()
        self._transport.write(message + b"\0")
        if self._drain is not None and not self._drain.done():
            await self._drain

    async def close(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()
        self._eof = True
        self._wake()

    async def recv_hello(self) -> dict[str, Any]:
        """The keeper's first message says which browser this is; nothing else comes first."""
        raw = await self.__anext__()
        hello = orjson.loads(raw)
        if not isinstance(hello, dict) or hello.get("ego_keeper") != 1:
            raise ValueError(f"not an ego_browser keeper (first message: {raw[:80]!r})")
        self.hello = hello
        return hello


async def connect_unix(path: str, *, timeout: float = 10.0) -> PipeStream:
    """Connect to a keeper and wait for its hello: then the browser has a session for us."""
    loop = asyncio.get_running_loop()
    transport = None
    try:
        async with asyncio.timeout(timeout):
            transport, stream = await loop.create_unix_connection(PipeStream, path)
            await stream.recv_hello()
    except (OSError, TimeoutError, ValueError, ConnectionClosed, StopAsyncIteration, orjson.JSONDecodeError) as exc:
        if transport is not None:
            transport.close()
        reason = "no answer" if isinstance(exc, TimeoutError) else (
            "closed before it answered" if isinstance(exc, (StopAsyncIteration, ConnectionClosed)) else exc)
        raise BrowserUnavailable(
            f"cannot reach the browser's keeper socket {path}: {reason}; check that the browser is "
            "running (python -m ego_browser doctor)",
            endpoint=UNIX_PREFIX + path,
        ) from None
    return stream
