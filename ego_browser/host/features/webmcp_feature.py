"""The host feature that gives every attached page the WebMCP shim (``driver/webmcp.py``), so a
page that registers tools for agents finds ``navigator.modelContext`` from its first script."""

from __future__ import annotations

from ...driver import webmcp
from ...driver.page import PageDriver

__all__ = ["WebMcpShim"]


class WebMcpShim:
    async def on_driver(self, driver: PageDriver) -> None:
        await webmcp.install(driver)

    def stop(self) -> None:
        pass
