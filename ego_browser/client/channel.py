"""How a round reaches the host: the background daemon's socket, or an in-process host.

``call(op, args)`` is the only thing the public objects use. The socket channel starts the
host on first use when none answers (a detached ``ego-browser host serve`` that
reports readiness through a pipe), multiplexes concurrent calls over one connection, and
turns a lost connection into ``HostDisconnected`` for every call in flight.

Every call has a deadline: the host's own deadline for the request (``host/core/dispatch.py``) plus
``REPLY_MARGIN``. A host that takes the connection but never answers (frozen, SIGSTOP'd)
costs the round ``HostUnresponsive`` at that point, never a hang. Arguments with no JSON form
are the caller's ``InvalidArgument`` on both channels, so embedded and daemon hosts agree.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from .. import config, jsonsafe
from ..errors import BrowserUnavailable, HostDisconnected, HostUnresponsive, InvalidArgument, from_wire
from ..wire import protocol as wire
from ..wire.protocol import REPLY_MARGIN, request_deadline

logger = logging.getLogger("ego_browser.client")

__all__ = ["Channel", "SocketChannel", "InProcessChannel", "current_channel", "use_channel"]

#: seconds a round waits for a fresh host (it may be launching Chromium)
START_TIMEOUT = 60.0
#: seconds a round waits for a running host to re-create a deleted socket (it checks every 1s)
RECOVER_TIMEOUT = 10.0
#: seconds to open the host's socket (a live host accepts at once)
CONNECT_TIMEOUT = 10.0


def _unencodable(op: str, exc: jsonsafe.Unencodable) -> InvalidArgument:
    return InvalidArgument(
        f"{op}: {exc}; pass JSON values only (str, bool, None, finite numbers, ints within 64 bits, "
        "lists and dicts)",
        api=op, option=exc.path, expected="a JSON-serialisable value",
    )


def _sendable(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the socket would deliver them: an in-process host gets no value a
    daemon could not (lone surrogates mended; no JSON form -> InvalidArgument)."""
    try:
        orjson.dumps(args, option=orjson.OPT_NON_STR_KEYS)
        return args
    except TypeError as exc:
        if "ecursion" in str(exc):  # orjson stops at 255 levels; walking it in Python would overflow
            raise _unencodable(op, _too_deep()) from exc
    try:
        cleaned: dict[str, Any] = jsonsafe.scrub(args, strict=True)
        orjson.dumps(cleaned, option=orjson.OPT_NON_STR_KEYS)
        return cleaned
    except jsonsafe.Unencodable as exc:
        raise _unencodable(op, exc) from exc
    except TypeError as exc:
        raise _unencodable(op, jsonsafe.Unencodable(f"the arguments have no JSON form: {exc}", "value")) from exc


def _too_deep() -> jsonsafe.Unencodable:
    return jsonsafe.Unencodable("the arguments are nested deeper than the 255 levels JSON on the wire allows; "
                                "flatten them (or pass a JSON string and JSON.parse it in the page)", "value")


def _frame(op: str, request: dict[str, Any]) -> bytes:
    try:
        return wire.encode(request)
    except wire.Unencodable as exc:
        _sendable(op, request["a"])  # names the argument at fault
        raise _unencodable(op, exc) from exc  # the frame as a whole is too large


def _unresponsive(op: str, seconds: float) -> HostUnresponsive:
    return HostUnresponsive(
        f"the ego_browser host did not answer {op} within {seconds:.0f}s (its deadline for the call plus "
        f"{REPLY_MARGIN:.0f}s): it is frozen or overloaded. Check it with ego-browser host status; "
        f"if it stays silent, end the process whose pid is in {config.run_dir() / 'host.pid'} "
        "(the next call starts a new host)",
        api=op, timeout_ms=round(seconds * 1000),
    )


def reply_deadline(op: str, args: dict[str, Any]) -> float:
    """Seconds a round waits for the answer to one request."""
    return request_deadline(args) + REPLY_MARGIN


class Channel:
    #: the round this channel serves: a ``client.round.Round``, made by ``current_round()`` on
    #: first use (the channel is below the round and only carries it)
    round: object | None = None

    async def call(self, op: str, args: dict[str, Any]) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def call_sync(self, op: str, args: dict[str, Any]) -> Any:  # pragma: no cover - interface
        """For the few synchronous API members (``page.events()``)."""
        raise NotImplementedError

    async def aclose(self) -> None:
        pass


