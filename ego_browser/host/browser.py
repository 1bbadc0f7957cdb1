"""The host's link to its browser: launch, attach or reattach, and the live target list.

The Chromium we launch speaks CDP only on its pipe, held by a keeper process that serves it on
``run/browser.sock`` (see ``browser/keeper.py``). ``browser.json`` in the private run directory
records that keeper and its Chromium (pids, the keeper's start time, the socket), so a host
that was killed and started again reattaches to the same browser and every tab, frame and ref
survives; the record is checked against the live process before anything is signalled. ``stop(kill_browser=True)`` ends the
Chromium we launched, with its helpers; a browser reached through ``EGO_BROWSER_CDP_URL`` is
never ours to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from .. import config
from ..browser.launcher import (
    BrowserProcess,
    headless_enabled,
    launch_chromium,
    launched_headless,
    resolve_cdp_url_async,
)
from ..cdp import Connection
from ..cdp.pipe import UNIX_PREFIX, connect_unix
from ..errors import BrowserUnavailable
from .windows import PERSON_SPACE

__all__ = ["BrowserLink"]


class BrowserLink:
    def __init__(self, home: Path, run_dir: Path, *, embedded: bool = False) -> None:
        self.home = home
        self.run_dir = run_dir
        #: in-process hosts tie Chromium's life to this process (nothing survives a killed test);
        #: the background host lets it outlive a killed host so the next one reattaches
        self.embedded = embedded
        self.conn: Connection | None = None
        self.process: BrowserProcess | None = None
        self.owned = False
        self.endpoint = ""
        self.instance = ""
        self.version: dict[str, Any] = {}
        #: the browser we launched shows windows on a display (``EGO_BROWSER_HEADLESS=0``)
        self.headed = False
        #: the id of the browser's persistent context (its tabs are the only ones a person
        #: can open from the browser's own UI in a window of ours)
        self.default_context = ""
        #: target id -> latest TargetInfo (pages, iframes, workers ...)
        self.targets: dict[str, dict[str, Any]] = {}
        self.on_target_created: list[Callable[[dict[str, Any]], Any]] = []
        self.on_target_destroyed: list[Callable[[str], Any]] = []
        self.on_target_changed: list[Callable[[dict[str, Any]], Any]] = []
        self.on_disconnect: list[Callable[[], Any]] = []

    @property
    def _state_file(self) -> Path:
        return self.run_dir / "browser.json"

    async def start(self) -> None:
        remote = os.environ.get("EGO_BROWSER_CDP_URL", "").strip()
        if remote:
            ws = await resolve_cdp_url_async(remote)
            self.conn = await Connection.connect(ws)
            self.endpoint, self.owned = ws, False
            self.instance = self.endpoint.rsplit("/", 1)[-1]
        else:
            await self._attach_or_launch()
        assert self.conn is not None
        self.conn.on_close(lambda _exc: [cb() for cb in self.on_disconnect])
        conn = self.conn
        conn.on("Target.targetCreated", self._created)
        conn.on("Target.targetInfoChanged", self._changed)
        conn.on("Target.targetDestroyed", self._destroyed)
        version: dict[str, Any]
        known: dict[str, Any]
        contexts: dict[str, Any]
        version, known, _, contexts = await asyncio.gather(
            conn.send("Browser.getVersion"),
            conn.send("Target.getTargets"),
            conn.send("Target.setDiscoverTargets", {"discover": True}),
            conn.send("Target.getBrowserContexts"),
        )
        self.version = version
        self.default_context = str(contexts.get("defaultBrowserContextId") or "")
        for info in known["targetInfos"]:
            self.targets.setdefault(info["targetId"], info)

    @property
    def _profile(self) -> Path:
        return self.home / "profiles" / "default"

    async def _attach_or_launch(self) -> None:
        saved = self._read_state()
        if saved is not None:
            recorded = _recorded_process(saved, self._profile)
            if recorded.is_ours():
                if recorded.ws_url.startswith(UNIX_PREFIX) and await self._connect(recorded, timeout=3.0):
                    self.headed = not launched_headless(recorded.pid)
                    return
                # ours but unreachable (wedged), or one launched with a TCP port by an older
                # version: replace it. Anything else under that pid is not ours to signal.
                await asyncio.to_thread(recorded.terminate)
        socket_path = self.run_dir / "browser.sock"
        log_path = self.run_dir / "chromium.log"
        # ours inside the home: made private even if an older version left them 0755
        config.ensure_private_dir(self._profile.parent)
        config.ensure_private_dir(self._profile)
        headed = not headless_enabled()
        # headed: the launch window is the person's own (host/windows.py), titled as their space
        extra = [f"--window-name={PERSON_SPACE}"] if headed else []
        if self.embedded:
            # launched from the loop's own thread: the death signal follows this thread, and
            # a worker thread of to_thread() may end before the process does
            process = launch_chromium(self._profile, log_path=log_path, die_with_parent=True, socket_path=socket_path,
                                      extra_args=extra)
        else:
            process = await asyncio.to_thread(launch_chromium, self._profile, log_path=log_path, socket_path=socket_path,
                                              extra_args=extra)
        self.headed = headed
        if not await self._connect(process, timeout=10.0):
            await asyncio.to_thread(process.terminate)
            raise BrowserUnavailable(
                f"the browser started but its keeper socket {socket_path} did not answer; "
                "run `python -m ego_browser doctor`",
                endpoint=process.ws_url,
            )
        self._write_state()

    async def _connect(self, process: BrowserProcess, *, timeout: float) -> bool:
        try:
            stream = await connect_unix(process.ws_url[len(UNIX_PREFIX):], timeout=timeout)
        except BrowserUnavailable:
            return False
        self.conn = Connection(stream, process.ws_url)
        self.process = process
        self.endpoint, self.owned = process.ws_url, True
        # the browser target's id: new with every launch, as the websocket URL's id was
        self.instance = str(stream.hello.get("instance") or process.instance)
        return True

    def _read_state(self) -> dict[str, Any] | None:
        try:
            state = orjson.loads(self._state_file.read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None
        return state if isinstance(state, dict) else None

    def _write_state(self) -> None:
        assert self.process is not None
        p = self.process
        data = orjson.dumps({
            "v": 2, "pid": p.pid, "leader": p.leader, "leader_start": p.leader_start,
            "endpoint": p.ws_url, "user_data_dir": p.user_data_dir, "instance": self.instance,
        })
        tmp = self._state_file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, self._state_file)

    async def stop(self, *, kill_browser: bool) -> None:
        if self.conn is not None:
            await self.conn.close()
        if kill_browser and self.owned and self.process is not None:
            await asyncio.to_thread(self.process.terminate)
            with contextlib.suppress(FileNotFoundError):
                self._state_file.unlink()

    # -- targets ----------------------------------------------------------------------------

    def _created(self, params: dict[str, Any], _sid: str | None) -> None:
        info = params["targetInfo"]
        self.targets[info["targetId"]] = info
        for cb in self.on_target_created:
            cb(info)

    def _changed(self, params: dict[str, Any], _sid: str | None) -> None:
        info = params["targetInfo"]
        self.targets[info["targetId"]] = info
        for cb in self.on_target_changed:
            cb(info)

    def _destroyed(self, params: dict[str, Any], _sid: str | None) -> None:
        tid = params["targetId"]
        self.targets.pop(tid, None)
        for cb in self.on_target_destroyed:
            cb(tid)

    def is_live_page(self, target_id: str | None) -> bool:
        info = self.targets.get(target_id or "")
        return info is not None and info.get("type") == "page"


def _recorded_process(saved: dict[str, Any], profile: Path) -> BrowserProcess:
    """What ``browser.json`` describes, checked against this home's profile, never its own
    word: a pid reused by an unrelated process fails ``is_ours()`` and is never signalled."""

    def number(key: str) -> int:
        value = saved.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    started = saved.get("leader_start")
    endpoint = saved.get("endpoint") or saved.get("ws_url") or ""
    return BrowserProcess(
        pid=number("pid"), ws_url=str(endpoint), user_data_dir=str(profile),
        leader=number("leader") or number("pid"),
        leader_start=started if isinstance(started, int) and not isinstance(started, bool) else None,
        instance=str(saved.get("instance") or ""),
    )
