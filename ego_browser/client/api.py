"""The top-level functions of ``ego_browser`` (preloaded in the runner)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from ..schema import validated
from .channel import InProcessChannel, current_channel, reset_channel, use_channel
from ._generated import TaskSpace
from .round import current_round

__all__ = [
    "task_space",
    "list_task_spaces",
    "claim_task_space",
    "take_over_task_space",
    "profiles",
    "embedded",
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


@contextlib.asynccontextmanager
async def embedded() -> AsyncIterator[Any]:
    """Run the host inside this process for the duration of the block (no daemon)."""
    from ..host.core import features
    from ..host.core.host import Host
    from ..host.core.dispatch import load_all

    load_all()
    import fcntl
    import os

    from .. import config

    config.ensure_home()
    run_dir = config.ensure_private_dir(config.run_dir())
    lock = config.open_private(run_dir / "host.lock", os.O_RDWR | os.O_CREAT, "r+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        from ..errors import BrowserUnavailable

        raise BrowserUnavailable(
            f"a background host already runs for {config.home()}; stop it (ego-browser host stop) "
            "or set EGO_BROWSER_HOME to another directory for embedded use",
            endpoint=str(config.socket_path()),
        ) from None
    host = Host(features=features.build, embedded=True)
    try:
        await host.start()
        token = use_channel(InProcessChannel(host))
        try:
            yield host
        finally:
            reset_channel(token)
    finally:
        try:
            await host.stop(kill_browser=True)
        finally:
            lock.close()
