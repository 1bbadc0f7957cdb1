"""The host's side of the person's dashboard: ``dashboard.open``.

The dashboard package is imported by the first request, never at host start (the host builds
only ``dashboard_slot.DashboardSlot``). Only the host's owner reaches this socket (0600), so
only they learn the URL and its token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.dispatch import op

if TYPE_CHECKING:
    from ..core.host import Host


@op("dashboard.open")
async def dashboard_open(host: Host, at: dict[str, Any], *, once: bool) -> dict[str, Any]:
    from ...dashboard import ensure_started

    dash = await ensure_started(host)
    out = {"url": dash.url, "port": dash.port}
    if once:
        out["once_url"] = dash.once_url()
    return out
