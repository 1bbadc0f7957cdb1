"""Page members over its requests: ``requests()``, ``wait_for_response``/``expect_response``,
``wait_for_request``/``expect_request`` (mixed into ``Page``).

Matchers follow Playwright: a str is a glob (``**`` anything, ``*`` anything but ``/``,
``{a,b}`` either; a str without them is the exact URL), a ``re.Pattern`` is searched in the URL,
a callable gets the :class:`~.network.Request` and returns a bool (or an awaitable of one).
A glob or pattern is sent to the host as a regular expression and matched there; a callable
cannot cross the socket, so the host hands every candidate over and the round filters them.
Waits are armed before they return control: ``wait_for_response`` reads the log's position
first, so a response caused by the very next call is seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

from ..errors import EgoTimeout, InvalidArgument, InvalidRoutePattern
from ..schema import validated
from .network import Request
from .page_nav import glob_to_regex
from .ports import PageCalls

__all__ = ["NetworkMixin", "url_regex"]


def url_regex(api: str, matcher: Any) -> tuple[str | None, int, Callable[[Request], Any] | None, str]:
    """(regex source, re flags, predicate, how to show it) of a URL matcher."""
    if isinstance(matcher, str):
        try:
            return glob_to_regex(matcher).pattern, 0, None, repr(matcher)
        except re.error as exc:  # an unclosed {a,b
            raise InvalidRoutePattern(f"{api}: the URL glob {matcher!r} does not compile ({exc}); close every "
                                      "{...} group, or pass a re.Pattern", api=api, pattern=matcher) from exc
    if isinstance(matcher, re.Pattern):
        return matcher.pattern, int(matcher.flags) & ~re.UNICODE, None, f"re.compile({matcher.pattern!r})"
    if callable(matcher):
        return None, 0, matcher, getattr(matcher, "__name__", "a callable")
    raise InvalidArgument(
        f"{api}: the URL matcher must be a str (exact URL or glob), a compiled re.Pattern or a callable (got "
        f"{type(matcher).__name__})", api=api, option="url_or_predicate", expected="str, re.Pattern or callable",
    )


class _Waiting:
    """``async with page.expect_response(...) as info`` → ``await info.value``."""

    def __init__(self, fut: asyncio.Future[Request]) -> None:
        self._fut = fut

    @property
    def value(self) -> asyncio.Future[Request]:
        return self._fut


class NetworkMixin:
    async def _call(self, op: str, **args: Any) -> Any:  # provided by Page
        raise NotImplementedError

    def _calls(self) -> PageCalls:
        return cast(PageCalls, self)  # the Page this is mixed into has its label and channel

    @validated("Page.requests")
    async def requests(self, *, url: Any = None, resource_type: str | None = None, limit: int = 100) -> list[Request]:
        regex, flags, predicate, _ = (None, 0, None, "") if url is None else url_regex("page.requests", url)
        res = await self._call("page.network_log", regex=regex, flags=flags, resource_type=resource_type,
                               limit=limit if predicate is None else 500)
        found = [Request(self._calls(), info) for info in res["requests"]]
        if predicate is not None:
            found = [r for r in found if await _truth(predicate(r))][-limit:]
        return found

    async def _mark(self) -> int:
        res = await self._call("page.network_log", limit=1)
        seq: int = res["seq"]
        return seq

    async def _wait_net(self, api: str, kind: str, matcher: Any, timeout: float, after: int) -> Request:
        regex, flags, predicate, shown = url_regex(api, matcher)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout / 1000
        seen: list[int] = []
        while True:
            remaining = (deadline - loop.time()) * 1000
            res = None
            if remaining > 0:
                res = await self._call("page.wait_network", after=after, kind=kind, regex=regex, flags=flags,
                                       seen=seen[-500:], timeout=remaining)
            if res is None or res["timed_out"]:
                raise EgoTimeout(f"{api} timed out after {round(timeout)}ms waiting for a {kind} whose URL matches "
                                 f"{shown}", api=api, timeout_ms=round(timeout))
            for info in res["requests"]:
                request = Request(self._calls(), info)
                if predicate is None or await _truth(predicate(request)):
                    return request
                seen.append(info["id"])
            after = res["seq"]

    @validated("Page.wait_for_response")
    async def wait_for_response(self, url_or_predicate: Any, *, timeout: float = 30000) -> Request:
        api = "page.wait_for_response"
        url_regex(api, url_or_predicate)
        return await self._wait_net(api, "response", url_or_predicate, timeout, await self._mark())

    @validated("Page.wait_for_request")
    async def wait_for_request(self, url_or_predicate: Any, *, timeout: float = 30000) -> Request:
        api = "page.wait_for_request"
        url_regex(api, url_or_predicate)
        return await self._wait_net(api, "request", url_or_predicate, timeout, await self._mark())

    @contextlib.asynccontextmanager
    async def _expect(self, api: str, kind: str, matcher: Any, timeout: float) -> AsyncIterator[_Waiting]:
        url_regex(api, matcher)
        after = await self._mark()
        task = asyncio.get_running_loop().create_task(self._wait_net(api, kind, matcher, timeout, after))
        try:
            yield _Waiting(task)
        except BaseException:
            task.cancel()
            raise
        await task  # as Playwright: the block ends once the event came (or raises its timeout)

    @validated("Page.expect_response")
    def expect_response(self, url_or_predicate: Any, *, timeout: float = 30000) -> Any:
        return self._expect("page.expect_response", "response", url_or_predicate, timeout)

    @validated("Page.expect_request")
    def expect_request(self, url_or_predicate: Any, *, timeout: float = 30000) -> Any:
        return self._expect("page.expect_request", "request", url_or_predicate, timeout)


async def _truth(value: Any) -> bool:
    if inspect.isawaitable(value):
        value = await value
    return bool(value)
