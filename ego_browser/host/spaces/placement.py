"""Spaces on several browsers: placement, a lost browser's spaces, idle browsers given back.

Only matters when the provider gives several browsers (``EGO_BROWSER_GRID_URL``, or several
``EGO_BROWSER_CDP_URL``s); with one browser every function here is a no-op.

- Placement (docs/scale-out.md): a new space goes to the browser its profile's context lives
  in; else, on a Grid, to the node with the fewest of our spaces (a browser of ours there with
  fewer than ``EGO_BROWSER_SPACES_PER_BROWSER`` (default 8) open spaces, else a new session
  there: ``host/core/spread.py``); with several CDP URLs, to the first open browser with room,
  else to a new browser.
- A browser that goes away fails its spaces' calls at once with ``EGO_BROWSER_LOST`` while the
  host reopens their pages at their last URLs on another browser (labels kept, refs unknown:
  the restart path of ``spaces.reopen_space``); other spaces are untouched.
- A browser whose last space was finished is given back (a Grid session is deleted).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from ...errors import ProfileNotFound
from ..features.profile_contexts import ProfileContexts, ProfileHost, context_for
from ..core.store import OPEN, UNMANAGED
from .tabs import TabHost, create_tab
from .windows import Windows

if TYPE_CHECKING:
    from ..core.store import SpaceRow

__all__ = ["PlacementHost", "place_new_space", "space_counts", "member_lost", "after_finish", "reopen_space"]

logger = logging.getLogger("ego_browser.host")


class _SpaceFeatures(Protocol):
    @property
    def profiles(self) -> ProfileContexts: ...

    @property
    def windows(self) -> Windows: ...


class PlacementHost(TabHost, ProfileHost, Protocol):
    """What placing and reopening spaces needs of the ``Host`` (``core`` is above it): opening
    tabs, the profiles' contexts, and the spaces whose browser went away."""

    lost_spaces: dict[int, asyncio.Future[None]]

    @property
    def features(self) -> _SpaceFeatures: ...


def space_counts(host: PlacementHost) -> dict[str, int]:
    assert host.store is not None
    counts: dict[str, int] = {}
    for space in host.store.spaces():
        if not space.closed and space.browser_instance:
            counts[space.browser_instance] = counts.get(space.browser_instance, 0) + 1
    return counts


async def place_new_space(host: PlacementHost, profile_id: str, token: int) -> str:
    """Choose the new space's browser and make it the request's browser (``BrowserLink.use``);
    ``token`` holds its place there until the space is stored (``BrowserLink.placed_done``)."""
    browser = host.browser
    prefer = None
    if browser.many and profile_id != "default":
        context_id = host.features.profiles.contexts.get(profile_id)
        prefer = browser.context_owner.get(context_id or "")
    instance = await browser.place(lambda: space_counts(host), prefer=prefer, token=token)
    browser.use(instance)
    return instance


def member_lost(host: PlacementHost, instance: str, gone: list[str]) -> None:
    """A browser of several went away: its spaces fail fast and come back on another one."""
    for tid in gone:
        host._forget_driver(tid)
        if host.spare_tab == tid:
            host.spare_tab = None
    for space_id in [s for s, tid in host.active.items() if tid in set(gone)]:
        host.active.pop(space_id, None)
    contexts = host.features.profiles.contexts
    for profile_id in [p for p, c in contexts.items() if c not in host.browser.context_owner]:
        del contexts[profile_id]  # seeded again from the profile on the new browser
    if host.store is None:
        return
    lost = [s for s in host.store.spaces() if not s.closed and s.browser_instance == instance]
    if not lost:
        return
    loop = asyncio.get_running_loop()
    for space in lost:
        host.lost_spaces[space.id] = loop.create_future()
    task = loop.create_task(_reopen(host, [s.id for s in lost]), name="ego-reopen-lost")
    host.background(task)


async def _reopen(host: PlacementHost, space_ids: list[int]) -> None:
    try:
        instance = await host.browser.place(lambda: space_counts(host))
        assert host.store is not None
        for space_id in space_ids:
            space = host.store.space(space_id)
            if space is not None:
                host.browser.use(instance)  # again: a profile's space switched to its own browser
                await reopen_space(host, space)
    except Exception as exc:  # noqa: BLE001 - told to every call on these spaces
        logger.warning("spaces %s not reopened: %s", space_ids, exc)
        for space_id in space_ids:
            fut = host.lost_spaces.get(space_id)
            if fut is not None and not fut.done():
                fut.set_exception(exc)
                fut.exception()  # retrieved: Host.lost_error reports it
        return
    for space_id in space_ids:
        fut = host.lost_spaces.pop(space_id, None)
        if fut is not None and not fut.done():
            fut.set_result(None)


async def after_finish(host: PlacementHost, instance: str | None) -> None:
    """Give back a browser of several that no open space uses any more."""
    if not host.browser.many or instance is None:
        return
    count = space_counts(host).get(instance, 0)
    await host.browser.release_if_idle(instance, count)


async def reopen_space(host: PlacementHost, space: SpaceRow) -> None:
    """Reopen a space's open pages at their last URLs, under their labels, in the request's
    browser (``BrowserLink.use``): its own browser is gone (restarted, or lost on a Grid).
    The old ledgers go: their nodes no longer exist."""
    assert host.store is not None
    store = host.store
    context_id = None
    if space.isolated:
        assert host.browser.conn is not None  # a browser is open before spaces are reopened
        res = await host.browser.conn.send("Target.createBrowserContext", {"disposeOnDetach": False})
        context_id = res["browserContextId"]
    elif space.profile_id != "default" and not space.closed:
        try:
            context_id = await context_for(host, space.profile_id)  # seeded again from the profile
        except ProfileNotFound:
            logger.warning("space %s: its profile %s is gone; its pages reopen in the default profile",
                           space.id, space.profile_id)
    first = True
    for row in store.pages(space.id):
        if row.state == UNMANAGED:
            store.delete_page_record(space.id, row.label)
            continue
        if row.state != OPEN:
            continue
        tid = await create_tab(
            host, space, context_id=context_id, new_window=first, url=row.url or "about:blank"
        )
        first = False
        store.update_page(space.id, row.label, target_id=tid)
        store.delete_ledger(space.id, row.label)
    store.update_space(space.id, browser_instance=host.browser.instance, context_id=context_id, user_page=None)
