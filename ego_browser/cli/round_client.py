"""The thin side of a round: hand the script to the host's warm worker and wait for its status.

A round's own process imports next to nothing (no asyncio, no ssl, not even ``socket``): it
sends the script, its argv, environment, ``sys.path``, umask and stream encodings together
with its standard streams and working directory (as file descriptors, ``SCM_RIGHTS``) to the
warm worker (``round/worker.py``), which forks a child that already has the client imported.
The child writes straight into this process's stdout/stderr, so output, ``isatty`` and
ordering are the same as a local run. Signals this process gets (Ctrl-C, SIGTERM) are passed
on to the child; if this process dies, the worker ends the child.

``run()`` returns ``None`` when no worker answers or the worker declines (another Python,
another copy of the package, or the package changed since the worker started): nothing has
run then, and the caller runs the round in-process as before. See docs/architecture.md.
"""

from __future__ import annotations

import marshal
import os
import sys

#: typing's flag without importing typing (the round's start-up cost); mypy knows the name
TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from signal import _HANDLER  # typeshed's: what signal.signal() takes and returns

__all__ = ["run", "worker_socket_path"]

#: frames from the worker: one kind byte + a signed 32-bit number
_FRAME = 5
#: how long the round waits for the worker to take the script (it forks at once)
_ACCEPT_TIMEOUT = 10.0
#: how long the round waits for the worker's first answer once the script was handed over
_ANSWER_TIMEOUT = 120.0


def worker_socket_path() -> str:
    """``config.run_dir() / "worker.sock"`` without importing pathlib (kept equal by a test)."""
    raw = os.environ.get("EGO_BROWSER_HOME")
    if raw:
        home = os.path.abspath(os.path.expanduser(raw))
    else:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
        home = os.path.join(base, "ego-browser")
    return os.path.join(home, "run", "worker.sock")


def _stream_info(stream: object) -> tuple[str, str] | None:
    enc = getattr(stream, "encoding", None)
    return (enc, getattr(stream, "errors", None) or "strict") if enc else None


def _request(source: str, filename: str) -> bytes:
    umask = os.umask(0o022)
    os.umask(umask)
    out = sys.stdout
    msg = {
        "v": 1,
        "exe": sys.executable,
        "pkg": os.path.dirname(os.path.abspath(__file__)),
        "source": source,
        "filename": filename,
        "argv": list(sys.argv),
        "path": list(sys.path),
        "env": dict(os.environ),
        "umask": umask,
        "stdin": _stream_info(sys.stdin),
        "stdout": _stream_info(out),
        "stderr": _stream_info(sys.stderr),
        "unbuffered": bool(getattr(out, "write_through", False)),
    }
    return marshal.dumps(msg)


def _std_fds() -> tuple[list[int], list[int]]:
    """Descriptors 0-2 to pass (``/dev/null`` for a closed one) and those opened here."""
    fds, opened = [], []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            fds.append(null)
            opened.append(null)
    return fds, opened


def _recv_frame(sock: _socket.socket) -> tuple[str, int] | None:
    buf = b""
    while len(buf) < _FRAME:
        try:
            chunk = sock.recv(_FRAME - len(buf))
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for safety
            continue
        if not chunk:
            return None
        buf += chunk
    return chr(buf[0]), int.from_bytes(buf[1:], sys.byteorder, signed=True)


def run(source: str, filename: str) -> int | None:
    """Run the round in the warm worker; ``None`` means it did not run (run it locally)."""
    import _socket  # the C module: ``socket`` would import enum and build its IntEnums

    path = worker_socket_path()
    if not os.path.exists(path):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    signals = _Forward()
    try:
        sock.settimeout(_ACCEPT_TIMEOUT)
        try:
            sock.connect(path)
        except OSError:
            return None
        body = _request(source, filename)
        fds, opened = _std_fds()
        cwd = os.open(".", os.O_RDONLY)
        # from here the script may run: a Ctrl-C must reach it, even before we know its pid
        signals.install()
        try:
            ancillary = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in [*fds, cwd])
            header = len(body).to_bytes(4, sys.byteorder)
            try:
                sock.sendmsg([header], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, ancillary)])
                sock.sendall(body)
            except OSError:
                signals.declined()
                return None
        finally:
            os.close(cwd)
            for fd in opened:
                os.close(fd)
        sock.settimeout(_ANSWER_TIMEOUT)
        try:
            first = _recv_frame(sock)
        except TimeoutError:
            # the request went out: the script may be running, so it must not run here too
            sys.stderr.write("the ego_browser round worker did not answer; run the round again\n")
            return 1
        except OSError:
            signals.declined()
            return None
        if first is not None and first[0] == "X":
            # a quick child can report its status before the worker has sent its pid: it ran
            return first[1]
        if first is None or first[0] != "P":
            signals.declined()  # declined (or gone) before anything ran
            return None
        signals.started(first[1])
        return _wait(sock)
    finally:
        sock.close()


class _Forward:
    """Signals this process gets while the script runs elsewhere go to the script's process."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

    def __init__(self) -> None:
        self.pid: int | None = None
        self.pending: list[int] = []
        self.saved: list[tuple[int, _HANDLER]] = []

    def install(self) -> None:
        if TYPE_CHECKING:  # typeshed has no stub for the C module; signal describes its functions
            import signal as _signal
        else:
            import _signal  # the C module: ``signal`` builds IntEnums at import

        for name in self.SIGNALS:
            signum = getattr(_signal, name)
            try:
                self.saved.append((signum, _signal.signal(signum, self._handle)))
            except (OSError, ValueError):  # pragma: no cover - not the main thread
                pass

    def _handle(self, signum: int, _frame: object) -> None:
        if self.pid is None:
            self.pending.append(signum)
            return
        try:
            os.kill(self.pid, signum)
        except OSError:
            pass

    def started(self, pid: int) -> None:
        self.pid = pid
        pending, self.pending = self.pending, []
        for signum in pending:
            self._handle(signum, None)

    def declined(self) -> None:
        """Nothing ran: restore the handlers, then deliver what came meanwhile to ourselves."""
        if TYPE_CHECKING:
            import signal as _signal
        else:
            import _signal

        for signum, handler in self.saved:
            _signal.signal(signum, handler)
        for signum in self.pending:
            os.kill(os.getpid(), signum)
        return None


def _wait(sock: _socket.socket) -> int:
    """The script runs in the worker's child: return its exit status."""
    sock.settimeout(None)  # the script may run as long as it likes
    try:
        frame = _recv_frame(sock)
    except OSError:
        frame = None
    if frame is None or frame[0] != "X":
        sys.stderr.write("the ego_browser round worker went away while the round ran; run the round again\n")
        return 1
    return frame[1]
