"""The person's dashboard: every space live, take over and hand back, act in a held space.

A web page served by the host itself on 127.0.0.1 (``ego-browser dashboard`` prints
its URL). It starts on the first ``dashboard.open`` request, never with the host, and nothing
here is imported by rounds. The modules: ``auth`` (token, cookie, origin checks), ``server``
(HTTP + websocket), ``viewer`` (one dashboard tab, frames dropped not queued), ``screencast``
(live views), ``activity`` (event log, the agent's current action and pointer), ``model`` (what
the pages show), ``control`` (what the person does), ``static/`` (the page itself).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ensure_started", "running"]


def running(host: Any) -> Any:
    """The host's dashboard if it runs, else None."""
    return host.features.dashboard.running


async def ensure_started(host: Any) -> Any:
    """The host's dashboard, started on first use (``DashboardSlot.stop`` ends it with the host)."""
    slot = host.features.dashboard
    if slot.running is not None:
        return slot.running
    from .server import Dashboard

    dash = Dashboard(host)
    await dash.start()
    slot.running = dash
    return dash
