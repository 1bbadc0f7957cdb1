"""``Page``: a tab with a durable label. Every method is one request to the host."""

from __future__ import annotations

import asyncio
from typing import Any

from ..schema import validated
from .channel import Channel
from .models import ActionReceipt
from .page_actions import ActionsMixin
from .page_nav import NavMixin

__all__ = ["Page"]

_UNSET: Any = object()

#: labels touched by this process, per space (the runner's end-of-round report skips them)
touched: set[tuple[int, str]] = set()
#: the page this process used last: learn_context() and site_skills() default to its URL
last_page: Page | None = None


# one Page object per (channel, space, label) per process
_pages: dict[tuple[int, int, str], Page] = {}


def page_for(channel: Channel, space_id: int, info: dict[str, Any]) -> Page:
    key = (id(channel), space_id, info["label"])
    page = _pages.get(key)
    if page is None:
        page = Page(channel, space_id, info["label"], info.get("target_id"), info.get("opened_by"))
        _pages[key] = page
    else:
        page._learn(info)
    return page


class Page(ActionsMixin, NavMixin):
    """A managed tab. Obtain it from ``task.page(label)``, ``task.new_page()`` or a receipt."""

    def __init__(self, channel: Channel, space_id: int, label: str, target_id: str | None = None,
                 opened_by: str | None = None) -> None:
        self._channel = channel
        self._space_id = space_id
        self._label = label
        self._target_id = target_id
        self._opened_by = opened_by
        self._mouse: Any = None
        self._keyboard: Any = None

    def __repr__(self) -> str:
        return f"<Page {self._label} space={self._space_id}>"

    # -- properties -------------------------------------------------------------------------

    @property
    def label(self) -> str:
        return self._label

    @property
    def space_id(self) -> int:
        return self._space_id

    @property
    def target_id(self) -> str | None:
        return self._target_id

    @property
    def opened_by(self) -> str | None:
        return self._opened_by

    @property
    def mouse(self) -> Any:
        if self._mouse is None:
            from .input import Mouse

            self._mouse = Mouse(self)
        return self._mouse

    @property
    def keyboard(self) -> Any:
        if self._keyboard is None:
            from .input import Keyboard

            self._keyboard = Keyboard(self)
        return self._keyboard

    # -- plumbing ---------------------------------------------------------------------------

    async def _call(self, op: str, **args: Any) -> Any:
        global last_page
        last_page = self
        touched.add((self._space_id, self._label))
        args["space"] = self._space_id
        args["label"] = self._label
        return await self._channel.call(op, args)

    def _page_for(self, info: dict[str, Any]) -> Page:
        """The Page of another tab of this space (a popup this one opened)."""
        return page_for(self._channel, self._space_id, info)

    def _learn(self, info: dict[str, Any]) -> None:
        self._target_id = info.get("target_id", self._target_id)
        self._opened_by = info.get("opened_by", self._opened_by)

    # -- state and observation --------------------------------------------------------------

    async def url(self) -> str:
        return await self._call("page.url")

    async def title(self) -> str:
        return await self._call("page.title")

    async def info(self) -> dict[str, Any]:
        return await self._call("page.info")

    @validated("Page.snapshot")
    async def snapshot(
        self, *, scope: str = "only_within_viewport", root: str | None = None, include_action_marks: bool = True,
        include_stable_locator: bool = True, max_length: int | None = None, interactive: bool = False,
        changes: bool = False,
    ) -> str:
        """The page as compact text: one node per line, refs (``[ref=N]``) on actionable nodes."""
        api = "page.snapshot"
        return await self._call(
            api, scope=scope, root=root, include_action_marks=include_action_marks,
            include_stable_locator=include_stable_locator, max_length=max_length, interactive=interactive,
            changes=changes,
        )

    def events(self) -> list[dict[str, Any]]:
        """Buffered CDP events of this page since the previous call (read and clear)."""
        return self._channel.call_sync("page.events", {"space": self._space_id, "label": self._label})

    # -- navigation -------------------------------------------------------------------------

    @validated("Page.goto")
    async def goto(self, url: str, *, referer: str | None = None, timeout: float = 15000,
                   wait_until: str = "load") -> ActionReceipt:
        api = "page.goto"
        res = await self._call(api, url=url, referer=referer, timeout=timeout, wait_until=wait_until)
        return ActionReceipt.from_wire(res)

    @validated("Page.reload")
    async def reload(self, *, timeout: float = 15000, wait_until: str = "load") -> ActionReceipt:
        api = "page.reload"
        return ActionReceipt.from_wire(await self._call(api, timeout=timeout, wait_until=wait_until))

    @validated("Page.wait_for_load_state")
    async def wait_for_load_state(self, state: str = "load", *, timeout: float = 10000, idle_ms: float = 500) -> None:
        api = "page.wait_for_load_state"
        await self._call(api, state=state, timeout=timeout, idle_ms=idle_ms)

    @validated("Page.wait_for_timeout")
    async def wait_for_timeout(self, ms: float) -> None:
        await self._call("page.gate")
        await asyncio.sleep(ms / 1000)

    # -- scripts and raw CDP ----------------------------------------------------------------

    @validated("Page.evaluate")
    async def evaluate(self, js: str, arg: Any = _UNSET) -> Any:
        if arg is _UNSET:
            return await self._call("page.evaluate", js=js)
        return await self._call("page.evaluate", js=js, arg=arg, has_arg=True)

    @validated("Page.cdp")
    async def cdp(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30000) -> dict[str, Any]:
        api = "page.cdp"
        return await self._call(api, method=method, params=params, timeout=timeout)

    async def close(self) -> None:
        await self._call("page.close")
