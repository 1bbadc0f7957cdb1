"""Waits that need the page: URLs, selectors, functions and popups.

URL matchers (globs, regexes, callables) live in the round, so ``page.url_watch`` only
reports: the main frame's committed URLs after a version the round already saw, and the URLs
of the popups this Page opened. The round matches them and asks again with the new version
(each call waits, event-driven, for the next change).

``wait_for_function`` polls inside the page (one in-page promise, ``setTimeout`` between
attempts), so the only round trips are the evaluation itself and a retry after navigation.
``wait_for_selector`` re-queries on each DOM mutation (the selector engine's
``nextMutation``) or frame change, with a bounded wait in between for CSS-only changes.

Popup waiters are armed synchronously (``page.arm_popup`` returns a token at call time) and
``page.wait_popup`` resolves with the first popup of that Page adopted after the token.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from .. import jsbundle
from ..cdp.errors import ContextDestroyed, error_type_in
from ..driver import evaluate as ev
from ..driver.page import PageDriver
from ..errors import (
    CdpChannelUnavailable,
    EgoTimeout,
    HostDisconnected,
    InvalidArgument,
)
from .core import Host
from ..driver.dialogs import dialog_open_error
from .ops import op, sync_op
from .store import OPEN
from .page_site import PageSite

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
    from ..driver import navigation

    ctx = await host.page_ctx(at, gated=False)
    return navigation.tracker(ctx.driver).seq


@op("page.wait_navigation")
async def wait_navigation(host: Host, at: dict[str, Any], *, after: int, wait_until: str,
                          timeout: float) -> dict[str, Any]:
    """Wait for a main-frame navigation after ``after`` to commit, then for ``wait_until``."""
    from ..driver import navigation
    from ..errors import NavigationFailed

    api = "page.expect_navigation"
    ctx = await host.page_ctx(at)
    driver = ctx.driver
    tracker = navigation.tracker(driver)
    timeout_ms = timeout
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    try:
        await driver.wait_until(lambda: tracker.seq > after, timeout=timeout_ms / 1000)
        await tracker.wait_idle(after, max(0.0, deadline - loop.time()))
    except TimeoutError:
        raise EgoTimeout(
            f"{api} timed out after {round(timeout_ms)}ms: "
            + ("no navigation started" if tracker.seq <= after else f"the navigation to {tracker.pending and tracker.pending['url']} did not commit"),
            api=api, timeout_ms=round(timeout_ms),
        ) from None
    last = tracker.last or {}
    if not last.get("committed"):
        raise NavigationFailed(f"{api}: the navigation to {last.get('url')} ended without a new document "
                               f"({last.get('error') or 'cancelled'})", url=last.get("url"), error_text=last.get("error"))
    if wait_until != "commit":
        try:
            await navigation._wait_state(driver, wait_until, deadline, 500, None)
        except TimeoutError:
            raise EgoTimeout(f"{api} timed out after {round(timeout_ms)}ms waiting for {wait_until} of {last.get('url')}",
                             api=api, timeout_ms=round(timeout_ms)) from None
    driver.stale_all_refs()
    main = driver.frames.main
    return {"url": main.url if main is not None else last.get("url"), "seq": last.get("seq", tracker.seq)}


# -- wait_for_selector ------------------------------------------------------------------------

#: longest pause between two checks when no mutation or frame change happened (CSS-only
#: visibility changes produce no mutation)
_RECHECK = 0.25


async def _selector_state(driver: PageDriver, selector: Any) -> tuple[int, bool]:
    from ..selectors import engine

    res = await engine.resolve(driver.locate.engine_frames(), selector, limit=2, describe=True, backend_ids=False, timeout=5.0)
    try:
        visible = bool(res.matches and res.matches[0].info.get("visible"))
    finally:
        await engine._release_matches(res.matches)
    return res.total, visible


@op("Page.wait_for_selector")
async def wait_for_selector(host: Host, at: dict[str, Any], *, selector: str, state: str, timeout: float) -> bool:
    from ..selectors import engine
    from ..selectors.parse import RefSelector, parse_selector

    api = "page.wait_for_selector"
    ctx = await host.page_ctx(at)
    driver = ctx.driver
    source = selector
    timeout_ms = timeout
    parsed = parse_selector(source)
    if isinstance(parsed, RefSelector):
        raise InvalidArgument(
            f"{api}: a ref ({source}) already names one element; wait with a selector (css, text=, loc=...) instead",
            api=api, option="selector", expected="a selector, not a ref",
        )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    last = "no element matched"

    async def attempt() -> bool:
        nonlocal last
        total, visible = await _selector_state(driver, parsed)
        if total > 1 and state in ("attached", "visible"):
            raise await driver.locate.ambiguous_selector(
                PageSite(host, ctx), api, parsed, total,
                hint="make it match one (e.g. add >> nth=0); these refs name one each")
        last = f"{total} element(s) matched" + (", visible" if visible else ", not visible" if total else "")
        return {
            "attached": total >= 1,
            "detached": total == 0,
            "visible": total >= 1 and visible,
            "hidden": total == 0 or not visible,
        }[state]

    while True:
        if driver.dialog is not None:
            raise dialog_open_error(api, driver.dialog)
        try:
            if await driver.dialogs.guard(api, attempt()):
                return True
        except CdpChannelUnavailable:
            if driver.closed:
                raise
        except ContextDestroyed:
            pass  # a frame's document was replaced while we read it: look again at the next change
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise EgoTimeout(
                f"{api} timed out after {round(timeout_ms)}ms waiting for {source} to be {state} ({last})",
                api=api, timeout_ms=round(timeout_ms),
            )
        frames = driver.locate.engine_frames().frames()
        changed = driver.changed()
        waits: set[asyncio.Future[Any]] = {changed}
        if frames and frames[0].is_main:
            waits.add(asyncio.ensure_future(
                engine.wait_for_dom_change(frames[0], min(remaining, _RECHECK) * 1000)
            ))
        try:
            await asyncio.wait(waits, timeout=min(remaining, _RECHECK + 1), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
            await asyncio.gather(*waits, return_exceptions=True)


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
    api = "page.wait_for_function"
    ctx = await host.page_ctx(at, activate=True)
    driver = ctx.driver
    timeout_ms = timeout
    body = ev.build_expression(js, arg, api=api, has_arg=has_arg)
    fn = jsbundle.Raw(f"async () => ({body})")
    before = {p["label"] for p in popup_rows(host, ctx.space.id, ctx.page.label)}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000

    async def run(remaining: float) -> Any:
        expression = jsbundle.call("main", "poll_until", fn, max(0, int(remaining * 1000) - 5), int(polling))
        return await driver.session.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True, "userGesture": False},
            timeout=remaining,
        )

    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        try:
            res = await driver.dialogs.guard(api, run(remaining))
        except EgoTimeout:
            break
        except ContextDestroyed:  # also a pending awaitPromise when the document goes (NavigatedAway)
            await _wait_new_context(driver, deadline)
            continue
        details = res.get("exceptionDetails")
        if details is not None:
            text = ((details.get("exception") or {}).get("description") or details.get("text") or "")
            if issubclass(error_type_in(text), ContextDestroyed):
                await _wait_new_context(driver, deadline)
                continue
            raise ev.script_error(details, api=api)
        if (res.get("result") or {}).get("value") is True:
            return True
        break
    raise EgoTimeout(
        await _timeout_message(host, driver, ctx.space.id, ctx.page.label, before, timeout_ms),
        api=api, timeout_ms=round(timeout_ms),
    )


async def _wait_new_context(driver: PageDriver, deadline: float) -> None:
    """After a navigation destroyed the context: wait until the new document has one."""
    loop = asyncio.get_running_loop()
    try:
        await driver.wait_until(
            lambda: (m := driver.frames.main) is not None and "DOMContentLoaded" in m.lifecycle,
            timeout=max(0.0, deadline - loop.time()),
        )
    except TimeoutError:
        pass


# -- popups -----------------------------------------------------------------------------------


class PopupLog:
    """Popups the browser opened, in order, for ``page.wait_popup`` (one per host)."""

    def __init__(self, host: Host) -> None:
        self.seq = itertools.count(1)
        self.last = 0
        #: (seq, opener target id, popup target id)
        self.entries: list[tuple[int, str, str]] = []
        self.changed = asyncio.Event()
        self.stopped = False
        self.off = host.watch_popups(self._popup)

    def on_driver(self, driver: PageDriver) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True
        self.off()
        self.changed.set()

    def _popup(self, info: dict[str, Any]) -> None:
        self.last = next(self.seq)
        self.entries.append((self.last, info.get("openerId") or "", info["targetId"]))
        del self.entries[:-256]
        self.changed.set()


@sync_op("page.arm_popup")
def arm_popup(host: Host, at: dict[str, Any]) -> int:
    space = host.space_row(at.get("space"))
    host.page_row(space, str(at.get("label")))
    return host.features.popups.last


@op("page.wait_popup")
async def wait_popup(host: Host, at: dict[str, Any], *, token: int, timeout: float) -> dict[str, Any]:
    api = "page.wait_for_event"
    ctx = await host.page_ctx(at, gated=False)
    log = host.features.popups
    timeout_ms = timeout
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
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
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise EgoTimeout(
                f'{api}("popup") timed out after {round(timeout_ms)}ms', api=api, timeout_ms=round(timeout_ms)
            )
        log.changed.clear()
        try:
            await asyncio.wait_for(log.changed.wait(), remaining)
        except asyncio.TimeoutError:
            pass


class NavigationTracking:
    """Follows each page's navigations from the moment it is attached (actions and waits use it)."""

    def on_driver(self, driver: PageDriver) -> None:
        from ..driver import navigation

        navigation.tracker(driver)

    def stop(self) -> None:
        pass
