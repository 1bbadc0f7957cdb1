"""Running element actions and input on a page: the round's input state, the page's input
lock, the receipt, and the element handles' lifetime.

Input to one page runs in call order (the page's input lock); reads and waits are not held up
by it. Mouse position, held buttons and held keys belong to the round (process) that made
them: each round sends a token and gets its own ``Mouse``/``Keyboard`` pair
(:func:`input_state`). The host declares the operations and passes what only it knows as the
page's :class:`~.sites.ActionSite`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..cdp.errors import TargetClosed
from ..errors import CdpChannelUnavailable, CdpError
from . import dispatch, navigation, state_actions, waits
from .handles import ActionContext
from .keyboard import Keyboard
from .mouse import Mouse
from .page import PageDriver
from .receipts import run_action
from .witness import witnessed

if TYPE_CHECKING:
    from .sites import ActionSite, RefBook

__all__ = ["input_state", "element_action", "locked_action", "input_action", "element_read", "PARSE_WAIT"]

#: rounds whose input state a page remembers (oldest forgotten first)
_INPUT_STATES = 16

#: input that only ends what an earlier command of the same action started
_RELEASES = frozenset({"mouseReleased", "keyUp"})

#: longest an element action waits for its document to finish parsing before it acts anyway
PARSE_WAIT = 5.0


def _page_gone(driver: PageDriver, exc: Exception) -> bool:
    """The page the input was for has closed (or its session went with it)."""
    return driver.closed or isinstance(exc, TargetClosed)


def input_state(driver: PageDriver, token: Any) -> tuple[Mouse, Keyboard]:
    """The ``Mouse``/``Keyboard`` pair of the round that sent ``token`` on this page."""
    dispatch.expect_input()
    states = driver.input_states
    key = str(token or "")
    pair = states.get(key)
    if pair is None:
        session = driver.session
        check = driver.check_input

        async def send(method: str, params: dict[str, Any] | None = None) -> Any:
            check()  # every mouse/keyboard dispatch re-checks who controls the space
            if method == "Browser.grantPermissions":
                params = _own_grant(driver, params or {})
            progress = dispatch.current()
            sent_before = progress is not None and progress.input_dispatched is True
            dispatch.mark()  # from here on, a timeout cannot promise the page saw nothing
            for listener in driver.input_listeners:
                listener(method, params)
            try:
                return await session.send(method, params, timeout=30.0)
            except (CdpChannelUnavailable, CdpError) as exc:
                if sent_before and (params or {}).get("type") in _RELEASES and _page_gone(driver, exc):
                    # the press closed the page (a handler's window.close(), a lookup popup its
                    # opener closes): the release has nowhere to go, and the press has happened
                    return {}
                raise

        keyboard = Keyboard(send)
        pair = (Mouse(send, keyboard), keyboard)
        states[key] = pair
        while len(states) > _INPUT_STATES:
            states.popitem(last=False)
    else:
        states.move_to_end(key)
    return pair


def _own_grant(driver: PageDriver, params: dict[str, Any]) -> dict[str, Any]:
    """Scope paste's clipboard grant to the page: its origin, and its space's own context.

    Without them Chromium grants to every origin of the default browser context, whatever
    session asks: the user's own browsing (and, from an isolated space, not even its own).
    """
    params = dict(params)
    main = driver.frames.main
    parts = urlsplit(main.url if main is not None else "")
    if "origin" not in params and parts.scheme in ("http", "https") and parts.netloc:
        params["origin"] = f"{parts.scheme}://{parts.netloc}"
    context = driver.context_id
    if context and "browserContextId" not in params:
        params["browserContextId"] = context
    return params


_groups = itertools.count(1)


class _Run:
    """One element action: its own object group for the element handles, and its context."""

    __slots__ = ("group", "actx")

    def __init__(self) -> None:
        self.group = f"ego-act-{next(_groups)}"
        self.actx: ActionContext | None = None


async def _act(
    driver: PageDriver, site: ActionSite, api: str, run: _Run, body: Callable[[], Coroutine[Any, Any, Any]], *,
    navigates: bool, timeout_ms: float, budget: float,
) -> dict[str, Any]:
    """Serialise input on the page, run ``body`` with a receipt, release handles.

    The handles live in an object group of this action alone. The receipt's flush is the
    release of that group (a renderer round trip on the page session), unless the action's
    last call already was one, after its last input (``ActionContext.flushed``): then the
    release is sent without waiting for it (no later call can use that group).
    """
    released = False

    async def release() -> None:
        nonlocal released
        released = True
        if run.actx is not None and run.actx.flushed:
            site.background(asyncio.ensure_future(driver.locate.release(run.group)))
        else:
            await driver.locate.release(run.group)

    try:
        return await locked_action(driver, site, body, api=api, timeout_ms=timeout_ms, flush=release,
                                   navigates=navigates, budget=budget)
    finally:
        if not released:
            # failed, or a dialog opened: a dialog blocks the renderer, so this release
            # would only answer once the dialog is handled. Nobody waits for it.
            site.background(asyncio.ensure_future(driver.locate.release(run.group)))


async def locked_action(
    driver: PageDriver, site: ActionSite, body: Callable[[], Coroutine[Any, Any, Any]], *, api: str,
    timeout_ms: float, flush: Callable[[], Awaitable[Any]] | None = None, navigates: bool = False,
    budget: float | None = None,
) -> dict[str, Any]:
    """Run ``body`` as one input action of the page: after the input before it (the page's
    input lock), once the document is parsed (at most ``PARSE_WAIT``), with a receipt (which
    refuses to start under an open dialog). Every element action goes through here."""
    if driver.input_lock.locked():
        driver.stats["input_queued"] += 1  # tests read it: this action waited for another's input
    async with driver.input_lock:
        # the page's scripts below the element may not have run yet (its handlers not attached)
        await navigation.until_parsed(driver, min(timeout_ms / 2000, PARSE_WAIT))
        return await run_action(driver, site, body, api=api, flush=flush, wait_navigation=navigates,
                                navigation_budget=budget)


async def element_action(
    driver: PageDriver, site: ActionSite, run: Callable[..., Coroutine[Any, Any, Any]], selectors: list[str], *,
    api: str, token: Any, navigates: bool, timeout_ms: float, budget: float, **kwargs: Any,
) -> dict[str, Any]:
    """Run the element action ``run(actx, *resolvers, timeout_ms=..., **kwargs)`` on the page:
    one resolver per selector (the first names the element acted on), the round's own mouse
    and keyboard, the page's input lock, and a receipt. ``navigates``: wait for a navigation
    the action starts; ``budget``: seconds the whole action may take, that wait included."""
    state = _Run()

    async def body() -> Any:
        mouse, keyboard = input_state(driver, token)
        # the host's record of the front tab can be wrong (the person switched tabs): the page
        # itself says when it is hidden, and the action then activates its tab
        nav = navigation.tracker(driver)
        mark = nav.seq
        state.actx = ActionContext(mouse=mouse, keyboard=keyboard, selector=selectors[0], api=api,
                                   page_session=driver.session, bring_to_front=site.activate,
                                   navigation_started=lambda: nav.seq > mark,
                                   answered_unless_navigating=lambda fut: nav.answered_unless_navigating(mark, fut),
                                   arm_change=lambda seconds: waits.arm_change(driver, seconds, api))
        # a ref's liveness check rides along with the action's first in-page call
        resolvers = [driver.locate.resolver(site, text, state.group, confirm_later=True) for text in selectors]
        resolvers[0] = witnessed(resolvers[0])  # the journal's record of the target, when it listens
        return await run(state.actx, *resolvers, timeout_ms=timeout_ms, **kwargs)

    return await _act(driver, site, api, state, body, navigates=navigates, timeout_ms=timeout_ms, budget=budget)


async def input_action(
    driver: PageDriver, site: ActionSite, token: Any, device: str, method: str, kwargs: dict[str, Any], *,
    api: str, receipt: bool, navigates: bool,
) -> dict[str, Any] | None:
    """``Page.mouse.*`` / ``Page.keyboard.*``: the round's own Mouse or Keyboard runs ``method``
    under the page's input lock; with a receipt when ``receipt`` (waiting for a navigation it
    starts when ``navigates``)."""
    mouse, keyboard = input_state(driver, token)
    call = getattr(mouse if device == "mouse" else keyboard, method)
    async with driver.input_lock:
        if receipt:
            return await run_action(driver, site, lambda: call(**kwargs), api=api, wait_navigation=navigates)
        await call(**kwargs)
        return None


_reads = itertools.count(1)


def element_read(driver: PageDriver, refs: RefBook, selector: str, *, api: str, kind: str, arg: Any,
                 timeout_ms: float, wait: bool) -> Coroutine[Any, Any, Any]:
    """The read ``kind`` of the one element ``selector`` names (``is_checked``, ``text_content``
    ...; ``driver/state_actions.py``). A read takes no input lock and sends no input: it
    resolves strictly, waits for a match when ``wait``, and releases its handles. The selector
    is parsed now (an invalid one fails before anything runs); the returned coroutine reads."""
    group = f"ego-read-{next(_reads)}"
    # a read moves no pointer and presses no key: its context has neither
    actx = ActionContext(mouse=None, keyboard=None, selector=selector, api=api,  # type: ignore[arg-type]
                         arm_change=lambda seconds: waits.arm_change(driver, seconds, api))
    resolve = driver.locate.resolver(refs, selector, group)

    async def read() -> Any:
        try:
            return await state_actions.read_state(actx, resolve, kind=kind, arg=arg, timeout_ms=timeout_ms, wait=wait)
        finally:
            await driver.locate.release(group)

    return read()
