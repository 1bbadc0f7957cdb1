"""The spaces' part in the host's life, a host feature (``host.features.spaces``).

At start the stored spaces are brought in line with the browser the host is connected to; a
browser of several that goes away takes its spaces elsewhere (``placement``); a tab a managed
page opens joins its space. The space operations are ``spaces.py``.
"""

from __future__ import annotations

import logging
from typing import Any

from ...errors import StateStoreUnwritable
from ...states import OpenedBy, Ownership
from . import placement, windows
from .placement import PlacementHost
from ..core.store import OPEN, UNMANAGED, Store
from .unlisted_tabs import close_spare_tab, find_spare_tab, recover_tabs

__all__ = ["SpaceKeeping", "adopt_popup", "reconcile_on_start"]

logger = logging.getLogger("ego_browser.host")


def _store(host: PlacementHost) -> Store:
    assert host.store is not None
    return host.store


def adopt_popup(host: PlacementHost, info: dict[str, Any]) -> None:
    """A tab opened by a managed Page joins that Page's space under the next label."""
    store = _store(host)
    if store.pages_of_target(info["targetId"]):
        return  # already recorded (adopted earlier, or released)
    parent = next((r for r in store.pages_of_target(info.get("openerId") or "") if r.state == OPEN), None)
    space = store.space(parent.space_id) if parent is not None else None
    if parent is None or space is None:
        return
    try:
        if space.ownership == Ownership.AGENT:
            store.add_labelled_page(
                space.id, info["targetId"], OpenedBy.AGENT, opener=parent.label, url=info.get("url"), reported=False
            )
        else:
            store.add_page(space.id, "#" + info["targetId"], info["targetId"], OpenedBy.UNKNOWN, state=UNMANAGED)
    except StateStoreUnwritable as exc:
        # the page opened it, so it stays open; task.tabs() adopts it once the store takes writes
        logger.warning("popup %s not recorded: %s", info["targetId"], exc.message)


class SpaceKeeping:
    """The spaces' feature (one per host). ``Host`` calls it through its features instead of
    importing this module: the host's core is below the modules that use it."""

    def __init__(self, host: PlacementHost) -> None:
        self._host = host

    async def start(self) -> None:
        host = self._host
        host.browser.on_member_lost.append(lambda instance, gone: placement.member_lost(host, instance, gone))
        await reconcile_on_start(host)

    def target_created(self, info: dict[str, Any]) -> None:
        adopt_popup(self._host, info)

    def on_driver(self, driver: Any) -> None:
        return None

    def stop(self) -> None:
        return None


async def reconcile_on_start(host: PlacementHost) -> None:
    """Bring the stored spaces in line with the browser this host is connected to.

    Same browser (a restarted host): adopt popups opened while no host ran. New browser
    (Chromium restarted): reopen each open page at its last URL under its label, and drop
    the old ledgers, whose nodes no longer exist.
    """
    store = _store(host)
    for space in store.spaces():
        if host.browser.has(space.browser_instance):
            continue
        # each space from the default browser: an imported profile's space before it made its
        # own browser the current one, and a plain space after it landed there too
        host.browser.use(None)
        await placement.reopen_space(host, space)
    host.browser.use(None)
    for info in list(host.browser.targets.values()):
        if info.get("type") == "page" and info.get("openerId"):
            adopt_popup(host, info)
    await find_spare_tab(host)
    if store.quarantined is not None:
        recover_tabs(host)
    if windows.headed(host):
        await windows.start(host)  # the person's own space, in the launch window
    await close_spare_tab(host)
