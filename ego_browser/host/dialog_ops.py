"""JavaScript dialogs and permission prompts.

Dialogs (alert, confirm, prompt, beforeunload) stay under the agent's control: the action that
opened one returns it in its receipt (``receipts.run_action``), ``page.info()`` reports it, and
``accept_dialog``/``dismiss_dialog`` handle it (``Page.handleJavaScriptDialog`` on the session
of the frame that opened it). An open dialog blocks its renderer, so every op that needs the
renderer goes through :func:`guarded`: it fails fast while a dialog is open, and if one opens
while the op runs, the op is left to finish in the background and the caller is told at once.

Permission prompts: headless Chromium has no CDP event for a permission request (no
``Page.permissionRequested``; ``Browser.setPermission``/``grantPermissions`` only set state).
So the host installs, in every page's main world before any page script
(``Page.addScriptToEvaluateOnNewDocument``), thin wrappers around the prompting APIs
(``navigator.geolocation.getCurrentPosition/watchPosition``, ``Notification.requestPermission``,
``navigator.mediaDevices.getUserMedia``). When the permission's state is ``"prompt"`` (a real
browser would show a prompt), the wrapper reports it through a ``Runtime.addBinding`` binding;
the host then hands the space to the person (ownership ``user``, reason ``location``,
``notifications``, ``camera`` or ``microphone``). Granted or denied permissions never prompt
and are not reported. The original API is called unchanged either way. The prompt (permission,
origin of the tab, tab) stays in ``PermissionWatch.pending`` so the person can answer it from the
dashboard (``Browser.setPermission`` on the space's context, then give-back).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson

from .. import jsbundle
from ..cdp.errors import NoDialog
from ..driver.page import PageDriver
from ..errors import CdpChannelUnavailable, CdpError, InvalidState
from ..states import Ownership
from .core import Host
from .ops import op

__all__ = ["guarded", "dialog_open_error", "install_permission_watch", "BINDING", "PendingPermission"]

logger = logging.getLogger("ego_browser.host")

T = TypeVar("T")

BINDING = "__egoPermissionPrompt"


def _describe(dialog: dict[str, Any]) -> str:
    message = str(dialog.get("message") or "")
    if len(message) > 80:
        message = message[:77] + "..."
    return f'a JavaScript {dialog.get("type")} dialog ("{message}")'


def dialog_open_error(api: str, dialog: dict[str, Any], *, opened_now: bool = False) -> InvalidState:
    what = "opened while it ran and blocks the page" if opened_now else "is open and blocks the page"
    return InvalidState(
        f"{api}: {_describe(dialog)} {what}; handle it with page.accept_dialog() or "
        "page.dismiss_dialog(), then try again",
        api=api,
    )


async def guarded(driver: PageDriver, api: str, work: Awaitable[T]) -> T:
    """Run ``work`` unless a dialog blocks the page; never hang because of a dialog.

    A dialog opening meanwhile fails the page's requests still waiting for an answer with the
    dialog error (the browser finishes them once the dialog is handled; their late answers
    are dropped). Answers that already arrived are kept. No task is created: this sits on the
    hot path of ``evaluate``.
    """
    if driver.dialog is not None:
        if asyncio.iscoroutine(work):
            work.close()
        raise dialog_open_error(api, driver.dialog)

    def on_dialog(d: dict[str, Any]) -> None:
        error = dialog_open_error(api, d, opened_now=True)
        for session_id in list(driver.sessions):
            driver.conn.reject_session(session_id, "a JavaScript dialog opened", error)

    driver.on_dialog.append(on_dialog)
    try:
        return await work
    finally:
        if on_dialog in driver.on_dialog:
            driver.on_dialog.remove(on_dialog)


async def _handle(host: Host, at: dict[str, Any], accept: bool, text: str | None = None) -> bool:
    ctx = await host.page_ctx(at)
    driver = ctx.driver
    session = driver.dialog_session
    if session is None:
        return False
    params: dict[str, Any] = {"accept": accept}
    if accept and text is not None:
        params["promptText"] = text
    closed_before = driver.dialogs_closed
    try:
        await session.send("Page.handleJavaScriptDialog", params, timeout=5.0)
    except NoDialog:
        driver.drop_dialog(session)
        return False
    # Chromium tells when the dialog closed; a dialog the page opens right after (an alert in
    # a loop) is already the next one in the driver's queue when we look. No timer ever
    # clears the state: if the event is late, the dialog still shows as open, which is true.
    try:
        await driver.wait_until(lambda: driver.dialogs_closed > closed_before, timeout=5.0)
    except (TimeoutError, CdpChannelUnavailable):
        pass
    else:
        if driver.dialog is None:
            await _settle(host, driver, session)
    driver.stale_all_refs()
    return True


async def _settle(host: Host, driver: PageDriver, session: Any) -> None:
    """Let the script the dialog paused run on, until it ends or opens the next dialog.

    A round trip to the renderer answers only once the script that called alert() has
    finished; if it opens another dialog first, that dialog's event arrives and the answer
    waits behind it (it is left to finish in the background). Either way the caller then
    sees the page's true dialog state: no "no dialog" while the next one is opening.
    """
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[None] = loop.create_future()

    def opened(_d: dict[str, Any]) -> None:
        if not seen.done():
            seen.set_result(None)

    driver.on_dialog.append(opened)
    flush = loop.create_task(session.send("Runtime.evaluate", {"expression": "0"}, timeout=2.0))
    try:
        await asyncio.wait({flush, seen}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if opened in driver.on_dialog:
            driver.on_dialog.remove(opened)
        seen.cancel()
    if flush.done():
        flush.exception()  # a busy or navigating page: its answer does not matter
    else:
        host.background(flush)


@op("Page.accept_dialog")
async def accept_dialog(host: Host, at: dict[str, Any], *, prompt_text: str | None) -> bool:
    return await _handle(host, at, True, prompt_text)


@op("Page.dismiss_dialog")
async def dismiss_dialog(host: Host, at: dict[str, Any]) -> bool:
    return await _handle(host, at, False)


# -- permission prompts -----------------------------------------------------------------------

_REASONS = {"geolocation": "location", "notifications": "notifications", "camera": "camera", "microphone": "microphone"}


def _origin(url: str) -> str | None:
    """The origin a permission is granted to (None for about:, data: and other opaque origins)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def _permission_requested(host: Host, driver: PageDriver, payload: str) -> None:
    try:
        name = orjson.loads(payload).get("name")
    except (orjson.JSONDecodeError, AttributeError):
        return
    reason = _REASONS.get(name)
    if reason is None or host.store is None:
        return
    for space in host.store.spaces():
        for row in host.store.pages(space.id):
            if row.target_id == driver.target_id and space.ownership == Ownership.AGENT:
                host.store.update_space(space.id, ownership=Ownership.USER, reason=reason)
                # the top-level page's origin: Chromium asks (and remembers) permissions per
                # top-level origin, iframes included
                url = (host.browser.targets.get(driver.target_id) or {}).get("url", "")
                host.features.permissions.pending[space.id] = PendingPermission(
                    name=str(name), reason=reason, origin=_origin(url), target_id=driver.target_id)
                logger.info("space %s handed to the person: permission prompt %s", space.id, reason)
                return


