"""The dashboard's HTTP + websocket server, inside the host process, on 127.0.0.1 only.

Plain HTTP serves the static pages (``static/``, package data: no CDN) after the checks of
``auth.Guard``; everything else (the spaces, frames, the person's commands) goes over one
websocket per open dashboard tab, at ``/ws``. Only GET exists: a command needs the websocket,
whose handshake checks the token cookie and the Origin, so no form or link on another page can
make the dashboard act.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import orjson
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from ..errors import EgoError
from ..states import Ownership
from .activity import Activity
from .auth import MALFORMED_HOST, Guard
from .control import Control
from .model import overview
from .screencast import HELD_INTERVAL, MAX_EDGE, MULTI_WATCH_INTERVAL, WATCH_INTERVAL, Screencasts, frame_size
from .trace_pages import trace_page
from .viewer import THUMB_INTERVAL, Viewer

__all__ = ["Dashboard"]

logger = logging.getLogger("ego_browser.dashboard")

_STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
           "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
           "/static/app.css": ("app.css", "text/css; charset=utf-8")}
#: how often the spaces are re-read when nothing signalled a change (titles, URLs)
_POLL = 1.0
#: updates pushed to the dashboards per second at most
_UPDATES = 4
#: take-over reasons the person caused (no notification for those)
_PERSON_REASONS = frozenset({"manual_takeover", "closed_by_user", "user_owned", None})


def _security_headers(host_header: str) -> list[tuple[str, str]]:
    return [
        ("Content-Security-Policy", f"default-src 'self'; img-src 'self' data:; connect-src 'self' ws://{host_header}; "
                                    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]


def _response(status: int, reason: str, body: bytes, content_type: str, extra: list[tuple[str, str]]) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))), *extra])
    return Response(status, reason, headers, body)


class Dashboard:
    def __init__(self, host: Any) -> None:
        self.host = host
        self.server: Server | None = None
        self.port = 0
        self.guard: Guard | None = None
        self.activity = Activity(host)
        self.control = Control(host, self.activity)
        self.casts = Screencasts(host)
        self.viewers: set[Viewer] = set()
        self._dirty = asyncio.Event()
        self._ticker: asyncio.Task[None] | None = None
        self._last_json = b""
        self._last_update = 0.0
        self._ownership: dict[int, tuple[str, str | None, float]] = {}
        #: the first look at the spaces: what is handed over then is not news
        self._looked = False
        #: requests refused by the guard (tests and the log read it)
        self.refused = 0

    @property
    def url(self) -> str:
        assert self.guard is not None
        return f"http://127.0.0.1:{self.port}/?token={self.guard.token}"

    def once_url(self) -> str:
        """A URL that opens the dashboard once, within seconds: what a command line may carry."""
        assert self.guard is not None
        return f"http://127.0.0.1:{self.port}/?code={self.guard.issue_code()}"

    async def start(self) -> None:
        self.server = await serve(
            self._serve, "127.0.0.1", 0, process_request=self._process_request,
            server_header=None, compression=None, max_size=2**20, write_limit=2**16,
        )
        self.port = next(iter(self.server.sockets)).getsockname()[1]
        self.guard = Guard(self.port)
        self.activity.install()
        self.activity.listeners.append(self._activity_changed)
        self.host.browser.on_target_changed.append(self._target_changed)
        self._ticker = asyncio.ensure_future(self._tick())

    def close_now(self) -> None:
        """Stop serving at once (the host is stopping; its browser goes with it)."""
        self.activity.listeners.clear()
        self.activity.uninstall()
        if self._ticker is not None:
            self._ticker.cancel()
        for viewer in list(self.viewers):
            viewer.close()
        if self.server is not None:
            self.server.close()

    async def stop(self) -> None:
        self.activity.listeners.clear()
        self.activity.uninstall()
        with contextlib.suppress(ValueError):
            self.host.browser.on_target_changed.remove(self._target_changed)
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
        for viewer in list(self.viewers):
            viewer.close()
        await self.casts.close()
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 5)

    # -- HTTP -------------------------------------------------------------------------------

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        assert self.guard is not None
        remote = (connection.remote_address or ("",))[0]
        headers = {k.lower(): v for k, v in request.headers.raw_items()}
        path = urlsplit(request.path).path
        host_header = headers.get("host", "")
        extra = _security_headers(host_header)
        if path == "/ws":
            why = self.guard.refuse_websocket(remote, headers)
        else:
            why = self.guard.refuse_http(remote, headers, request.path)
        if why is not None:
            self.refused += 1
            logger.info("dashboard request %s refused: %s", path, why)
            if why == MALFORMED_HOST:
                return _response(400, "Bad Request", b"Bad Request: malformed Host header\n",
                                 "text/plain; charset=utf-8", [])
            return _response(403, "Forbidden", b"Forbidden: open the URL ego-browser dashboard prints\n",
                             "text/plain; charset=utf-8", extra)
        if path == "/ws":
            return None  # the websocket handshake goes on
        if self.guard.url_token(request.path) is not None or self.guard.url_code(request.path) is not None:
            # the token leaves the address bar and the history: a cookie carries it from now on,
            # and a one-time cookie lets the redirect itself in (it has no token in its URL)
            return _response(303, "See Other", b"", "text/plain", [
                ("Location", path), ("Set-Cookie", self.guard.set_cookie()),
                ("Set-Cookie", self.guard.set_fresh_cookie()), *extra])
        if path.startswith("/trace/"):  # a space's timeline (trace_pages.py)
            page = trace_page(self.host, path)
            if page is not None:
                return _response(200, "OK", page[0], page[1], extra)
        static = _STATIC.get(path)
        if static is None:
            return _response(404, "Not Found", b"Not found\n", "text/plain; charset=utf-8", extra)
        name, ctype = static
        body = resources.files(__package__).joinpath("static", name).read_bytes()
        return _response(200, "OK", body, ctype, extra)

    # -- websocket --------------------------------------------------------------------------

    async def _serve(self, ws: ServerConnection) -> None:
        viewer = Viewer(ws)
        self.viewers.add(viewer)
        sender = asyncio.ensure_future(viewer.run())
        try:
            viewer.send({"t": "spaces", "spaces": overview(self.host, self.activity)})
            async for raw in ws:
                try:
                    msg = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if not isinstance(msg, dict):
                    continue
                if msg.get("t") == "watch":
                    self._watch(viewer, msg)
                elif msg.get("t") == "cmd":
                    asyncio.ensure_future(self._command(viewer, msg))
                if sender.done():
                    break
        except ConnectionClosed:
            pass
        finally:
            self.viewers.discard(viewer)
            viewer.close()
            self.casts.unwatch_all(viewer)
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)

    async def _command(self, viewer: Viewer, msg: dict[str, Any]) -> None:
        rid = msg.get("id")
        try:
            result = await self.control.run(msg)
            viewer.send({"t": "reply", "id": rid, "result": result})
        except EgoError as exc:
            viewer.send({"t": "reply", "id": rid, "error": {"code": exc.code, "message": exc.message}})
        except Exception as exc:  # noqa: BLE001 - a bug: the person sees it, the host goes on
            logger.exception("dashboard command %s failed", msg.get("op"))
            viewer.send({"t": "reply", "id": rid, "error": {"code": "EGO_ERROR", "message": repr(exc)}})
        self._dirty.set()

    def _watch(self, viewer: Viewer, msg: dict[str, Any]) -> None:
        space = msg.get("space")
        viewer.space = space if isinstance(space, int) and not isinstance(space, bool) else None
        # a dashboard tab nobody sees (another tab in front, the window minimized) takes no
        # frames: every cast it alone kept going stops, and the agent's browser captures nothing
        viewer.hidden = msg.get("hidden") is True
        target = msg.get("target")
        viewer.target = target if isinstance(target, str) else None
        # the live view: as wide as the dashboard reports it (its height follows the cast page's shape)
        viewer.live_size = frame_size(msg.get("live"), MAX_EDGE)
        thumb = msg.get("thumb")
        viewer.thumb_size = frame_size(*thumb) if isinstance(thumb, list) and len(thumb) == 2 else frame_size(0, 0)
        if viewer.space is not None:
            entries = list(self.activity.logs.get(viewer.space, ()))
            viewer.send({"t": "log", "space": viewer.space, "entries": entries})
        self._sync_casts(overview(self.host, self.activity))
        for tid in self.casts.watched(viewer):
            self.casts.replay(tid, viewer)

    def _sync_casts(self, spaces: list[dict[str, Any]]) -> None:
        """Each viewer watches the pages it shows: the tab in its live view at full rate and
        size, the other tabs of its space or (on the list) all pages as thumbnails."""
        # a dashboard open in this browser is not cast: its picture changes with every frame it
        # shows, which would be cast again, and again
        own = f"http://127.0.0.1:{self.port}/"
        spaces = [{**s, "pages": [p for p in s["pages"] if not p["url"].startswith(own)]} for s in spaces]
        #: target -> whether the person holds its space (they act in the view: frames at a higher rate)
        held = {p["target_id"]: s["ownership"] != str(Ownership.AGENT) for s in spaces for p in s["pages"]}
        needs: dict[str, tuple[float, tuple[int, int]]] = {}
        views: dict[str, int] = {}  # target -> live views of it (not thumbnails)
        for viewer in list(self.viewers):
            if viewer.hidden:
                wanted = set()
            elif viewer.space is None:
                wanted = {p["target_id"] for s in spaces for p in s["pages"]}
            else:
                wanted = {p["target_id"] for s in spaces if s["id"] == viewer.space for p in s["pages"]}
            have = self.casts.watched(viewer)
            for tid in have - wanted:
                self.casts.unwatch(tid, viewer)
                viewer.forget(tid)
            # the tab in the live view (one the space does not have, or none said: every tab)
            shown = viewer.target if viewer.target in wanted else None
            for tid in wanted:
                live = viewer.space is not None and shown in (None, tid)
                if live:
                    viewer.interval.pop(tid, None)
                    views[tid] = views.get(tid, 0) + 1
                    interval = WATCH_INTERVAL if held.get(tid) is False else HELD_INTERVAL
                    size = viewer.live_size
                else:
                    interval = viewer.interval[tid] = THUMB_INTERVAL
                    size = viewer.thumb_size
                if tid not in have:
                    self.casts.watch(tid, viewer)
                # the cast serves its most demanding viewer: its shortest interval, its largest view
                if tid in needs:
                    was_interval, was_size = needs[tid]
                    interval, size = min(interval, was_interval), (max(size[0], was_size[0]), max(size[1], was_size[1]))
                needs[tid] = (interval, size)
        for tid, (interval, size) in needs.items():
            if interval == WATCH_INTERVAL and views.get(tid, 0) > 1:
                interval = MULTI_WATCH_INTERVAL  # every view decodes every frame: fewer of them
            self.casts.set_need(tid, interval, size)

    # -- pushing changes --------------------------------------------------------------------

    def _activity_changed(self, space: int | None, entry: dict[str, Any] | None) -> None:
        if entry is not None and space is not None:
            for viewer in self.viewers:
                if viewer.space == space:
                    viewer.send({"t": "log", "space": space, "entries": [entry]})
        self._dirty.set()

    def _target_changed(self, info: dict[str, Any]) -> None:
        self.casts.navigated(str(info.get("targetId")), str(info.get("url")))
        self._dirty.set()

    async def _tick(self) -> None:
        while True:
            try:
                await self._tick_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a bug in one update must not end the updates
                logger.exception("dashboard update failed")
                await asyncio.sleep(_POLL)

    async def _tick_once(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(self._dirty.wait(), _POLL)
        except asyncio.TimeoutError:
            polled = True  # nothing signalled a change: titles may have changed all the same
        else:
            polled = False
            # changes come in bursts (an action's start, its pointer moves, its end): one update
            # for the burst, at most _UPDATES a second, keeps the dashboards' redraws off the
            # agent's CPU
            await asyncio.sleep(max(0.0, self._last_update + 1 / _UPDATES - loop.time()))
        self._dirty.clear()
        self._last_update = loop.time()
        if not self.viewers:
            return
        if polled:
            await self._refresh_titles()
        spaces = overview(self.host, self.activity)
        self._notify_hand_offs(spaces)
        data = orjson.dumps(spaces)
        if data != self._last_json:
            self._last_json = data
            for viewer in list(self.viewers):
                viewer.send({"t": "spaces", "spaces": spaces})
            self._sync_casts(spaces)

    async def _refresh_titles(self) -> None:
        """Chromium does not report every title change (targetInfoChanged comes with URL
        changes): read the tab list again, once per update, while someone watches."""
        conn = self.host.browser.conn
        if conn is None:
            return
        try:
            res = await conn.send("Target.getTargets", {}, timeout=5.0)
        except EgoError:
            return
        targets = self.host.browser.targets
        for info in res.get("targetInfos", ()):
            known = targets.get(info.get("targetId"))
            if known is not None and info.get("type") == "page":
                known["title"], known["url"] = info.get("title", ""), info.get("url", "")

    def _notify_hand_offs(self, spaces: list[dict[str, Any]]) -> None:
        """What hands a space to the person without their asking reaches them as a notification
        with its reason: the agent's hand_off() (with its status text), a page's permission
        prompt (the host hands the space over: reason location, notifications, camera ...)."""
        now: dict[int, tuple[str, str | None, float]] = {
            s["id"]: (s["ownership"], s["reason"], s["since"]) for s in spaces}
        first, self._looked = not self._looked, True
        for s in spaces:
            before = self._ownership.get(s["id"])
            # a space made and handed over between two looks is news too (not at the first look)
            if (before is None and first) or before == now[s["id"]] or s["ownership"] == Ownership.AGENT:
                continue
            if s["ownership"] == Ownership.DELEGATED:
                text = f'"{s["name"]}" needs you: {s["status"] or "the agent handed it over"}'
            elif s["reason"] not in _PERSON_REASONS:
                text = f'"{s["name"]}" needs you: a page asks for permission ({s["reason"]})'
            else:
                continue  # the person's own doing
            self.activity.log(s["id"], "hand-off", text)
            for viewer in list(self.viewers):
                viewer.send({"t": "notify", "space": s["id"], "text": text})
        self._ownership = now