class InProcessChannel(Channel):
    """Calls the host object directly (``ego_browser.embedded()``)."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def call(self, op: str, args: dict[str, Any]) -> Any:
        return await self.host.handle(op, _sendable(op, args))

    def call_sync(self, op: str, args: dict[str, Any]) -> Any:
        return self.host.handle_sync(op, _sendable(op, args))


class SocketChannel(Channel):
    def __init__(self, role: str = "agent") -> None:
        #: "agent" (a round, a script) or "person" (the CLI's own commands, hostctl.call): the
        #: host refuses the person's operations on an agent's connection (wire.PERSON_ONLY)
        self.role = role
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._read_task: asyncio.Task[None] | None = None
        self._connecting: asyncio.Lock | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def _ensure(self) -> asyncio.StreamWriter:
        if self._writer is not None and not self._writer.is_closing():
            return self._writer
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._writer is not None and not self._writer.is_closing():
                return self._writer
            try:
                self._reader, self._writer = await _open()
            except (FileNotFoundError, ConnectionRefusedError):
                logger.debug("no host answers on %s: starting one", config.socket_path())
                await start_host()
                self._reader, self._writer = await _open()
            self._read_task = asyncio.get_running_loop().create_task(self._read_loop())
            return self._writer

    async def call(self, op: str, args: dict[str, Any]) -> Any:
        if logger.isEnabledFor(logging.DEBUG):  # EGO_BROWSER_LOG=debug / --verbose
            return await self._logged(op, args)
        return await self._call(op, args)

    async def _logged(self, op: str, args: dict[str, Any]) -> Any:
        started = asyncio.get_running_loop().time()
        shown = {k: v for k, v in args.items() if k not in ("proc", "value", "text")}  # typed text stays out
        logger.debug("-> %s %s", op, shown)
        try:
            result = await self._call(op, args)
        except BaseException as exc:
            logger.debug("<- %s failed after %.1f ms: %s", op, (asyncio.get_running_loop().time() - started) * 1000,
                         getattr(exc, "code", type(exc).__name__))
            raise
        logger.debug("<- %s %.1f ms", op, (asyncio.get_running_loop().time() - started) * 1000)
        return result

    async def _call(self, op: str, args: dict[str, Any]) -> Any:
        rid = next(self._ids)
        frame = _frame(op, {"i": rid, "op": op, "a": args, "role": self.role})
        writer = await self._ensure()
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        writer.write(frame)
        deadline = reply_deadline(op, args)
        try:
            return await asyncio.wait_for(fut, deadline)
        except asyncio.TimeoutError:
            if fut.done() and not fut.cancelled():
                return fut.result()
            raise _unresponsive(op, deadline) from None
        finally:
            self._pending.pop(rid, None)

    def call_sync(self, op: str, args: dict[str, Any]) -> Any:
        """A blocking request on a short-lived connection of its own (the loop may be busy)."""
        import socket

        frame = _frame(op, {"i": 1, "op": op, "a": args, "role": self.role})
        deadline = reply_deadline(op, args)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(deadline)
            try:
                sock.connect(str(config.socket_path()))
            except TimeoutError:
                raise _unresponsive(op, deadline) from None
            except OSError as exc:
                raise HostDisconnected(f"cannot reach the ego_browser host for {op}: {exc}", api=op) from exc
            try:
                sock.sendall(frame)
                header = _recv_exact(sock, wire.HEADER.size)
                (size,) = wire.HEADER.unpack(header)
                msg = wire.decode(_recv_exact(sock, size))
            except TimeoutError:
                raise _unresponsive(op, deadline) from None
            except (OSError, ValueError) as exc:
                raise HostDisconnected(f"the ego_browser host connection failed during {op}: {exc}", api=op) from exc
        if "e" in msg:
            raise from_wire(msg["e"])
        return msg.get("r")

    async def _read_loop(self) -> None:
        reader = self._reader
        assert reader is not None
        header = wire.HEADER
        error: BaseException | None = None
        try:
            while True:
                (size,) = header.unpack(await reader.readexactly(header.size))
                try:
                    msg = wire.decode(await reader.readexactly(size))
                except ValueError:  # only a host bug sends this; its caller meets its deadline
                    continue
                rid = msg.get("i")
                fut = self._pending.pop(rid, None) if isinstance(rid, int) else None
                if fut is None or fut.done():
                    continue
                if "e" in msg:
                    fut.set_exception(from_wire(msg["e"]))
                else:
                    fut.set_result(msg.get("r"))
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            error = exc
        finally:
            pending, self._pending = self._pending, {}
            for fut in pending.values():
                if not fut.done():
                    fut.set_exception(
                        HostDisconnected(
                            f"the ego_browser host went away during the call ({error or 'closed'}); "
                            "run the round again (the next call starts a new host)",
                            api=None,
                        )
                    )
            if self._writer is not None:
                self._writer.close()
            self._writer = None

    async def aclose(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._read_task is not None:
            self._read_task.cancel()
            await asyncio.gather(self._read_task, return_exceptions=True)
            self._read_task = None


async def start_host() -> None:
    """Start the background host (if no other round is starting it) and wait until it answers."""
    from . import host_start

    # a start this round began before importing the client (cli: the script will use the browser)
    starting = host_start.take() or host_start.spawn()
    run_dir = config.run_dir()
    if starting is None:
        from ..wire.lockfile import nudge, running_host

        pid = running_host(run_dir)
        if pid is not None:
            # the host runs but its socket file went away: it re-creates it (at once when nudged)
            nudge(pid)
        try:
            await _wait_for_socket(asyncio.get_running_loop().time() + RECOVER_TIMEOUT)
        except BrowserUnavailable:
            raise BrowserUnavailable(
                f"the ego_browser host (pid {pid}) runs but does not answer on {config.socket_path()}; "
                "stop it with ego-browser host stop, then run the round again",
                endpoint=str(config.socket_path()),
            ) from None
        return
    proc, read_fd, log_start = starting.proc, starting.read_fd, starting.log_start
    loop = asyncio.get_running_loop()
    from ..progress import Progress

    try:
        with Progress("starting the browser host (Chromium and the host start once, then stay)"):
            message = await asyncio.wait_for(loop.run_in_executor(None, _read_all, read_fd), START_TIMEOUT)
    except asyncio.TimeoutError:
        raise BrowserUnavailable(
            f"the ego_browser host did not start within {START_TIMEOUT:.0f}s; see {run_dir / 'host.log'}"
            f"{log_tail(run_dir / 'host.out', log_start)}",
            endpoint=str(config.socket_path()),
        ) from None
    finally:
        os.close(read_fd)
    text = message.decode(errors="replace").strip()
    if text == "ok":
        return
    if not text:
        # the pipe closed without a word: the host died (reap it to learn how) or lost the race
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    if text == "busy" or (not text and proc.poll() in (None, 3)):
        await _wait_for_socket(loop.time() + START_TIMEOUT)
        return
    if not text:  # it died before it could say why: its output (a traceback) is the cause
        text = f"exited with status {proc.poll()}"
    raise BrowserUnavailable(
        f"the ego_browser host could not start: {text}{log_tail(run_dir / 'host.out', log_start)} "
        "(ego-browser doctor checks the set-up)",
        endpoint=str(config.socket_path()),
    )


def log_tail(path: Path, start: int = 0, lines: int = 8) -> str:
    """The last lines written to ``path`` after offset ``start``, ready to append to a message."""
    try:
        with open(path, "rb") as fh:
            fh.seek(start)
            text = fh.read()[-16384:].decode(errors="replace")
    except OSError:
        return ""
    # traceback carets (^^^^) only point at columns: no cause in them
    kept = [ln.rstrip() for ln in text.splitlines() if ln.strip().strip("^~")][-lines:]
    if not kept:
        return ""
    return f"; last lines of {path}:\n" + "\n".join(f"    {ln}" for ln in kept) + "\n"


#: the warm worker's spare child opens its host connection before its round arrives
_Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]
_ahead: tuple[str, tuple[int, int], asyncio.AbstractEventLoop, Any, _Streams] | None = None


def _socket_file(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def connect_ahead(loop: asyncio.AbstractEventLoop) -> None:
    """Open the connection to this home's host on ``loop`` now, for the round's first call.

    Used by the warm worker's spare child (``round/spare.py``): ≈1 ms of the round's path.
    The host serves connections that never send a request, and its idle limit counts requests,
    not connections. A connection the round cannot use (another home in the round's
    environment, a host gone meanwhile) is dropped and the round connects as usual.
    """
    global _ahead
    import socket

    path = str(config.socket_path())
    file = _socket_file(path)
    if file is None:
        return
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.setblocking(False)
        sock.connect(path)  # a listening host's backlog takes it at once; else connect per round
        streams = loop.run_until_complete(asyncio.open_unix_connection(sock=sock, limit=wire.MAX_FRAME))
    except OSError:
        sock.close()
        return
    _ahead = (path, file, loop, sock, streams)


def _take_ahead(path: str) -> _Streams | None:
    global _ahead
    if _ahead is None:
        return None
    (ahead_path, file, loop, sock, streams), _ahead = _ahead, None
    # the socket file deleted or replaced since: connect as usual, so that the round runs the
    # recovery it always ran (the host re-creates its socket; a person's CLI needs the file)
    usable = ahead_path == path and loop is asyncio.get_running_loop() and _socket_file(path) == file
    if usable:
        import socket

        try:
            # the host never speaks first: b"" means it closed the connection, data is not ours
            sock.recv(1, socket.MSG_PEEK)
            usable = False
        except BlockingIOError:  # nothing to read: alive
            usable = True
        except OSError:
            usable = False
    if not usable:
        streams[1].close()
        return None
    return streams


async def _open() -> _Streams:
    path = str(config.socket_path())
    ahead = _take_ahead(path)
    if ahead is not None:
        return ahead
    try:
        return await asyncio.wait_for(asyncio.open_unix_connection(path, limit=wire.MAX_FRAME), CONNECT_TIMEOUT)
    except asyncio.TimeoutError:
        raise HostUnresponsive(
            f"the ego_browser host's socket {path} did not accept a connection within {CONNECT_TIMEOUT:.0f}s; "
            "the host is frozen or overloaded (ego-browser host status)",
            api=None, timeout_ms=round(CONNECT_TIMEOUT * 1000),
        ) from None


def _recv_exact(sock: Any, size: int) -> bytes:
    chunks, got = [], 0
    while got < size:
        chunk = sock.recv(size - got)
        if not chunk:
            raise HostDisconnected("the ego_browser host closed the connection", api=None)
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


async def _wait_for_socket(deadline: float) -> None:
    """Another round is starting the host: wait until its socket accepts."""
    loop = asyncio.get_running_loop()
    path = str(config.socket_path())
    delay = 0.01
    while True:
        try:
            _r, w = await asyncio.open_unix_connection(path)
            w.close()
            return
        except (FileNotFoundError, ConnectionRefusedError):
            if loop.time() > deadline:
                raise BrowserUnavailable("timed out waiting for the ego_browser host to start", endpoint=path) from None
            await asyncio.sleep(delay)  # start-up only: the other host is launching Chromium
            delay = min(delay * 2, 0.2)


_current: contextvars.ContextVar[Channel | None] = contextvars.ContextVar("ego_channel", default=None)
_process_channel: SocketChannel | None = None
_default: Channel | None = None


def set_default_channel(channel: Channel | None) -> None:
    """Make ``channel`` the process-wide default (for hosts embedded outside one task's context)."""
    global _default
    _default = channel


def current_channel() -> Channel:
    """The embedded host's channel inside ``embedded()``, else this process's socket channel."""
    global _process_channel
    channel = _current.get() or _default
    if channel is not None:
        return channel
    loop = asyncio.get_running_loop()
    if _process_channel is None or _process_channel.loop is not loop:
        _process_channel = SocketChannel()
        _process_channel.loop = loop
    return _process_channel


def peek_channel() -> Channel | None:
    """The channel ``current_channel()`` would return, without creating one."""
    return _current.get() or _default or _process_channel


def use_channel(channel: Channel | None) -> contextvars.Token[Channel | None]:
    return _current.set(channel)


def reset_channel(token: contextvars.Token[Channel | None]) -> None:
    _current.reset(token)


def process_channel() -> SocketChannel | None:
    return _process_channel
