"""The warm worker's spare child: forked before its round arrives, it becomes that round's process.

Why: forking a child per round and then preparing it (signals, the worker's descriptors, the
script's globals, an event loop, the host connection) cost a round ≈5 ms on its critical path
(docs/architecture.md, "Rounds: the warm worker"). The worker (``round/worker.py``) keeps one
spare that has done all of that already; a round's request (the message, the round's standard
streams, its working directory and its connection, as ``SCM_RIGHTS``) is handed to the spare
over a socketpair, and the worker forks the next spare after the hand-off.

A spare runs exactly one round: it exits after it (``os._exit``). Until its round comes it
dies with the worker (``PR_SET_PDEATHSIG``; the socketpair closing ends it too); from the
hand-off on it is that round's process and runs to its end like one, whatever the worker does.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from typing import Any, Callable

__all__ = ["fork_spare", "hand_off", "recv_with_fds", "send_frame"]

#: the round's stdin, stdout, stderr, working directory (from the round), then its connection
_HANDED = 5
_PR_SET_PDEATHSIG = 1
_prctl: Callable[..., int] | None = None


def send_frame(conn: socket.socket, kind: str, value: int) -> None:
    """One frame to the round: a kind byte ("P" pid, "X" status, "R" declined) and a number."""
    try:
        conn.sendall(kind.encode() + int(value).to_bytes(4, sys.byteorder, signed=True))
    except OSError:
        pass


def recv_with_fds(sock: socket.socket, nfds: int) -> tuple[bytes, list[int]]:
    """A request: 4 bytes of length with ``nfds`` descriptors attached, then the body.

    Raises ``EOFError`` when the peer closed before sending anything; on any other failure
    the descriptors received are closed before the error propagates.
    """
    fds: list[int] = []
    header, ancdata, _flags, _addr = sock.recvmsg(4, socket.CMSG_LEN(nfds * 4))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            fds.extend(int.from_bytes(data[i:i + 4], sys.byteorder, signed=True) for i in range(0, usable, 4))
    try:
        if not header and not fds:
            raise EOFError("closed")
        if len(header) != 4 or len(fds) != nfds:
            raise ValueError("malformed round request")
        size = int.from_bytes(header, sys.byteorder)
        chunks, got = [], 0
        while got < size:
            chunk = sock.recv(min(size - got, 1 << 20))
            if not chunk:
                raise ValueError("round request cut short")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def hand_off(spare: socket.socket, body: bytes, fds: list[int]) -> None:
    """Worker side: give the spare its round (``fds``: the round's four, then its connection)."""
    spare.sendmsg([len(body).to_bytes(4, sys.byteorder)],
                  [(socket.SOL_SOCKET, socket.SCM_RIGHTS, b"".join(fd.to_bytes(4, sys.byteorder, signed=True)
                                                                   for fd in fds))])
    spare.sendall(body)


def _pdeathsig(signum: int) -> None:
    global _prctl
    if _prctl is None:
        import ctypes

        _prctl = ctypes.CDLL(None, use_errno=True).prctl
    _prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)


def fork_spare(worker_fds: list[int]) -> tuple[int, socket.socket]:
    """Worker side: fork a spare; ``worker_fds`` are the worker's own, closed in the spare."""
    try:
        _pdeathsig(0)  # loads libc here, once, not in every spare (a no-op for the worker)
    except (OSError, AttributeError):
        pass
    import gc

    gc.freeze()  # the preloaded heap is never collected in a child: no copy-on-write of it
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    worker = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the spare never returns
        code = 1
        try:
            os.close(ours.detach())
            code = _spare(theirs, worker_fds, worker)
        finally:
            os._exit(code)
    theirs.close()
    return pid, ours


