"""``route`` / ``unroute`` on a ``Page`` and on a ``TaskSpace`` (mixed into both).

A route is declarative (what to fulfil, abort or change), so it outlives the round that made
it: the host applies it to every request the page (or every page of the space) makes until
``unroute``. The URL matcher is a glob or a ``re.Pattern`` (a callable cannot be applied in the
host), sent as a regular expression; ``unroute(url)`` names the same matcher.
"""

from __future__ import annotations

import base64
import os
import re
from typing import Any

from ..errors import BodyTooLarge, InvalidArgument
from ..schema import validated
from .page_network import url_regex

__all__ = ["RoutesMixin", "ROUTE_BODY_MAX"]

#: as ``host/route_ops.ROUTE_BODY_MAX``: refused here before 32 MiB cross the socket
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


class RoutesMixin:
    _route_prefix = "page"

    async def _call(self, op: str, **args: Any) -> Any:  # provided by Page / TaskSpace
        raise NotImplementedError

    async def _route(self, api: str, url: Any, fulfill: dict[str, Any] | None, abort: str | None,
                     continue_: dict[str, Any] | None, times: int | None) -> int:
        regex, flags, predicate, _ = url_regex(api, url)
        if predicate is not None or regex is None:
            raise InvalidArgument(f"{api}: a route's URL is a glob or a re.Pattern (a callable cannot run in the host, "
                                  "where routes outlive the round)", api=api, option="url", expected="str or re.Pattern")
        rid: int = await self._call(f"{self._route_prefix}.add_route", pattern=_pattern_key(url), regex=regex,
                                    flags=flags, action=_action(api, fulfill, abort, continue_), times=times)
        return rid

    async def _unroute(self, url: Any) -> int:
        removed: int = await self._call(f"{self._route_prefix}.remove_route",
                                        pattern=None if url is None else _pattern_key(url))
        return removed


class PageRoutes(RoutesMixin):
    @validated("Page.route")
    async def route(self, url: Any, *, fulfill: dict[str, Any] | None = None, abort: str | None = None,
                    continue_: dict[str, Any] | None = None, times: int | None = None) -> int:
        return await self._route("page.route", url, fulfill, abort, continue_, times)

    @validated("Page.unroute")
    async def unroute(self, url: Any = None) -> int:
        return await self._unroute(url)


class SpaceRoutes(RoutesMixin):
    _route_prefix = "task"

    @validated("TaskSpace.route")
    async def route(self, url: Any, *, fulfill: dict[str, Any] | None = None, abort: str | None = None,
                    continue_: dict[str, Any] | None = None, times: int | None = None) -> int:
        return await self._route("task.route", url, fulfill, abort, continue_, times)

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
