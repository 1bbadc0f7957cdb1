"""The host's features, built explicitly when the host starts and reached as typed attributes
(``host.features.downloads``), not through a string-keyed dict filled by import side effects.

Each feature keeps its per-host state and answers two calls, in the order of ``Features.all``:
``on_driver(driver)`` when a page is attached (it may be a coroutine) and ``stop()`` when the
host stops (reject what is pending, drop listeners).
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .choosers import Choosers
from .dashboard_slot import DashboardSlot
from .permission_watch import PermissionWatch
from .downloads import Downloads
from .profile_contexts import ProfileContexts
from .space_keeping import SpaceKeeping
from .viewports import Viewports
from .page_logs import NavigationTracking, PopupLog
from .warm_tab import WarmTab
from .windows import Windows

if TYPE_CHECKING:
    from ..driver.page import PageDriver
    from .core import Host

__all__ = ["Feature", "Features", "build"]


class Feature(Protocol):
    def on_driver(self, driver: PageDriver) -> Awaitable[None] | None: ...

    def stop(self) -> None: ...


@dataclass
class Features:
    navigations: NavigationTracking
    popups: PopupLog
    viewports: Viewports
    warm: WarmTab
    permissions: PermissionWatch
    choosers: Choosers
    downloads: Downloads
    profiles: ProfileContexts
    windows: Windows
    dashboard: DashboardSlot
    spaces: SpaceKeeping

    def all(self) -> tuple[Feature, ...]:
        """Every feature, in the order pages are set up (navigation tracking first)."""
        return (self.navigations, self.popups, self.viewports, self.warm, self.permissions, self.choosers,
                self.downloads, self.profiles, self.windows, self.dashboard, self.spaces)


def build(host: Host) -> Features:
    """The features of ``host`` (called by ``Host.start`` once the browser is there)."""
    return Features(
        navigations=NavigationTracking(),
        popups=PopupLog(host.watch_popups),
        viewports=Viewports(host),
        warm=WarmTab(host),
        permissions=PermissionWatch(host),
        choosers=Choosers(host.drivers),
        downloads=Downloads(host),
        profiles=ProfileContexts(host),
        windows=Windows(host),
        dashboard=DashboardSlot(),
        spaces=SpaceKeeping(host),
    )
