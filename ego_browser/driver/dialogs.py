"""JavaScript dialogs of one page: the queue of open ones, the guard, and answering them.

Dialogs (alert, confirm, prompt, beforeunload) stay under the agent's control: the action that
opened one returns it in its receipt, ``page.info()`` reports it, and ``accept_dialog`` /
``dismiss_dialog`` answer it (``Page.handleJavaScriptDialog`` on the session of the frame that
opened it). An open dialog blocks its renderer, so every operation that needs the renderer goes
through :meth:`Dialogs.guard`: it fails fast while a dialog is open, and if one opens while the
operation runs, the operation is left to finish in the background and the caller is told at once.

Only Chromium's events change the queue (``javascriptDialogOpening`` and
``javascriptDialogClosed``), never a timer: a handler that alerts again at once shows as the
next dialog, not as none (issue 9 point 11). Several can be open at once only in different
renderers (out-of-process frames).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from ..cdp import Connection, Session
from ..cdp.errors import NoDialog
from ..errors import CdpChannelUnavailable, InvalidState
from .frames import FrameTree

__all__ = ["Dialogs", "DialogPage", "dialog_open_error"]

T = TypeVar("T")


class DialogPage(Protocol):
    """What the dialog part uses of its page (``PageDriver``; the page imports this module)."""

    conn: Connection
    session: Session
    sessions: dict[str, Session]
    frames: FrameTree

    def _bump(self) -> None: ...

    async def wait_until(self, predicate: Callable[[], Any], *, timeout: float) -> Any: ...

    def stale_all_refs(self) -> None: ...


def _describe(dialog: dict[str, Any]) -> str:
    message = str(dialog.get("message") or "")
    if len(message) > 80:
        message = message[:77] + "..."
    return f'a JavaScript {dialog.get("type")} dialog ("{message}")'


def dialog_open_error(api: str, dialog: dict[str, Any], *, opened_now: bool = False) -> InvalidState:
    """The error of an operation a dialog blocks (open before it, or opened while it ran)."""
    what = "opened while it ran and blocks the page" if opened_now else "is open and blocks the page"
    return InvalidState(
        f"{api}: {_describe(dialog)} {what}; handle it with page.accept_dialog() or "
        "page.dismiss_dialog(), then try again",
        api=api,
    )


class Dialogs:
    """The page driver's dialog part (``driver.dialogs``)."""

    def __init__(self, driver: DialogPage) -> None:
        self._driver = driver
        #: open dialogs, oldest first, each with the session whose frame opened it (answer it there)
        self._open: list[tuple[Session, dict[str, Any]]] = []
        #: javascriptDialogClosed events seen: an answered dialog waits for the next one
        self.closed = 0
        #: ``fn(dialog)`` called as each dialog opens (receipts, the guard, the settle wait)
        self.listeners: list[Callable[[dict[str, Any]], Any]] = []

    # -- state -----------------------------------------------------------------------------

    @property
    def current(self) -> dict[str, Any] | None:
        """The dialog to handle first (the oldest open one), or None."""
        return self._open[0][1] if self._open else None

    @property
    def session(self) -> Session | None:
        """The session of the frame that opened the current dialog (answer it there)."""
        return self._open[0][0] if self._open else None

    def clear(self) -> None:
        """No dialog shows any more (the renderer died)."""
        self._open.clear()

    def drop(self, session: Session) -> None:
        """The browser says ``session`` shows no dialog (it answered "No dialog is showing")."""
        self._open = [d for d in self._open if d[0] is not session]
        self._driver._bump()

    # -- Chromium's events -----------------------------------------------------------------

    def opening(self, params: dict[str, Any], sid: str | None) -> None:
        driver = self._driver
        main = driver.frames.main
        session = driver.sessions.get(sid or "", driver.session)
        dialog = {
            "type": params.get("type"),
            "message": params.get("message", ""),
            "default_prompt": params.get("defaultPrompt", "") if params.get("type") == "prompt" else None,
            "url": params.get("url") or (main.url if main else ""),
        }
        self._open.append((session, dialog))
        for cb in self.listeners:
            cb(dialog)
        driver._bump()

    def closing(self, _params: dict[str, Any], sid: str | None) -> None:
        driver = self._driver
        self.closed += 1
        session = driver.sessions.get(sid or "", driver.session)
        for i, (s, _d) in enumerate(self._open):
            if s is session:
                del self._open[i]
                break
        driver._bump()

    # -- the guard -------------------------------------------------------------------------

    async def guard(self, api: str, work: Awaitable[T]) -> T:
        """Run ``work`` unless a dialog blocks the page; never hang because of a dialog.

        A dialog opening meanwhile fails the page's requests still waiting for an answer with
        the dialog error (the browser finishes them once the dialog is handled; their late
        answers are dropped). Answers that already arrived are kept. No task is created: this
        sits on the hot path of ``evaluate``.
        """
        current = self.current
        if current is not None:
            if asyncio.iscoroutine(work):
                work.close()
            raise dialog_open_error(api, current)
        driver = self._driver

        unblock: list[Callable[[], None]] = []

        def on_dialog(d: dict[str, Any]) -> None:
            # what the work waits for, and what it sends from now on (it may not have sent it yet)
            for session_id in list(driver.sessions):
                unblock.append(driver.conn.block_session(
                    session_id, lambda _method: dialog_open_error(api, d, opened_now=True)))

        self.listeners.append(on_dialog)
        try:
            return await work
        finally:
            if on_dialog in self.listeners:
                self.listeners.remove(on_dialog)
            for release in unblock:
                release()

    # -- answering -------------------------------------------------------------------------

    async def answer(self, accept: bool, text: str | None = None, *,
                     background: Callable[[asyncio.Task[Any]], None]) -> bool:
        """Accept or dismiss the current dialog; False if none is open.

        ``background`` keeps the round trip that lets the paused script run on when it has not
        finished by the time the answer returns (the host tracks such tasks until they end).
        """
        driver = self._driver
        session = self.session
        if session is None:
            return False
        params: dict[str, Any] = {"accept": accept}
        if accept and text is not None:
            params["promptText"] = text
        closed_before = self.closed
        try:
            await session.send("Page.handleJavaScriptDialog", params, timeout=5.0)
        except NoDialog:
            self.drop(session)
            return False
        # Chromium tells when the dialog closed; a dialog the page opens right after (an alert
        # in a loop) is already the next one in the queue when we look. No timer ever clears
        # the state: if the event is late, the dialog still shows as open, which is true.
        try:
            await driver.wait_until(lambda: self.closed > closed_before, timeout=5.0)
        except (TimeoutError, CdpChannelUnavailable):
            pass
        else:
            if self.current is None:
                await self._settle(session, background)
        driver.stale_all_refs()
        return True

    async def _settle(self, session: Session, background: Callable[[asyncio.Task[Any]], None]) -> None:
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

        self.listeners.append(opened)
        flush = loop.create_task(session.send("Runtime.evaluate", {"expression": "0"}, timeout=2.0))
        either: set[asyncio.Future[Any]] = {flush, seen}
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if opened in self.listeners:
                self.listeners.remove(opened)
            seen.cancel()
        if flush.done():
            flush.exception()  # a busy or navigating page: its answer does not matter
        else:
            background(flush)
