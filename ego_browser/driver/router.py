"""Routing a page's requests: fulfil, abort or change them before they leave (CDP ``Fetch``).

``driver.router`` is the one owner of the ``Fetch`` domain on the tab's sessions: ``Fetch.enable``
patterns are per session, so two modules enabling it would replace each other's. Whoever else
needs to pause requests (a domain allowlist ...) registers an *interceptor* here
(:meth:`Router.add_interceptor`): ``fn(request) -> decision | None``, asked before any route,
in the order added; the first decision wins. Fetch is enabled (on the page's session and on
each out-of-process frame's, ``driver/page.py``) while there is a route or an interceptor, and
disabled when the last goes, so a page nobody routes pays nothing.

A route is ``{id, pattern, regex, action, times}``: ``action`` is ``{"fulfill": {...}}``,
``{"abort": reason}`` or ``{"continue": {...}}`` (declarative: it outlives the round that made
it), or ``{"handler": queue}`` (the round decides: ``host/ops/route_ops.py``). The page's own routes
come first, newest first (Playwright's order), then its space's (``space_routes``, set by the
host). A request no route takes continues unchanged.
"""

from __future__ import annotations

import base64
import inspect
import itertools
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from ..cdp import Session
from ..errors import CdpChannelUnavailable, CdpError

__all__ = ["Router", "ABORT_REASONS", "new_route", "decide", "close_route"]

#: Playwright's abort codes -> CDP Network.ErrorReason
ABORT_REASONS = {
    "aborted": "Aborted", "accessdenied": "AccessDenied", "addressunreachable": "AddressUnreachable",
    "blockedbyclient": "BlockedByClient", "blockedbyresponse": "BlockedByResponse",
    "connectionaborted": "ConnectionAborted", "connectionclosed": "ConnectionClosed",
    "connectionfailed": "ConnectionFailed", "connectionrefused": "ConnectionRefused",
    "connectionreset": "ConnectionReset", "internetdisconnected": "InternetDisconnected",
    "namenotresolved": "NameNotResolved", "timedout": "TimedOut", "failed": "Failed",
}
_route_ids = itertools.count(1)

Decision = dict[str, Any]
#: ``fn(request) -> decision | None`` (or an awaitable of one)
Interceptor = Callable[[dict[str, Any]], Any]


class _Page(Protocol):
    session: Session
    sessions: dict[str, Session]


def new_route(pattern: str, regex: str, flags: int, action: dict[str, Any], times: int | None) -> dict[str, Any]:
    """A route (``regex`` compiled by the caller's checks already: ``host/ops/route_ops.py``)."""
    return {"id": next(_route_ids), "pattern": pattern, "rx": re.compile(regex, flags), "action": action,
            "times": times, "used": 0}


