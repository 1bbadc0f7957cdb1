"""The host's side of the person's dashboard: ``dashboard.open`` and the feature slot it lives in.

The dashboard package is imported by the first ``dashboard.open`` request, never at host start
(``DashboardSlot`` is all the host builds). Only the host's owner reaches this socket (0600), so
only they learn the URL and its token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .ops import op

if TYPE_CHECKING:
    from ..driver.page import PageDriver
    from .core import Host

__all__ = ["DashboardSlot"]


class DashboardSlot:
    """The running dashboard (None until opened), and the notes the person gave spaces back with."""

    def __init__(self) -> None:
        self.running: Any = None
        #: space id -> the person's note, until a round that uses the space reads it (round.report)
        self.notes: dict[int, str] = {}

    def on_driver(self, driver: PageDriver) -> None:
        if self.running is not None:
            self.running.activity.on_driver(driver)

    def take_notes(self, spaces: list[Any]) -> list[dict[str, Any]]:
        out = []
        for space_id in spaces:
            note = self.notes.pop(int(space_id), None)
            if note is not None:
                out.append({"space_id": int(space_id), "note": note})
        return out

    def stop(self) -> None:
        running, self.running = self.running, None
        if running is not None:
            running.close_now()  # the browser goes next: its live views end with it


@op("dashboard.open")
async def dashboard_open(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    from ..dashboard import ensure_started

    dash = await ensure_started(host)
    return {"url": dash.url, "port": dash.port}
