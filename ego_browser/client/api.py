"""The top-level functions of ``ego_browser`` (preloaded in the runner)."""

from __future__ import annotations

from typing import Any

from ..schema import validated
from .channel import current_channel
from ._generated import TaskSpace
from .round import current_round

__all__ = [
    "task_space",
    "list_task_spaces",
    "claim_task_space",
    "take_over_task_space",
    "profiles",
]


@validated("task_space")
async def task_space(name_or_id: str | int, *, profile_id: str | None = None, isolated: bool = False) -> TaskSpace:
    """Create or reuse the agent's task space named ``name_or_id`` (or open space id ``name_or_id``)."""
    round_ = current_round()
    info = await round_.channel.call(
        "task_space", {"name_or_id": name_or_id, "profile_id": profile_id, "isolated": isolated})
    return round_.task_space(info)


async def list_task_spaces() -> list[dict[str, Any]]:
    rows = await current_channel().call("list_task_spaces", {})
    keys = ("id", "name", "task_id", "ownership", "created_by", "recent_tab_titles", "isolated", "status", "reason", "browser")
    return [{k: r.get(k) for k in keys} for r in rows]


@validated("claim_task_space")
async def claim_task_space(space_id: int) -> TaskSpace:
    round_ = current_round()
    return round_.task_space(await round_.channel.call("claim_task_space", {"space": space_id}))


@validated("take_over_task_space")
async def take_over_task_space(space_id: int) -> TaskSpace:
    round_ = current_round()
    return round_.task_space(await round_.channel.call("take_over_task_space", {"space": space_id}))


async def profiles() -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = await current_channel().call("profiles", {})
    return listed
