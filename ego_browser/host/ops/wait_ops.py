"""Waits that need the host: URLs (with the popups' URLs), popups; and the declarations of the
page's own waits (``driver/waits.py``: a navigation, a selector's state, a function's truth).

URL matchers (globs, regexes, callables) live in the round, so ``page.url_watch`` only
reports: the main frame's committed URLs after a version the round already saw, and the URLs
of the popups this Page opened. The round matches them and asks again with the new version
(each call waits, event-driven, for the next change).

Popup waiters are armed synchronously (``page.arm_popup`` returns a token at call time) and
``page.wait_popup`` resolves with the first popup of that Page adopted after the token.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ...driver import settle, waits
from ...driver.page import PageDriver
from ...errors import CdpChannelUnavailable, EgoTimeout, HostDisconnected
from ..core.host import Host
from ..core.dispatch import op, sync_op
from ..core.page_ctx import PageCtx
from ..core.page_site import PageSite
from ..core.store import OPEN

__all__ = ["popup_rows"]



# -- URLs -------------------------------------------------------------------------------------


def popup_rows(host: Host, space_id: int, label: str) -> list[dict[str, Any]]:
    """Open popups this Page opened, with their current URL."""
    assert host.store is not None
    out = []
    for row in host.store.pages(space_id):
        if row.opener == label and row.state == OPEN and host.browser.is_live_page(row.target_id):
            info = host.browser.targets.get(row.target_id or "") or {}
            out.append({"label": row.label, "url": info.get("url") or ""})
    return out


def _targets_changed(host: Host) -> asyncio.Future[None]:
    """A future resolved at the next target creation or change (popup URLs)."""
    fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    browser = host.browser

    def fire(_info: Any) -> None:
        if not fut.done():
            fut.set_result(None)

    browser.on_target_created.append(fire)
    browser.on_target_changed.append(fire)

    def cleanup(_f: Any) -> None:
        for lst in (browser.on_target_created, browser.on_target_changed):
            if fire in lst:
                lst.remove(fire)

    fut.add_done_callback(cleanup)
    return fut


@op("page.url_watch")
async def url_watch(host: Host, at: dict[str, Any], *, after: int | None, known_popups: list[Any] | None,
                    timeout: float) -> dict[str, Any]:
    """``{version, urls, popups, timed_out}``: main-frame URLs committed after ``after``.

    Without ``after`` it answers at once with the current URL. Otherwise it waits until a
    newer URL commits, a popup's URL set differs from ``known_popups``, or ``timeout`` ms pass.
    """
    ctx = await host.page_ctx(at)
    driver = ctx.driver
    known = [tuple(p) for p in known_popups or []]

    def target_url() -> str:
        # the browser's own record: current even when this tab was attached mid-navigation
        url: str = (host.browser.targets.get(driver.target_id) or {}).get("url", "")
        return url

    start_target_url = target_url()

    def snapshot(timed_out: bool = False) -> dict[str, Any]:
        main = driver.frames.main
        if after is None:
            urls = [main.url if main and main.url else target_url()]
        else:
            urls = [u for v, u in driver.url_log if v > after]
            if not urls and target_url() != start_target_url:
                urls = [target_url()]
        return {
            "version": driver.url_version,
            "urls": urls,
            "popups": popup_rows(host, ctx.space.id, ctx.page.label),
            "timed_out": timed_out,
        }

    if after is None:
        return snapshot()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout / 1000
    while True:
        popups = popup_rows(host, ctx.space.id, ctx.page.label)
        if (
            driver.url_version > after
            or target_url() != start_target_url
            or [(p["label"], p["url"]) for p in popups] != known
        ):
            return snapshot()
        remaining = deadline - loop.time()
        if remaining <= 0:
            return snapshot(timed_out=True)
        if driver.closed:
            raise CdpChannelUnavailable("the page was closed while waiting for its URL", method=None)
        changed, targets = driver.changed(), _targets_changed(host)
        try:
            await asyncio.wait({changed, targets}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        finally:
            changed.cancel()
            targets.cancel()


# -- expect_navigation ----------------------------------------------------------------------


@op("page.nav_mark")
async def nav_mark(host: Host, at: dict[str, Any]) -> int:
    """The page's navigation counter now: ``page.wait_navigation`` waits for one after it."""
    from ...driver import navigation

    ctx = await host.page_ctx(at, gated=False)
    return navigation.tracker(ctx.driver).seq


