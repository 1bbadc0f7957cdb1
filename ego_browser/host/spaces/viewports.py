"""The viewport of the pages the agent's spaces create: 1280×720 unless the space sets another.

Chromium's default window left a 780×493 viewport here, which cut confirmation buttons out of
the default (viewport) snapshot; 1280×720 is what the peers (Playwright, agent-browser) use.
The size is applied with ``Emulation.setDeviceMetricsOverride`` when the host attaches to a
page the agent opened (or that one of its pages opened); tabs of the user keep their window.
A space's own size (``TaskSpace.set_viewport``, ``viewport_ops.py``) lasts as long as the host.
"""

from __future__ import annotations

from typing import Protocol

from ...driver.page import PageDriver
from ...errors import CdpChannelUnavailable, CdpError
from ...states import OpenedBy
from ..core.store import OPEN, Store

__all__ = ["DEFAULT_VIEWPORT", "ViewportHost", "Viewports", "apply_viewport"]

DEFAULT_VIEWPORT = (1280, 720)


class ViewportHost(Protocol):
    """What the viewports need of the ``Host`` (``core`` is above them): its store."""

    store: Store | None


async def apply_viewport(driver: PageDriver, size: tuple[int, int]) -> None:
    width, height = size
    try:
        await driver.session.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 0, "mobile": False},
            timeout=5.0,
        )
    except (CdpError, CdpChannelUnavailable):
        pass  # the tab is going away


class Viewports:
    """Each space's viewport size (one per host); a page the agent opens gets its space's."""

    def __init__(self, host: ViewportHost) -> None:
        self.host = host
        self.sizes: dict[int, tuple[int, int]] = {}

    async def on_driver(self, driver: PageDriver) -> None:
        store = self.host.store
        if store is None:
            return
        for row in store.pages_of_target(driver.target_id):
            if row.state == OPEN and (row.opened_by == OpenedBy.AGENT or row.opener):
                await apply_viewport(driver, self.sizes.get(row.space_id, DEFAULT_VIEWPORT))
                return

    def stop(self) -> None:
        pass
