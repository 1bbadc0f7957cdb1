"""Running an action so that what it opened comes back in its receipt.

A JavaScript dialog opened by the action blocks the renderer, so the CDP command that caused
it would not answer until the dialog is handled: the action is raced against the dialog and
the receipt returns with ``dialog`` set while the command finishes in the background.

Popups are found without a fixed wait: ``Page.windowOpen`` tells, during the action, that a
window is being opened; only then does the receipt wait (briefly, event-driven) for the new
target to be adopted. A flush round trip on the page session makes sure every event the
renderer sent before the action finished has been seen (an element action uses the release
of its element handles, itself a renderer round trip on the page session, as that flush).

What only the host knows (its background tasks, the popups' labels) comes in as the page's :class:`~.sites.ActionSite`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from ..errors import EgoError
from . import navigation
from .dialogs import dialog_open_error
from .page import PageDriver

if TYPE_CHECKING:
    from .sites import ActionSite

__all__ = ["run_action", "POPUP_WAIT"]

#: how long a receipt waits for a window the page announced to show up as a target
POPUP_WAIT = 1.0


async def _flush(driver: PageDriver, flush: Callable[[], Awaitable[Any]] | None) -> None:
    try:
        if flush is not None:
            await flush()
        else:
            await driver.session.send("Runtime.evaluate", {"expression": "0"}, timeout=2.0)
    except EgoError:  # the flush is a courtesy: the receipt reads what arrived either way
        pass


async def run_action(
    driver: PageDriver, site: ActionSite, action: Callable[[], Coroutine[Any, Any, Any]], *,
    api: str = "the action", flush: Callable[[], Awaitable[Any]] | None = None, wait_navigation: bool = False,
    navigation_budget: float | None = None, name: str | None = None,
) -> dict[str, Any]:
    """Run ``action``; its receipt lists the popups and the dialog it opened.

    A native file chooser it opened with no waiter armed raises ``FileChooserOpened``
    (``api`` names the call in that message). ``flush``: a renderer round trip on the page
    session to use as the flush (instead of an extra ``Runtime.evaluate``); it must not raise.
    ``wait_navigation``: when the action started a navigation of the page (link, form submit,
    ``location=``), wait until it has committed (``driver/navigation.py``); the receipt's
    ``navigation`` says where it went. ``navigation_budget``: seconds from the start of the call
    the whole action may take (the op's own deadline), else ``navigation.COMMIT_TIMEOUT``.
    ``name``: the action's name on the requests it starts (``driver/network.py``; default ``api``).
    """
    if driver.dialog is not None:
        # input or navigation would wait behind the dialog: say so at once
        raise dialog_open_error(api if api != "the action" else "page action", driver.dialog)
    mark = driver.choosers.mark()
    nav_mark = navigation.tracker(driver).seq if wait_navigation else None
    started = asyncio.get_running_loop().time()
    nav_outcome: dict[str, Any] | None = None
    loop = asyncio.get_running_loop()
    announced = 0
    popups: list[dict[str, Any]] = []
    arrived = asyncio.Event()

    def window_open(_params: dict[str, Any], _sid: str | None) -> None:
        nonlocal announced
        announced += 1

    def popup(info: dict[str, Any]) -> None:
        if info.get("openerId") in driver.sessions_target_ids():
            popups.append(info)
            arrived.set()

    dialog_seen: asyncio.Future[dict[str, Any]] = loop.create_future()

    def dialog(d: dict[str, Any]) -> None:
        if not dialog_seen.done():
            dialog_seen.set_result(d)

    offs = [driver.session.on("Page.windowOpen", window_open), site.watch_popups(popup)]
    driver.dialogs.listeners.append(dialog)
    result: Any = None
    # the requests started until the receipt is made carry this action (driver/network.py)
    action_id = driver.network.begin_action(name or api)
    try:
        task = loop.create_task(action())
        try:
            done, _ = await asyncio.wait({task, dialog_seen}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            # the request was stopped (a take-over, its deadline): so is the action's input
            # the host's deadline (or the host stopping): the action takes no further step (a
            # retry would deliver input after its caller was told it timed out); what it already
            # sent stays sent, which the timeout's input_dispatched reports
            task.cancel()
            site.background(task)
            raise
        if task in done:
            result = task.result()
            if not dialog_seen.done() and driver.dialog is None:
                # flush: events the renderer sent before answering are now in. A dialog the
                # action caused a moment later (a handler's setTimeout) blocks the flush's
                # answer: the receipt then returns with the dialog at once
                flushing = loop.create_task(_flush(driver, flush))
                either: set[asyncio.Future[Any]] = {flushing, dialog_seen}
                if nav_mark is not None:
                    # a navigation the action started is as good a flush (every event the
                    # renderer sent before it is in), and the release would wait for its load
                    either.add(loop.create_task(navigation.tracker(driver).answered_unless_navigating(nav_mark, flushing)))
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                for waiter in either - {flushing, dialog_seen}:
                    waiter.cancel()
                if not flushing.done():
                    site.background(flushing)
            chooser_error = driver.choosers.unarmed_error(mark, api)
            if chooser_error is not None:
                raise chooser_error
            if nav_mark is not None and not dialog_seen.done():
                budget = navigation_budget or navigation.COMMIT_TIMEOUT
                nav_outcome = await navigation.settle_after_action(
                    driver, nav_mark, timeout=max(0.5, budget - (loop.time() - started))
                )
        else:
            # the dialog blocks the command; let it finish whenever the dialog is handled
            site.background(task)
        deadline = loop.time() + POPUP_WAIT
        while len(popups) < announced and loop.time() < deadline:
            arrived.clear()
            try:
                await asyncio.wait_for(arrived.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                break
    finally:
        driver.network.end_action(action_id)
        for off in offs:
            off()
        if dialog in driver.dialogs.listeners:
            driver.dialogs.listeners.remove(dialog)
    # the store is asked only when the action opened something (most open nothing)
    labels = site.popup_labels([p["targetId"] for p in popups]) if popups else []
    current = driver.dialog
    return {
        "popups": [{"label": label, "target_id": tid} for tid, label in labels],
        "dialog": dict(current) if current is not None else None,
        "result": result,
        "navigation": nav_outcome,
    }
