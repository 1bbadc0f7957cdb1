"""Page members for waits, events, dialogs, files, fetch and screenshots (mixed into ``Page``).

Arm-first waiters (``wait_for_event``, ``wait_for_file_chooser``) are armed on the host
synchronously at call time, so an event caused by the very next action is never missed; the
returned ``asyncio.Task`` then waits for it. URL matchers are evaluated here, in the round
(a callable cannot cross the socket): the host reports committed main-frame URLs and popup
URLs, each call waiting for the next change after the version already seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, Self

from ..errors import EgoTimeout, InvalidArgument, UrlOpenedInPopup
from ..schema import validated
from .files import drop_download_dir, new_download_dir
from .models import ActionReceipt
from .ports import ChooserT, DownloadT, PageRound

__all__ = ["NavMixin", "glob_to_regex"]

_UNSET: Any = object()
_shots = itertools.count(1)


def glob_to_regex(glob: str) -> re.Pattern[str]:
    """``**`` anything, ``*`` anything but ``/``, ``{a,b}`` either; every other character literal."""
    out = ["^"]
    group = False
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "{" and not group:
            group = True
            out.append("(?:")
        elif c == "}" and group:
            group = False
            out.append(")")
        elif c == "," and group:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    out.append("$")
    return re.compile("".join(out))


def _matcher(api: str, matcher: Any) -> tuple[Callable[[str], bool], str]:
    if isinstance(matcher, str):
        if not any(ch in matcher for ch in "*{"):
            return (lambda u: u == matcher), repr(matcher)
        rx = glob_to_regex(matcher)
        return (lambda u: bool(rx.match(u))), repr(matcher)
    if isinstance(matcher, re.Pattern):
        return (lambda u: bool(matcher.search(u))), f"re.compile({matcher.pattern!r})"
    if callable(matcher):
        return (lambda u: bool(matcher(u))), getattr(matcher, "__name__", "a callable")
    raise InvalidArgument(
        f"{api}: matcher must be a str (exact URL or glob), a compiled re.Pattern or a callable (got "
        f"{type(matcher).__name__})", api=api, option="matcher", expected="str, re.Pattern or callable",
    )


def _retrieve(task: asyncio.Task[Any]) -> None:
    """A waiter that is never awaited is dropped silently."""
    if not task.cancelled():
        task.exception()


class NavMixin(Generic[DownloadT, ChooserT]):
    """Waits, events, dialogs, files, fetch and screenshots (see API.md §4)."""

    _round: PageRound[Self, DownloadT, ChooserT]
    _space_id: int
    _label: str

    async def _call(self, op: str, **args: Any) -> Any:  # provided by Page
        raise NotImplementedError

    def _page_for(self, info: dict[str, Any]) -> Self:  # provided by Page
        raise NotImplementedError

    def _sync(self, op: str, **args: Any) -> Any:  # provided by Page
        raise NotImplementedError

    # -- URLs -------------------------------------------------------------------------------

    @validated("Page.wait_for_url")
    async def wait_for_url(self, matcher: Any, *, timeout: float = 10000, wait_until: str = "load") -> None:
        api = "page.wait_for_url"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout / 1000
        await self._wait_url(api, matcher, timeout, deadline)
        if wait_until != "commit":
            # the matching document is committed; what the agent does next needs it loaded
            remaining = max(1.0, (deadline - loop.time()) * 1000)
            await self._call("page.wait_for_load_state", state=wait_until, timeout=remaining, idle_ms=500, stale=False)

    @validated("Page.expect_navigation")
    @contextlib.asynccontextmanager
    async def expect_navigation(self, *, url: Any = None, wait_until: str = "load",
                                timeout: float = 30000) -> AsyncIterator[Any]:
        api = "page.expect_navigation"
        match = _matcher(api, url)[0] if url is not None else None
        after = await self._call("page.nav_mark")
        result: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        yield _EventInfo(result)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout / 1000
        while True:
            remaining = (deadline - loop.time()) * 1000
            if remaining <= 0:
                raise EgoTimeout(f"{api} timed out after {round(timeout)}ms: no navigation to a URL matching {url!r}",
                                 api=api, timeout_ms=round(timeout))
            res = await self._call("page.wait_navigation", after=after, wait_until=wait_until, timeout=remaining)
            if match is None or match(res["url"]):
                result.set_result(res["url"])
                return
            after = res["seq"]

    async def _wait_url(self, api: str, matcher: Any, timeout: float, deadline: float) -> None:
        match, shown = _matcher(api, matcher)
        loop = asyncio.get_running_loop()
        res = await self._call("page.url_watch")
        if any(match(u) for u in res["urls"]):
            return
        current = res["urls"][-1] if res["urls"] else ""
        while True:
            for popup in res["popups"]:
                if popup["url"] and match(popup["url"]):
                    label = popup["label"]
                    raise UrlOpenedInPopup(
                        f'{api}: {popup["url"]} opened in a popup, not in page {self._label}; continue with '
                        f'task.page("{label}")', popup_label=label, url=popup["url"],
                    )
            remaining = deadline - loop.time()
            if remaining <= 0 or res.get("timed_out"):
                raise EgoTimeout(
                    f"{api} timed out after {round(timeout)}ms waiting for a URL matching {shown} "
                    f"(current URL: {current})", api=api, timeout_ms=round(timeout),
                )
            known = [[p["label"], p["url"]] for p in res["popups"]]
            res = await self._call(
                "page.url_watch", after=res["version"], known_popups=known, timeout=max(1.0, remaining * 1000)
            )
            for url in res["urls"]:
                current = url
                if match(url):
                    return

    # -- selectors and functions ------------------------------------------------------------

    @validated("Page.wait_for_function")
    async def wait_for_function(self, js: str, arg: Any = _UNSET, *, timeout: float = 10000,
                                polling: float = 100) -> bool:
        api = "page.wait_for_function"
        if arg is _UNSET or arg is None:
            met: bool = await self._call(api, js=js, timeout=timeout, polling=polling)
        else:
            met = await self._call(api, js=js, arg=arg, has_arg=True, timeout=timeout, polling=polling)
        return met

    # -- events -----------------------------------------------------------------------------

    @validated("Page.wait_for_event")
    def wait_for_event(self, event: str, *, timeout: float = 10000) -> asyncio.Task[Self | DownloadT]:
        """Armed now; the Task resolves to the next popup (``Page``) or ``Download`` of this Page."""
        loop = asyncio.get_running_loop()
        if event == "popup":
            token = self._sync("page.arm_popup")
            task: asyncio.Task[Self | DownloadT] = loop.create_task(self._wait_popup(token, timeout))
        else:
            directory = new_download_dir()
            try:
                token = self._sync("page.arm_download", dir=directory)
            except BaseException:
                drop_download_dir(directory)
                raise
            task = loop.create_task(self._wait_download(token, directory, timeout))
            task.add_done_callback(lambda t: self._download_done(t, token, directory))
        task.add_done_callback(_retrieve)
        return task

    async def _wait_popup(self, token: int, timeout: float) -> Self:
        info = await self._call("page.wait_popup", token=token, timeout=timeout)
        return self._page_for(info)

    async def _wait_download(self: Self, token: int, directory: str, timeout: float) -> DownloadT:
        info = await self._call("page.wait_download", token=token, dir=directory, timeout=timeout)
        return self._round.download(self, info)

    def _download_done(self, task: asyncio.Task[Self | DownloadT], token: int, directory: str) -> None:
        if task.cancelled() or task.exception() is not None:
            drop_download_dir(directory)
            with contextlib.suppress(Exception):
                self._sync("page.disarm_download", token=token)

    @validated("Page.expect_event")
    @contextlib.asynccontextmanager
    async def expect_event(self, event: str, *, timeout: float = 10000) -> AsyncIterator[Any]:
        task = self.wait_for_event(event, timeout=timeout)
        info = _EventInfo(task)
        try:
            yield info
        except BaseException:
            task.cancel()
            raise

    # -- files ------------------------------------------------------------------------------

    @validated("Page.set_input_files")
    async def set_input_files(self, selector: str, files: Any, *, timeout: float = 3000) -> ActionReceipt:
        api = "page.set_input_files"
        from ..wire.files import file_list  # loaded when files are set, not at the round's start

        paths = file_list(api, files)
        return ActionReceipt.from_wire(await self._call(api, selector=selector, files=paths, timeout=timeout))

    @validated("Page.wait_for_file_chooser")
    def wait_for_file_chooser(self, *, timeout: float = 10000) -> asyncio.Task[ChooserT]:
        token = self._sync("page.arm_file_chooser")
        task = asyncio.get_running_loop().create_task(self._wait_chooser(token, timeout))

        def done(t: asyncio.Task[ChooserT]) -> None:
            if t.cancelled():
                with contextlib.suppress(Exception):
                    self._sync("page.disarm_file_chooser", token=token)

        task.add_done_callback(done)
        task.add_done_callback(_retrieve)
        return task

    async def _wait_chooser(self: Self, token: int, timeout: float) -> ChooserT:
        info = await self._call("page.wait_file_chooser", token=token, timeout=timeout)
        return self._round.file_chooser(self, info)

    @validated("Page.expect_file_chooser")
    @contextlib.asynccontextmanager
    async def expect_file_chooser(self, *, timeout: float = 10000) -> AsyncIterator[Any]:
        task = self.wait_for_file_chooser(timeout=timeout)
        try:
            yield _EventInfo(task)
        except BaseException:
            task.cancel()
            raise

    # -- fetch and screenshots --------------------------------------------------------------

    @validated("Page.fetch")
    async def fetch(self, url: str, *, timeout: float = 20000, save_as: str | os.PathLike[str] | None = None,
                    method: str = "GET", headers: dict[str, str] | None = None, body: str | None = None,
                    cache: str | None = None, credentials: str | None = None, integrity: str | None = None,
                    keepalive: bool | None = None, mode: str | None = None, redirect: str | None = None,
                    referrer: str | None = None, referrer_policy: str | None = None) -> dict[str, Any]:
        api = "page.fetch"
        target = None
        if save_as is not None:
            target = os.path.abspath(os.fspath(save_as))
        response: dict[str, Any] = await self._call(
            api, url=url, timeout=timeout, save_as=target, method=method, headers=headers, body=body, cache=cache,
            credentials=credentials, integrity=integrity, keepalive=keepalive, mode=mode, redirect=redirect,
            referrer=referrer, referrer_policy=referrer_policy,
        )
        return response

    @validated("Page.screenshot")
    async def screenshot(self, *, path: str | os.PathLike[str] | None = None, full_page: bool = False,
                         clip: dict[str, float] | None = None, scale: str = "css", raw: bool = False) -> str:
        api = "page.screenshot"
        if path is None:
            path = os.path.join(tempfile.gettempdir(), f"ego-browser-shot-{os.getpid()}-{next(_shots)}.png")
        written: str = await self._call(api, path=os.fspath(path), full_page=full_page, clip=clip, raw=raw)
        return written


class _EventInfo:
    """``async with page.expect_event(...) as info`` → ``await info.value``."""

    def __init__(self, task: asyncio.Future[Any]) -> None:
        self._task = task

    @property
    def value(self) -> asyncio.Future[Any]:
        return self._task