async def install_permission_watch(host: Host, driver: PageDriver) -> None:
    session = driver.session

    def called(params: dict[str, Any], _sid: str | None) -> None:
        if params.get("name") == BINDING:
            _permission_requested(host, driver, params.get("payload") or "")

    driver._offs.append(session.on("Runtime.bindingCalled", called))
    watch = jsbundle.call("main", "permission_watch", BINDING)
    try:
        await session.send("Runtime.addBinding", {"name": BINDING}, timeout=5.0)
        await session.send(
            "Page.addScriptToEvaluateOnNewDocument", {"source": watch, "runImmediately": True}, timeout=5.0
        )
        # the current document too (it was loaded before we attached)
        await session.send("Runtime.evaluate", {"expression": watch, "silent": True}, timeout=5.0)
    except (CdpError, CdpChannelUnavailable, TimeoutError) as exc:
        logger.debug("permission watch not installed on %s: %s", driver.target_id, exc)


@dataclass(frozen=True)
class PendingPermission:
    """A permission prompt that handed its space to the person, until they answer it."""

    name: str  # the PermissionDescriptor name: geolocation, notifications, camera, microphone
    reason: str  # the space's hand-off reason (location, notifications, camera, microphone)
    origin: str | None  # None: an opaque origin (about:, data:) that no answer can be stored for
    target_id: str


class PermissionWatch:
    """Installs the permission-prompt watch in every attached page (one per host), and keeps
    the prompt that handed each space over (space id -> prompt) for the person to answer."""

    def __init__(self, host: Host) -> None:
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
        await install_permission_watch(self.host, driver)

    def stop(self) -> None:
        pass
