"""The routes of each space (``task.route``), asked by every page of the space after its own,
and its HAR recording (``task.record_har``, ``har.py``), fed by every page of the space.

A page learns its space's routes when it is attached (``on_driver``), so a page the space opens
later (``new_page``, a popup) is routed too. Routes live in the host's memory: they outlive the
round that made them, not the host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...driver import router as routing
from ...errors import EgoError
from . import emulation
from ..features.har import HarRecorder
from ..features.route_handlers import HandlerQueue
from ..core.store import OPEN
from .viewports import ViewportHost

if TYPE_CHECKING:
    from ...driver.page import PageDriver

__all__ = ["SpaceRoutes"]


class SpaceRoutes:
    def __init__(self, host: ViewportHost) -> None:
        self.host = host
        #: space id -> its routes, oldest first
        self.routes: dict[int, list[dict[str, Any]]] = {}
        #: route id -> the queue of a route whose handler runs in a round (``route_handlers.py``)
        self.handlers: dict[int, HandlerQueue] = {}
        #: space id -> its emulation settings (``emulation.py``)
        self.emulation: dict[int, dict[str, Any]] = {}
        #: space id -> its HAR recording
        self.hars: dict[int, HarRecorder] = {}

    def of(self, space_id: int) -> list[dict[str, Any]]:
        return [r for r in self.routes.get(space_id, ()) if not r.get("dropped")]

    def attach(self, driver: PageDriver, space_id: int) -> None:
        """Make ``driver``'s router ask the routes of ``space_id`` after its own."""
        driver.router.space_routes = lambda: self.of(space_id)

    async def on_driver(self, driver: PageDriver) -> None:
        store = self.host.store
        if store is None:
            return
        for row in store.pages_of_target(driver.target_id):
            if row.state == OPEN:
                self.attach(driver, row.space_id)
                settings = self.emulation.get(row.space_id)
                if settings:
                    await emulation.apply(driver, settings)
                har = self.hars.get(row.space_id)
                if har is not None:
                    har.watch(driver)
                if self.of(row.space_id):
                    await driver.router.sync()
                return

    async def space_finished(self, space_id: int) -> None:
        """The space finishes: its recording is written, its routes dropped."""
        for route in self.routes.pop(space_id, ()):
            routing.close_route(route)
        self.emulation.pop(space_id, None)
        har = self.hars.pop(space_id, None)
        if har is not None:
            try:
                await har.stop("task.finish")
            except EgoError:
                pass  # a recording that cannot be written never fails the finish

    def stop(self) -> None:
        self.routes.clear()
