"""``PageBase``: the hand-written part of ``Page`` (a tab with a durable label).

The public ``Page`` is generated from the declarations (``client/_generated.py``); this base
holds its plumbing and the members that cannot be generated: ``events()`` (synchronous),
``wait_for_timeout`` (sleeps in the round), ``evaluate`` (an optional argument that differs
from ``None``), and the waits, files and events of :class:`NavMixin`. It is generic in the
classes its waiters resolve to (the generated ``Page`` is ``PageBase["Download", "FileChooser"]``)
and reaches its round through :class:`~.ports.PageRound` (see ``ports``: no import of the layer
above).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Self, TypeVar

from ..schema import validated
from .page_locators import LocatorsMixin
from .page_nav import NavMixin
from .page_network import NetworkMixin
from .routes import PageRoutes
from .ports import ChooserT, DownloadT, PageRound

__all__ = ["PageBase"]

_UNSET: Any = object()
_PartT = TypeVar("_PartT")


class PageBase(NavMixin[DownloadT, ChooserT], NetworkMixin, PageRoutes, LocatorsMixin):
    """A managed tab. Obtain it from ``task.page(label)``, ``task.new_page()`` or a receipt."""

    def __init__(self, round_: PageRound[Self, DownloadT, ChooserT], space_id: int, label: str,
                 target_id: str | None = None, opened_by: str | None = None) -> None:
        self._round = round_
        self._channel = round_.channel
        self._space_id = space_id
        self._label = label
        self._target_id = target_id
        self._opened_by = opened_by
        self._parts: dict[str, Any] = {}

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

    def _part(self, name: str, make: Callable[[Self], _PartT]) -> _PartT:
        """The page's one ``page.mouse`` / ``page.keyboard`` (the generated properties call this)."""
        part: _PartT | None = self._parts.get(name)
        if part is None:
            part = self._parts[name] = make(self)
        return part

    # -- plumbing ---------------------------------------------------------------------------

    async def _call(self: Self, op: str, **args: Any) -> Any:
        self._round.touch(self)
        if "label" in args:  # an action's pointer caption; "label" on the wire is the page's
            args["pointer_label"] = args.pop("label")
        args["space"] = self._space_id
        args["label"] = self._label
        # the round's input token: its mouse position and held keys are its own on the host
        args["proc"] = self._round.token
        if self._round.calls is None:
            return await self._channel.call(op, args)
        return await self._recorded(op, args, self._round.calls)

    async def _recorded(self, op: str, args: dict[str, Any], calls: list[dict[str, Any]]) -> Any:
        """A call kept for the round's JSON report: what it was, how long, what it returned."""
        import time

        row: dict[str, Any] = {"op": op, "page": self._label}
        if isinstance(args.get("selector"), str):
            row["selector"] = args["selector"]
        calls.append(row)
        start = time.perf_counter()
        try:
            result = await self._channel.call(op, args)
        except BaseException as exc:
            row["error"] = getattr(exc, "code", type(exc).__name__)
            raise
        finally:
            row["ms"] = round((time.perf_counter() - start) * 1000, 1)
        if isinstance(result, dict) and {"popups", "dialog", "navigation"} & result.keys():
            row["receipt"] = {k: result.get(k) for k in ("popups", "dialog", "navigation")}
        return result

    def _sync(self, op: str, **args: Any) -> Any:
        if "label" in args:
            args["pointer_label"] = args.pop("label")
        args["space"] = self._space_id
        args["label"] = self._label
        return self._channel.call_sync(op, args)

    def _page_for(self, info: dict[str, Any]) -> Self:
        """The Page of another tab of this space (a popup this one opened)."""
        return self._round.page_for(self._space_id, info)

    def _learn(self, info: dict[str, Any]) -> None:
        self._target_id = info.get("target_id", self._target_id)
        self._opened_by = info.get("opened_by", self._opened_by)

    # -- members that cannot be generated ---------------------------------------------------

    def events(self) -> list[dict[str, Any]]:
        """Buffered CDP events of this page since the previous call (read and clear)."""
        events: list[dict[str, Any]] = self._sync("page.events")
        return events

    @validated("Page.wait_for_timeout")
    async def wait_for_timeout(self, ms: float) -> None:
        await self._call("page.gate")
        await asyncio.sleep(ms / 1000)

    @validated("Page.evaluate")
    async def evaluate(self, js: str, arg: Any = _UNSET) -> Any:
        if arg is _UNSET:
            return await self._call("page.evaluate", js=js)
        return await self._call("page.evaluate", js=js, arg=arg, has_arg=True)
