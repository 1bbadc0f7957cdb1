"""Navigation and load states, driven by lifecycle and network events (no polling)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..cdp.errors import InvalidReferrer, InvalidUrl
from ..errors import CdpError, EgoError, EgoTimeout, InvalidArgument, NavigationFailed, NavigationTimeout
from .outcomes import drop_outcome
from .page import PageDriver

__all__ = ["goto", "after_beforeunload", "reload", "wait_for_load_state", "LOAD_STATES", "network_idle", "NavTracker", "tracker",
           "settle_after_action"]

LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")
_LIFECYCLE = {"domcontentloaded": "DOMContentLoaded", "load": "load"}


#: how long an action waits for a navigation it started to commit (as goto's default)
COMMIT_TIMEOUT = 15.0
#: navigation types of ``Page.frameStartedNavigating`` that keep the document
_SAME_DOCUMENT = ("sameDocument", "historySameDocument")
#: seconds after which a requested navigation that never began loading counts as dropped
_NEVER_STARTED = 2.0


class NavTracker:
    """The main frame's navigations as the browser announces them: requested, started, ended.

    ``seq`` counts navigations; ``pending`` is the one not yet committed or abandoned. An
    action compares ``seq`` before and after itself to know whether it started one, and waits
    until that one has committed (``Page.frameNavigated``) or was abandoned (the load stopped
    without a new document: 204, a download, an error) - as Playwright's actions do.
    """

    def __init__(self, driver: PageDriver) -> None:
        self.driver = driver
        self.seq = 0
        self.pending: dict[str, Any] | None = None
        #: the last navigation that ended: {seq, url, committed, error}
        self.last: dict[str, Any] | None = None
        on = driver.session.on
        offs = [
            on("Page.frameRequestedNavigation", self._requested),
            on("Page.frameStartedNavigating", self._started),
            on("Network.requestWillBeSent", self._request),
            on("Page.frameNavigated", self._navigated),
            on("Page.navigatedWithinDocument", self._within_document),
            on("Page.frameStoppedLoading", self._stopped),
            on("Network.loadingFailed", self._failed),
            on("Page.downloadWillBegin", self._download),
        ]
        driver.on_close.append(lambda: [off() for off in offs])

    def _is_main(self, frame_id: str | None) -> bool:
        return frame_id is not None and frame_id == self.driver.frames.main_frame_id

    def _begin(self, url: str, loader_id: str | None) -> None:
        self.seq += 1
        self.pending = {"seq": self.seq, "url": url, "loader_id": loader_id, "request_id": None,
                        "at": time.monotonic()}
        self.driver._bump()

    def _end(self, *, committed: bool, url: str | None = None, error: str | None = None) -> None:
        pending, self.pending = self.pending, None
        if pending is None:
            return
        self.last = {"seq": pending["seq"], "url": url or pending["url"], "committed": committed, "error": error}
        self.driver._bump()

    def _requested(self, p: dict[str, Any], _sid: str | None) -> None:
        if self._is_main(p.get("frameId")) and p.get("disposition", "currentTab") == "currentTab":
            self._begin(p.get("url", ""), None)

    def _started(self, p: dict[str, Any], _sid: str | None) -> None:
        if not self._is_main(p.get("frameId")) or p.get("navigationType") in _SAME_DOCUMENT:
            return
        pending = self.pending
        if pending is not None and pending["loader_id"] is None:
            pending["loader_id"] = p.get("loaderId")
            pending["url"] = p.get("url") or pending["url"]
        elif pending is None or pending["loader_id"] != p.get("loaderId"):
            self._begin(p.get("url", ""), p.get("loaderId"))

    def _request(self, p: dict[str, Any], _sid: str | None) -> None:
        if p.get("type") != "Document" or not self._is_main(p.get("frameId")):
            return
        pending = self.pending
        if pending is None:
            # a Chromium without frameStartedNavigating: the document request says it
            if p.get("loaderId") != (self.driver.frames.main.loader_id if self.driver.frames.main else None):
                self._begin(p.get("request", {}).get("url", ""), p.get("loaderId"))
                assert self.pending is not None  # _begin set it
                self.pending["request_id"] = p.get("requestId")
            return
        if pending["loader_id"] in (None, p.get("loaderId")):
            pending["loader_id"] = p.get("loaderId")
            pending["request_id"] = p.get("requestId")

    def _navigated(self, p: dict[str, Any], _sid: str | None) -> None:
        frame = p.get("frame") or {}
        if frame.get("parentId") is None and self._is_main(frame.get("id")):
            self._end(committed=True, url=frame.get("url"))

    def _within_document(self, p: dict[str, Any], _sid: str | None) -> None:
        if self._is_main(p.get("frameId")) and self.pending is not None and self.pending["loader_id"] is None:
            self._end(committed=True, url=p.get("url"))

    def _stopped(self, p: dict[str, Any], _sid: str | None) -> None:
        if self._is_main(p.get("frameId")):
            self._end(committed=False, error="the navigation ended without a new document")

    def _failed(self, p: dict[str, Any], _sid: str | None) -> None:
        pending = self.pending
        if pending is not None and pending["request_id"] and p.get("requestId") == pending["request_id"]:
            self._end(committed=False, error=p.get("errorText") or "failed")

    def _download(self, p: dict[str, Any], _sid: str | None) -> None:
        if self._is_main(p.get("frameId")):
            self._end(committed=False, error="the response was a download")

    def settled(self, after: int = -1) -> bool:
        """No navigation newer than ``after`` pending (one requested but never started is dropped)."""
        pending = self.pending
        if pending is None or pending["seq"] <= after:
            return True
        if pending["loader_id"] is None and time.monotonic() - pending["at"] > _NEVER_STARTED:
            self.pending = None  # the browser dropped the request (it never began loading)
            return True
        return False

    async def wait_idle(self, after: int, timeout: float) -> None:
        """Until ``settled(after)``; ``TimeoutError`` after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.settled(after):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            try:
                # event-driven, with a short cap so that a dropped request is noticed
                await self.driver.wait_until(lambda: self.settled(after), timeout=min(remaining, 0.5))
            except TimeoutError:
                continue

    async def answered_unless_navigating(self, after: int, fut: asyncio.Future[Any]) -> bool:
        """Wait for ``fut`` unless a navigation newer than ``after`` begins first (False then).

        Once the main frame navigates, Chromium holds every command to the old document until
        the new one has committed, and some (an object group's release) until it has loaded:
        an action that only wanted the answer as a flush or a courtesy stops waiting for it.
        An abandoned ``fut`` keeps running; its outcome is retrieved and dropped."""
        while not fut.done():
            if self.seq > after:
                fut.add_done_callback(drop_outcome)
                return False
            changed = self.driver.changed()
            try:
                await asyncio.wait({fut, changed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                changed.cancel()
        return True

    async def wait_settled(self, after: int, timeout: float) -> dict[str, Any] | None:
        """Wait until no navigation newer than ``after`` is pending; the last one's outcome."""
        if self.seq <= after:
            return None
        try:
            await self.wait_idle(after, timeout)
        except TimeoutError:
            pending = self.pending or {}
            return {"url": pending.get("url", ""), "committed": False, "error": "timeout"}
        return dict(self.last) if self.last is not None else None


def tracker(driver: PageDriver) -> NavTracker:
    """The page's tracker (made when the host attaches the page, see ``track``)."""
    found = driver.nav_tracker
    if not isinstance(found, NavTracker):
        found = NavTracker(driver)
        driver.nav_tracker = found
    return found


async def settle_after_action(driver: PageDriver, mark: int, *, timeout: float = COMMIT_TIMEOUT) -> dict[str, Any] | None:
    """After an input action: if it started a navigation of the page, wait until it commits.

    Chromium announces a navigation (``Page.frameRequestedNavigation``) while the input event
    that caused it is being handled - a link, a form submission (also the implicit one of
    Enter), ``location=`` in a handler - so once the action's flush has come back, ``seq``
    says whether one was started. A navigation a handler schedules for later (a timer) is not
    the action's, as in Playwright; ``wait_for_load_state``/``wait_for_url`` follow it.
    Measured: 25 of 25 such navigations were seen without waiting a task; the macrotask we
    used to wait cost ~11 ms on every click (docs/architecture.md, "Actions").
    """
    nav = tracker(driver)
    if nav.seq <= mark or driver.dialog is not None:
        return None
    outcome = await nav.wait_settled(mark, timeout)
    if outcome is None:
        return None
    return {"url": outcome["url"], "committed": outcome["committed"],
            **({"error": outcome["error"]} if outcome.get("error") else {})}


def network_idle(driver: PageDriver, idle_ms: float) -> bool:
    """True when nothing has been in flight (all the page's sessions) for ``idle_ms``."""
    if driver.inflight:
        return False
    return (time.monotonic() - driver.last_network_activity) * 1000 >= idle_ms


async def _wait_state(driver: PageDriver, state: str, deadline: float, idle_ms: float, loader_id: str | None) -> None:
    loop = asyncio.get_running_loop()

    def reached() -> bool:
        main = driver.frames.main
        if main is None:
            return False
        if loader_id is not None and main.loader_id != loader_id:
            return False
        if state == "networkidle":
            return "load" in main.lifecycle and network_idle(driver, idle_ms)
        return _LIFECYCLE[state] in main.lifecycle

    main = driver.frames.main
    if not reached() and loader_id is None and state in _LIFECYCLE and main is not None and "init" not in main.lifecycle:
        # a page attached after its lifecycle events (a popup adopted late) never sees them:
        # the document's own readyState says whether the state is already behind it. A document
        # watched from its start needs no question (a loading page answers it late: 8-25 ms)
        rs = await _ready_state(driver)
        if rs == "complete" or (rs == "interactive" and state == "domcontentloaded"):
            return
    while True:
        if reached():
            return
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise TimeoutError
        wait = remaining
        main = driver.frames.main
        if state == "networkidle" and not driver.inflight and main is not None and "load" in main.lifecycle:
            # quiet already: the condition turns true by itself once idle_ms has passed
            due = idle_ms / 1000 - (time.monotonic() - driver.last_network_activity)
            wait = max(0.0, min(due, remaining))
        fut = driver.changed()
        try:
            await asyncio.wait_for(asyncio.shield(fut), wait)
        except asyncio.TimeoutError:
            fut.cancel()


async def until_parsed(driver: PageDriver, budget_s: float) -> None:
    """Wait (at most ``budget_s``) until the main document has been parsed (DOMContentLoaded).

    An element can be on screen while the parser still waits for a script below it: an action
    on it then lands before the page's handlers are attached and does nothing (a click right
    after the navigation its last click started). Past the budget the action goes on; a dialog,
    a closed page or an unknown state never holds it up.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget_s
    asked = False
    while True:
        main = driver.frames.main
        if main is None or driver.closed or driver.dialog is not None or "DOMContentLoaded" in main.lifecycle:
            return
        if not asked and "init" not in main.lifecycle:
            # a page attached after its lifecycle events never sees them: its readyState says
            asked = True
            loader = main.loader_id
            rs = await _ready_state(driver)
            if rs != "loading":
                if rs is not None and driver.frames.main is main and main.loader_id == loader:
                    main.lifecycle.add("DOMContentLoaded")  # behind this document: ask once
                return
            continue
        remaining = deadline - loop.time()
        if remaining <= 0:
            return
        fut = driver.changed()
        try:
            await asyncio.wait_for(asyncio.shield(fut), remaining)
        except asyncio.TimeoutError:
            fut.cancel()


async def _ready_state(driver: PageDriver) -> str | None:
    if driver.dialog is not None:
        return None
    try:
        res = await driver.session.send(
            "Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True}, timeout=1.0
        )
        return (res.get("result") or {}).get("value")
    except EgoError:  # unknown: a busy or closing page
        return None


def _why_no_answer(driver: PageDriver, url: str) -> str:
    """Why a navigation may get no answer. The browser announces a request before it has a
    connection for it, so "sent" cannot be told from "waiting for a connection": both are said."""
    return ("no answer yet: the server is slow, or the browser is waiting for a free connection to "
            "that host (at most 6 at once per browser context; pages of other spaces in the same "
            "context may hold them)")


async def goto(
    driver: PageDriver,
    url: str,
    *,
    referer: str | None = None,
    timeout_ms: float = 15000,
    wait_until: str = "load",
    api: str = "page.goto",
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    params: dict[str, Any] = {"url": url}
    if referer:
        params["referrer"] = referer
        # as given: the default policy would cut a cross-origin referrer down to its origin
        params["referrerPolicy"] = "unsafeUrl"
    main = driver.frames.main
    before = main.loader_id if main else None
    # the documents the main frame commits from now on: the answer to Page.navigate may be read
    # in one go with the commits that follow it (ours, and the one a page that leaves itself at
    # once goes to), all dispatched before this coroutine resumes to read the answer
    committed_docs: list[str | None] = []

    def note(frame: Any, _old: str | None) -> None:
        if frame.is_main:
            committed_docs.append(frame.loader_id)

    driver.frames.on_document.append(note)
    try:
        return await _goto_sent(driver, url, params, before, committed_docs, deadline,
                                timeout_ms=timeout_ms, wait_until=wait_until, api=api)
    finally:
        driver.frames.on_document.remove(note)


async def _goto_sent(driver: PageDriver, url: str, params: dict[str, Any], before: str | None,
                     committed_docs: list[str | None], deadline: float, *, timeout_ms: float, wait_until: str,
                     api: str) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    try:
        res = await driver.session.send("Page.navigate", params, timeout=timeout_ms / 1000)
    except EgoTimeout:
        raise NavigationTimeout(
            f"{api} timed out after {round(timeout_ms)}ms: navigation to {url} did not commit "
            f"({_why_no_answer(driver, url)})",
            api=api, timeout_ms=round(timeout_ms), committed=False, url=url, ready_state=await _ready_state(driver),
        ) from None
    except InvalidUrl as exc:
        # Chromium refuses what it cannot parse as a URL (or a referrer) before any request
        bad = "referer" if isinstance(exc, InvalidReferrer) else "url"
        raise InvalidArgument(
            f"{api}: {bad} {params.get('referrer' if bad == 'referer' else 'url')!r} is not a valid URL; "
            "pass an absolute URL such as https://example.com/path",
            api=api, option=bad, expected="an absolute URL",
        ) from exc
    if res.get("errorText"):
        raise NavigationFailed(
            f"{api}: navigation to {url} failed: {res['errorText']}", url=url, error_text=res["errorText"]
        )
    loader_id = res.get("loaderId")
    if loader_id is None:
        # same-document navigation (fragment or history): nothing more to wait for
        return {"url": url}
    # the commit is reported by frameNavigated for the new loader; a page that leaves itself at
    # once (a script in its head) may be on the next document before this wait looks
    try:
        await driver.wait_until(
            lambda: loader_id in committed_docs or ((m := driver.frames.main) is not None and m.loader_id == loader_id),
            timeout=max(0.0, deadline - loop.time()),
        )
        if wait_until != "commit":
            # the state of the frame's document from now on, as Playwright's goto waits: ours,
            # unless the page leaves itself for another before reaching it (a script in its head
            # sets location): then the document it went to (ours will never load)
            await _wait_state(driver, wait_until, deadline, 500, None)
    except TimeoutError:
        main = driver.frames.main
        committed = main is not None and main.loader_id not in (before, None)
        ready = await _ready_state(driver)
        hint = (
            "; the new document has committed, continue with page.wait_for_load_state(\"load\")"
            if committed else ""
        )
        raise NavigationTimeout(
            f"{api} timed out after {round(timeout_ms)}ms waiting for {wait_until} of {url}{hint}",
            api=api, timeout_ms=round(timeout_ms), committed=committed,
            url=(main.url if committed and main else url), ready_state=ready,
        ) from None
    return {"url": url}


async def after_beforeunload(driver: PageDriver, url: str, before: str | None, *, timeout_ms: float,
                             wait_until: str, api: str = "page.goto") -> None:
    """Once the ``beforeunload`` dialog a navigation raised was accepted: wait for the new
    document to commit (a loader other than ``before``), then for ``wait_until``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    try:
        await driver.wait_until(
            lambda: (m := driver.frames.main) is not None and m.loader_id != before,
            timeout=max(0.0, deadline - loop.time()),
        )
        if wait_until != "commit":
            main = driver.frames.main
            await _wait_state(driver, wait_until, deadline, 500, main.loader_id if main else None)
    except TimeoutError:
        main = driver.frames.main
        committed = main is not None and main.loader_id != before
        raise NavigationTimeout(
            f"{api} timed out after {round(timeout_ms)}ms waiting for {wait_until} of {url} "
            "(after accepting the page's beforeunload dialog)",
            api=api, timeout_ms=round(timeout_ms), committed=committed,
            url=(main.url if committed and main else url), ready_state=await _ready_state(driver),
        ) from None


async def reload(driver: PageDriver, *, timeout_ms: float = 15000, wait_until: str = "load") -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    main = driver.frames.main
    before = main.loader_id if main else None
    url = main.url if main else ""
    try:
        await driver.session.send("Page.reload", {"ignoreCache": False}, timeout=timeout_ms / 1000)
        await driver.wait_until(
            lambda: (m := driver.frames.main) is not None and m.loader_id != before,
            timeout=max(0.0, deadline - loop.time()),
        )
        if wait_until != "commit":
            main = driver.frames.main
            assert main is not None  # the wait above saw it, and nothing ran since
            new = main.loader_id
            await _wait_state(driver, wait_until, deadline, 500, new)
    except (TimeoutError, EgoTimeout):
        m = driver.frames.main
        committed = m is not None and m.loader_id != before
        raise NavigationTimeout(
            f"page.reload timed out after {round(timeout_ms)}ms waiting for {wait_until}"
            + ("; the new document has committed, continue with page.wait_for_load_state(\"load\")" if committed else ""),
            api="page.reload", timeout_ms=round(timeout_ms), committed=committed, url=url,
            ready_state=await _ready_state(driver),
        ) from None
    except CdpError as exc:
        raise NavigationFailed(f"page.reload failed: {exc.cdp_message}", url=url, error_text=exc.cdp_message) from exc
    return {"url": url}


async def wait_for_load_state(
    driver: PageDriver, state: str = "load", *, timeout_ms: float = 10000, idle_ms: float = 500
) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    nav = tracker(driver)
    try:
        if not nav.settled():
            # a navigation is under way: the state asked for is the new document's
            await nav.wait_idle(-1, max(0.0, deadline - loop.time()))
        await _wait_state(driver, state, deadline, idle_ms, None)
    except TimeoutError:
        raise EgoTimeout(
            f"wait_for_load_state({state}) timed out after {round(timeout_ms)}ms",
            api="page.wait_for_load_state", timeout_ms=round(timeout_ms),
        ) from None
