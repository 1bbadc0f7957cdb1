"""``task.emulate`` and ``task.set_offline``: a space's emulation (``emulation.py``), kept by the
``SpaceRoutes`` feature for the pages the space opens later."""

from __future__ import annotations

from typing import Any

from ..spaces import emulation
from ..core.host import Host
from ..core.dispatch import op
from ..core.store import OPEN


async def _apply_all(host: Host, space_id: int, settings: dict[str, Any], api: str) -> None:
    assert host.store is not None
    for row in host.store.pages(space_id):
        if row.state == OPEN and row.target_id:
            # a page no call has touched yet (a new space's p1) is attached now, so a setting the
            # browser refuses (an unknown timezone) fails this call, not a later one on the page
            await emulation.apply(await host.driver(row.target_id), settings, api=api)


@op("TaskSpace.emulate")
async def emulate(host: Host, at: dict[str, Any], *, offline: bool | None, network: str | None,
                  extra_headers: dict[str, str] | None, user_agent: str | None, geolocation: dict[str, Any] | None,
                  locale: str | None, timezone: str | None, device: str | None) -> dict[str, Any]:
    api = "task.emulate"
    space = host.space_row(at.get("space"))
    host.gate(space)
    given = emulation.check(api, {"offline": offline, "network": network, "extra_headers": extra_headers,
                                  "user_agent": user_agent, "geolocation": geolocation, "locale": locale,
                                  "timezone": timezone, "device": device})
    store = host.features.routes.emulation
    merged = {**store.get(space.id, {}), **given}
    await _apply_all(host, space.id, given if "network" not in given and "offline" not in given else
                     {**given, "offline": merged.get("offline"), "network": merged.get("network")}, api)
    store[space.id] = merged
    return dict(merged)


@op("TaskSpace.set_offline")
async def set_offline(host: Host, at: dict[str, Any], *, offline: bool) -> None:
    await emulate(host, at, offline=offline, network=None, extra_headers=None, user_agent=None, geolocation=None,
                  locale=None, timezone=None, device=None)
