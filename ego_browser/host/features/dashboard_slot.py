"""The host feature the person's dashboard lives in (``host.features.dashboard``).

The dashboard package is imported by the first ``dashboard.open`` request
(``dashboard_ops.py``), never at host start: this slot is all the host builds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...driver.page import PageDriver

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
