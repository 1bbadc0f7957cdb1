"""The operations of ``page.route`` / ``task.route`` and their ``unroute``: the routes are the
page's router (``driver/router.py``) and the space's (``space_routes.SpaceRoutes``).

What a declarative route does is checked and prepared here, once: a fulfil's body (text, bytes
as base64, JSON, or a file read now) becomes base64 within ``ROUTE_BODY_MAX``; an abort's reason
must be one of Playwright's codes; a continue may change only the URL, method, headers and post
data. A handler route (its Python function runs in the round) is not served by these operations.
"""

from __future__ import annotations

import base64
import mimetypes
import os
from typing import Any

import orjson

from ...driver import router as routing
from ...errors import BodyTooLarge, InvalidArgument
from ..core.host import Host
from .network_ops import compile_pattern
from ..core.dispatch import op
from ..features.route_handlers import HandlerQueue
from ..core.store import OPEN

#: the largest body a route may fulfil with (bytes); larger files belong to the server
ROUTE_BODY_MAX = 32 * 1024 * 1024
_CONTINUE_KEYS = {"url", "method", "headers", "post_data"}
_FULFILL_KEYS = {"status", "headers", "body", "body_base64", "json", "path", "content_type"}


def _bad(api: str, option: str, message: str, expected: str) -> InvalidArgument:
    return InvalidArgument(f"{api}: {message}", api=api, option=option, expected=expected)


def _too_large(api: str, size: int) -> BodyTooLarge:
    return BodyTooLarge(f"{api}: the fulfil body is {size} bytes, over the {ROUTE_BODY_MAX}-byte limit; let the "
                        "request continue to a server that has the file", api=api, size=size, limit=ROUTE_BODY_MAX)


def prepare(api: str, action: dict[str, Any]) -> dict[str, Any]:
    """The route's action as the router applies it (``routing.decide``), checked."""
    if isinstance(action, dict) and action.get("continue") == {}:
        return {"continue": {}}
    kinds = [k for k in ("fulfill", "abort", "continue") if k in action]
    if len(kinds) != 1:
        raise _bad(api, "action", "give exactly one of fulfill=, abort= or continue_=", "one action")
    kind = kinds[0]
    if kind == "abort":
        reason = action["abort"]
        if not isinstance(reason, str) or reason.lower() not in routing.ABORT_REASONS:
            raise _bad(api, "abort", f"abort must be one of {', '.join(sorted(routing.ABORT_REASONS))} (got {reason!r})",
                       "an error code such as 'failed' or 'blockedbyclient'")
        return {"abort": reason.lower()}
    spec = action[kind]
    if not isinstance(spec, dict):
        raise _bad(api, kind.replace("continue", "continue_"), f"{kind} must be a dict", "a dict")
    if kind == "continue":
        unknown = set(spec) - _CONTINUE_KEYS
        if unknown:
            raise _bad(api, "continue_", f"continue_ takes {sorted(_CONTINUE_KEYS)} (got {sorted(unknown)})",
                       "url, method, headers, post_data")
        return {"continue": dict(spec)}
    unknown = set(spec) - _FULFILL_KEYS
    if unknown:
        raise _bad(api, "fulfill", f"fulfill takes {sorted(_FULFILL_KEYS - {'body_base64'})} (got {sorted(unknown)})",
                   "status, headers, body, json, path, content_type")
    headers = {str(k): str(v) for k, v in (spec.get("headers") or {}).items()}
    content_type = spec.get("content_type")
    if "path" in spec and spec["path"] is not None:
        path = str(spec["path"])
        if not os.path.isabs(path):
            raise _bad(api, "fulfill", f"fulfill path must be absolute (got {path!r})", "an absolute file path")
        try:
            size = os.path.getsize(path)
            if size > ROUTE_BODY_MAX:
                raise _too_large(api, size)
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as exc:
            raise _bad(api, "fulfill", f"cannot read fulfill path {path!r} ({exc.strerror})", "a readable file") from None
        content_type = content_type or mimetypes.guess_type(path)[0] or "application/octet-stream"
    elif "json" in spec:
        raw = orjson.dumps(spec["json"])
        content_type = content_type or "application/json"
    elif spec.get("body_base64") is not None:
        raw = base64.b64decode(spec["body_base64"])
    else:
        body = spec.get("body")
        raw = b"" if body is None else str(body).encode()  # no content-type added (as Playwright)
    if len(raw) > ROUTE_BODY_MAX:
        raise _too_large(api, len(raw))
    if content_type and not any(k.lower() == "content-type" for k in headers):
        headers["content-type"] = content_type
    status = spec.get("status", 200)
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 999:
        raise _bad(api, "fulfill", f"fulfill status must be an HTTP status (got {status!r})", "an int 100-999")
    return {"fulfill": {"status": status, "headers": headers, "body_base64": base64.b64encode(raw).decode()}}


