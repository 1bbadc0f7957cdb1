"""``dashboard.open``: start the person's dashboard in this host (once) and give its URL.

Only the host's owner reaches this socket (0600), so only they learn the URL and its token.
The dashboard package is imported here, at the first request, never at host start.
"""

from __future__ import annotations

from typing import Any

from .core import Host
from .ops import op


@op("dashboard.open")
async def dashboard_open(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from ..dashboard import ensure_started

    dash = await ensure_started(host)
    return {"url": dash.url, "port": dash.port}
