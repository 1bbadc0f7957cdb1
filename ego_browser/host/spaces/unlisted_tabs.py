"""Tabs that no space lists: Chromium's launch tab, and tabs left by a replaced store.

An orphan tab (open in the browser, in no space's list) is invisible to agents and to the
person's ``spaces`` view. The launch tab becomes the first space's tab (or is closed once
another window exists); finishing the browser's last space keeps a blank one as the next
spare (see ``spaces.finish``); after a damaged store was replaced, the tabs of a browser
that lived on are listed in a space of the person's, "recovered tabs".
"""

from __future__ import annotations

import contextlib
import logging

from ...errors import StateStoreUnwritable
from ...states import CreatedBy, OpenedBy, Ownership
from ..core.store import UNMANAGED, Store
from .tabs import close_target as _close_target
from .tabs import TabHost, create_tab

__all__ = ["find_spare_tab", "close_spare_tab", "first_tab", "undo_first_tab", "recover_tabs"]

logger = logging.getLogger("ego_browser.host")


def _store(host: TabHost) -> Store:
    assert host.store is not None
    return host.store


async def _create_tab(host: TabHost, *, context_id: str | None, name: str) -> str:
    # the space-to-be's name titles its window in headed mode
    return await create_tab(host, None, context_id=context_id, new_window=True, name=name)


async def find_spare_tab(host: TabHost) -> None:
    """The blank tab Chromium opens at launch belongs to no space: keep it as the first
    space's tab, or close it when other tabs exist (a window must stay open, or a headful
    Chromium quits)."""
    host.spare_tab = None
    if not host.browser.owned:
        return  # a browser reached through EGO_BROWSER_CDP_URL: its tabs are the person's
    recorded = _store(host).all_target_ids()
    if host.browser.conn is None:
        return  # no spare then
    try:  # the launch tab lives in the default context, which this list leaves out
        res = await host.browser.conn.send("Target.getBrowserContexts", {}, timeout=5.0)
        created = set(res.get("browserContextIds") or ())
    except Exception:  # noqa: BLE001 - no spare then; nothing depends on it
        return
    pages = [i for i in host.browser.targets.values() if i.get("type") == "page"]
    blank = [
        i["targetId"] for i in pages
        if i["targetId"] not in recorded and i.get("url") in ("about:blank", "") and not i.get("openerId")
        and i.get("browserContextId") not in created
    ]
    if not blank:
        return
    host.spare_tab = blank[0]


async def close_spare_tab(host: TabHost) -> None:
    """Close the launch tab once another window exists (an isolated space was opened)."""
    tid = host.spare_tab
    if tid is None:
        return
    others = [t for t, i in host.browser.targets.items() if i.get("type") == "page" and t != tid]
    if others:
        host.spare_tab = None
        await _close_target(host, tid)


async def first_tab(host: TabHost, context_id: str | None, name: str) -> tuple[str, bool]:
    """A new space's first tab: the launch tab if it is still unused, else a new window
    (headed: always a new window, titled ``name``)."""
    from .windows import headed

    if context_id is None and not headed(host):
        spare = host.take_spare_tab()
        if spare is not None:
            return spare, True
    tid = await _create_tab(host, context_id=context_id, name=name)
    if host.spare_tab is not None:
        await close_spare_tab(host)
    return tid, False


async def undo_first_tab(host: TabHost, target_id: str, was_spare: bool, context_id: str | None) -> None:
    """The store refused the new space: leave the browser as it was (no tab nobody lists)."""
    if was_spare:
        host.spare_tab = target_id
    else:
        await _close_target(host, target_id)
    if context_id and host.browser.conn is not None:
        with contextlib.suppress(Exception):
            await host.browser.conn.send("Target.disposeBrowserContext", {"browserContextId": context_id}, timeout=5.0)


def recover_tabs(host: TabHost) -> None:
    """The store was damaged and replaced while the browser lived on: its tabs belong to no
    space now. List them in a space of the person's, "recovered tabs", so that nothing is
    hidden and an agent can claim it (with the person's consent) instead of losing them."""
    store = _store(host)
    if not host.browser.owned:
        return
    recorded = store.all_target_ids()
    tabs = [
        t for t, i in host.browser.targets.items()
        if i.get("type") == "page" and t not in recorded and t != host.spare_tab
    ]
    if not tabs:
        return
    try:
        space_id, _row = store.create_space_with_page(
            name="recovered tabs", isolated=False, context_id=None, profile_id="default",
            browser_instance=host.browser.instance, target_id=tabs[0], created_by=CreatedBy.USER,
            ownership=Ownership.USER, reason="user_owned",
        )
        for tid in tabs[1:]:
            store.add_page(space_id, "#" + tid, tid, OpenedBy.UNKNOWN, state=UNMANAGED)
    except StateStoreUnwritable as exc:
        logger.warning("tabs of the damaged store not recovered: %s", exc.message)
        return
    logger.warning("%d tab(s) from before the store was replaced are in space %d, \"recovered tabs\"",
                   len(tabs), space_id)
