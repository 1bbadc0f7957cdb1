"""What a page fetches and shows: ``page.fetch`` (window.fetch inside the page) and screenshots.

fetch runs in the page's main world, so the URL resolves against the page, and its cookies,
Origin and CORS rules apply exactly as for the page's own scripts. The in-page timeout aborts
the request (an ``AbortController``); the body comes back as text, or base64 when the caller
saves the bytes.

Screenshots use ``Page.captureScreenshot``. A viewport capture without a clip shows what is on
screen at the current scroll position; on a high-density display the CSS scale is obtained
with a clip of the visual viewport (page coordinates) at ``1/devicePixelRatio``. Writing the
file is the host's (the agent's paths are checked there).
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from typing import Any

from .. import jsbundle
from ..errors import CdpError, EgoTimeout, FetchFailed, InvalidState
from .page import PageDriver

__all__ = ["fetch", "screenshot"]


async def fetch(driver: PageDriver, options: dict[str, Any]) -> dict[str, Any]:
    """``window.fetch`` in the page with ``options`` (url, method, headers, body, timeout ms,
    binary, init); the response as the API returns it (a binary body base64)."""
    api = "page.fetch"
    url = options["url"]
    timeout_ms = options["timeout"]
    expression = jsbundle.call("main", "page_fetch", options)

    async def run() -> dict[str, Any]:
        return await driver.session.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout_ms / 1000 + 2.0,
        )

    timed_out = EgoTimeout(f"{api} timed out after {round(timeout_ms)}ms", api=api, timeout_ms=round(timeout_ms))
    try:
        res = await driver.dialogs.guard(api, run())
    except EgoTimeout:
        raise timed_out from None
    details = res.get("exceptionDetails")
    if details is not None:
        text = ((details.get("exception") or {}).get("description") or details.get("text") or "").split("\n")[0]
        raise FetchFailed(f"{api} could not run in the page: {text}", url=url)
    value = (res.get("result") or {}).get("value") or {}
    error = value.get("error")
    if error == "timeout":
        raise timed_out
    if error is not None:
        raise FetchFailed(
            f"{api} uses window.fetch and obeys browser CORS and network rules: fetching {url} failed "
            f"({error}). A cross-origin URL needs CORS headers from that server; otherwise open it with "
            "page.goto() or fetch it from a page of that origin",
            url=url,
        )
    result = {
        "ok": bool(value.get("ok")),
        "status": value.get("status"),
        "status_text": value.get("status_text"),
        "url": value.get("url"),
        "headers": value.get("headers") or {},
        "body": value.get("body"),
        "saved_path": None,
    }
    return result


async def screenshot(driver: PageDriver, *, full_page: bool, clip: dict[str, float] | None, raw: bool) -> bytes:
    """The PNG bytes of the page (its viewport, its whole length, or ``clip``)."""
    api = "page.screenshot"
    session = driver.session

    async def capture() -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full_page or clip or not raw:
            metrics, dpr_res = await asyncio.gather(
                session.send("Page.getLayoutMetrics", timeout=5.0),
                session.send("Runtime.evaluate", {"expression": "devicePixelRatio", "returnByValue": True}, timeout=5.0),
            )
            dpr = float((dpr_res.get("result") or {}).get("value") or 1) or 1.0
            vv = metrics.get("cssVisualViewport") or {}
            css_scale = 1.0 if raw else 1.0 / dpr
            if full_page:
                size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
                params["clip"] = {"x": 0, "y": 0, "width": size.get("width", 0), "height": size.get("height", 0),
                                  "scale": css_scale}
                params["captureBeyondViewport"] = True
            elif clip:
                params["clip"] = {
                    "x": float(clip["x"]) + vv.get("pageX", 0), "y": float(clip["y"]) + vv.get("pageY", 0),
                    "width": float(clip["width"]), "height": float(clip["height"]),
                    "scale": float(clip.get("scale") or 1) * css_scale,
                }
                params["captureBeyondViewport"] = True
            elif dpr != 1.0:
                params["clip"] = {"x": vv.get("pageX", 0), "y": vv.get("pageY", 0), "width": vv.get("clientWidth", 0),
                                  "height": vv.get("clientHeight", 0), "scale": css_scale}
        res = await session.send("Page.captureScreenshot", params, timeout=30.0)
        return base64.b64decode(res["data"])

    return await driver.dialogs.guard(api, _unless_navigating(driver, api, capture))


#: navigations a screenshot outwaits before it says the page will not hold still
_NAV_RETRIES = 3


async def _unless_navigating(driver: PageDriver, api: str, capture: Callable[[], Awaitable[bytes]]) -> bytes:
    """Run ``capture``, starting again when the page navigates meanwhile. A page that reloads
    or redirects itself without end never hands Chromium a frame to capture: the capture once
    waited its whole 30 s and failed naming Page.captureScreenshot (issue 31)."""
    for _ in range(_NAV_RETRIES):
        version = driver.url_version
        shot = asyncio.ensure_future(capture())
        moved = asyncio.ensure_future(driver.wait_until(lambda: driver.url_version != version, timeout=60.0))
        try:
            await asyncio.wait({shot, moved}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            moved.cancel()
        if not shot.done():
            shot.cancel()
            await asyncio.gather(shot, return_exceptions=True)
            failure = None if moved.cancelled() else moved.exception()
            if failure is not None:
                raise failure  # the page closed or crashed: not a navigation
            continue
        try:
            return shot.result()
        except CdpError as exc:
            if driver.closed:
                raise
            # the document may have gone away under the capture (its navigation event can come
            # just after the refusal): start again on the new one
            try:
                await driver.wait_until(lambda: driver.url_version != version, timeout=5.0)
            except TimeoutError:
                if "with 0 " in str(exc.cdp_message or exc):
                    raise InvalidState(f"{api}: the page has no size (its width or height is 0); give it content "
                                       "or a viewport (task.set_viewport) and take the screenshot again",
                                       api=api) from None
                raise exc from None
    raise InvalidState(
        f"{api}: the page navigated {_NAV_RETRIES} times while its picture was being taken (it reloads or "
        "redirects itself); wait until it settles (page.wait_for_load_state(), or stop what navigates it) and "
        "take the screenshot again", api=api)
