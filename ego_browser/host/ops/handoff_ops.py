"""The operations of hand-offs that wait: ``task.ask_human`` and ``task.wait_for_control``
(the state they wait on: ``handoffs.py``)."""

from __future__ import annotations

import contextlib
import logging
import shutil
import subprocess
from typing import TYPE_CHECKING, Any

from ...states import Ownership
from ..features.handoffs import NEEDS_YOU, Ask, where
from ..core.dispatch import op
from .spaces import store_of

if TYPE_CHECKING:
    from ..core.host import Host

__all__: list[str] = []

logger = logging.getLogger("ego_browser.host")


def _notify(title: str, body: str) -> None:
    """A desktop notification where a notification service is present (best effort, never waits)."""
    tool = shutil.which("notify-send")
    if tool is None:
        return
    with contextlib.suppress(OSError):
        subprocess.Popen([tool, "--app-name=ego_browser", title, body], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


@op("TaskSpace.ask_human")
async def ask_human(host: Host, at: dict[str, Any], *, reason: str, wait: bool, timeout: float) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    if space.ownership != Ownership.AGENT:
        host.gate(space)  # raises: only the agent holding the space can ask
    url, title = await where(host, space.id)
    host.handoffs.asks[space.id] = Ask(reason, url, title)
    store_of(host).update_space(space.id, ownership=Ownership.DELEGATED, reason=NEEDS_YOU, status=reason)
    host.preempt(space, NEEDS_YOU)  # the agent's other calls on the space stop, as on hand_off()
    _notify(f"ego_browser: \"{space.name}\" needs you", reason)
    logger.info("space %s needs the person: %s", space.id, reason)
    if not wait:
        return {"note": None, "url": url, "title": title, "before": None, "changed": [], "held_ms": None,
                "resumed_after_ms": None, "waiting": False}
    fresh = host.space_row(space.id)
    result = await host.handoffs.wait(host, fresh, timeout, "task.ask_human")
    return {**result, "waiting": False}


@op("TaskSpace.wait_for_control")
async def wait_for_control(host: Host, at: dict[str, Any], *, interval: float, timeout: float) -> dict[str, Any]:
    del interval  # kept for scripts that pass it: the wait is on the give-back itself, not a poll
    space = host.space_row(at.get("space"))
    return await host.handoffs.wait(host, space, timeout, "task.wait_for_control")
