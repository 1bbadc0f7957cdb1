"""Navigation and load states, driven by lifecycle and network events (no polling)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..errors import CdpError, EgoTimeout, InvalidArgument, NavigationFailed, NavigationTimeout
from .page import PageDriver

__all__ = ["goto", "reload", "wait_for_load_state", "LOAD_STATES", "network_idle"]

LOAD_STATES = ("commit", "domcontentloaded", "load", "networkidle")
_LIFECYCLE = {"domcontentloaded": "DOMContentLoaded", "load": "load"}


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


async def _ready_state(driver: PageDriver) -> str | None:
    if driver.dialog is not None:
        return None
    try:
        res = await driver.session.send(
            "Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True}, timeout=1.0
        )
        return (res.get("result") or {}).get("value")
    except Exception:
        return None


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
    try:
        res = await driver.session.send("Page.navigate", params, timeout=timeout_ms / 1000)
    except EgoTimeout:
        raise NavigationTimeout(
            f"{api} timed out after {round(timeout_ms)}ms: navigation to {url} did not commit "
            "(the server has not answered yet)",
            api=api, timeout_ms=round(timeout_ms), committed=False, url=url, ready_state=await _ready_state(driver),
        ) from None
    except CdpError as exc:
        # Chromium refuses what it cannot parse as a URL (or a referrer) before any request
        if "invalid url" in (exc.cdp_message or "").lower() or "invalid referrer" in (exc.cdp_message or "").lower():
            bad = "referer" if "referrer" in (exc.cdp_message or "").lower() else "url"
            raise InvalidArgument(
                f"{api}: {bad} {params.get('referrer' if bad == 'referer' else 'url')!r} is not a valid URL; "
                "pass an absolute URL such as https://example.com/path",
                api=api, option=bad, expected="an absolute URL",
            ) from None
        raise
    if res.get("errorText"):
        raise NavigationFailed(
            f"{api}: navigation to {url} failed: {res['errorText']}", url=url, error_text=res["errorText"]
        )
    loader_id = res.get("loaderId")
    if loader_id is None:
        # same-document navigation (fragment or history): nothing more to wait for
        return {"url": url}
    try:
        # the commit is reported by frameNavigated for the new loader
        await driver.wait_until(
            lambda: (m := driver.frames.main) is not None and m.loader_id == loader_id,
            timeout=max(0.0, deadline - loop.time()),
        )
        if wait_until != "commit":
            await _wait_state(driver, wait_until, deadline, 500, loader_id)
    except TimeoutError:
        main = driver.frames.main
        committed = main is not None and main.loader_id == loader_id
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
    _ = before
    return {"url": url}


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
            new = driver.frames.main.loader_id  # type: ignore[union-attr]
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
    try:
        await _wait_state(driver, state, loop.time() + timeout_ms / 1000, idle_ms, None)
    except TimeoutError:
        raise EgoTimeout(
            f"wait_for_load_state({state}) timed out after {round(timeout_ms)}ms",
            api="page.wait_for_load_state", timeout_ms=round(timeout_ms),
        ) from None
