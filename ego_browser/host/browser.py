"""The host's link to its browser: launch, attach or reattach, and the live target list.

``browser.json`` in the private run directory records the Chromium this data directory
launched (pid and websocket URL), so a host that was killed and started again reattaches to
the same browser and every tab, frame and ref survives. ``stop(kill_browser=True)`` ends the
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

from ..browser.launcher import BrowserProcess, launch_chromium, pid_alive, resolve_cdp_url_async
from ..cdp import Connection
from ..errors import BrowserUnavailable

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
        #: target id -> latest TargetInfo (pages, iframes, workers ...)
        self.targets: dict[str, dict[str, Any]] = {}
        self.on_target_created: list[Callable[[dict], Any]] = []
        self.on_target_destroyed: list[Callable[[str], Any]] = []
        self.on_target_changed: list[Callable[[dict], Any]] = []
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
        else:
            await self._attach_or_launch()
        assert self.conn is not None
        self.instance = self.endpoint.rsplit("/", 1)[-1]
        self.conn.on_close(lambda _exc: [cb() for cb in self.on_disconnect])
        conn = self.conn
        conn.on("Target.targetCreated", self._created)
        conn.on("Target.targetInfoChanged", self._changed)
        conn.on("Target.targetDestroyed", self._destroyed)
        version, targets, _ = await asyncio.gather(
            conn.send("Browser.getVersion"),
            conn.send("Target.getTargets"),
            conn.send("Target.setDiscoverTargets", {"discover": True}),
        )
        self.version = version
        for info in targets["targetInfos"]:
            self.targets.setdefault(info["targetId"], info)

    async def _attach_or_launch(self) -> None:
        saved = self._read_state()
        if saved and pid_alive(int(saved.get("pid", 0))):
            try:
                self.conn = await Connection.connect(saved["ws_url"], timeout=3.0)
            except BrowserUnavailable:
                self.conn = None
            if self.conn is not None:
                self.process = BrowserProcess(int(saved["pid"]), saved["ws_url"], saved.get("user_data_dir", ""))
                self.endpoint, self.owned = saved["ws_url"], True
                return
            # alive but unreachable: a wedged browser of ours; replace it
            BrowserProcess(int(saved["pid"]), saved["ws_url"], "").terminate()
        profile = self.home / "profiles" / "default"
        if self.embedded:
            # launched from the loop's own thread: the death signal follows this thread, and
            # a worker thread of to_thread() may end before the process does
            process = launch_chromium(profile, log_path=self.run_dir / "chromium.log", die_with_parent=True)
        else:
            process = await asyncio.to_thread(launch_chromium, profile, log_path=self.run_dir / "chromium.log")
        self.process = process
        self.conn = await Connection.connect(process.ws_url)
        self.endpoint, self.owned = process.ws_url, True
        self._write_state()

    def _read_state(self) -> dict | None:
        try:
            return orjson.loads(self._state_file.read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None

    def _write_state(self) -> None:
        assert self.process is not None
        tmp = self._state_file.with_suffix(".tmp")
        tmp.write_bytes(
            orjson.dumps(
                {"pid": self.process.pid, "ws_url": self.process.ws_url, "user_data_dir": self.process.user_data_dir}
            )
        )
        os.chmod(tmp, 0o600)
        os.replace(tmp, self._state_file)

    async def stop(self, *, kill_browser: bool) -> None:
        if self.conn is not None:
            await self.conn.close()
        if kill_browser and self.owned and self.process is not None:
            await asyncio.to_thread(self.process.terminate)
            with contextlib.suppress(FileNotFoundError):
                self._state_file.unlink()

    # -- targets ----------------------------------------------------------------------------

    def _created(self, params: dict, _sid: str | None) -> None:
        info = params["targetInfo"]
        self.targets[info["targetId"]] = info
        for cb in self.on_target_created:
            cb(info)

    def _changed(self, params: dict, _sid: str | None) -> None:
        info = params["targetInfo"]
        self.targets[info["targetId"]] = info
        for cb in self.on_target_changed:
            cb(info)

    def _destroyed(self, params: dict, _sid: str | None) -> None:
        tid = params["targetId"]
        self.targets.pop(tid, None)
        for cb in self.on_target_destroyed:
            cb(tid)

    def is_live_page(self, target_id: str | None) -> bool:
        info = self.targets.get(target_id or "")
        return info is not None and info.get("type") == "page"
