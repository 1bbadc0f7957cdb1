"""Page basics: navigation, reads, evaluate, raw CDP, events and close."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from ... import jsbundle
from ...driver import evaluate as ev
from ...driver import navigation as nav
from ...driver.receipts import run_action
from ...errors import CdpError, EgoTimeout, NavigationBlocked, NavigationFailed, StateStoreUnwritable
from ...states import OpenedBy, Ownership
from ..core.host import Host, PageCtx
from ..core.dispatch import op, sync_op
from ..core.page_site import PageSite
from ..core.store import CLOSED, OPEN, UNMANAGED
from ..spaces.tabs import close_target, create_tab


async def _seen_already() -> None:
    """The flush of a navigation: none is needed. A receipt's flush makes sure the events the
    renderer sent before the action's last answer are in; a navigation ends on an event of the
    page session (the commit, DOMContentLoaded or load), and the session's events arrive in
    order, so a popup or dialog the new document opened before it is already seen. The flush
    was a ``Runtime.evaluate`` sent as the page rendered its first frame (~10 ms under load)."""


@op("Page.goto")
async def goto(host: Host, at: dict[str, Any], *, url: str, referer: str | None, timeout: float,
               wait_until: str, on_beforeunload: str = "raise") -> dict[str, Any]:
    ctx = await host.page_ctx(at)
    host.guard.check_url(ctx.space, url)  # outside the space's allowlist: nothing is sent
    since = time.monotonic()
    try:
        done = await _leaving(host, ctx, "page.goto", url, timeout, wait_until, on_beforeunload,
                              lambda: nav.goto(ctx.driver, url, referer=referer, timeout_ms=timeout,
                                               wait_until=wait_until))
    except NavigationFailed:
        host.guard.raise_if_blocked(ctx.space, since)  # a redirect out of the list: say which rule
        raise
    host.guard.raise_if_blocked(ctx.space, since)
    return done


@op("Page.reload")
async def reload(host: Host, at: dict[str, Any], *, timeout: float, wait_until: str,
                 on_beforeunload: str = "raise") -> dict[str, Any]:
    ctx = await host.page_ctx(at)
    main = ctx.driver.frames.main
    return await _leaving(host, ctx, "page.reload", main.url if main else "", timeout, wait_until, on_beforeunload,
                          lambda: nav.reload(ctx.driver, timeout_ms=timeout, wait_until=wait_until))


async def _leaving(host: Host, ctx: PageCtx, api: str, url: str, timeout: float, wait_until: str,
                   on_beforeunload: str, action: Callable[[], Coroutine[Any, Any, Any]]) -> dict[str, Any]:
    """Run a navigation of the page (goto, reload); if the page asks to confirm leaving (a
    ``beforeunload`` dialog: unsaved edits), raise ``NavigationBlocked`` with the dialog open,
    or accept it and wait for the new document (``on_beforeunload="accept"``). A receipt that
    returned with the dialog would leave the agent on the old page, its next call failing."""
    driver = ctx.driver
    loop = asyncio.get_running_loop()
    started = loop.time()
    main = driver.frames.main
    before = main.loader_id if main else None
    receipt = await run_action(driver, PageSite(host, ctx), action, flush=_seen_already, name=api)
    dialog = receipt["dialog"]
    if dialog is None or dialog.get("type") != "beforeunload":
        return receipt
    call = "goto(url, " if api == "page.goto" else "reload("
    if on_beforeunload != "accept":
        raise NavigationBlocked(
            f"{api}: {url} was not opened: the page asks to confirm leaving it (a beforeunload "
            "dialog, e.g. unsaved edits) and the dialog is open. Call page.accept_dialog() to leave "
            f"(then page.wait_for_url(...)) or page.dismiss_dialog() to stay, or {call}"
            'on_beforeunload="accept") to leave at once',
            url=url, dialog=dict(dialog),
        )
    await driver.dialogs.answer(True, background=host.background)
    await nav.after_beforeunload(driver, url, before, timeout_ms=max(1.0, timeout - (loop.time() - started) * 1000),
                                 wait_until=wait_until, api=api)
    current = driver.dialog
    receipt["dialog"] = dict(current) if current is not None else None
    return receipt


@op("Page.wait_for_load_state")
async def wait_for_load_state(host: Host, at: dict[str, Any], *, state: str, timeout: float, idle_ms: float,
                              stale: bool) -> None:
    ctx = await host.page_ctx(at)
    await nav.wait_for_load_state(ctx.driver, state, timeout_ms=timeout, idle_ms=idle_ms)
    if stale:  # wait_for_url's own load wait keeps refs of a document that did not change
        ctx.driver.stale_all_refs()


@op("Page.url")
async def url(host: Host, at: dict[str, Any]) -> str:
    ctx = await host.page_ctx(at)
    main = ctx.driver.frames.main
    if main is not None and main.url:
        return main.url
    url: str = (host.browser.targets.get(ctx.page.target_id or "") or {}).get("url", "")
    return url


@op("Page.title")
async def title(host: Host, at: dict[str, Any]) -> str:
    ctx = await host.page_ctx(at)
    if ctx.driver.dialog is None:
        try:
            res = await ctx.driver.session.send(
                "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, timeout=2.0
            )
            value = (res.get("result") or {}).get("value")
            if isinstance(value, str):
                return value
        except (EgoTimeout, CdpError):
            pass
    try:
        # the browser answers even while a dialog blocks the renderer
        assert host.browser.conn is not None
        res = await host.browser.conn.send("Target.getTargetInfo", {"targetId": ctx.page.target_id}, timeout=2.0)
        info = res.get("targetInfo") or {}
    except (EgoTimeout, CdpError):
        info = host.browser.targets.get(ctx.page.target_id or "") or {}
    title: str = info.get("title", "")
    return title


@op("Page.info")
async def info(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    from ...errors import InvalidState
    ctx = await host.page_ctx(at)
    if ctx.driver.dialog is not None:
        return {"dialog": dict(ctx.driver.dialog)}
    try:
        # a dialog opening meanwhile (a script alerting again) answers at once, not at 5 s
        res = await ctx.driver.dialogs.guard("page.info", ctx.driver.session.send(
            "Runtime.evaluate", {"expression": jsbundle.call("main", "page_info"), "returnByValue": True}, timeout=5.0
        ))
    except InvalidState:
        if ctx.driver.dialog is None:
            raise
    if ctx.driver.dialog is not None:
        return {"dialog": dict(ctx.driver.dialog)}
    return (res.get("result") or {}).get("value") or {}


@op("Page.evaluate", deadline=25.0)
async def evaluate(host: Host, at: dict[str, Any], *, js: str, arg: Any = None, has_arg: bool) -> Any:
    ctx = await host.page_ctx(at, activate=True)
    from ..features.consent_holds import race

    # a fetch the script awaits may be held for the person's yes: say so rather than wait
    return await race(host, ctx.space.id, ctx.driver.dialogs.guard(
        "page.evaluate", ev.evaluate(ctx.driver, js, arg, has_arg=has_arg)))


@op("Page.cdp")
async def page_cdp(host: Host, at: dict[str, Any], *, method: str, params: dict[str, Any] | None,
                   timeout: float) -> Any:
    from ..features import cdp_scope

    ctx = await host.page_ctx(at, activate=method != "Page.handleJavaScriptDialog")
    # the page's own session, and only what stays within this tab (or its space)
    scope = cdp_scope.scope_of(host, ctx.space, cdp_scope.PAGE, ctx.page.target_id)
    params = await cdp_scope.check(host, scope, method, params)
    ctx.driver.check_input()  # raw input too: the user may have taken over meanwhile
    try:
        if method in cdp_scope.BROWSER_SESSION:
            # the cookie jar of the space's own context (check() filled it in), never the shared one
            assert host.browser.conn is not None
            result = await host.browser.conn.send(method, params, timeout=timeout / 1000)
        else:
            result = await ctx.driver.session.send(method, params, timeout=timeout / 1000)
        return cdp_scope.filter_result(host, scope, method, result)
    finally:
        # raw CDP may have changed anything: no ref can be trusted afterwards
        ctx.driver.stale_all_refs()


@sync_op("Page.events")
def events(host: Host, at: dict[str, Any]) -> list[dict[str, Any]]:
    space = host.space_row(at.get("space"))
    page = host.page_row(space, str(at.get("label")))
    driver = host.drivers.get(page.target_id or "")
    if space.ownership != Ownership.AGENT:
        # what happens on a held page is the person's doing: dropped, never the agent's to read
        if driver is not None:
            driver.take_events()
        host.gate(space)
    return driver.take_events() if driver is not None else []


@op("page.gate")
async def gate(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    """Label check without touching the tab (``wait_for_timeout`` on a closed page raises).
    Rounds of earlier releases send it as ``page.check`` (now ``Page.check``, the checkbox
    action, which hands a request without a selector here)."""
    space = host.space_row(at.get("space"))
    row = host.page_row(space, str(at.get("label")))
    return {"label": row.label, "target_id": row.target_id, "opened_by": row.opened_by}


@op("Page.close")
async def close(host: Host, at: dict[str, Any]) -> None:
    space = host.space_row(at.get("space"))
    host.gate(space)
    row = host.page_row(space, str(at.get("label")))
    store = host.store
    assert store is not None and host.browser.conn is not None
    others = [
        r for r in store.pages(space.id)
        if r.state in (OPEN, UNMANAGED) and r.target_id != row.target_id and host.browser.is_live_page(r.target_id)
    ]
    if not others:
        # keep the space's window: its last tab becomes an unmanaged blank one
        tid = await create_tab(host, space, context_id=space.context_id, new_window=False)
        try:
            store.add_page(space.id, "#" + tid, tid, OpenedBy.UNKNOWN, state=UNMANAGED)
        except StateStoreUnwritable:
            await close_target(host, tid)  # no tab that no space lists; the page stays open
            raise
    gone = asyncio.get_running_loop().create_future()

    def destroyed(target_id: str) -> None:
        if target_id == row.target_id and not gone.done():
            gone.set_result(None)

    host.browser.on_target_destroyed.append(destroyed)
    try:
        try:
            await host.browser.conn.send("Target.closeTarget", {"targetId": row.target_id}, timeout=5.0)
        except CdpError:
            pass  # already gone
        if host.browser.is_live_page(row.target_id):
            try:
                await asyncio.wait_for(gone, 2.0)
            except asyncio.TimeoutError:
                pass
    finally:
        host.browser.on_target_destroyed.remove(destroyed)
    store.retire_page(space.id, row.label, CLOSED)
    host._forget_driver(row.target_id)
    host.browser.targets.pop(row.target_id or "", None)
    if host.active.get(space.id) == row.target_id:
        host.active.pop(space.id, None)
