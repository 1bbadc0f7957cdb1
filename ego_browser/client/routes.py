"""``route`` / ``unroute`` on a ``Page`` and on a ``TaskSpace`` (mixed into both).

A declarative route (what to fulfil, abort or change) outlives the round that made it: the host
applies it to every request the page (or every page of the space) makes until ``unroute``. A
route with a handler (a Python function) lives while its round does: a background task of the
round long-polls the host for the requests paused on it (``route.poll``, its lease) and runs
the handler on each in a task of its own, which answers through the ``Route`` it is given
(``route.decide``; a handler that does not answer lets the request continue). The URL matcher
is a glob or a ``re.Pattern`` (a callable cannot be applied in the host), sent as a regular
expression; ``unroute(url)`` names the same matcher.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import os
import re
import sys
import traceback
from typing import Any

from ..errors import BodyTooLarge, EgoError, InvalidArgument, InvalidState
from ..schema import validated
from .channel import Channel
from .ports import SpaceRound
from .page_network import url_regex

__all__ = ["RoutesMixin", "ROUTE_BODY_MAX", "Route", "end_routes"]

_UNSET: Any = object()
#: ms each long poll of a handler route waits (below the host's lease, route_handlers.LEASE)
_POLL_MS = 2000

#: as ``host/ops/route_ops.ROUTE_BODY_MAX``: refused here before 32 MiB cross the socket
ROUTE_BODY_MAX = 32 * 1024 * 1024


def _pattern_key(url: Any) -> str:
    if isinstance(url, re.Pattern):
        return f"re:{url.flags}:{url.pattern}"
    return str(url)


def _action(api: str, fulfill: dict[str, Any] | None, abort: str | None,
            continue_: dict[str, Any] | None) -> dict[str, Any]:
    given = [(k, v) for k, v in (("fulfill", fulfill), ("abort", abort), ("continue", continue_)) if v is not None]
    if len(given) != 1:
        raise InvalidArgument(f"{api}: give exactly one of fulfill=, abort= or continue_= (got {len(given)})", api=api,
                              option="fulfill", expected="one action")
    kind, value = given[0]
    if kind == "fulfill" and isinstance(value, dict) and isinstance(value.get("body"), (bytes, bytearray)):
        raw = bytes(value["body"])
        if len(raw) > ROUTE_BODY_MAX:
            raise BodyTooLarge(f"{api}: the fulfil body is {len(raw)} bytes, over the {ROUTE_BODY_MAX}-byte limit; let "
                               "the request continue to a server that has the file", api=api, size=len(raw),
                               limit=ROUTE_BODY_MAX)
        value = {**value, "body_base64": base64.b64encode(raw).decode()}
        del value["body"]
    elif kind == "fulfill" and isinstance(value, dict) and isinstance(value.get("body"), str) and len(
            value["body"]) > ROUTE_BODY_MAX:
        raise BodyTooLarge(f"{api}: the fulfil body is over the {ROUTE_BODY_MAX}-byte limit", api=api,
                           size=len(value["body"]), limit=ROUTE_BODY_MAX)
    return {kind: value}


class Route:
    """A request paused on a route whose handler runs in this round: answer it once."""

    def __init__(self, channel: Channel, route_id: int, pause_id: int, request: dict[str, Any]) -> None:
        self._channel = channel
        self._route_id = route_id
        self._pause_id = pause_id
        self._request = request
        self._handled = False

    @property
    def request(self) -> dict[str, Any]:
        return self._request

    @property
    def handled(self) -> bool:
        return self._handled

    async def _decide(self, decision: dict[str, Any] | None) -> None:
        if self._handled:
            raise InvalidState("route: this request was already answered", api="route")
        await self._channel.call("route.decide", {"route_id": self._route_id, "pause_id": self._pause_id,
                                                  "decision": decision})
        self._handled = True  # after the host took it: an answer it refused (a bad code) may be given again

    @validated("Route.fulfill")
    async def fulfill(self, *, status: int = 200, headers: dict[str, str] | None = None, body: Any = None,
                      json: Any = _UNSET, path: str | os.PathLike[str] | None = None,
                      content_type: str | None = None) -> None:
        spec: dict[str, Any] = {"status": status, "headers": headers or {}, "content_type": content_type}
        if json is not _UNSET:
            spec["json"] = json
        elif path is not None:
            spec["path"] = os.path.abspath(os.fspath(path))
        elif body is not None:
            spec["body"] = body
        await self._decide(_action("route.fulfill", spec, None, None))

    @validated("Route.abort")
    async def abort(self, error_code: str = "failed") -> None:
        await self._decide({"abort": error_code})

    @validated("Route.continue_")
    async def continue_(self, *, url: str | None = None, method: str | None = None,
                        headers: dict[str, str] | None = None, post_data: str | None = None) -> None:
        changes = {k: v for k, v in (("url", url), ("method", method), ("headers", headers),
                                     ("post_data", post_data)) if v is not None}
        await self._decide({"continue": changes})

    @validated("Route.fallback")
    async def fallback(self) -> None:
        await self._decide(None)


async def _run_handler(handler: Any, route: Route) -> None:
    try:
        takes_two = len(inspect.signature(handler).parameters) >= 2
    except (TypeError, ValueError):
        takes_two = False
    try:
        result = handler(route, route.request) if takes_two else handler(route)
        if inspect.isawaitable(result):
            await result
    except Exception:  # the page's request must not hang on the handler's bug: it continues
        traceback.print_exc(file=sys.stderr)
    if not route.handled:
        try:
            await route.fallback()
        except EgoError:
            pass


class RoutesMixin:
    _route_prefix = "page"
    _channel: Channel
    _round: Any  # the Page's or TaskSpace's round (ports.SpaceRound): its route_tasks

    async def _call(self, op: str, **args: Any) -> Any:  # provided by Page / TaskSpace
        raise NotImplementedError

    async def _route(self, api: str, url: Any, handler: Any, fulfill: dict[str, Any] | None, abort: str | None,
                     continue_: dict[str, Any] | None, times: int | None) -> int:
        regex, flags, predicate, _ = url_regex(api, url)
        if predicate is not None or regex is None:
            raise InvalidArgument(f"{api}: a route's URL is a glob or a re.Pattern (a callable cannot run in the host, "
                                  "where routes outlive the round)", api=api, option="url", expected="str or re.Pattern")
        if handler is not None:
            if fulfill is not None or abort is not None or continue_ is not None:
                raise InvalidArgument(f"{api}: give a handler or one of fulfill=, abort=, continue_=, not both",
                                      api=api, option="handler", expected="one action")
            action: dict[str, Any] = {"handler": True}
        else:
            action = _action(api, fulfill, abort, continue_)
        key = _pattern_key(url)
        rid: int = await self._call(f"{self._route_prefix}.add_route", pattern=key, regex=regex, flags=flags,
                                    action=action, times=times)
        if handler is not None:
            task = asyncio.get_running_loop().create_task(self._serve(rid, handler))
            self._round.route_tasks[rid] = (self, key, task)
        return rid

    async def _serve(self, route_id: int, handler: Any) -> None:
        running: set[asyncio.Task[None]] = set()
        while True:
            res = await self._channel.call("route.poll", {"route_id": route_id, "timeout": _POLL_MS})
            for paused in res["paused"]:
                route = Route(self._channel, route_id, paused["pause_id"], paused["request"])
                task = asyncio.get_running_loop().create_task(_run_handler(handler, route))
                running.add(task)
                task.add_done_callback(running.discard)
            if res["gone"]:
                return

    async def _unroute(self, url: Any) -> int:
        key = None if url is None else _pattern_key(url)
        removed: int = await self._call(f"{self._route_prefix}.remove_route", pattern=key)
        tasks = self._round.route_tasks
        for rid, (owner, pattern, task) in list(tasks.items()):
            if owner is self and (key is None or pattern == key):
                task.cancel()
                del tasks[rid]
        return removed


async def end_routes(round_: SpaceRound[Any]) -> None:
    """The round ends: its handler routes are removed (the requests they hold continue)."""
    tasks = round_.route_tasks
    for rid, (owner, _key, task) in list(tasks.items()):
        task.cancel()
        del tasks[rid]
        try:
            await asyncio.wait_for(owner._call(f"{owner._route_prefix}.remove_route", pattern=None, route_id=rid), 5)
        except (EgoError, asyncio.TimeoutError):
            pass  # the host drops it anyway once the round's lease runs out


class PageRoutes(RoutesMixin):
    @validated("Page.route")
    async def route(self, url: Any, handler: Any = None, *, fulfill: dict[str, Any] | None = None,
                    abort: str | None = None, continue_: dict[str, Any] | None = None, times: int | None = None) -> int:
        return await self._route("page.route", url, handler, fulfill, abort, continue_, times)

    @validated("Page.unroute")
    async def unroute(self, url: Any = None) -> int:
        return await self._unroute(url)


class SpaceRoutes(RoutesMixin):
    _route_prefix = "task"

    @validated("TaskSpace.route")
    async def route(self, url: Any, handler: Any = None, *, fulfill: dict[str, Any] | None = None,
                    abort: str | None = None, continue_: dict[str, Any] | None = None, times: int | None = None) -> int:
        return await self._route("task.route", url, handler, fulfill, abort, continue_, times)

    @validated("TaskSpace.unroute")
    async def unroute(self, url: Any = None) -> int:
        return await self._unroute(url)

    @validated("TaskSpace.record_har")
    async def record_har(self, path: str | os.PathLike[str], *, content: str = "embed", url_filter: Any = None) -> None:
        regex, flags = None, 0
        if url_filter is not None:
            regex, flags, _, _ = url_regex("task.record_har", url_filter)
        await self._call("task.start_har", path=os.path.abspath(os.fspath(path)), content=content, regex=regex,
                         flags=flags)
