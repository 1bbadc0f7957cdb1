"""``page.fetch`` (window.fetch inside the Page) and ``page.screenshot``.

fetch runs in the Page's main world, so the URL resolves against the Page, and its cookies,
Origin and CORS rules apply exactly as for the page's own scripts. The in-page timeout aborts
the request (an ``AbortController``); the body comes back as text, or base64 for ``save_as``,
whose bytes are written unchanged.

Screenshots use ``Page.captureScreenshot``. A viewport capture without a clip shows what is on
screen at the current scroll position; on a high-density display the CSS scale is obtained
with a clip of the visual viewport (page coordinates) at ``1/devicePixelRatio``.
"""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

from .. import jsbundle
from ..errors import EgoTimeout, FetchFailed, InvalidArgument
from .core import Host
from .ops import op
from .user_files import write_file

_INIT_KEYS = {
    "cache": "cache", "credentials": "credentials", "integrity": "integrity", "keepalive": "keepalive",
    "mode": "mode", "redirect": "redirect", "referrer": "referrer", "referrer_policy": "referrerPolicy",
}


@op("Page.fetch")
async def fetch(host: Host, at: dict[str, Any], *, url: str, timeout: float, save_as: str | None, method: str,
                headers: dict[str, str] | None, body: str | None, **init: Any) -> dict[str, Any]:
    """``init`` is the rest of the declaration: the RequestInit fields passed as they are."""
    api = "page.fetch"
    ctx = await host.page_ctx(at, activate=True)
    timeout_ms = timeout
    options = {
        "url": url,
        "method": method,
        "headers": headers,
        "body": body,
        "timeout": timeout_ms,
        "binary": bool(save_as),
        "init": {js: init[py] for py, js in _INIT_KEYS.items()},
    }
    expression = jsbundle.call("main", "page_fetch", options)

    async def run() -> dict[str, Any]:
        return await ctx.driver.session.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout_ms / 1000 + 2.0,
        )

    timed_out = EgoTimeout(f"{api} timed out after {round(timeout_ms)}ms", api=api, timeout_ms=round(timeout_ms))
    try:
        res = await ctx.driver.dialogs.guard(api, run())
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
    if save_as:
        data = base64.b64decode(value.get("body") or "")
        path = Path(save_as)
        await write_file("page.fetch", "save_as", str(path), data)
        result["body"] = None
        result["saved_path"] = str(path)
    return result


# -- screenshots -------------------------------------------------------------------------------


@op("Page.screenshot")
async def screenshot(host: Host, at: dict[str, Any], *, path: str | None, full_page: bool,
                     clip: dict[str, float] | None, scale: str, raw: bool) -> str:
    api = "page.screenshot"
    ctx = await host.page_ctx(at, activate=True)
    if not isinstance(path, str) or not os.path.isabs(path):
        raise InvalidArgument(f"{api}: path must be absolute", api=api, option="path", expected="an absolute path")
    session = ctx.driver.session

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

    data = await ctx.driver.dialogs.guard(api, capture())
    await write_file(api, "path", path, data)
    return path
