"""``task.record_har`` / ``task.stop_har``: a space's HAR recording (``har.py``), fed by its
pages through ``space_routes.SpaceRoutes`` (the pages it opens later too)."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidState
from ..core.host import Host
from ..features.har import HarRecorder, check_writable
from .network_ops import compile_pattern
from ..core.dispatch import op
from ..core.store import OPEN


@op("task.start_har")
async def start_har(host: Host, at: dict[str, Any], *, path: str, content: str, regex: str | None,
                    flags: int) -> None:
    api = "task.record_har"
    space = host.space_row(at.get("space"))
    host.gate(space)
    feature = host.features.routes
    if space.id in feature.hars:
        raise InvalidState(f"{api}: the space already records to {feature.hars[space.id].path}; call "
                           "task.stop_har() first", api=api)
    compile_pattern(api, regex, flags)
    check_writable(api, path)
    recorder = HarRecorder(path, content, regex, flags)
    feature.hars[space.id] = recorder
    assert host.store is not None
    for row in host.store.pages(space.id):
        driver = host.drivers.get(row.target_id or "")
        if row.state == OPEN and driver is not None and not driver.closed:
            recorder.watch(driver)


@op("TaskSpace.stop_har")
async def stop_har(host: Host, at: dict[str, Any]) -> str | None:
    space = host.space_row(at.get("space"))
    recorder = host.features.routes.hars.pop(space.id, None)
    if recorder is None:
        return None
    return await recorder.stop("task.stop_har")
