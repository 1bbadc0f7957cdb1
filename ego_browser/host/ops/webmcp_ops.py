"""The declarations of ``page.webmcp_tools`` and ``page.call_webmcp_tool``: the page's part and
the shim are ``driver/webmcp.py``; the feature that installs it is ``webmcp_feature.py``."""

from __future__ import annotations

from typing import Any

from ...driver import webmcp
from ..core.host import Host
from ..core.dispatch import op

__all__ = ["call_webmcp_tool", "webmcp_tools"]


@op("Page.webmcp_tools")
async def webmcp_tools(host: Host, at: dict[str, Any]) -> list[dict[str, Any]]:
    ctx = await host.page_ctx(at)
    return await webmcp.tools(ctx.driver)


@op("Page.call_webmcp_tool")
async def call_webmcp_tool(host: Host, at: dict[str, Any], *, name: str, args: dict[str, Any] | None,
                           timeout: float) -> dict[str, Any]:
    ctx = await host.page_ctx(at, activate=True)
    return await webmcp.call(ctx.driver, name, args or {}, timeout)
