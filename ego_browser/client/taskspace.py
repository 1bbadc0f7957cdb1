"""``TaskSpace``: an agent's own group of tabs in the shared browser."""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import EgoTimeout
from ..schema import validated
from .channel import Channel
from .models import UnmanagedPage
from .page import Page, page_for

__all__ = ["TaskSpace", "page_for"]

#: spaces this process used (for the runner's end-of-round report)
used_spaces: set[int] = set()


class TaskSpace:
    def __init__(self, channel: Channel, info: dict[str, Any]) -> None:
        self._channel = channel
        self._info = info
        used_spaces.add(info["id"])
        for page in info.get("pages") or ():
            page_for(channel, info["id"], page)

    def __repr__(self) -> str:
        return f"<TaskSpace {self.space_id} {self.name!r} {self.ownership}>"

    @property
    def space_id(self) -> int:
        return self._info["id"]

    id = space_id

    @property
    def name(self) -> str:
        return self._info["name"]

    @property
    def ownership(self) -> str:
        return self._info["ownership"]

    @property
    def isolated(self) -> bool:
        return bool(self._info.get("isolated"))

    async def _call(self, op: str, **args: Any) -> Any:
        args["space"] = self.space_id
        return await self._channel.call(op, args)

    # -- pages ------------------------------------------------------------------------------

    @validated("TaskSpace.page")
    def page(self, label: str) -> Page:
        """The Page with this label (lazy: the label is checked on first use)."""
        known = next((p for p in self._info.get("pages") or () if p["label"] == label), None)
        from .page import touched

        touched.add((self.space_id, label))  # asked for by name: not an unhandled popup
        return page_for(self._channel, self.space_id, known or {"label": label})

    def user_page(self) -> Page | UnmanagedPage | None:
        info = self._info.get("user_page")
        if not info:
            return None
        if info.get("label"):
            return page_for(self._channel, self.space_id, info)
        return UnmanagedPage(self.space_id, info["target_id"], info.get("opened_by") or "unknown")

    async def pages(self) -> list[Page]:
        rows = await self._call("task.pages")
        return [page_for(self._channel, self.space_id, r) for r in rows]

    async def tabs(self) -> list[dict[str, Any]]:
        rows = await self._call("task.tabs")
        out = []
        for r in rows:
            if r["label"] is not None:
                handle: Any = page_for(self._channel, self.space_id, r)
            else:
                handle = UnmanagedPage(self.space_id, r["target_id"], r["opened_by"])
            out.append({**r, "page": handle})
        return out

    async def new_page(self) -> Page:
        return page_for(self._channel, self.space_id, await self._call("task.new_page"))

    @validated("TaskSpace.adopt")
    async def adopt(self, unmanaged: UnmanagedPage, *, label: str | None = None) -> Page:
        info = await self._call("task.adopt", target_id=unmanaged.target_id, label=label)
        return page_for(self._channel, self.space_id, info)

    @validated("TaskSpace.release")
    async def release(self, label: str) -> UnmanagedPage:
        info = await self._call("task.release", label=label)
        return UnmanagedPage(info["space_id"], info["target_id"], info["opened_by"])

    # -- control ----------------------------------------------------------------------------

    async def hand_off(self) -> None:
        await self._call("task.hand_off")

    @validated("TaskSpace.wait_for_control")
    async def wait_for_control(self, *, interval: float = 20000, timeout: float = 600000) -> None:
        api = "task.wait_for_control"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout / 1000
        while True:
            state = await self._call("task.control")
            if state["ownership"] == "agent":
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise EgoTimeout(f"{api} timed out after {round(timeout)}ms", api=api, timeout_ms=round(timeout))
            # specified as polling: control changes hands through the person, not an event we see
            await asyncio.sleep(min(interval / 1000, remaining))

    @validated("TaskSpace.finish")
    async def finish(self, *, keep: Any) -> dict[str, Any]:
        return await self._call("task.finish", keep=keep)

    @validated("TaskSpace.set_status")
    async def set_status(self, text: str) -> None:
        await self._call("task.set_status", text=text)

    @validated("TaskSpace.set_viewport")
    async def set_viewport(self, width: int, height: int) -> None:
        await self._call("task.set_viewport", width=width, height=height)

    @validated("TaskSpace.cdp")
    async def cdp(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30000) -> dict[str, Any]:
        return await self._call("task.cdp", method=method, params=params, timeout=timeout)
