"""A page's set-up when the host attaches it, and attaching an agent's popup early.

Attaching is a chain of round trips to a renderer that may still be loading (a popup's took
~70 ms in eight serial ones): the features' set-up commands go out together, and an agent's new
popup is attached as its target appears, while the action that opened it makes its receipt
(the agent's next call is nearly always on the popup). docs/architecture.md, "The cold round,
a popup's attach and the back/forward cache".
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from ...cdp.together import together
from ...states import Ownership
from .store import OPEN

if TYPE_CHECKING:
    from ...driver.page import PageDriver
    from .features import Feature
    from .store import Store

__all__ = ["attach_early", "set_up"]


async def set_up(features: Iterable[Feature], driver: PageDriver) -> None:
    """Each feature's part of a new page's set-up, the features' command chains at once.
    Chromium runs a session's commands in the order they arrive and each feature sends its first
    before the next starts, so a space's emulation still lands after its viewport; the first
    failure is raised once every chain has ended."""
    pending = [res for res in (feature.on_driver(driver) for feature in features) if res is not None]
    if pending:
        await together(*pending)


class EarlyHost(Protocol):
    store: Store | None
    drivers: dict[str, PageDriver]
    _attaching: dict[str, Any]

    async def driver(self, target_id: str, attach_timeout: float | None = None) -> PageDriver: ...

    def background(self, task: asyncio.Task[Any]) -> None: ...


def attach_early(host: EarlyHost, target_id: str) -> None:
    """Start attaching ``target_id`` (a popup) when its space's agent owns it (a held space's
    popups stay as the person left them); a popup that closes first just ends the attach."""
    store = host.store
    if store is None or target_id in host.drivers or target_id in host._attaching:
        return
    for row in store.pages_of_target(target_id):
        space = store.space(row.space_id) if row.state == OPEN else None
        if space is not None and space.ownership == Ownership.AGENT:
            host.background(asyncio.get_running_loop().create_task(host.driver(target_id), name="ego-attach-popup"))
            return
