"""``TaskSpace.set_viewport``: a space's own viewport size, applied to its open pages now and
to the pages it opens later (``viewports.Viewports``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.dispatch import op
from ..core.store import OPEN
from ..spaces.viewports import apply_viewport

if TYPE_CHECKING:
    from ..core.host import Host


@op("TaskSpace.set_viewport")
async def set_viewport(host: Host, at: dict[str, Any], *, width: int, height: int) -> None:
    space = host.space_row(at.get("space"))
    host.gate(space)
    # a trace picture being taken restores the metrics it found when it ends: let it end first,
    # or a size set meanwhile is undone (a page kept 1280x720 after set_viewport)
    await host.pictures.settle()
    size = (width, height)
    host.features.viewports.sizes[space.id] = size
    assert host.store is not None
    for row in host.store.pages(space.id):
        driver = host.drivers.get(row.target_id or "")
        if row.state == OPEN and driver is not None and not driver.closed:
            await apply_viewport(driver, size)
