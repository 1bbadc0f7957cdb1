"""Chromium's DevTools pipe, handed over by its keeper, shaped like the websocket ``Connection`` reads.

A locally launched Chromium speaks CDP only on its pipe (NUL-terminated JSON messages). Its
keeper (``browser/keeper.py``) attaches a browser session for us, says which in its hello, and
passes both ends of the pipe over its 0600 socket: from then on we read and write Chromium
directly (no relay process per message). This adapter gives ``Connection`` the three things it
uses of a websocket: ``async for`` over messages, ``send`` and ``close``; closing or losing the
stream raises ``ConnectionClosed`` the way the websocket did. What we send without a
``sessionId`` goes to our browser session, and our session is stripped from what comes back,
so the connection sees what a websocket to ``/devtools/browser`` gave it. The keeper's socket
stays open as the lifeline: the keeper takes the pipe back when it closes (also when we die).
Messages are yielded as ``bytes`` (the JSON decoder takes them as they are).
"""

from __future__ import annotations

import array
import asyncio
import collections
import os
import socket
import struct
from typing import Any

import orjson
from websockets.exceptions import ConnectionClosed

from ..errors import BrowserUnavailable

__all__ = ["PipeStream", "connect_unix", "UNIX_PREFIX"]

#: ``Connection.connect("unix:/path/to/browser.sock")`` reaches a keeper
UNIX_PREFIX = "unix:"
#: above this many unread messages the pipe stops being read (the reader is behind)
_HIGH_WATER = 4096
#: ``send`` waits for the kernel to take the data past this many buffered bytes
_WRITE_LIMIT = 2**20
_SID = b',"sessionId":"'
#: Chromium writes events as ``{"method":...``; at the root, those are the keeper's business
_ROOT_EVENT = b'{"method"'


class PipeStream(asyncio.Protocol):
    """Reads Chromium's output pipe (as its read transport's protocol), writes its input pipe."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.ReadTransport | None = None
        self._partial = bytearray()
        self._messages: collections.deque[bytes] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._drain: asyncio.Future[None] | None = None
        self._paused_reading = False
        self._lost: BaseException | None = None
        self._eof = False
        self.hello: dict[str, Any] = {}
        self._suffix = b""  # ``,"sessionId":"<ours>"}``
        self._writer: asyncio.WriteTransport | None = None
        self._lifeline: socket.socket | None = None

    # -- protocol callbacks -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport

    def _take(self, msg: bytes) -> None:
        suffix = self._suffix
        if msg.endswith(suffix):
            self._messages.append(msg[: -len(suffix)] + b"}")
        elif not msg.startswith(_ROOT_EVENT) or _session_of(msg) is not None:
            self._messages.append(msg)  # another session's, or a reply Chromium gave at the root
        # else: an event at the root, of the keeper's own sessions coming and going: not ours

    def data_received(self, data: bytes) -> None:
        end = data.find(b"\0")
        if end < 0:
            self._partial += data
            return
        take = self._take
        if self._partial:
            self._partial += data[:end]
            take(bytes(self._partial))
            self._partial.clear()
        else:
            take(data[:end])
        begin = end + 1
        end = data.find(b"\0", begin)
        while end >= 0:
            take(data[begin:end])
            begin = end + 1
            end = data.find(b"\0", begin)
        if begin < len(data):
            self._partial += data[begin:]
        messages = self._messages
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
        writer = self._writer
        if self._eof or writer is None or writer.is_closing():
            raise ConnectionClosed(None, None)
        if isinstance(message, str):
            message = message.encode()
        if _session_of(message) is None:
            # ``Connection`` writes ``sessionId`` last: without one, the command is our session's
            message = message.rstrip()[:-1] + self._suffix
        writer.write(message + b"\0")
        if self._drain is not None and not self._drain.done():
            await self._drain

    async def close(self) -> None:
        # abort, not close: nothing of ours may reach the pipe once the lifeline is gone (the
        # keeper then writes to it, and a reply to our late command could reach the next client)
        if self._writer is not None and not self._writer.is_closing():
            self._writer.abort()
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()
        self._drop_lifeline()
        self._eof = True
        self._wake()

    # -- the keeper's socket ----------------------------------------------------------------

    def _hold(self, lifeline: socket.socket) -> None:
        """Keep the keeper's socket open; when the keeper closes it, the stream ends."""
        self._lifeline = lifeline
        self._loop.add_reader(lifeline.fileno(), self._lifeline_readable)

    def _lifeline_readable(self) -> None:
        lifeline = self._lifeline
        if lifeline is None:
            return
        try:
            data = lifeline.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            return  # the keeper sends nothing after the hand-over
        # the keeper took the pipe back (it is going away): never touch the pipe again
        self._drop_lifeline()
        if self._writer is not None and not self._writer.is_closing():
            self._writer.abort()  # what we had not written yet must not reach the pipe now
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()
        self._eof = True
        self._wake()

    def _drop_lifeline(self) -> None:
        lifeline, self._lifeline = self._lifeline, None
        if lifeline is not None:
            self._loop.remove_reader(lifeline.fileno())
            lifeline.close()


