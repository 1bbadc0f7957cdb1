"""The declarations of ``page.fetch`` and ``page.screenshot``: the page's part is
``driver/fetch.py``; the host writes the files (``save_as``, the screenshot's ``path``).
The bytes of ``save_as`` are written unchanged.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

from ...driver import fetch as page_fetch
from ...errors import InvalidArgument
from ..core.host import Host
from ..core.dispatch import op
from ..core.user_files import write_file

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
    result = await page_fetch.fetch(ctx.driver, options)
    if save_as:
        data = base64.b64decode(result["body"] or "")
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
    data = await page_fetch.screenshot(ctx.driver, full_page=full_page, clip=clip, raw=raw)
    await write_file(api, "path", path, data)
    return path
