"""The keeper: owns Chromium's DevTools pipe and serves it on a private Unix socket.

Run as ``python -I -S keeper.py --socket PATH --user-data-dir=PROFILE -- CHROMIUM ARGS...``
(standard library only, so it starts in a few tens of milliseconds and imports nothing of
ego_browser). Why it exists: Chromium launched with ``--remote-debugging-pipe`` opens no TCP
port that another local user could reach, but the pipe (fds 3 and 4) belongs to one process
and a host killed with SIGKILL must reattach to the same browser. The keeper holds the pipe,
outlives host restarts, and dies with Chromium (pipe EOF); Chromium dies with it
(``PR_SET_PDEATHSIG``).

One client at a time (the host holds a lock; a second client waits until the first has gone).
Each client gets its own browser-level session (``Target.attachToBrowserTarget``), named in the
hello, and then **the pipe itself**: both ends are passed over the socket (``SCM_RIGHTS``) right
after the hello, and the client reads and writes Chromium's pipe directly (no relay hop per
message: a whole-task A/B measured the hop at ~8% of the tool time, docs/architecture.md,
"Transport"). The client addresses what it sends without a ``sessionId`` to its session and
strips that session from what it reads (``cdp/pipe.py``), so it sees exactly what a websocket to
``/devtools/browser`` gave it. While the client holds the pipe the keeper reads neither side
and only watches the socket. When the client goes (its socket closes, also when it was
SIGKILLed), the keeper takes the pipe back: a lone NUL ends whatever message the client left
half written (Chromium answers the fragment with a parse error nobody reads), a fragment the
client left half read fails to parse and is dropped, and its session is detached, which
detaches every session it attached and resets what it enabled, so nothing of that client
reaches the next one.

Protocol to the client: NUL-terminated JSON messages; the keeper sends a hello
``{"ego_keeper": 2, "instance": <browser target id>, "browserPid": N, "session": <id>}``, then
one frame ``b"F"`` + an 8-byte length (network order) + the bytes of Chromium's output it had
read past its last whole message, carrying the two pipe descriptors (Chromium's input first). From then on the socket carries
nothing; it only tells each side that the other is alive.
Readiness to the launcher: one JSON line on stdout (``{"pid": N, "instance": ...}`` or
``{"error": ...}``), then stdout is closed.

Orphans: a keeper whose host was killed (SIGKILL: no chance to stop anything) and that no host
ever reconnects to would keep its socket and its Chromium forever. So the keeper knows its
hosts: the process that launched it and every client it served (``SO_PEERCRED``), each by pid
and start time (a reused pid is not the host). With no client and none of them alive for
``--grace`` seconds, it stops Chromium (SIGTERM, SIGKILL 10 s later) and leaves with its socket
(and ``--own-dir``, the temporary directory the launcher made for it). A host restarted within
the grace connects, becomes a client, and adopts the browser as before.
"""

from __future__ import annotations  # annotations stay text: nothing more is imported at start

import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

TYPE_CHECKING = False  # typing is not imported at run time (the keeper starts with python -I -S)
if TYPE_CHECKING:  # pragma: no cover
    from types import FrameType
    from typing import Any, TextIO

_SID = b',"sessionId":"'
#: a client this far behind is dropped rather than growing the keeper without bound
_MAX_CLIENT_BACKLOG = 512 * 1024 * 1024
_CHUNK = 1 << 20
#: default seconds a keeper with no client and no live host waits before stopping Chromium
GRACE = 60.0
#: while alone, how often the keeper looks whether a host is still alive (one wake-up a second)
_ALONE_TICK = 1.0
#: after its SIGTERM, how long an orphaned Chromium gets before SIGKILL
_STOP_WAIT = 10.0


def _start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot, /proc/PID/stat field 22), or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    if len(fields) < 20 or fields[0] == b"Z":  # a zombie is dead for our purpose
        return None
    return fields[19].decode()


