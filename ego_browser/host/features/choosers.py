"""The host's side of file choosers: the part of a page not attached yet.

A page's choosers are its driver's part (``driver/choosers.py``: ``driver.choosers``). Arming a
waiter is answered synchronously, when the request arrives (before the action that opens the
chooser is sent), and a page may not have a driver yet then (its first call after a host
restart): this feature keeps such a part until the driver is attached, then hands it over.
"""

from __future__ import annotations

from ...driver.choosers import FileChoosers
from ...driver.page import PageDriver

__all__ = ["Choosers"]


class Choosers:
    """File choosers of the host's pages (one per host)."""

    def __init__(self, drivers: dict[str, PageDriver]) -> None:
        #: the host's attached pages (``Host.drivers``: the same dict, kept up to date by the host)
        self.drivers = drivers
        #: target id -> the part of a page armed before its driver was attached
        self.early: dict[str, FileChoosers] = {}

    def of(self, target_id: str) -> FileChoosers:
        """The choosers of the page ``target_id`` (made now if the page has none yet)."""
        found = self.peek(target_id)
        if found is None:
            found = self.early[target_id] = FileChoosers()
        return found

    def peek(self, target_id: str) -> FileChoosers | None:
        """The choosers of the page ``target_id``, if it has any yet."""
        early = self.early.get(target_id)
        if early is not None:
            return early  # until on_driver hands it over, even if the driver exists already
        driver = self.drivers.get(target_id)
        return driver.choosers if driver is not None and not driver.closed else None

    def on_driver(self, driver: PageDriver) -> None:
        early = self.early.pop(driver.target_id, None)
        if early is not None:
            driver.choosers = early

    def stop(self) -> None:
        for driver in list(self.drivers.values()):
            driver.choosers.host_stopped()
        for early in self.early.values():
            early.host_stopped()
        self.early.clear()
