"""Opening and closing browser tabs for the host (spaces, unlisted tabs and pages use them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import CdpError

if TYPE_CHECKING:
    from .core import Host
    from .store import SpaceRow

__all__ = ["create_tab", "close_target"]


async def create_tab(
    host: Host, space: SpaceRow | None, *, context_id: str | None, new_window: bool, url: str = "about:blank"
) -> str:
    assert host.browser.conn is not None
    params: dict[str, Any] = {"url": url, "newWindow": new_window}
    if context_id:
        params["browserContextId"] = context_id
    res = await host.browser.conn.send("Target.createTarget", params, timeout=10.0)
    tid: str = res["targetId"]
    # the target list learns of it through Target.targetCreated; make sure it is known now
    host.browser.targets.setdefault(tid, {"targetId": tid, "type": "page", "url": "about:blank", "title": ""})
    return tid


async def close_target(host: Host, target_id: str) -> None:
    assert host.browser.conn is not None
    try:
        await host.browser.conn.send("Target.closeTarget", {"targetId": target_id}, timeout=5.0)
    except CdpError:
        pass  # already gone
    host._forget_driver(target_id)
    host.browser.targets.pop(target_id, None)
