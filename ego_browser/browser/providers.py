"""Where the host's browsers come from: one small interface, three providers.

- ``local`` (the default): the Chromium this host launches (or reattaches to) through its
  keeper; one browser, ours to stop.
- ``cdp``: running browsers at ``EGO_BROWSER_CDP_URL`` (comma-separated for several), never
  ours to stop.
- ``grid``: Chromium sessions from a Selenium Grid 4 at ``EGO_BROWSER_GRID_URL``: a W3C new
  session with our flags, then CDP through the session's ``se:cdp`` websocket. As many
  sessions as the placement policy asks for; each is released (``DELETE /session``) when its
  last space is finished and when the host stops.

``open()`` gives an ``OpenedBrowser`` (a CDP ``Connection`` plus where it lives); the host
uses every one of them exactly as it uses a local browser (``host/core/browser.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .. import config
from ..cdp import Connection
from ..cdp.pipe import UNIX_PREFIX, connect_unix
from ..errors import BrowserUnavailable, EgoError, InvalidArgument
from . import early
from .grid import GridClient, GridSession, free_slots
from .launcher import (
    REQUIRED_FLAGS,
    BrowserProcess,
    extra_args_from_env,
    headless_enabled,
    launch_chromium,
    launched_headless,
    resolve_cdp_url_async,
)

__all__ = ["OpenedBrowser", "Provider", "LocalProvider", "CdpProvider", "GridProvider", "select_provider",
           "spaces_per_browser"]

logger = logging.getLogger("ego_browser.host")

#: spaces placed on one browser before the host asks for another (grid, several CDP URLs)
DEFAULT_SPACES_PER_BROWSER = 8


def spaces_per_browser() -> int:
    raw = os.environ.get("EGO_BROWSER_SPACES_PER_BROWSER", "").strip()
    if not raw:
        return DEFAULT_SPACES_PER_BROWSER
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise InvalidArgument(
            f"EGO_BROWSER_SPACES_PER_BROWSER={raw!r} must be a whole number of spaces, 1 or more",
            api="EGO_BROWSER_SPACES_PER_BROWSER", option=None, expected="int >= 1",
        )
    return n


@dataclass
class OpenedBrowser:
    conn: Connection
    kind: str  # local | cdp | grid
    endpoint: str
    #: the browser target's id: new with every browser, so a space records which one it is in
    instance: str
    owned: bool
    #: for people: where this browser runs ("local", the CDP URL, "grid node URI session ID")
    where: str
    process: BrowserProcess | None = None
    grid: GridSession | None = None
    #: shows windows on a display (a local browser launched with EGO_BROWSER_HEADLESS=0)
    headed: bool = False
    #: where this browser writes downloads, in its own file system, when that is not ours
    #: (a Grid node's managed downloads; "": the host's own folder, written by path)
    download_dir: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def node(self) -> str:
        """The machine it runs on, as its provider names it (a Grid node's URI); "" if unknown."""
        return self.grid.node if self.grid is not None else ""


class Provider:
    kind = ""
    #: can open more than one browser (placement then spreads spaces over them)
    many = False

    #: its browsers run on nodes it can list (a Grid): placement spreads spaces over the nodes
    spreads = False

    async def open(self) -> OpenedBrowser:
        raise NotImplementedError

    async def free_slots(self) -> dict[str, int] | None:
        """Node -> how many more browsers it can open there now (``spreads`` providers);
        None when it cannot say."""
        return None

    async def release(self, browser: OpenedBrowser, *, kill: bool) -> None:
        """Let go of one browser: close the connection; end it if it is ours (``kill``)."""
        with contextlib.suppress(Exception):
            await browser.conn.close()

    async def keepalive(self, browser: OpenedBrowser) -> None:
        """Called every ``keepalive_interval`` seconds while the browser is in use."""

    keepalive_interval: float | None = None
    #: seconds between liveness checks over CDP, for browsers whose connection can outlive
    #: them (None: the connection closes when the browser dies)
    heartbeat_interval: float | None = None

    async def confirm_lost(self, browser: OpenedBrowser) -> bool:
        """The browser missed a heartbeat: is it gone (True), or only slow (False)?"""
        return False

    async def files_for_browser(self, browser: OpenedBrowser, paths: list[str]) -> list[str]:
        """Local files as the browser can open them (uploads): the same paths by default."""
        return paths

    async def fetch_download(self, browser: OpenedBrowser, name: str, dest: str) -> None:
        """Copy the browser's finished download ``name`` (in its ``download_dir``) to ``dest``
        here; only called for browsers that have a ``download_dir``."""
        raise NotImplementedError


class LocalProvider(Provider):
    """Today's browser: Chromium launched here, its pipe kept by ``keeper.py``; a host started
    again reattaches to the same Chromium through ``run/browser.json``."""

    kind = "local"

    def __init__(self, home: Path, run_dir: Path, *, embedded: bool, window_name: str = "") -> None:
        self.home, self.run_dir, self.embedded = home, run_dir, embedded
        #: headed: the launch window's title (the person's own space, host/spaces/windows.py)
        self.window_name = window_name

    @property
    def _state_file(self) -> Path:
        return self.run_dir / "browser.json"

    @property
    def _profile(self) -> Path:
        return self.home / "profiles" / "default"

    async def open(self) -> OpenedBrowser:
        saved = self._read_state()
        if saved is not None:
            recorded = _recorded_process(saved, self._profile)
            if recorded.is_ours():
                if recorded.ws_url.startswith(UNIX_PREFIX):
                    opened = await self._connect(recorded, timeout=3.0)
                    if opened is not None:
                        opened.headed = not launched_headless(recorded.pid)
                        return opened
                # ours but unreachable (wedged), or one launched with a TCP port by an older
                # version: replace it. Anything else under that pid is not ours to signal.
                await asyncio.to_thread(recorded.terminate)
        socket_path = self.run_dir / "browser.sock"
        log_path = self.run_dir / "chromium.log"
        # ours inside the home: made private even if an older version left them 0755
        config.ensure_private_dir(self._profile.parent)
        config.ensure_private_dir(self._profile)
        headed = not headless_enabled()
        # headed: the launch window is the person's own (host/spaces/windows.py), titled as their space
        extra = [f"--window-name={self.window_name}"] if headed and self.window_name else []
        launched = early.take(self._profile, str(socket_path))  # started before the host loaded itself
        if launched is not None:
            process = await asyncio.to_thread(launched.ready)
        elif self.embedded:
            # launched from the loop's own thread: the death signal follows this thread, and
            # a worker thread of to_thread() may end before the process does
            process = launch_chromium(self._profile, log_path=log_path, die_with_parent=True, socket_path=socket_path,
                                      extra_args=extra)
        else:
            process = await asyncio.to_thread(launch_chromium, self._profile, log_path=log_path, socket_path=socket_path,
                                              extra_args=extra)
        opened = await self._connect(process, timeout=10.0)
        if opened is None:
            await asyncio.to_thread(process.terminate)
            raise BrowserUnavailable(
                f"the browser started but its keeper socket {socket_path} did not answer; "
                "run `ego-browser doctor`",
                endpoint=process.ws_url,
            )
        opened.headed = headed
        self._write_state(process, opened.instance)
        return opened

    async def _connect(self, process: BrowserProcess, *, timeout: float) -> OpenedBrowser | None:
        try:
            stream = await connect_unix(process.ws_url[len(UNIX_PREFIX):], timeout=timeout)
        except BrowserUnavailable:
            return None
        conn = Connection(stream, process.ws_url)
        # the browser target's id: new with every launch, as the websocket URL's id was
        instance = str(stream.hello.get("instance") or process.instance)
        return OpenedBrowser(conn=conn, kind=self.kind, endpoint=process.ws_url, instance=instance, owned=True,
                             where="local", process=process)

    def _read_state(self) -> dict[str, Any] | None:
        try:
            state = orjson.loads(self._state_file.read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            return None
        return state if isinstance(state, dict) else None

    def _write_state(self, p: BrowserProcess, instance: str) -> None:
        data = orjson.dumps({
            "v": 2, "pid": p.pid, "leader": p.leader, "leader_start": p.leader_start,
            "endpoint": p.ws_url, "user_data_dir": p.user_data_dir, "instance": instance,
        })
        tmp = self._state_file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, self._state_file)

    async def release(self, browser: OpenedBrowser, *, kill: bool) -> None:
        await super().release(browser, kill=kill)
        if kill and browser.process is not None:
            await asyncio.to_thread(browser.process.terminate)
            with contextlib.suppress(FileNotFoundError):
                self._state_file.unlink()


class CdpProvider(Provider):
    """Browsers someone else runs: each ``EGO_BROWSER_CDP_URL`` entry is one browser."""

    kind = "cdp"

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.many = len(urls) > 1
        self.in_use: set[str] = set()

    async def open(self) -> OpenedBrowser:
        free = [u for u in self.urls if u not in self.in_use]
        if not free:
            raise BrowserUnavailable(
                f"every browser in EGO_BROWSER_CDP_URL ({len(self.urls)}) is full; add URLs or raise "
                "EGO_BROWSER_SPACES_PER_BROWSER", endpoint=",".join(self.urls),
            )
        url = free[0]
        ws = await resolve_cdp_url_async(url)
        conn = await Connection.connect(ws)
        self.in_use.add(url)
        return OpenedBrowser(conn=conn, kind=self.kind, endpoint=ws, instance=ws.rsplit("/", 1)[-1], owned=False,
                             where=f"cdp {url}", extra={"url": url})

    async def release(self, browser: OpenedBrowser, *, kill: bool) -> None:
        await super().release(browser, kill=kill)
        self.in_use.discard(browser.extra.get("url", ""))


class GridProvider(Provider):
    """Chromium sessions from a Selenium Grid 4 hub."""

    kind = "grid"
    many = True
    spreads = True

    def __init__(self, url: str) -> None:
        self.client = GridClient(url)
        # the node's session timeout is 300 s by default: a keep-alive well inside it
        self.keepalive_interval = _positive_float("EGO_BROWSER_GRID_KEEPALIVE", 60.0)
        # The Grid's CDP proxy keeps our websocket open when the node's Chromium dies and drops
        # what we send (measured with Grid 4.48: no close in 60 s): a heartbeat finds out.
        self.heartbeat_interval = _positive_float("EGO_BROWSER_GRID_HEARTBEAT", 2.0)

    async def open(self) -> OpenedBrowser:
        session = await self.client.new_session(grid_chrome_args())
        try:
            conn = await self._connect(session)
            version = await conn.send("Target.getTargets", timeout=10.0)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.client.release(session.session_id)
            raise
        # the browser target's id names this browser, as the keeper's hello does locally
        browser_target = next((t["targetId"] for t in version.get("targetInfos", [])
                               if t.get("type") == "browser"), "")
        where = f"grid {session.node or self.client.url} session {session.session_id}"
        download_dir = ""
        if session.managed_downloads:
            download_dir = await self._managed_download_dir(conn, session)
        return OpenedBrowser(conn=conn, kind=self.kind, endpoint=conn.url,
                             instance=browser_target or f"grid-{session.session_id}", owned=False,
                             where=where, grid=session, download_dir=download_dir)

    async def free_slots(self) -> dict[str, int] | None:
        try:
            return free_slots(await self.client.status())
        except (BrowserUnavailable, TimeoutError) as exc:
            logger.warning("the Grid's /status did not answer (%s); spaces go to the sessions already open", exc)
            return None

    async def _connect(self, session: GridSession) -> Connection:
        """CDP to the session's node itself when we can reach it, else through the hub.

        Every CDP message through the hub crosses two proxies (the hub's router, then the
        node's proxy to its Chromium); the node serves the same ``/session/ID/se/cdp``
        websocket, one proxy less. Measured on this 2-core machine under load, per
        ``Runtime.evaluate``: hub 3.1 ms, node 0.78 ms, Chromium itself 0.44 ms
        (docs/scale-out.md). A node the host cannot reach (behind the hub in a cluster) costs
        one short failed attempt per session, then the hub is used."""
        node = session.node_cdp_url
        if node and _node_direct():
            try:
                return await Connection.connect(node, timeout=NODE_CONNECT_TIMEOUT)
            except BrowserUnavailable as exc:
                logger.info("Grid node %s not reachable for CDP (%s); through the hub", session.node, exc)
        return await Connection.connect(session.cdp_url, timeout=15.0)

    async def _managed_download_dir(self, conn: Connection, session: GridSession) -> str:
        """The node's download folder for this session, as its Chromium names it.

        The node puts it in the profile's preferences and does not tell us (its new-session
        answer echoes our capabilities, not its own). The host must name a folder in
        ``Browser.setDownloadBehavior`` for its own file names and for downloads in new
        browser contexts (with ``default`` behaviour those are cancelled: measured on
        Chromium 156), so one tiny download in the default context, which follows the
        preferences, says where they go (~0.3 s once per session); the node's listing is
        then emptied. "" (downloads by path, shared disk only) if that fails."""
        loop = asyncio.get_running_loop()
        found: asyncio.Future[str] = loop.create_future()

        def progress(params: dict[str, Any], _sid: str | None) -> None:
            if params.get("state") == "completed" and params.get("filePath") and not found.done():
                found.set_result(str(params["filePath"]))
            elif params.get("state") == "canceled" and not found.done():
                found.set_result("")

        off = conn.on("Browser.downloadProgress", progress)
        try:
            await conn.send("Browser.setDownloadBehavior", {"behavior": "default", "eventsEnabled": True},
                            timeout=10.0)
            probe = await conn.send("Target.createTarget", {"url": "data:application/octet-stream,ego-browser-probe"},
                                    timeout=10.0)
            path = await asyncio.wait_for(found, 10.0)
            # the tab closes itself once its navigation became a download; never leave it behind
            with contextlib.suppress(EgoError):
                await conn.send("Target.closeTarget", {"targetId": probe["targetId"]}, timeout=5.0)
            await conn.send("Browser.setDownloadBehavior", {"behavior": "deny"}, timeout=10.0)
            await self.client.call("DELETE", f"/session/{session.session_id}/se/files")
        except (EgoError, TimeoutError) as exc:
            logger.warning("Grid session %s: no managed download folder (%s); downloads go by path",
                           session.session_id, exc)
            return ""
        finally:
            off()
        return posixpath.dirname(path) if path else ""

    async def release(self, browser: OpenedBrowser, *, kill: bool) -> None:
        await super().release(browser, kill=kill)
        if browser.grid is not None:
            try:
                await self.client.release(browser.grid.session_id)
            except (BrowserUnavailable, TimeoutError) as exc:
                # the Grid drops it at its session timeout anyway
                logger.warning("Grid session %s not released: %s", browser.grid.session_id, exc)

    async def keepalive(self, browser: OpenedBrowser) -> None:
        if browser.grid is not None:
            await self.client.keepalive(browser.grid.session_id)

    async def fetch_download(self, browser: OpenedBrowser, name: str, dest: str) -> None:
        assert browser.grid is not None
        await self.client.download(browser.grid.session_id, name, dest)

    async def files_for_browser(self, browser: OpenedBrowser, paths: list[str]) -> list[str]:
        # the node may be another machine: each file is copied there first
        if browser.grid is None:
            return paths
        session = browser.grid.session_id
        return list(await asyncio.gather(*(self.client.upload(session, p) for p in paths)))

    async def confirm_lost(self, browser: OpenedBrowser) -> bool:
        # chromedriver holds its own connection to the browser: a command that needs the
        # browser fails at once when it is gone, and answers when it is only slow
        if browser.grid is None:
            return False
        try:
            await self.client.call("GET", f"/session/{browser.grid.session_id}/window/handles")
        except BrowserUnavailable:
            return True  # HTTP error: "invalid session id", "chrome not reachable", node gone
        except TimeoutError:
            return False
        return False


#: seconds to reach a Grid node's own CDP endpoint before going through the hub
NODE_CONNECT_TIMEOUT = 3.0


def _node_direct() -> bool:
    """EGO_BROWSER_GRID_DIRECT=0 keeps all CDP on the hub (a node reachable but not meant to be used)."""
    return os.environ.get("EGO_BROWSER_GRID_DIRECT", "1").strip() not in ("0", "false", "no")


def grid_chrome_args() -> list[str]:
    """Our flags for a Grid's Chromium (DESIGN.md "The browser"); the node picks the profile."""
    from .launcher import headless_enabled

    return [*REQUIRED_FLAGS, *(["--headless"] if headless_enabled() else []), *extra_args_from_env()]


def _positive_float(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


def select_provider(home: Path, run_dir: Path, *, embedded: bool, window_name: str = "") -> Provider:
    grid = os.environ.get("EGO_BROWSER_GRID_URL", "").strip()
    cdp = [u.strip() for u in os.environ.get("EGO_BROWSER_CDP_URL", "").split(",") if u.strip()]
    if grid and cdp:
        raise BrowserUnavailable(
            "both EGO_BROWSER_GRID_URL and EGO_BROWSER_CDP_URL are set; unset one (the Grid gives browsers "
            "of its own)", endpoint=grid,
        )
    if grid:
        return GridProvider(grid)
    if cdp:
        return CdpProvider(cdp)
    return LocalProvider(home, run_dir, embedded=embedded, window_name=window_name)


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
