"""Permission prompts of one page, reported as they would show.

Headless Chromium has no CDP event for a permission request (no ``Page.permissionRequested``;
``Browser.setPermission``/``grantPermissions`` only set state). So thin wrappers around the
prompting APIs (``navigator.geolocation.getCurrentPosition/watchPosition``,
``Notification.requestPermission``, ``navigator.mediaDevices.getUserMedia``) go into the page's
main world before any page script (``Page.addScriptToEvaluateOnNewDocument``). When the
permission's state is ``"prompt"`` (a real browser would show a prompt), the wrapper reports it
through a ``Runtime.addBinding`` binding and :func:`watch` calls ``on_prompt(name, reason)``; the host
then hands the space to the person. Granted or denied permissions never prompt and are not
reported. The original API is called unchanged either way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import orjson

from .. import jsbundle
from ..errors import CdpChannelUnavailable, CdpError
from .page import PageDriver
from ..cdp.together import together

__all__ = ["BINDING", "REASONS", "watch"]

logger = logging.getLogger("ego_browser.driver")

BINDING = "__egoPermissionPrompt"

#: the API's permission name -> the reason the space is handed to the person
REASONS = {"geolocation": "location", "notifications": "notifications", "camera": "camera",
           "microphone": "microphone"}


def _name(payload: str) -> str | None:
    """The permission a prompt asks for, if it is one we report."""
    try:
        name = orjson.loads(payload).get("name")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return name if isinstance(name, str) and name in REASONS else None


async def watch(driver: PageDriver, on_prompt: Callable[[str, str], None]) -> None:
    """Install the watch in ``driver``'s page; ``on_prompt(name, reason)`` for each prompt it
    would show (``name``: the PermissionDescriptor's, ``reason``: the space's hand-off reason)."""
    session = driver.session

    def called(params: dict[str, Any], _sid: str | None) -> None:
        if params.get("name") == BINDING:
            name = _name(params.get("payload") or "")
            if name is not None:
                on_prompt(name, REASONS[name])

    driver._offs.append(session.on("Runtime.bindingCalled", called))
    source = jsbundle.call("main", "permission_watch", BINDING)
    try:
        # sent together: the page answers them in order (the binding exists before either script
        # runs), one round trip instead of three while a new page is set up
        await together(
            session.send("Runtime.addBinding", {"name": BINDING}, timeout=5.0),
            session.send("Page.addScriptToEvaluateOnNewDocument", {"source": source, "runImmediately": True},
                         timeout=5.0),
            # the current document too (it was loaded before we attached)
            session.send("Runtime.evaluate", {"expression": source, "silent": True}, timeout=5.0),
        )
    except (CdpError, CdpChannelUnavailable, TimeoutError) as exc:
        logger.debug("permission watch not installed on %s: %s", driver.target_id, exc)
