"""The dialog operations and the host's side of permission prompts.

The dialogs themselves are the page driver's part (``driver/dialogs.py``: the queue, the guard,
answering); the prompt watch is ``driver/permissions.py``. What stays here is what needs the
host: the operations (ownership-gated by the dispatcher) and handing the space to the person
when a page would show a permission prompt (ownership ``user``, reason ``location``,
``notifications``, ``camera`` or ``microphone``).
"""

from __future__ import annotations

import logging
from typing import Any

from ..driver import permissions
from ..driver.page import PageDriver
from ..states import Ownership
from .core import Host
from .ops import op

__all__: list[str] = []

logger = logging.getLogger("ego_browser.host")


@op("Page.accept_dialog")
async def accept_dialog(host: Host, at: dict[str, Any], *, prompt_text: str | None) -> bool:
    ctx = await host.page_ctx(at)
    return await ctx.driver.dialogs.answer(True, prompt_text, background=host.background)


@op("Page.dismiss_dialog")
async def dismiss_dialog(host: Host, at: dict[str, Any]) -> bool:
    ctx = await host.page_ctx(at)
    return await ctx.driver.dialogs.answer(False, background=host.background)


class PermissionWatch:
    """Watches every attached page for permission prompts (one per host)."""

    def __init__(self, host: Host) -> None:
        self.host = host

    async def on_driver(self, driver: PageDriver) -> None:
        await permissions.watch(driver, lambda reason: self._prompted(driver.target_id, reason))

    def _prompted(self, target_id: str, reason: str) -> None:
        """Hand the agent's space holding ``target_id`` to the person: a prompt waits for them."""
        store = self.host.store
        if store is None:
            return
        for space in store.spaces():
            for row in store.pages(space.id):
                if row.target_id == target_id and space.ownership == Ownership.AGENT:
                    store.update_space(space.id, ownership=Ownership.USER, reason=reason)
                    logger.info("space %s handed to the person: permission prompt %s", space.id, reason)
                    return

    def stop(self) -> None:
        pass