def _spare(sock: socket.socket, worker_fds: list[int], worker: int) -> int:
    try:
        _pdeathsig(signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl: the socketpair closing still ends an idle spare
        pass
    if os.getppid() != worker:
        return 0  # the worker went before the death signal was armed
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for fd in worker_fds:
        try:
            os.close(fd)
        except OSError:
            pass
    ns, loop = _prepare()
    try:
        body, fds = recv_with_fds(sock, _HANDED)
    except (OSError, ValueError, EOFError):
        return 0  # the worker closed (it stops accepting, or went): no round for this spare
    try:
        _pdeathsig(0)  # a round now: it ends when its script does, not with the worker
    except (OSError, AttributeError):
        pass
    sock.close()
    return _round(body, fds, ns, loop)


def _prepare() -> tuple[dict[str, Any] | None, Any]:
    """What a round needs that does not depend on it: the script's globals, an event loop with
    the host connection on it, and a dry run of the runner (its first touches of the preloaded
    heap copy pages from the worker: ≈1 ms, now before the round). A failure here only means
    the round makes them itself."""
    try:
        import asyncio

        from ..client.channel import connect_ahead
        from .runner import run_source, script_globals

        ns = script_globals()
        run_source("pass", "<spare>", ns=dict(ns))
        loop = asyncio.new_event_loop()
        connect_ahead(loop)
        return ns, loop
    except Exception:  # noqa: BLE001 - never a reason for the round not to run
        return None, None


def _stream(fd: int, mode: str, info: Any, *, line: bool, unbuffered: bool = False) -> Any:
    import io

    enc, errors = info if info else ("utf-8", "strict")
    if mode == "r":
        return io.TextIOWrapper(io.open(fd, "rb", closefd=False), encoding=enc, errors=errors)
    raw = io.open(fd, "wb", buffering=0 if unbuffered else -1, closefd=False)
    return io.TextIOWrapper(raw, encoding=enc, errors=errors, line_buffering=line, write_through=unbuffered)


def _round(body: bytes, fds: list[int], ns: dict[str, Any] | None, loop: Any) -> int:
    """Become the round's process, run the script, report its status.

    The status goes to the round after the output is flushed and this process's copies of the
    round's streams are closed: the round (and whoever reads its pipes) need not wait for this
    process's teardown. The worker reports a child that died without telling. The status may
    reach the round before the worker's pid frame (both write to the same connection): the
    round takes a status frame as "it ran", whichever comes first.
    """
    import marshal

    conn = socket.socket(fileno=fds[4])
    status = 1
    try:
        msg = marshal.loads(body)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
            os.close(fd)
        os.fchdir(fds[3])
        os.close(fds[3])
        os.umask(int(msg.get("umask", 0o022)))
        os.environ.clear()
        os.environ.update(msg["env"])
        sys.path[:] = msg["path"]
        sys.argv[:] = msg["argv"]
        if loop is not None and os.environ.get("PYTHONASYNCIODEBUG"):
            loop.close()  # the round asks for asyncio's debug mode: a loop made for it has it
            loop = None
        unbuffered = bool(msg.get("unbuffered"))
        # typeshed marks sys.__std*__ Final; this forked child is a new process and owns them
        sys.stdin = sys.__stdin__ = _stream(0, "r", msg.get("stdin"), line=False)  # type: ignore[misc]
        sys.stdout = sys.__stdout__ = _stream(  # type: ignore[misc]  # (see above)
            1, "w", msg.get("stdout"), line=os.isatty(1), unbuffered=unbuffered)
        sys.stderr = sys.__stderr__ = _stream(  # type: ignore[misc]  # (see above)
            2, "w", msg.get("stderr"), line=True, unbuffered=unbuffered)
        from .runner import run_source

        status = run_source(msg["source"], msg["filename"], ns=ns, loop=loop)
    except BaseException:  # noqa: BLE001 - the child must end here whatever happened
        try:
            import traceback

            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
        except BaseException:  # noqa: BLE001
            pass
        status = status if isinstance(status, int) and 0 <= status < 256 else 1
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            send_frame(conn, "X", status)
        except BaseException:  # noqa: BLE001
            pass
    return status
