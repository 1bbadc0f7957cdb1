"""The warm round worker: a process with the client already imported that runs each round in a child.

Why: a round's own start-up was ~4.7× ``python -c pass``, most of it importing asyncio (and,
through it, ssl) and the client, then compiling them again under PYTHONDONTWRITEBYTECODE.
The background host starts this worker (``ego-browser host worker``); a round
(``cli/round_client.py``) sends it the script with its standard streams and working directory,
and the worker hands all of it to a child forked ahead of the round (``round/spare.py``),
which runs the script with the same runner a local round uses. The worker is
single-threaded (it only forks), so the children start from a clean state; it never runs
agent code itself. Decision and numbers: docs/architecture.md ("Rounds").

Lifetime: the host holds the write end of a "lifeline" pipe; when the host goes (stop, crash,
idle), the worker stops accepting and exits once its running rounds have ended. When the
package's files change under it (``round/pkgwatch.py``), the worker stops accepting and declines
a round that was already waiting (which then runs in-process), and exits the same way; the
host starts a fresh one.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
from typing import Any

from .pkgwatch import PackageWatch
from .spare import fork_spare, hand_off, recv_with_fds, send_frame

__all__ = ["serve", "Supervisor"]


def package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


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
    from ..client import _generated, api, assertions, channel, locator, round  # noqa: F401
    from ..schema import checker, spec

    # every public call's argument checker, compiled once here rather than in each round
    # (spec, validate and three checkers were ≈3 ms of a resume round)
    for name, member in spec.members().items():
        if member.call != "property":
            checker(name)


class _Worker:
    def __init__(self, path: str, lifeline: int, watch: PackageWatch) -> None:
        self.path = path
        self.lifeline = lifeline
        self.watch = watch
        self.sel = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}
        #: the child forked ahead for the next round: (pid, the worker's end of its socketpair)
        self.spare: tuple[int, socket.socket] | None = None
        #: fork the next spare as soon as one is taken (off after a spare died unasked: then
        #: spares are forked when rounds come, never in a loop)
        self.ahead = True
        self.closing = False
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
        self._drop_spare()

    def _drop_spare(self) -> None:
        if self.spare is None:
            return
        pid, sock = self.spare
        self.spare = None
        sock.close()
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass

    def _fork_spare(self) -> tuple[int, socket.socket] | None:
        mine = [self.listener.fileno(), self.lifeline, self.wake_r, self.wake_w, self.watch.fileno(),
                *(c.fileno() for c in self.children.values())]
        try:
            self.spare = fork_spare([fd for fd in mine if fd >= 0])
        except OSError:
            self.spare = None
        return self.spare

    def run(self) -> int:
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGTERM, lambda *_: self._stop_accepting())
        self.sel.register(self.listener, selectors.EVENT_READ, "accept")
        self.sel.register(self.lifeline, selectors.EVENT_READ, "lifeline")
        self.sel.register(self.wake_r, selectors.EVENT_READ, "wake")
        if self.watch.fileno() >= 0:
            self.sel.register(self.watch.fileno(), selectors.EVENT_READ, "watch")
        while not (self.closing and not self.children):
            if self.spare is None and self.ahead and not self.closing:
                self._fork_spare()
            for key, _ in self.sel.select(timeout=5.0):
                what = key.data
                if what == "accept" and not self.closing:
                    self._accept()
                elif what == "lifeline":
                    if not os.read(self.lifeline, 64):
                        self.sel.unregister(self.lifeline)
                        self._stop_accepting()
                elif what == "watch":
                    if self.watch.changed():
                        self.sel.unregister(self.watch.fileno())
                        self._stop_accepting()  # the host starts a fresh worker when this one exits
                elif what == "wake":
                    try:
                        while os.read(self.wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                elif isinstance(what, int):
                    self._round_gone(what, key.fileobj)
            self._reap()
        self._drop_spare()
        return 0

    def _accept(self) -> None:
        import marshal

        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        try:
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            if int.from_bytes(creds[4:8], sys.byteorder) != os.getuid():
                conn.close()
                return
            conn.settimeout(10.0)
            body, fds = recv_with_fds(conn, 4)
        except (OSError, ValueError, EOFError):
            conn.close()
            return
        try:
            msg = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            msg = None
        if not isinstance(msg, dict):
            reason = "a malformed request"
        elif msg.get("v") != 1 or msg.get("exe") != sys.executable or msg.get("pkg") != self.pkg:
            reason = "another Python or another copy of ego_browser"
        elif self.watch.changed():  # reads what is pending: an edit just before this round counts
            reason = "the package changed"
            self._stop_accepting()  # the host starts a fresh worker when this one exits
        else:
            reason = ""
        pid = None if reason else self._hand_off(body, [*fds, conn.fileno()])
        for fd in fds:
            os.close(fd)
        if pid is None:
            send_frame(conn, "R", 0)
            conn.close()
            return
        self.children[pid] = conn
        conn.setblocking(False)
        self.sel.register(conn, selectors.EVENT_READ, pid)
        send_frame(conn, "P", pid)

    def _hand_off(self, body: bytes, fds: list[int]) -> int | None:
        """Give the round to the spare (a fresh one if that one is gone); its pid, or None."""
        for _attempt in range(2):
            spare = self.spare or self._fork_spare()
            if spare is None:
                return None
            self.spare = None
            pid, sock = spare
            try:
                hand_off(sock, body, fds)
                return pid
            except OSError:  # the spare died before its round came: nothing of it ran
                pass
            finally:
                sock.close()
        return None

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
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            if self.spare is not None and pid == self.spare[0]:
                self.spare[1].close()
                self.spare = None
                self.ahead = False  # died unasked: the next one is forked when a round comes
                continue
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            self.ahead = True
            code = os.waitstatus_to_exitcode(status)
            try:
                self.sel.unregister(conn)
            except (KeyError, ValueError):
                pass
            conn.setblocking(True)
            send_frame(conn, "X", code if code >= 0 else 128 - code)
            conn.close()


def serve(lifeline: int) -> int:
    """``ego-browser host worker --lifeline FD``: run until the host goes."""
    from .. import config

    run_dir = config.ensure_private_dir(config.run_dir())
    # watched from before the modules a round uses are imported: a later edit is always seen
    watch = PackageWatch(package_dir())
    if watch.edited_since_start() and not os.environ.get("EGO_BROWSER_WORKER_AGAIN"):
        # what this process imported may be older than the files: start once more, from them
        watch.close()
        os.environ["EGO_BROWSER_WORKER_AGAIN"] = "1"
        os.execv(sys.executable, [sys.executable, "-m", "ego_browser", "host", "worker", "--lifeline", str(lifeline)])
    refresh_bytecode()
    _preload()
    worker = _Worker(str(run_dir / "worker.sock"), lifeline, watch)
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