def _new_route(host: Host, api: str, pattern: str, regex: str, flags: int, action: dict[str, Any],
               times: int | None) -> dict[str, Any]:
    compile_pattern(api, regex, flags)
    if action == {"handler": True}:  # the round's function decides: a queue it polls
        registry = host.features.routes.handlers
        queue = HandlerQueue(registry)
        route = routing.new_route(pattern, regex, flags, {"handler": queue}, times)
        queue.route_id = route["id"]
        registry[route["id"]] = queue
        return route
    return routing.new_route(pattern, regex, flags, prepare(api, action), times)


@op("page.add_route")
async def add_route(host: Host, at: dict[str, Any], *, pattern: str, regex: str, flags: int, action: dict[str, Any],
                    times: int | None) -> int:
    ctx = await host.page_ctx(at)
    route = _new_route(host, "page.route", pattern, regex, flags, action, times)
    await ctx.driver.router.add(route)
    rid: int = route["id"]
    return rid


@op("page.remove_route")
async def remove_route(host: Host, at: dict[str, Any], *, pattern: str | None, route_id: int | None) -> int:
    ctx = await host.page_ctx(at, gated=False)
    return await ctx.driver.router.remove(pattern, route_id)


async def _sync_space(host: Host, space_id: int) -> None:
    assert host.store is not None
    for row in host.store.pages(space_id):
        driver = host.drivers.get(row.target_id or "")
        if row.state == OPEN and driver is not None and not driver.closed:
            host.features.routes.attach(driver, space_id)
            await driver.router.sync()


@op("task.add_route")
async def add_space_route(host: Host, at: dict[str, Any], *, pattern: str, regex: str, flags: int,
                          action: dict[str, Any], times: int | None) -> int:
    space = host.space_row(at.get("space"))
    host.gate(space)
    route = _new_route(host, "task.route", pattern, regex, flags, action, times)
    host.features.routes.routes.setdefault(space.id, []).append(route)
    await _sync_space(host, space.id)
    rid: int = route["id"]
    return rid


@op("task.remove_route")
async def remove_space_route(host: Host, at: dict[str, Any], *, pattern: str | None, route_id: int | None) -> int:
    space = host.space_row(at.get("space"))
    routes = host.features.routes.routes.get(space.id, [])
    kept = [r for r in routes if not ((pattern is None or r["pattern"] == pattern)
                                      and (route_id is None or r["id"] == route_id))]
    for route in routes:
        if route not in kept:
            routing.close_route(route)
    host.features.routes.routes[space.id] = kept
    await _sync_space(host, space.id)
    return len(routes) - len(kept)


@op("route.poll")
async def route_poll(host: Host, at: dict[str, Any], *, route_id: int, timeout: float) -> dict[str, Any]:
    """The requests paused for a handler route (a long poll: the round's lease on the route)."""
    queue = host.features.routes.handlers.get(route_id)
    if queue is None:
        return {"gone": True, "paused": []}
    return await queue.poll(timeout / 1000)


@op("route.decide")
async def route_decide(host: Host, at: dict[str, Any], *, route_id: int, pause_id: int,
                       decision: dict[str, Any] | None) -> bool:
    """The round's answer to one paused request (None: continue unchanged)."""
    queue = host.features.routes.handlers.get(route_id)
    prepared = None if decision is None else prepare("route", decision)
    return queue is not None and queue.answer(pause_id, prepared)
