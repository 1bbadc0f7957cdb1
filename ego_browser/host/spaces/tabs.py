"""Opening and closing browser tabs for the host (spaces, unlisted tabs and pages use them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ...errors import CdpError
from . import windows
from .windows import WindowHost

if TYPE_CHECKING:
    from ..core.store import SpaceRow


class TabHost(WindowHost, Protocol):
    """What opening and closing tabs needs of the ``Host`` (``core`` is above it)."""

    def _forget_driver(self, target_id: str | None) -> None: ...

__all__ = ["create_tab", "close_target"]


async def create_tab(
    host: TabHost, space: SpaceRow | None, *, context_id: str | None, new_window: bool, url: str = "about:blank",
    name: str | None = None,
) -> str:
    assert host.browser.conn is not None
    params: dict[str, Any] = {"url": url, "newWindow": new_window}
    if context_id:
        params["browserContextId"] = context_id
    tid: str
    # the default context of the request's browser (the host's, or an imported profile's own)
    if context_id in (None, host.browser.default_context) and windows.headed(host):
        # a window of its own titled with the space's name, a tab in the space's window
        title = name or (space.name if space is not None else None)
        if new_window and title:
            tid = await windows.open_window(host, title, url)
        else:
            tid = await windows.new_tab_in_space(host, space, params)
    else:
        tid = (await host.browser.conn.send("Target.createTarget", params, timeout=10.0))["targetId"]
    # the target list learns of it through Target.targetCreated; make sure it is known now
    host.browser.targets.setdefault(tid, {"targetId": tid, "type": "page", "url": "about:blank", "title": ""})
    return tid


async def close_target(host: TabHost, target_id: str) -> None:
    assert host.browser.conn is not None
    try:
        await host.browser.conn.send("Target.closeTarget", {"targetId": target_id}, timeout=5.0)
    except CdpError:
        pass  # already gone
    host._forget_driver(target_id)
    host.browser.targets.pop(target_id, None)
