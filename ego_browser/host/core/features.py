"""The host's features, built explicitly when the host starts and reached as typed attributes
(``host.features.downloads``), not through a string-keyed dict filled by import side effects.

Each feature keeps its per-host state and answers two calls, in the order of ``Features.all``:
``on_driver(driver)`` when a page is attached (it may be a coroutine) and ``stop()`` when the
host stops (reject what is pending, drop listeners).

The feature classes live apart from the operations that use them (``*_ops.py``, which take
the ``Host``) and each takes the piece of the host it needs (a Protocol the ``Host`` meets),
so ``core`` → here → the features never leads back to ``core``, not even for a type checker.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..features.choosers import Choosers
from ..features.dashboard_slot import DashboardSlot
from ..features.downloads import DownloadHost, Downloads
from ..features.page_logs import NavigationTracking, PopupLog
from ..features.permission_watch import PermissionWatch, PromptHost
from ..spaces.placement import PlacementHost
from ..features.profile_contexts import ProfileContexts
from ..spaces.space_keeping import SpaceKeeping
from ..spaces.space_routes import SpaceRoutes
from ..spaces.viewports import ViewportHost, Viewports
from ..spaces.warm_tab import WarmHost, WarmTab
from ..features.webmcp_feature import WebMcpShim
from ..spaces.windows import Windows

if TYPE_CHECKING:
    from ...driver.page import PageDriver

__all__ = ["Feature", "FeatureHost", "Features", "build"]


class Feature(Protocol):
    def on_driver(self, driver: PageDriver) -> Awaitable[None] | None: ...

    def stop(self) -> None: ...


class FeatureHost(PlacementHost, WarmHost, DownloadHost, PromptHost, ViewportHost, Protocol):
    """What building the features needs of the ``Host``: what each of them takes (the spaces'
    and the profiles' and the windows' through ``PlacementHost``), and the popups' feed."""

    def watch_popups(self, listener: Any) -> Any: ...


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
    routes: SpaceRoutes
    webmcp: WebMcpShim

    def all(self) -> tuple[Feature, ...]:
        """Every feature, in the order pages are set up (navigation tracking first)."""
        return (self.navigations, self.popups, self.viewports, self.warm, self.permissions, self.choosers,
                self.downloads, self.profiles, self.windows, self.dashboard, self.spaces, self.routes, self.webmcp)


def build(host: FeatureHost) -> Features:
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
        routes=SpaceRoutes(host),
        webmcp=WebMcpShim(),
    )
