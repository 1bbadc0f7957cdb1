"""The warm round worker: a process with the client already imported that forks one child per round.

Why: a round's own start-up was ~4.7× ``python -c pass``, most of it importing asyncio (and,
through it, ssl) and the client, then compiling them again under PYTHONDONTWRITEBYTECODE.
The background host starts this worker (``python -m ego_browser host worker``); a round
(``round_client.py``) sends it the script with its standard streams and working directory,
and a forked child runs the script with the same runner a local round uses. The worker is
single-threaded (it only forks), so the children start from a clean state; it never runs
agent code itself. Decision and numbers: docs/architecture.md ("Rounds").

Lifetime: the host holds the write end of a "lifeline" pipe; when the host goes (stop, crash,
idle), the worker stops accepting and exits once its running rounds have ended. When the
package's files change under it, the worker declines the next round (which then runs
in-process) and exits the same way; the host starts a fresh one.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
from typing import Any

__all__ = ["serve", "Supervisor"]

_KINDS = (".py", ".so", ".js")


def package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def fingerprint(root: str | None = None) -> int:
    """A hash of the package's code files (names, sizes, mtimes): a change means re-import."""
    root = root or package_dir()
    items: list[tuple[str, int, int]] = []
    stack = [root]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        stack.append(e.path)
                elif e.name.endswith(_KINDS):
                    st = e.stat()
                    items.append((e.path, st.st_mtime_ns, st.st_size))
    return hash(tuple(sorted(items)))


def refresh_bytecode() -> None:
    """Write missing or stale ``.pyc`` files of the package (the flag only stops *implicit* writes).

    With PYTHONDONTWRITEBYTECODE set, Python still reads valid ``.pyc`` files; ``make setup``
    writes them, and this keeps them current after the sources were edited. A read-only
    install is left as it is.
    """
    import compileall

    try:
        compileall.compile_dir(package_dir(), quiet=2, workers=1)
    except OSError:
        pass


def _preload() -> None:
    """Import everything a round touches, so a forked child starts warm."""
    import asyncio  # noqa: F401
    import json  # noqa: F401
    import linecache  # noqa: F401
    import re  # noqa: F401
    import traceback  # noqa: F401

    from . import runner

    runner.script_globals()  # resolves the lazy names (client, learning, help)
    from .client import _generated, api, channel, round  # noqa: F401


def _send(conn: socket.socket, kind: str, value: int) -> None:
    try:
        conn.sendall(kind.encode() + int(value).to_bytes(4, sys.byteorder, signed=True))
    except OSError:
        pass


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    import marshal

    conn.settimeout(10.0)
    fds: list[int] = []
    header, ancdata, _flags, _addr = conn.recvmsg(4, socket.CMSG_LEN(5 * 4))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            fds.extend(int.from_bytes(data[i:i + 4], sys.byteorder, signed=True) for i in range(0, usable, 4))
    try:
        if len(header) != 4 or len(fds) != 4:
            raise ValueError("malformed round request")
        size = int.from_bytes(header, sys.byteorder)
        chunks, got = [], 0
        while got < size:
            chunk = conn.recv(min(size - got, 1 << 20))
            if not chunk:
                raise ValueError("round request cut short")
            chunks.append(chunk)
            got += len(chunk)
        msg = marshal.loads(b"".join(chunks))
        if not isinstance(msg, dict):
            raise ValueError("malformed round request")
        return msg, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _stream(fd: int, mode: str, info: Any, *, line: bool, unbuffered: bool = False) -> Any:
    import io

    enc, errors = info if info else ("utf-8", "strict")
    if mode == "r":
        return io.TextIOWrapper(io.open(fd, "rb", closefd=False), encoding=enc, errors=errors)
    raw = io.open(fd, "wb", buffering=0 if unbuffered else -1, closefd=False)
    return io.TextIOWrapper(raw, encoding=enc, errors=errors, line_buffering=line, write_through=unbuffered)


def _child(msg: dict[str, Any], fds: list[int], keep_closed: list[int], conn: socket.socket) -> None:
    """In the forked child: become the round's process, run the script, exit with its status.

    The child tells the round its status itself, after its output is flushed and its copies
    of the round's streams are closed: the round (and whoever reads its pipes) need not wait
    for this process's teardown. The worker reports a child that died without telling. The
    child's status may reach the round before the worker's pid frame (both write to the
    same connection): the round takes a status frame as "it ran", whichever comes first.
    """
    status = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd in keep_closed:
            try:
                os.close(fd)
            except OSError:
                pass
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
        unbuffered = bool(msg.get("unbuffered"))
        # typeshed marks sys.__std*__ Final; this forked child is a new process and owns them
        sys.stdin = sys.__stdin__ = _stream(0, "r", msg.get("stdin"), line=False)  # type: ignore[misc]
        sys.stdout = sys.__stdout__ = _stream(  # type: ignore[misc]  # (see above)
            1, "w", msg.get("stdout"), line=os.isatty(1), unbuffered=unbuffered)
        sys.stderr = sys.__stderr__ = _stream(  # type: ignore[misc]  # (see above)
            2, "w", msg.get("stderr"), line=True, unbuffered=unbuffered)
        from .runner import run_source

        status = run_source(msg["source"], msg["filename"])
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
            _send(conn, "X", status)
        except BaseException:  # noqa: BLE001
            pass
        os._exit(status)


