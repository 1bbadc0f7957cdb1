"""The background host: a Unix socket in a private directory, and its life cycle.

``serve()`` takes an exclusive lock (one host per data directory), starts the ``Host``,
listens on ``run/host.sock`` (directory 0700, socket 0600), tells the process that spawned it
that it is ready through an inherited pipe, and runs until ``host stop``, SIGTERM/SIGINT or
the idle limit. Requests run as independent tasks: a slow page never delays another space,
and a round that disappears mid-request (SIGKILL) leaves its action to finish normally.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from typing import IO, Any

from ... import config
from ...errors import EgoError, InvalidState, to_wire
from ...schema.wire import PERSON_ONLY
from . import features
from ...wire import protocol as wire
from .host import Host
from ...wire.lockfile import SOCKET_CHECK
from .dispatch import load_all, op
from . import serve_early
from ...browser import early

__all__ = ["serve", "HostServer"]

logger = logging.getLogger("ego_browser.host")


class HostServer:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.server: asyncio.AbstractServer | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.stop_requested = asyncio.Event()
        #: set by SIGUSR1 (a round found no socket but the lock held): check the socket now
        self.recheck = asyncio.Event()
        self._bound: tuple[int, int] | None = None  # (st_dev, st_ino) of the socket we bound

    async def listen(self) -> None:
        path = config.socket_path()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        old = os.umask(0o177)  # the socket is born 0600: no window where others can connect
        try:
            self.server = await asyncio.start_unix_server(self._client, path=str(path), limit=wire.MAX_FRAME)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        st = os.stat(path)
        self._bound = (st.st_dev, st.st_ino)

    def socket_lost(self) -> bool:
        """Whether the socket file is gone or is no longer the one we bound."""
        try:
            st = os.stat(config.socket_path())
        except FileNotFoundError:
            return True
        except OSError:
            return False  # cannot tell (the directory is unreadable?): leave it
        return (st.st_dev, st.st_ino) != self._bound

    async def watch_socket(self) -> None:
        """Re-create a socket file deleted under the running host: otherwise every round waits
        for a host that cannot start (the lock is ours) and the CLI thinks none runs. A stat
        per ``SOCKET_CHECK`` seconds, or at once on SIGUSR1."""
        while not self.stop_requested.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.recheck.wait(), SOCKET_CHECK)
            self.recheck.clear()
            if self.stop_requested.is_set() or not self.socket_lost():
                continue
            logger.warning("socket %s was removed or replaced: listening on a new one", config.socket_path())
            old = self.server
            try:
                await self.listen()  # existing connections carry on; only the listener is new
            except OSError:
                logger.exception("could not re-create the socket; retrying")
                continue
            if old is not None:
                old.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        with contextlib.suppress(FileNotFoundError):
            config.socket_path().unlink()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        header = wire.HEADER
        #: once a frame says it comes from an agent, the connection stays an agent's
        agent = False
        try:
            while True:
                raw = await reader.readexactly(header.size)
                (size,) = header.unpack(raw)
                if size > wire.MAX_FRAME:
                    break
                body = await reader.readexactly(size)
                try:
                    request = wire.decode(body)
                except ValueError as exc:  # not ours to guess its id: drop it, keep serving
                    logger.warning("request frame dropped: %s", exc)
                    continue
                agent = agent or request.get("role") == "agent"
                task = asyncio.get_running_loop().create_task(self._answer(request, writer, agent=agent))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _answer(self, request: dict[str, Any], writer: asyncio.StreamWriter, *, agent: bool = False) -> None:
        rid = request.get("i")
        try:
            if agent and request.get("op") in PERSON_ONLY:
                raise InvalidState(
                    f"{request.get('op')} is the person's own operation (ego-browser ...), not a round's: "
                    "a space the person holds comes back when they give it back; ask them with "
                    "task.hand_off() or print what you need", api=str(request.get("op")))
            if request.get("op") == "host.stop":
                result: Any = {"stopping": True}
                self.stop_requested.set()
            else:
                result = await self.host.handle(request.get("op", ""), request.get("a") or {})
            reply = {"i": rid, "r": result}
        except EgoError as exc:
            reply = {"i": rid, "e": to_wire(exc)}
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: report it to the round rather than hang it
            logger.exception("request %s failed", request.get("op"))
            reply = {"i": rid, "e": {"code": "EGO_ERROR", "message": f"host error in {request.get('op')}: {exc!r}", "attrs": {}}}
        if writer.is_closing():
            return  # the round went away (killed?): its action still completed
        try:
            writer.write(_encode_reply(rid, request.get("op"), reply))
        except (ConnectionError, RuntimeError):
            pass


def _encode_reply(rid: Any, op_name: Any, reply: dict[str, Any]) -> bytes:
    """The reply's frame; a reply that cannot be encoded becomes an error reply, never silence
    (a round would otherwise wait for an answer that never comes)."""
    try:
        return wire.encode(reply, big_ints_as_text=True)
    except wire.Unencodable as exc:
        logger.error("reply to %s could not be encoded: %s", op_name, exc)
        return wire.encode({"i": rid, "e": {
            "code": "EGO_ERROR",
            "message": f"host error in {op_name}: its answer could not be sent ({exc}); this is a bug, "
                       "please report it",
            "attrs": {},
        }}, big_ints_as_text=True)


def _traffic(host: Host) -> dict[str, Any]:
    conn = host.browser.conn
    if conn is None:
        return {}
    sent, events = conn.traffic()
    return {"cdp_commands": sent, "cdp_events": events}


@op("host.status")
async def status(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    # a spare tab being prepared exists in the browser before it is known as the spare: count
    # once it is settled (bounded), or every status taken meanwhile would show a false orphan
    await host.features.warm.wait_ready()
    pages = {t for t, i in host.browser.targets.items() if i.get("type") == "page"}
    listed = host.store.listed_target_ids() if host.store is not None else set()
    return {
        # tabs no space lists (the launch tab kept for the first space aside): should be 0
        "pages": len(pages),
        "orphan_pages": len(pages - listed - {host.spare_tab}),
        "store_bytes": host.store.size() if host.store is not None else 0,
        "notice": host.store.peek_notice() if host.store is not None else None,
        "pid": os.getpid(),
        "endpoint": host.browser.endpoint,
        "browser": host.browser.version.get("product", ""),
        "browser_pid": host.browser.process.pid if host.browser.process else None,
        "owned_browser": host.browser.owned,
        "home": str(host.home),
        "uptime_s": round(time.time() - host.started_at, 1),
        "requests": host.requests,
        # many agents (issue 31): calls running and waiting for a turn, tabs frozen while idle
        "calls_running": host.admission.active,
        "calls_limit": host.admission.limit,
        "pictures_yielded": host.pictures.yielded,
        "calls_waiting": host.admission.queued,
        "calls_refused": host.admission.refused,
        "longest_wait_ms": round(host.admission.longest_wait * 1000),
        "frozen_tabs": host.idle.count(),
        "freezes": host.idle.freezes,
        "wakes": host.idle.wakes,
        # CDP traffic with the (first) browser by method: the browser process relays all of it
        **_traffic(host),
        "python": sys.executable,
    }


async def serve(ready_fd: int | None = None, lock_file: IO[Any] | None = None) -> int:
    """Run the background host until stopped; returns the process exit status.

    ``lock_file``: the host lock already held (``serve_early.begin``, which also started
    Chromium while this module loaded); else taken here."""
    if lock_file is None:
        lock_file = serve_early.begin(ready_fd)
        if lock_file is None:
            return 3
    run_dir = config.run_dir()
    config.open_private(run_dir / "host.log").close()  # private even if an older version made it
    from ...logsetup import level as log_level

    logging.basicConfig(
        filename=str(run_dir / "host.log"), level=log_level(logging.INFO) or logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    host = Host(features=features.build)
    from .secret_book import MaskingFilter

    for handler in logging.getLogger().handlers:  # the log never keeps a secret a page echoed
        handler.addFilter(MaskingFilter(host.secrets))
    try:
        load_all()
        await host.start()
    except EgoError as exc:
        early.discard()
        serve_early.notify(ready_fd, f"error {exc.code}: {exc.message}\n".encode())
        return 1
    except Exception as exc:  # report the cause to the round that started us
        early.discard()
        logger.exception("host start-up failed")
        serve_early.notify(ready_fd, f"error: {exc!r}\n".encode())
        return 1
    server = HostServer(host)
    await server.listen()
    with config.open_private(run_dir / "host.pid", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "w") as fh:
        fh.write(str(os.getpid()))
    loop = asyncio.get_running_loop()
    def signalled(sig: signal.Signals) -> None:
        logger.info("%s received: stopping", sig.name)
        server.stop_requested.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, signalled, sig)
    loop.add_signal_handler(signal.SIGUSR1, server.recheck.set)

    def browser_gone() -> None:
        logger.error("the browser's connection closed (the browser exited or was killed): stopping the host")
        server.stop_requested.set()

    host.browser.on_disconnect.append(browser_gone)
    serve_early.notify(ready_fd, b"ok\n")
    from .worker_supervisor import Supervisor

    worker = Supervisor(run_dir)
    starter = loop.create_task(worker.start_when_quiet(host), name="ego-start-worker")
    starter.add_done_callback(_log_failure)
    idle = config.idle_shutdown()
    watcher = loop.create_task(server.watch_socket(), name="ego-watch-socket")
    watcher.add_done_callback(_log_failure)
    try:
        while not server.stop_requested.is_set():
            try:
                await asyncio.wait_for(server.stop_requested.wait(), timeout=min(idle, 60))
            except asyncio.TimeoutError:
                if time.monotonic() - host.last_request > idle and not server.tasks:
                    logger.info("idle for %.0fs: stopping", idle)
                    break
    except Exception:
        # the host never ends without a word in its log (issue 31: a silent exit)
        logger.exception("the host's loop failed: stopping")
        raise
    finally:
        starter.cancel()
        worker.stop()
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        await asyncio.sleep(0)  # let the "stopping" answer leave
        await server.close()
        await host.stop(kill_browser=True)
        with contextlib.suppress(FileNotFoundError):
            (run_dir / "host.pid").unlink()
        lock_file.close()
    return 0


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("%s failed", task.get_name(), exc_info=task.exception())
