"""The host's side of permission prompts: handing the space to the person.

The in-page watch is the page driver's (``driver/permissions.py``). When a page would show a
permission prompt, the space that holds it goes to the person (ownership ``user``, reason
``location``, ``notifications``, ``camera`` or ``microphone``). The prompt (permission, origin
of the tab, tab) stays in ``PermissionWatch.pending`` so the person can answer it from the
dashboard (``Browser.setPermission`` on the space's context, then give-back).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from ...driver import permissions
from ...driver.page import PageDriver
from ...states import Ownership
from ..core.browser import BrowserLink
from ..core.store import Store

__all__ = ["PendingPermission", "PermissionWatch", "PromptHost"]

logger = logging.getLogger("ego_browser.host")


class PromptHost(Protocol):
    """What the prompt watch needs of the ``Host`` (``core`` is above it): its store, and the
    browser's targets (the prompting tab's URL)."""

    store: Store | None
    browser: BrowserLink


def _origin(url: str) -> str | None:
    """The origin a permission is granted to (None for about:, data: and other opaque origins)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


@dataclass(frozen=True)
class PendingPermission:
    """A permission prompt that handed its space to the person, until they answer it."""

    name: str  # the PermissionDescriptor name: geolocation, notifications, camera, microphone
    reason: str  # the space's hand-off reason (location, notifications, camera, microphone)
    origin: str | None  # None: an opaque origin (about:, data:) that no answer can be stored for
    target_id: str


class PermissionWatch:
    """Watches every attached page for permission prompts (one per host), and keeps the prompt
    that handed each space over (space id -> prompt) for the person to answer."""

    def __init__(self, host: PromptHost) -> None:
        self.host = host
        self.pending: dict[int, PendingPermission] = {}

    def waiting(self, space: Any) -> PendingPermission | None:
        """The space's prompt while it is still what holds the space (a give-back, a take-over
        by hand, or another hand-off since make it stale)."""
        prompt = self.pending.get(space.id)
        if prompt is None:
            return None
        if space.ownership != Ownership.USER or space.reason != prompt.reason:
            self.pending.pop(space.id, None)
            return None
        return prompt

    async def on_driver(self, driver: PageDriver) -> None:
        target_id = driver.target_id
        await permissions.watch(driver, lambda name, reason: self._prompted(target_id, name, reason))

    def _prompted(self, target_id: str, name: str, reason: str) -> None:
        """Hand the agent's space holding ``target_id`` to the person: a prompt waits for them."""
        host = self.host
        store = host.store
        if store is None:
            return
        for space in store.spaces():
            for row in store.pages(space.id):
                if row.target_id == target_id and space.ownership == Ownership.AGENT:
                    store.update_space(space.id, ownership=Ownership.USER, reason=reason)
                    # the top-level page's origin: Chromium asks (and remembers) permissions per
                    # top-level origin, iframes included
                    url = (host.browser.targets.get(target_id) or {}).get("url", "")
                    self.pending[space.id] = PendingPermission(
                        name=name, reason=reason, origin=_origin(url), target_id=target_id)
                    logger.info("space %s handed to the person: permission prompt %s", space.id, reason)
                    return

    def stop(self) -> None:
        pass
