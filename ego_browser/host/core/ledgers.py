"""The per-page ref ledgers: loaded from the store the first time the host sees a page,
persisted after every change, staled with the frames whose documents went away."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from ...errors import StateStoreUnwritable
from .browser import BrowserLink
from .page_ctx import PageCtx
from .store import Store

__all__ = ["LedgerHost", "ledger_for", "save_ledger"]


class LedgerHost(Protocol):
    """What the ledgers need of the ``Host`` (``core`` is above them): its store and browser."""

    store: Store | None
    browser: BrowserLink

logger = logging.getLogger("ego_browser.host")


def ledger_for(host: LedgerHost, ctx: PageCtx) -> Any:
    """The page's ledger, loaded from the store the first time this host sees the page."""
    driver = ctx.driver
    if driver.ledger is None:
        from ...snapshot.ledger import RefLedger

        assert host.store is not None
        data = host.store.load_ledger(ctx.space.id, ctx.page.label)
        driver.ledger = RefLedger.from_bytes(data, host.browser.instance)
        driver.ledger_key = (ctx.space.id, ctx.page.label)
        # backend ids fetched after a snapshot returned: save again once they are bound
        driver.ledger.on_change = lambda: save_ledger(host, driver)
        driver.frames.on_document.append(lambda frame, _old: _frame_changed(host, driver, frame))
        driver.frames.on_detach.append(lambda frame: _frame_gone(host, driver, frame))
    return driver.ledger


def _frame_changed(host: LedgerHost, driver: Any, frame: Any) -> None:
    if driver.ledger is not None:
        driver.ledger.stale_frame(frame.frame_id)
        save_ledger(host, driver)


def _frame_gone(host: LedgerHost, driver: Any, frame: Any) -> None:
    if driver.ledger is not None:
        driver.ledger.worlds.forget_frame(frame.frame_id)  # the page's other frames keep theirs
    _frame_changed(host, driver, frame)
    if driver.ledger is not None:
        driver.ledger.prev.pop(frame.frame_id, None)  # no next document will carry its refs


def save_ledger(host: LedgerHost, driver: Any) -> None:
    """Persist the page's refs (a restarted host keeps them). A store that refuses the write
    costs only that: the snapshot is still returned and this host keeps the refs in memory."""
    key = getattr(driver, "ledger_key", None)
    if key is None or driver.ledger is None or host.store is None:
        return
    try:
        host.store.save_ledger(key[0], key[1], driver.ledger.to_bytes())
    except StateStoreUnwritable as exc:
        if not getattr(driver, "ledger_unsaved", False):  # once per page until a save works again
            logger.warning("refs of page %s not saved: %s", key[1], exc.message)
        driver.ledger_unsaved = True
    else:
        driver.ledger_unsaved = False
