"""Waiting for a page to settle: loaded, then the DOM and the network quiet for a moment.

A single-page app draws seconds after ``load`` and redraws after server round trips with no
navigation; an agent that looks at once sees a half-drawn page and looks again (issue 29: most
of the wall time of the SPA tasks). ``wait_for_settled`` ends that guessing: it returns once
the document has loaded, no request of the page has been in flight for ``quiet_ms`` and the
DOM has not changed for ``quiet_ms`` (the selector engine's change clock, which starts with
the utility world: at document start when preloaded), or at the deadline with what was still
busy. Network quiet is read from the driver's own in-flight table; a request in flight longer
than ``LONG_REQUEST`` (an EventSource, a long poll) does not hold the wait, or a page with one
would never settle. ``busy_note`` words the same signals for the snapshot header.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any

from ..selectors import engine
from . import navigation
from .dialogs import dialog_open_error
from .page import PageDriver

__all__ = ["wait_for_settled", "busy_note", "LONG_REQUEST"]

#: seconds after which a request still in flight no longer counts as activity
LONG_REQUEST = 5.0
#: the snapshot header's "changing": the DOM changed this close to the snapshot, in a run of
#: changes (gaps under 100 ms) at least STILL_DRAWING_MS long. One action's own effect is a
#: short run and says nothing: the header would send every agent to wait after every click
RECENT_MS = 1000.0
STILL_DRAWING_MS = 300.0


#: per page, when each request in flight started (or was first noticed, for one already in
#: flight when the page was first asked): what tells a long-lived request from a fresh one
_STARTED: weakref.WeakKeyDictionary[PageDriver, dict[str, float]] = weakref.WeakKeyDictionary()


def _started(driver: PageDriver) -> dict[str, float]:
    found = _STARTED.get(driver)
    if found is None:
        found = _STARTED[driver] = {}
        table = found

        def begin(params: dict[str, Any], _sid: str | None) -> None:
            table.setdefault(params.get("requestId", ""), time.monotonic())

        off = driver.session.on("Network.requestWillBeSent", begin)
        driver.on_close.append(off)
    return found


#: per page, when each fetch/XHR in flight got its last body bytes: a page that never
#: reads a response's body (``await fetch(url)`` and no ``.text()``) leaves it "loading" in the
#: protocol, with nothing left to come
_ANSWERED: weakref.WeakKeyDictionary[PageDriver, dict[str, float]] = weakref.WeakKeyDictionary()


def _answered(driver: PageDriver) -> dict[str, float]:
    found = _ANSWERED.get(driver)
    if found is None:
        found = _ANSWERED[driver] = {}
        table = found

        def answered(params: dict[str, Any], _sid: str | None) -> None:
            if params.get("type") in ("Fetch", "XHR"):
                table[params.get("requestId", "")] = 0.0  # its headers: no body bytes yet

        def data(params: dict[str, Any], _sid: str | None) -> None:
            # its body's bytes arrived (a response whose body is held back stays busy)
            if params.get("requestId") in table:
                table[params["requestId"]] = time.monotonic()

        for event, fn in (("Network.responseReceived", answered), ("Network.dataReceived", data)):
            driver.on_close.append(driver.session.on(event, fn))
    return found


def _network_quiet_ms(driver: PageDriver, seen: dict[str, float],
                      quiet_ms: float = 500.0) -> tuple[float, list[str]]:
    """(ms the network has been quiet, the short-lived requests in flight); ``seen`` keeps
    when each in-flight request started or was first noticed. A fetch/XHR whose answer came and
    that received nothing for ``quiet_ms`` is done, whether or not the page read its body."""
    now = time.monotonic()
    answered = _answered(driver)
    for table in (seen, answered):
        for key in list(table):
            if key not in driver.inflight:
                del table[key]
    for key in driver.inflight:
        seen.setdefault(key, now)
    idle = {k for k, t in answered.items() if t and (now - t) * 1000 >= quiet_ms}
    busy = [driver.inflight[k][1] for k in driver.inflight if now - seen[k] < LONG_REQUEST and k not in idle]
    if busy:
        return 0.0, busy
    last = max([driver.last_network_activity, *answered.values()])
    return (now - last) * 1000, []


def _top(driver: PageDriver) -> Any:
    frames = driver.locate.engine_frames().frames()
    return frames[0] if frames and frames[0].is_main else None


async def wait_for_settled(driver: PageDriver, *, quiet_ms: float, timeout: float) -> dict[str, Any]:
    """Wait until the page is loaded and its DOM and network have been quiet for ``quiet_ms``;
    at most ``timeout`` ms. ``{settled, waited_ms, busy}``: ``busy`` says what was still going
    on when the deadline came (None when settled)."""
    api = "page.wait_for_settled"
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + timeout / 1000
    seen = _started(driver)

    def result(settled: bool, busy: str | None = None) -> dict[str, Any]:
        return {"settled": settled, "waited_ms": round((loop.time() - start) * 1000), "busy": busy}

    while True:
        if driver.crashed:  # a crashed renderer answers nothing: fail now, not at the deadline
            raise driver.crash_error(api)
        if driver.dialog is not None:
            raise dialog_open_error(api, driver.dialog)
        nav = navigation.tracker(driver)
        try:
            if not nav.settled():
                await nav.wait_idle(-1, max(0.0, deadline - loop.time()))
            await navigation._wait_state(driver, "load", deadline, 500, None)
        except TimeoutError:
            return result(False, "the document is still loading")
        # the network first: it is read here, with no round trip
        while True:
            quiet, busy = _network_quiet_ms(driver, seen, quiet_ms)
            if quiet >= quiet_ms:
                break
            remaining = deadline - loop.time()
            if remaining <= 0:
                return result(False, f"network: {len(busy)} request(s) in flight ({busy[0]})" if busy
                              else "network: a request ended a moment ago")
            now = time.monotonic()
            # until the quiet time is up, a request ends or starts, or a long one stops counting
            # (or an answered request has had nothing more for quiet_ms)
            wait = min([remaining, (quiet_ms - quiet) / 1000 if not busy else remaining]
                       + [t for k in driver.inflight if k in seen and (t := seen[k] + LONG_REQUEST - now) > 0]
                       + [t for t0 in _answered(driver).values() if t0 and (t := t0 + quiet_ms / 1000 - now) > 0])
            fut = driver.changed()
            try:
                await asyncio.wait_for(asyncio.shield(fut), max(0.0, wait) + 0.001)
            except asyncio.TimeoutError:
                fut.cancel()
        top = _top(driver)
        if top is None:
            return result(False, "the page has no document")
        marked = driver.last_network_activity
        remaining_ms = max(0.0, (deadline - loop.time()) * 1000)
        if not await driver.dialogs.guard(api, engine.dom_quiet(top, quiet_ms, remaining_ms)):
            if driver.dialog is not None:
                raise dialog_open_error(api, driver.dialog)
            return result(False, "the DOM kept changing")
        quiet, busy = _network_quiet_ms(driver, seen, quiet_ms)
        if driver.last_network_activity == marked and not busy:
            return result(True)
        # a request started or ended while the DOM was quiet: its answer may redraw the page


async def busy_note(driver: PageDriver) -> str | None:
    """A few words when the document is still changing (a request of the page in flight, or
    the DOM changing after its load for a while and until ``RECENT_MS`` ago), else None; for
    the snapshot header."""
    _quiet, busy = _network_quiet_ms(driver, _started(driver))
    if busy:
        return f"{len(busy)} request(s) in flight"
    top = _top(driver)
    if top is None or driver.dialog is not None:
        return None
    found = await engine.since_change(top, timeout=1.0)
    if found is not None and found[0] < RECENT_MS and found[1] >= STILL_DRAWING_MS:
        return f"DOM changing for {round(found[1] / 1000, 1)}s"
    return None