@op("page.wait_navigation")
async def wait_navigation(host: Host, at: dict[str, Any], *, after: int, wait_until: str,
                          timeout: float) -> dict[str, Any]:
    ctx = await host.page_ctx(at)
    return await waits.wait_navigation(ctx.driver, after=after, wait_until=wait_until, timeout=timeout)


# -- wait_for_selector ------------------------------------------------------------------------

@op("Page.wait_for_selector")
async def wait_for_selector(host: Host, at: dict[str, Any], *, selector: str, state: str, timeout: float,
                            strict: bool = False) -> bool:
    ctx = await host.page_ctx(at)
    return await waits.wait_for_selector(ctx.driver, PageSite(host, ctx), selector=selector, state=state,
                                         timeout=timeout, strict=strict)


# -- wait_for_settled -------------------------------------------------------------------------

@op("Page.wait_for_settled")
async def wait_for_settled(host: Host, at: dict[str, Any], *, quiet_ms: float, timeout: float) -> dict[str, Any]:
    ctx = await host.page_ctx(at)
    return await settle.wait_for_settled(ctx.driver, quiet_ms=quiet_ms, timeout=timeout)


# -- wait_for_function ------------------------------------------------------------------------



async def _timeout_message(host: Host, driver: PageDriver, space_id: int, label: str, before: set[str],
                           timeout_ms: float) -> str:
    main = driver.frames.main
    url = main.url if main else ""
    title = (host.browser.targets.get(driver.target_id) or {}).get("title", "")
    msg = f"page.wait_for_function timed out after {round(timeout_ms)}ms (last URL {url}, title {title!r})"
    new = [p for p in popup_rows(host, space_id, label) if p["label"] not in before]
    if new:
        msg += "; this page opened " + ", ".join(f'task.page("{p["label"]}") at {p["url"]}' for p in new)
        msg += ": the content may be there"
    return msg


@op("Page.wait_for_function")
async def wait_for_function(host: Host, at: dict[str, Any], *, js: str, arg: Any = None, has_arg: bool,
                            timeout: float, polling: float) -> bool:
    ctx = await host.page_ctx(at, activate=True)
    before = {p["label"] for p in popup_rows(host, ctx.space.id, ctx.page.label)}

    async def timed_out(timeout_ms: float) -> str:
        return await _timeout_message(host, ctx.driver, ctx.space.id, ctx.page.label, before, timeout_ms)

    return await waits.wait_for_function(ctx.driver, js=js, arg=arg, has_arg=has_arg, timeout=timeout,
                                         polling=polling, timed_out=timed_out)


# -- popups -----------------------------------------------------------------------------------


@sync_op("page.arm_popup")
def arm_popup(host: Host, at: dict[str, Any]) -> int:
    space = host.space_row(at.get("space"))
    host.page_row(space, str(at.get("label")))
    return host.features.popups.last


@op("page.wait_popup")
async def wait_popup(host: Host, at: dict[str, Any], *, token: int, timeout: float) -> dict[str, Any]:
    ctx = await host.page_ctx(at, gated=False)
    deadline = asyncio.get_running_loop().time() + timeout / 1000
    with host.admission.clock(ctx.space.id) as queued:  # the click that opens it may wait its turn
        return await _popup(host, ctx, token, timeout, lambda: queued.remaining(deadline))


async def _popup(host: Host, ctx: PageCtx, token: int, timeout_ms: float,
                 remaining_time: Callable[[], float]) -> dict[str, Any]:
    api = "page.wait_for_event"
    log = host.features.popups
    assert host.store is not None
    while True:
        if log.stopped:
            raise HostDisconnected(f"the ego_browser host stopped while {api}(\"popup\") was waiting", api=api)
        openers = ctx.driver.sessions_target_ids() if not ctx.driver.closed else {ctx.page.target_id}
        for seq, opener, target in log.entries:
            if seq > token and opener in openers:
                for row in host.store.pages(ctx.space.id):
                    if row.target_id == target:
                        return {"label": row.label, "target_id": target, "opened_by": row.opened_by}
        remaining = remaining_time()
        if remaining <= 0:
            raise EgoTimeout(
                f'{api}("popup") timed out after {round(timeout_ms)}ms', api=api, timeout_ms=round(timeout_ms)
            )
        log.changed.clear()
        try:
            await asyncio.wait_for(log.changed.wait(), remaining)
        except asyncio.TimeoutError:
            pass
