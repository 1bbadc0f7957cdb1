"""``TaskSpaceBase``: the hand-written part of ``TaskSpace`` (an agent's own group of tabs).

The public ``TaskSpace`` is generated from the declarations (``client/_generated.py``); this
base holds its plumbing and the members whose results are built in the round (Page objects,
``UnmanagedPage`` values).
"""

from __future__ import annotations

from typing import Any, Generic

from ..schema import validated
from .models import UnmanagedPage
from .ports import PageT, SpaceRound
from .routes import SpaceRoutes
from .taskspace_learning import LearningMixin

__all__ = ["TaskSpaceBase"]


class TaskSpaceBase(SpaceRoutes, LearningMixin, Generic[PageT]):
    """Generic in the page class it hands out (the generated ``TaskSpace`` is ``TaskSpaceBase["Page"]``)."""

    _round: SpaceRound[PageT]

    def __init__(self, round_: SpaceRound[PageT], info: dict[str, Any]) -> None:
        self._round = round_
        self._channel = round_.channel
        self._info = info
        round_.used_spaces.add(info["id"])
        for page in info.get("pages") or ():
            round_.page_for(info["id"], page)

    def __repr__(self) -> str:
        return f"<TaskSpace {self.space_id} {self.name!r} {self.ownership}>"

    @property
    def space_id(self) -> int:
        space_id: int = self._info["id"]
        return space_id

    id = space_id

    @property
    def name(self) -> str:
        name: str = self._info["name"]
        return name

    @property
    def ownership(self) -> str:
        ownership: str = self._info["ownership"]
        return ownership

    @property
    def isolated(self) -> bool:
        return bool(self._info.get("isolated"))

    async def _call(self, op: str, **args: Any) -> Any:
        args["space"] = self.space_id
        args["proc"] = self._round.token  # the journal files the call under this round
        return await self._channel.call(op, args)

    def _page(self, info: dict[str, Any]) -> PageT:
        return self._round.page_for(self.space_id, info)

    # -- pages ------------------------------------------------------------------------------

    @validated("TaskSpace.page")
    def page(self, label: str) -> PageT:
        """The Page with this label (lazy: the label is checked on first use)."""
        known = next((p for p in self._info.get("pages") or () if p["label"] == label), None)
        self._round.touched.add((self.space_id, label))  # asked for by name: not an unhandled popup
        return self._page(known or {"label": label})

    def user_page(self) -> PageT | UnmanagedPage | None:
        info = self._info.get("user_page")
        if not info:
            return None
        if info.get("label"):
            return self._page(info)
        return UnmanagedPage(self.space_id, info["target_id"], info.get("opened_by") or "unknown")

    async def pages(self) -> list[PageT]:
        rows = await self._call("task.pages")
        return [self._page(r) for r in rows]

    async def tabs(self) -> list[dict[str, Any]]:
        rows = await self._call("task.tabs")
        out = []
        for r in rows:
            if r["label"] is not None:
                handle: Any = self._page(r)
            else:
                handle = UnmanagedPage(self.space_id, r["target_id"], r["opened_by"])
            out.append({**r, "page": handle})
        return out

    async def new_page(self) -> PageT:
        return self._page(await self._call("task.new_page"))

    @validated("TaskSpace.adopt")
    async def adopt(self, unmanaged: UnmanagedPage, *, label: str | None = None) -> PageT:
        return self._page(await self._call("task.adopt", target_id=unmanaged.target_id, label=label))

    @validated("TaskSpace.release")
    async def release(self, label: str) -> UnmanagedPage:
        info = await self._call("task.release", label=label)
        return UnmanagedPage(info["space_id"], info["target_id"], info["opened_by"])