class Router:
    """The tab's routes and interceptors, and the Fetch domain they need."""

    def __init__(self, driver: _Page) -> None:
        self._driver = driver
        self.routes: list[dict[str, Any]] = []
        self.interceptors: list[Interceptor] = []
        #: the routes of the page's space (set by the host; asked after the page's own)
        self.space_routes: Callable[[], list[dict[str, Any]]] = list
        self._enabled: set[str] = set()

    @property
    def active(self) -> bool:
        return bool(self.routes or self.interceptors or self.space_routes())

    # -- the Fetch domain -------------------------------------------------------------------

    async def sync(self) -> None:
        """Enable Fetch on every session of the tab while something routes, disable it after."""
        want = self.active
        for sid, session in list(self._driver.sessions.items()):
            await self._set(sid, session, want)

    async def session_added(self, sid: str, session: Session) -> None:
        """An out-of-process frame's session, before its first request (it waits for the debugger)."""
        if self.active:
            await self._set(sid, session, True)

    async def _set(self, sid: str, session: Session, on: bool) -> None:
        if on == (sid in self._enabled):
            return
        try:
            if on:
                await session.send("Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]},
                                   timeout=5.0)
                self._enabled.add(sid)
            else:
                self._enabled.discard(sid)
                await session.send("Fetch.disable", timeout=5.0)
        except (CdpError, CdpChannelUnavailable):
            self._enabled.discard(sid)

    async def add_interceptor(self, fn: Interceptor) -> Callable[[], Awaitable[None]]:
        """Ask ``fn`` first about every request of the page; returns the coroutine that removes it."""
        self.interceptors.append(fn)
        await self.sync()

        async def remove() -> None:
            if fn in self.interceptors:
                self.interceptors.remove(fn)
            await self.sync()

        return remove

    # -- routes -----------------------------------------------------------------------------

    async def add(self, route: dict[str, Any]) -> None:
        self.routes.append(route)
        await self.sync()

    async def remove(self, pattern: str | None = None, route_id: int | None = None) -> int:
        gone = [r for r in self.routes if (pattern is None or r["pattern"] == pattern)
                and (route_id is None or r["id"] == route_id)]
        self.routes = [r for r in self.routes if r not in gone]
        for route in gone:
            close_route(route)
        await self.sync()
        return len(gone)

    def _match(self, url: str) -> dict[str, Any] | None:
        candidates: list[dict[str, Any]] = [*reversed(self.routes), *reversed(self.space_routes())]
        for route in candidates:
            if not route.get("dropped") and route["rx"].search(url):
                return route
        return None

    # -- paused requests --------------------------------------------------------------------

    def paused(self, params: dict[str, Any], sid: str | None) -> Coroutine[Any, Any, None] | None:
        if (sid or "") not in self._enabled:
            return None  # Fetch enabled by someone else (raw page.cdp): theirs to answer
        return self._handle(params, self._driver.sessions.get(sid or "") or self._driver.session)

    async def _handle(self, params: dict[str, Any], session: Session) -> None:
        request = params.get("request") or {}
        info = {"url": request.get("url", ""), "method": request.get("method", "GET"),
                "headers": request.get("headers") or {}, "post_data": request.get("postData"),
                "resource_type": (params.get("resourceType") or "Other").lower(), "frame_id": params.get("frameId")}
        decision: Decision | None = None
        try:
            for fn in list(self.interceptors):
                got = fn(info)
                if inspect.isawaitable(got):
                    got = await got
                if got is not None:
                    decision = got
                    break
            if decision is None:
                route = self._match(info["url"])
                if route is not None:
                    route["used"] += 1
                    if route["times"] is not None and route["used"] >= route["times"]:
                        self._drop(route)
                    action = route["action"]
                    if "handler" in action:  # a round decides (host/features/route_handlers.HandlerQueue)
                        queue = action["handler"]
                        decision = await queue.decide(info)
                        if queue.gone:
                            self._drop(route)
                    else:
                        decision = action
            await decide(session, params["requestId"], decision)
        except (CdpError, CdpChannelUnavailable):
            pass  # the request or the page went away meanwhile

    def _drop(self, route: dict[str, Any]) -> None:
        if route in self.routes:
            self.routes.remove(route)
        route["dropped"] = True


def close_route(route: dict[str, Any]) -> None:
    """A removed route: a handler route's round stops being asked (its waiting requests continue)."""
    route["dropped"] = True
    queue = route["action"].get("handler")
    if queue is not None:
        queue.close()


async def decide(session: Session, request_id: str, decision: Decision | None) -> None:
    """Answer one paused request with ``decision`` (None: continue unchanged)."""
    if decision is None or decision.get("continue") is None and "fulfill" not in decision and "abort" not in decision:
        await session.send("Fetch.continueRequest", {"requestId": request_id}, timeout=10.0)
    elif "abort" in decision:
        reason = ABORT_REASONS.get(str(decision["abort"]).lower(), "Failed")
        await session.send("Fetch.failRequest", {"requestId": request_id, "errorReason": reason}, timeout=10.0)
    elif "fulfill" in decision:
        f = decision["fulfill"]
        await session.send("Fetch.fulfillRequest", {
            "requestId": request_id, "responseCode": int(f.get("status") or 200),
            "responseHeaders": [{"name": k, "value": str(v)} for k, v in (f.get("headers") or {}).items()],
            "body": f.get("body_base64") or "",
        }, timeout=30.0)
    else:
        c = decision["continue"]
        params: dict[str, Any] = {"requestId": request_id}
        if c.get("url"):
            params["url"] = c["url"]
        if c.get("method"):
            params["method"] = c["method"]
        if c.get("headers") is not None:
            params["headers"] = [{"name": k, "value": str(v)} for k, v in c["headers"].items()]
        if c.get("post_data") is not None:
            params["postData"] = base64.b64encode(str(c["post_data"]).encode()).decode()
        await session.send("Fetch.continueRequest", params, timeout=10.0)