class _Writer(asyncio.Protocol):
    """The input pipe's protocol: flow control goes to the stream."""

    def __init__(self, stream: PipeStream) -> None:
        self.stream = stream

    def pause_writing(self) -> None:
        self.stream.pause_writing()

    def resume_writing(self) -> None:
        self.stream.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stream.connection_lost(exc)


def _session_of(message: bytes) -> bytes | None:
    """The ``sessionId`` a message ends with (``...,"sessionId":"ID"}``), if any."""
    if not message.endswith(b'"}'):
        return None
    i = message.rfind(_SID, max(0, len(message) - 120))
    if i < 0:
        return None
    sid = message[i + len(_SID):-2]
    return sid if sid and b'"' not in sid and b"\\" not in sid else None


async def _recv_into(loop: asyncio.AbstractEventLoop, sock: socket.socket, buf: bytearray,
                     fds: array.array[int]) -> None:
    """One ``recvmsg`` from the keeper (bytes into ``buf``, descriptors into ``fds``)."""
    while True:
        try:
            data, ancdata, _flags, _addr = sock.recvmsg(1 << 16, socket.CMSG_SPACE(2 * fds.itemsize),
                                                        socket.MSG_CMSG_CLOEXEC)
            break
        except (BlockingIOError, InterruptedError):
            ready: asyncio.Future[None] = loop.create_future()
            loop.add_reader(sock.fileno(), ready.set_result, None)
            try:
                await ready
            finally:
                loop.remove_reader(sock.fileno())
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    if not data:
        raise ConnectionClosed(None, None)
    buf += data


async def _handshake(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> tuple[dict[str, Any], bytes, list[int]]:
    """The keeper's hello, the pipe's unread output and both pipe descriptors."""
    buf = bytearray()
    fds: array.array[int] = array.array("i")
    try:
        while b"\0" not in buf:
            await _recv_into(loop, sock, buf, fds)
        end = buf.index(b"\0")
        hello = orjson.loads(bytes(buf[:end]))
        if not isinstance(hello, dict) or hello.get("ego_keeper") != 2 or not hello.get("session"):
            raise ValueError(f"not an ego_browser keeper (first message: {bytes(buf[:80])!r})")
        del buf[: end + 1]
        while len(buf) < 9 or len(buf) < 9 + struct.unpack("!Q", bytes(buf[1:9]))[0] or len(fds) < 2:
            await _recv_into(loop, sock, buf, fds)
        if buf[:1] != b"F":
            raise ValueError(f"the keeper's hello was not followed by its pipe (got {bytes(buf[:20])!r})")
        size = struct.unpack("!Q", bytes(buf[1:9]))[0]
        if len(buf) != 9 + size or len(fds) != 2:
            raise ValueError("the keeper sent more than its pipe")
        return hello, bytes(buf[9:]), list(fds)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


async def connect_unix(path: str, *, timeout: float = 10.0) -> PipeStream:
    """Connect to a keeper, take its hello and Chromium's pipe: then the browser has a session for us."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    sock.setblocking(False)
    transports: list[asyncio.BaseTransport] = []
    try:
        async with asyncio.timeout(timeout):
            await loop.sock_connect(sock, path)
            hello, tail, (write_fd, read_fd) = await _handshake(loop, sock)
            # the file objects own the descriptors from here: closed with their transports
            to_browser, from_browser = os.fdopen(write_fd, "wb", buffering=0), os.fdopen(read_fd, "rb", buffering=0)
            stream = PipeStream()
            stream.hello = hello
            stream._suffix = _SID + str(hello["session"]).encode() + b'"}'
            try:
                writer, _ = await loop.connect_write_pipe(lambda: _Writer(stream), to_browser)
            except BaseException:
                to_browser.close()
                from_browser.close()
                raise
            transports.append(writer)
            assert isinstance(writer, asyncio.WriteTransport)
            writer.set_write_buffer_limits(high=_WRITE_LIMIT)
            stream._writer = writer
            if tail:
                stream.data_received(tail)
            try:
                reader, _ = await loop.connect_read_pipe(lambda: stream, from_browser)
            except BaseException:
                from_browser.close()
                raise
            transports.append(reader)
            stream._hold(sock)
    except (OSError, TimeoutError, ValueError, ConnectionClosed, orjson.JSONDecodeError) as exc:
        for transport in transports:
            transport.close()
        sock.close()
        reason = "no answer" if isinstance(exc, TimeoutError) else (
            "closed before it answered" if isinstance(exc, ConnectionClosed) else exc)
        raise BrowserUnavailable(
            f"cannot reach the browser's keeper socket {path}: {reason}; check that the browser is "
            "running (ego-browser doctor)",
            endpoint=UNIX_PREFIX + path,
        ) from exc
    return stream