def _die_with_parent() -> None:
    """In Chromium, before exec: SIGKILL when the keeper goes, whatever killed it."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG


class Keeper:
    def __init__(self, socket_path: str, chromium_args: list[str], grace: float = GRACE,
                 own_dir: str | None = None) -> None:
        self.socket_path = socket_path
        self.args = chromium_args
        self.grace = grace
        self.own_dir = own_dir
        #: pid -> start time of every host this keeper served (the launcher, each client)
        self.hosts: dict[int, str] = {}
        #: since when no client and no live host (monotonic), None while either exists
        self.alone_since: float | None = None
        self.kill_at: float | None = None  # SIGKILL an orphaned Chromium that ignored SIGTERM
        self.poll = select.epoll()
        self.tags: dict[int, str] = {}  # fd -> what it is
        self.to_browser = bytearray()
        self.from_browser = bytearray()
        #: our own request ids, far above any client's, so a root reply is told apart
        self.ids = 2_000_000_000
        self.waiting: dict[int, str] = {}  # keeper's own request id -> what it was for
        #: (socket, outbox) of the current client (the outbox holds its hello until the hand-over)
        self.client: tuple[socket.socket, bytearray] | None = None
        self.session: bytes | None = None  # the current client's browser session id
        self.pending_client: socket.socket | None = None  # a socket waiting for its session
        #: the client's hello is out and the pipe goes to it at the next message boundary
        self.handoff = False
        #: the current client holds the pipe: the keeper reads neither end
        self.handed = False
        self.detaching = False
        self.stale: set[bytes] = set()
        self.instance = ""
        self.ready_out: TextIO | None = sys.stdout
        self.terminating = False
        self.browser_blocked = False  # Chromium's pipe is full: wait until it is writable
        self.client_blocked = False

    # -- start ------------------------------------------------------------------------------

    def start(self) -> None:
        os.umask(0o077)
        # bound under a temporary name and renamed: the socket is never seen half set up, and
        # the relative name keeps long run-directory paths under the 108-byte limit
        directory, name = os.path.split(self.socket_path)
        os.chdir(directory or ".")
        tmp = f".{name}.{os.getpid()}"
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self.listener.bind(tmp)
        finally:
            os.umask(old)
        self.listener.listen(4)
        self.listener.setblocking(False)
        self._know_host(os.getppid())
        os.replace(tmp, name)
        self.socket_name = name
        self.socket_ino = os.stat(name).st_ino
        r_in, w_in = os.pipe()  # keeper -> Chromium (its fd 3)
        r_out, w_out = os.pipe()  # Chromium -> keeper (its fd 4)

        def child() -> None:
            _die_with_parent()
            if os.getppid() != keeper_pid:  # the keeper died before the prctl took hold
                os._exit(1)
            a, b = os.dup(r_in), os.dup(w_out)
            os.dup2(a, 3)
            os.dup2(b, 4)

        keeper_pid = os.getpid()
        self.proc = subprocess.Popen(
            self.args, stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr,
            preexec_fn=child, close_fds=False,
        )
        for fd in (r_in, w_out):
            os.close(fd)
        self.browser_in, self.browser_out = w_in, r_out
        os.set_blocking(w_in, False)
        os.set_blocking(r_out, False)
        self._watch(r_out, select.EPOLLIN, "browser")
        self._watch(self.listener.fileno(), select.EPOLLIN, "listen")
        # a first session proves the browser answers before anyone is told it is ready
        self._request("ready", "Target.attachToBrowserTarget", {})

    # -- loop -------------------------------------------------------------------------------

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_term)
        signal.signal(signal.SIGINT, self._on_term)
        while True:
            # one write per batch, not per message: a burst of events costs one syscall
            if self.to_browser and not self.browser_blocked:
                self._flush_browser()
            if self.client is not None and self.client[1] and not self.client_blocked:
                self._flush_client()
            for fd, events in self.poll.poll(self._poll_timeout()):
                what = self.tags.get(fd)
                if what == "browser":
                    if self.handed:
                        if events & (select.EPOLLHUP | select.EPOLLERR):
                            return self._finish()  # Chromium is gone while the client held its pipe
                        continue
                    if not self._read_browser():
                        return self._finish()
                elif what == "browser_in":
                    self._flush_browser()
                elif what == "listen":
                    self._accept()
                elif what == "client" and self.client is not None and fd == self.client[0].fileno():
                    if events & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                        self._read_client()
                    if events & select.EPOLLOUT and self.client is not None:
                        self._flush_client()

    # -- orphans ----------------------------------------------------------------------------

    def _know_host(self, pid: int) -> None:
        started = _start_time(pid) if pid > 1 else None
        if started is not None:
            self.hosts[pid] = started

    def _host_alive(self) -> bool:
        for pid, started in list(self.hosts.items()):
            if _start_time(pid) == started:
                return True
            del self.hosts[pid]  # gone (or its pid reused): never alive again
        return False

    def _poll_timeout(self) -> float:
        """Block until something happens while a client is there; tick while alone."""
        now = time.monotonic()
        if self.kill_at is not None:
            if now >= self.kill_at:
                self.kill_at = None
                try:
                    self.proc.kill()
                except OSError:
                    pass
                return -1
            return min(_ALONE_TICK, self.kill_at - now)
        if self.terminating or self.client is not None or self.pending_client is not None:
            self.alone_since = None
            return -1
        if self._host_alive():
            self.alone_since = None
            return _ALONE_TICK
        if self.alone_since is None:
            self.alone_since = now
        if now - self.alone_since >= self.grace:
            self._orphaned()
            return _ALONE_TICK
        return min(_ALONE_TICK, self.alone_since + self.grace - now)

    def _orphaned(self) -> None:
        print(f"ego keeper: no client and no live host for {self.grace:.0f}s: stopping Chromium",
              file=sys.stderr, flush=True)
        self._unlink_socket()  # no host can adopt a browser that is going away
        self.terminating = True
        self.kill_at = time.monotonic() + _STOP_WAIT
        try:
            self.proc.send_signal(signal.SIGTERM)
        except OSError:
            pass

    def _unlink_socket(self) -> None:
        try:
            if os.stat(self.socket_name).st_ino == self.socket_ino:
                os.unlink(self.socket_name)
        except OSError:
            pass

    def _watch(self, fd: int, events: int, what: str) -> None:
        self.poll.register(fd, events)
        self.tags[fd] = what

    def _unwatch(self, fd: int) -> None:
        self.poll.unregister(fd)
        del self.tags[fd]

    def _on_term(self, signum: int, frame: FrameType | None) -> None:
        # Chromium got the same signal from the process group and is closing its profile
        # cleanly; the keeper leaves when the pipe closes. Sent to the keeper alone, pass it on.
        if not self.terminating:
            self.terminating = True
            try:
                self.proc.send_signal(signal.SIGTERM)
            except OSError:
                pass

    def _finish(self) -> int:
        self._unlink_socket()
        if self.own_dir:
            try:
                os.rmdir(self.own_dir)  # only if empty: the launcher's temporary directory
            except OSError:
                pass
        code = self.proc.wait()
        if self.ready_out is not None:
            self._tell({"error": f"Chromium exited with status {code} before it answered on its DevTools pipe"})
        return 0

    def _tell(self, info: dict[str, Any]) -> None:
        out, self.ready_out = self.ready_out, None
        if out is None:
            return
        try:
            out.write(json.dumps(info) + "\n")
            out.flush()
            out.close()
        except OSError:
            pass

    # -- browser side -----------------------------------------------------------------------

    def _request(self, purpose: str, method: str, params: dict[str, Any]) -> None:
        self.ids += 1
        self.waiting[self.ids] = purpose
        self._to_browser(json.dumps({"id": self.ids, "method": method, "params": params}).encode())

    def _to_browser(self, message: bytes) -> None:
        buf = self.to_browser
        buf += message
        buf += b"\0"

    def _flush_browser(self) -> None:
        buf = self.to_browser
        try:
            n = os.write(self.browser_in, buf)
            del buf[:n]
        except BlockingIOError:
            pass
        except OSError:
            buf.clear()  # Chromium is gone; the read side sees EOF and ends the keeper
        blocked = bool(buf)
        if blocked != self.browser_blocked:
            self.browser_blocked = blocked
            if blocked:
                self._watch(self.browser_in, select.EPOLLOUT, "browser_in")
            else:
                self._unwatch(self.browser_in)

    def _read_browser(self) -> bool:
        try:
            data = os.read(self.browser_out, _CHUNK)
        except BlockingIOError:
            return True
        if not data:
            return False
        buf = self.from_browser
        start = len(buf)
        buf += data
        end = buf.find(b"\0", start)
        if end < 0:
            return True
        begin = 0
        while end >= 0:
            try:
                self._route(bytes(buf[begin:end]))
            except Exception as exc:  # noqa: BLE001 - one odd message never ends the browser
                print(f"ego keeper: dropped a message from Chromium ({exc!r})", file=sys.stderr, flush=True)
            begin = end + 1
            end = buf.find(b"\0", begin)
        del buf[:begin]
        if self.handoff:
            self._hand_over()
        return True

    def _hand_over(self) -> None:
        """Give the pipe to the client: what the keeper still had to write goes first, then
        the hello and any routed messages, then the rest of Chromium's output read so far
        and both descriptors in one frame."""
        self.handoff = False
        if self.client is None:
            return
        sock, outbox = self.client
        try:
            if self.to_browser:
                os.set_blocking(self.browser_in, True)
                try:
                    os.write(self.browser_in, bytes(self.to_browser))  # the keeper's own requests stay first
                finally:
                    os.set_blocking(self.browser_in, False)
                self.to_browser.clear()
                if self.browser_blocked:
                    self.browser_blocked = False
                    self._unwatch(self.browser_in)
            sock.settimeout(10.0)
            sock.sendall(bytes(outbox))
            outbox.clear()
            tail = b"F" + struct.pack("!Q", len(self.from_browser)) + bytes(self.from_browser)
            fds = struct.pack("2i", self.browser_in, self.browser_out)
            sock.sendmsg([tail], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
            sock.setblocking(False)
        except OSError:
            self._drop_client()
            self._serve_pending()
            return
        self.from_browser.clear()
        # not read while the client holds it; a hang-up (Chromium gone) is still reported
        self.poll.modify(self.browser_out, 0)
        self.handed = True
        self.client_blocked = False
        self.poll.modify(sock.fileno(), select.EPOLLIN)

    def _take_back(self) -> None:
        """The client that held the pipe is gone: read Chromium again, end its half message."""
        self.handed = False
        self.from_browser.clear()
        self.poll.modify(self.browser_out, select.EPOLLIN)
        self._to_browser(b"")  # a lone NUL: whatever the client left half written ends here

    def _route(self, msg: bytes) -> None:
        """One message from Chromium: the client's (session stripped), a child session's, or ours."""
        if msg.endswith(b'"}'):
            i = msg.rfind(_SID, max(0, len(msg) - 80))
            if i >= 0:
                sid = msg[i + len(_SID):-2]
                if sid == self.session:
                    self._to_client(msg[:i] + b"}")
                elif sid not in self.stale and self.session is not None:
                    self._to_client(msg)
                return
        try:
            obj = json.loads(msg)
        except ValueError:  # not ours (ours are plain ASCII): let the client judge it
            obj = {"id": None}
        if not isinstance(obj, dict):
            obj = {"id": None}
        if "id" in obj and obj["id"] not in self.waiting:
            # a client request Chromium answered at the root ("Session with given id not
            # found" for a session that is gone): the client is waiting for it
            if self.session is not None:
                self._to_client(msg)
            return
        self._own(obj)

    def _own(self, msg: dict[str, Any]) -> None:
        msg_id = msg.get("id")
        purpose = self.waiting.pop(msg_id, None) if isinstance(msg_id, int) else None
        if purpose is None:
            # our sessions' attach/detach events; the browser target id names this launch
            if msg.get("method") == "Target.attachedToTarget" and not self.instance:
                self.instance = msg["params"]["targetInfo"]["targetId"]
            return
        if purpose == "ready":
            if "result" in msg:
                self.stale.add(msg["result"]["sessionId"].encode())
                self._tell({"pid": self.proc.pid, "instance": self.instance})
                self._request("detach", "Target.detachFromTarget", {"sessionId": msg["result"]["sessionId"]})
                self.detaching = True
            else:
                self._tell({"error": f"Chromium refused a DevTools session: {msg.get('error')}"})
        elif purpose == "detach":
            self.detaching = False
            self._serve_pending()
        elif purpose == "attach":
            sock = self.pending_client
            self.pending_client = None
            if sock is None:
                return
            if "result" not in msg:
                sock.close()
                return
            self.session = msg["result"]["sessionId"].encode()
            self.client = (sock, bytearray())
            self.client_blocked = False
            self._watch(sock.fileno(), select.EPOLLIN, "client")
            hello = {"ego_keeper": 2, "instance": self.instance, "browserPid": self.proc.pid,
                     "session": self.session.decode()}
            self._to_client(json.dumps(hello).encode())
            self.handoff = True  # at the end of this read, past the attach reply

    # -- client side ------------------------------------------------------------------------

    def _accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        try:
            pid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
            self._know_host(pid)
        except (OSError, struct.error):
            pass
        # a client holds the pipe until it goes: the next one waits (only one host runs per data
        # directory, its lock says so; a newer waiting client replaces an older waiting one)
        if self.pending_client is not None:
            self.pending_client.close()
        self.pending_client = sock
        self._serve_pending()

    def _serve_pending(self) -> None:
        if self.pending_client is not None and not self.detaching and self.client is None \
                and "attach" not in self.waiting.values():
            self._request("attach", "Target.attachToBrowserTarget", {})

    def _drop_client(self) -> None:
        if self.client is None:
            return
        sock = self.client[0]
        self._unwatch(sock.fileno())
        sock.close()
        self.client = None
        self.handoff = False
        if self.handed:
            self._take_back()
        if self.session is not None:
            self.stale.add(self.session)
            self._request("detach", "Target.detachFromTarget", {"sessionId": self.session.decode()})
            self.detaching = True
            self.session = None

    def _read_client(self) -> None:
        """The client writes to Chromium's pipe itself: on the socket only its going matters."""
        if self.client is None:
            return
        try:
            data = self.client[0].recv(_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop_client()
            self._serve_pending()

    def _to_client(self, message: bytes) -> None:
        if self.client is None:
            return
        outbox = self.client[1]
        outbox += message
        outbox += b"\0"
        if len(outbox) > _MAX_CLIENT_BACKLOG:
            self._drop_client()
            self._serve_pending()

    def _flush_client(self) -> None:
        if self.client is None:
            return
        sock, outbox = self.client
        try:
            n = sock.send(outbox)
            del outbox[:n]
        except BlockingIOError:
            pass
        except OSError:
            self._drop_client()
            self._serve_pending()
            return
        blocked = bool(outbox)
        if blocked != self.client_blocked:
            self.client_blocked = blocked
            self.poll.modify(sock.fileno(), select.EPOLLIN | (select.EPOLLOUT if blocked else 0))


def main(argv: list[str]) -> int:
    socket_path = None
    grace = GRACE
    own_dir = None
    i = 0
    try:
        while i < len(argv) and argv[i] != "--":
            if argv[i] == "--socket":
                socket_path = argv[i + 1]
                i += 1
            elif argv[i] == "--grace":
                grace = max(0.0, float(argv[i + 1]))
                i += 1
            elif argv[i] == "--own-dir":
                own_dir = argv[i + 1]
                i += 1
            i += 1  # --user-data-dir=... is only there so the process can be recognised
    except (IndexError, ValueError):
        socket_path = None
    chromium = argv[i + 1:]
    if not socket_path or not chromium:
        print("usage: keeper.py --socket PATH [--grace SECONDS] [--own-dir DIR] --user-data-dir=DIR -- "
              "CHROMIUM ARGS...", file=sys.stderr)
        return 2
    keeper = Keeper(socket_path, chromium, grace, own_dir)
    try:
        keeper.start()
    except Exception as exc:  # noqa: BLE001 - reported to the launcher, which raises
        keeper._tell({"error": f"the keeper could not start: {exc}"})
        return 1
    return keeper.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