class _Worker:
    def __init__(self, path: str, lifeline: int) -> None:
        self.path = path
        self.lifeline = lifeline
        self.sel = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}
        self.closing = False
        self.fp = fingerprint()
        self.pkg = package_dir()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        tmp = f"{path}.{os.getpid()}"
        old = os.umask(0o177)  # the socket is 0600 from birth, like the host's
        try:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            self.listener.bind(tmp)
        finally:
            os.umask(old)
        self.listener.listen(64)
        os.replace(tmp, path)
        self.inode = os.stat(path).st_ino

    def _stop_accepting(self) -> None:
        if self.closing:
            return
        self.closing = True
        try:
            self.sel.unregister(self.listener)
        except (KeyError, ValueError):
            pass
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass
        self.listener.close()

    def run(self) -> int:
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGTERM, lambda *_: self._stop_accepting())
        self.sel.register(self.listener, selectors.EVENT_READ, "accept")
        self.sel.register(self.lifeline, selectors.EVENT_READ, "lifeline")
        self.sel.register(self.wake_r, selectors.EVENT_READ, "wake")
        while not (self.closing and not self.children):
            for key, _ in self.sel.select(timeout=5.0):
                what = key.data
                if what == "accept" and not self.closing:
                    self._accept()
                elif what == "lifeline":
                    if not os.read(self.lifeline, 64):
                        self.sel.unregister(self.lifeline)
                        self._stop_accepting()
                elif what == "wake":
                    try:
                        while os.read(self.wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                elif isinstance(what, int):
                    self._round_gone(what, key.fileobj)
            self._reap()
        return 0

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            if int.from_bytes(creds[4:8], sys.byteorder) != os.getuid():
                conn.close()
                return
            msg, fds = _read_request(conn)
        except (OSError, ValueError, EOFError, TypeError):
            conn.close()
            return
        if msg.get("v") != 1 or msg.get("exe") != sys.executable or msg.get("pkg") != self.pkg:
            reason = "another Python or another copy of ego_browser"
        elif fingerprint() != self.fp:
            reason = "the package changed"
            self._stop_accepting()  # the host starts a fresh worker when this one exits
        else:
            reason = ""
        if reason:
            for fd in fds:
                os.close(fd)
            _send(conn, "R", 0)
            conn.close()
            return
        others = [self.listener.fileno(), self.lifeline, self.wake_r, self.wake_w,
                  *(c.fileno() for c in self.children.values())]
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            _child(msg, fds, others, conn)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        conn.setblocking(False)
        self.sel.register(conn, selectors.EVENT_READ, pid)
        _send(conn, "P", pid)

    def _round_gone(self, pid: int, conn: Any) -> None:
        """The round's process closed its end (killed): end its child, as a local round would end."""
        try:
            if conn.recv(16):
                return  # rounds send nothing after the request; ignore stray bytes
        except BlockingIOError:
            return
        except OSError:
            pass
        self.sel.unregister(conn)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            try:
                self.sel.unregister(conn)
            except (KeyError, ValueError):
                pass
            conn.setblocking(True)
            _send(conn, "X", code if code >= 0 else 128 - code)
            conn.close()


def serve(lifeline: int) -> int:
    """``python -m ego_browser host worker --lifeline FD``: run until the host goes."""
    from . import config

    run_dir = config.ensure_private_dir(config.run_dir())
    refresh_bytecode()
    _preload()
    worker = _Worker(str(run_dir / "worker.sock"), lifeline)
    return worker.run()


class Supervisor:
    """Host side: keeps one worker running while the host runs (restarted when it exits)."""

    #: a worker that lived shorter than this is not restarted at once (it keeps failing)
    MIN_LIFE = 5.0

    def __init__(self, run_dir: Any) -> None:
        self.run_dir = run_dir
        self.proc: Any = None
        self.lifeline_w: int | None = None
        self.pidfd: int | None = None
        self.started = 0.0
        self.stopped = False
        self._retry: Any = None

    def start(self) -> None:
        import asyncio
        import subprocess
        import time

        if self.stopped:
            return
        r, w = os.pipe()
        log = open(self.run_dir / "worker.out", "ab")  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ego_browser", "host", "worker", "--lifeline", str(r)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(r,), close_fds=True,
            )
        except OSError:
            os.close(w)
            return
        finally:
            os.close(r)
            log.close()
        self.lifeline_w = w
        self.started = time.monotonic()
        try:
            self.pidfd = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):  # no pidfd: the worker is simply not restarted
            self.pidfd = None
            return
        asyncio.get_running_loop().add_reader(self.pidfd, self._exited)

    def _exited(self) -> None:
        import asyncio
        import time

        loop = asyncio.get_running_loop()
        if self.pidfd is not None:
            loop.remove_reader(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = None
        if self.proc is not None:
            self.proc.wait()
        if self.lifeline_w is not None:
            os.close(self.lifeline_w)
            self.lifeline_w = None
        if self.stopped:
            return
        lived = time.monotonic() - self.started
        self._retry = loop.call_later(0 if lived >= self.MIN_LIFE else 30.0, self.start)

    def stop(self) -> None:
        """Close the lifeline: the worker finishes its running rounds and exits."""
        self.stopped = True
        if self._retry is not None:
            self._retry.cancel()
        if self.pidfd is not None:
            try:
                import asyncio

                asyncio.get_running_loop().remove_reader(self.pidfd)
            except RuntimeError:
                pass
            os.close(self.pidfd)
            self.pidfd = None
        if self.lifeline_w is not None:
            os.close(self.lifeline_w)
            self.lifeline_w = None
