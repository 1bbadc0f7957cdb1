"""Waits on one page: a navigation, a selector's state, a function's truth.

``wait_for_function`` polls inside the page (one in-page promise, ``setTimeout`` between
attempts), so the only round trips are the evaluation itself and a retry after navigation.
``wait_for_selector`` re-queries on each DOM mutation (the selector engine's
``nextMutation``) or frame change, with a bounded wait in between for CSS-only changes; the
wait is armed before each look (``ChangeWatch``), so a change during a look is not missed.
What needs the host (the ref ledger for an ambiguity listing, the popups a timeout names)
comes in as a ``RefBook`` or a callable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from .. import jsbundle
from ..cdp.errors import ContextDestroyed, error_type_in
from ..errors import CdpChannelUnavailable, EgoTimeout, InvalidArgument, NavigationFailed
from ..selectors import engine
from ..selectors.parse import RefSelector, parse_selector
from . import evaluate as ev
from . import navigation
from .dialogs import dialog_open_error
from .page import PageDriver
from .sites import RefBook

__all__ = ["wait_navigation", "wait_for_selector", "wait_for_function", "arm_change", "ChangeWatch"]


async def wait_navigation(driver: PageDriver, *, after: int, wait_until: str, timeout: float) -> dict[str, Any]:
    """Wait for a main-frame navigation after ``after`` to commit, then for ``wait_until``."""
    api = "page.expect_navigation"
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



#: longest pause between two checks when no mutation or frame change happened (CSS-only
#: visibility changes produce no mutation)
_RECHECK = 0.25


async def wait_for_selector(driver: PageDriver, refs: RefBook, *, selector: str, state: str,
                            timeout: float, strict: bool = False) -> bool:
    """Wait until ``selector`` is ``state`` (attached, detached, visible, hidden) in any frame.

    As Playwright's ``page.wait_for_selector``, not strict unless asked: an SPA's natural wait
    ("the file name shows") matches the list row, the tab and the title at once, and the state
    is the first match's. ``strict`` fails with ``SelectorAmbiguous`` on several matches."""
    api = "page.wait_for_selector"
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
        total, visible = await engine.selector_state(driver.locate.engine_frames(), parsed, timeout=5.0)
        if strict and total > 1 and state in ("attached", "visible"):
            raise await driver.locate.ambiguous_selector(
                refs, api, parsed, total,
                hint="make it match one (e.g. add >> nth=0), or leave strict off; these refs name one each")
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
        # armed before the look, so that a change during the look ends the pause after it
        watch = await arm_change(driver, min(max(0.0, deadline - loop.time()), _RECHECK), api)
        try:
            try:
                if await driver.dialogs.guard(api, attempt()):
                    return True
            except CdpChannelUnavailable:
                if driver.closed:
                    raise
            except ContextDestroyed:
                pass  # a frame's document was replaced while we read it: look again at the next change
            if deadline - loop.time() <= 0:
                raise EgoTimeout(
                    f"{api} timed out after {round(timeout_ms)}ms waiting for {source} to be {state} ({last})",
                    api=api, timeout_ms=round(timeout_ms),
                )
            await watch.wait()
        finally:
            await watch.cancel()


class ChangeWatch:
    """A wait for the page's next change, armed before a look at the page (``arm_change``).

    Armed first, it sees a change made while the look is under way: armed after a look that
    found nothing, it would miss an element added between the look and the arming, and wait
    for its pause to end (an autocomplete's options, a fetch's result)."""

    def __init__(self, driver: PageDriver, seconds: float, api: str | None, top: Any) -> None:
        self._driver, self._api = driver, api
        self._deadline = asyncio.get_running_loop().time() + seconds
        self._waits: set[asyncio.Future[Any]] = {driver.changed()}
        if top is not None:
            self._waits.add(asyncio.ensure_future(engine.wait_for_dom_change(top, seconds * 1000)))

    async def wait(self) -> None:
        """Until the first change since arming, or the pause's end. ``PageCrashed`` if the
        renderer has crashed by then: a crashed renderer answers nothing, so the next look
        would only run into its own deadline."""
        try:
            left = self._deadline - asyncio.get_running_loop().time()
            # the page's own timer ends the DOM wait at the pause's end; the slack only bounds it
            await asyncio.wait(self._waits, timeout=max(0.0, left) + 1, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await self.cancel()
        if self._driver.crashed:
            raise self._driver.crash_error(self._api)

    async def cancel(self) -> None:
        """Stop waiting (the look found what it wanted, or failed for good)."""
        for w in self._waits:
            w.cancel()
        await asyncio.gather(*self._waits, return_exceptions=True)


async def arm_change(driver: PageDriver, seconds: float, api: str | None = None) -> ChangeWatch:
    """Arm a ``ChangeWatch`` of at most ``seconds`` before the next look at the page.

    On return the in-page observer's request is on the wire (the top frame's utility world is
    made first if need be): CDP runs one session's commands in order, so the observer is in
    place before a look sent after it. ``PageCrashed`` at once if the renderer
    has crashed."""
    if driver.crashed:
        raise driver.crash_error(api)
    frames = driver.locate.engine_frames().frames()
    top = frames[0] if frames and frames[0].is_main else None
    if top is not None and driver.dialog is None:
        # a world still to be made would hold the DOM wait's request back behind its own
        # round trips, and the look could overtake it: made first, the request goes at once
        await engine.engine_ready(top, timeout=min(5.0, seconds + 0.5))
    watch = ChangeWatch(driver, seconds, api, top)
    await asyncio.sleep(0)  # let the DOM wait's task write its request
    return watch


async def wait_for_function(driver: PageDriver, *, js: str, arg: Any, has_arg: bool, timeout: float,
                            polling: float, timed_out: Callable[[float], Awaitable[str]]) -> bool:
    """Poll ``js`` in the page until it returns true; ``timed_out(timeout_ms)`` words the
    timeout (the host names the popups the page opened meanwhile)."""
    api = "page.wait_for_function"
    timeout_ms = timeout
    body = ev.build_expression(js, arg, api=api, has_arg=has_arg)
    fn = jsbundle.Raw(f"async () => ({body})")
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
    raise EgoTimeout(await timed_out(timeout_ms), api=api, timeout_ms=round(timeout_ms))


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
