"""Element actions, ``page.find``, and the page's mouse and keyboard.

Input to one page runs in call order (the page's input lock); reads and waits are not held up
by it. Mouse position, held buttons and held keys belong to the round (process) that made
them: each round sends a token and gets its own ``Mouse``/``Keyboard`` pair.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

from ..cdp.errors import TargetClosed
from ..driver import actions, dispatch, form_actions, navigation
from ..driver.keyboard import Keyboard
from ..driver.mouse import Mouse
from ..driver.page import PageDriver
from ..errors import CdpChannelUnavailable, CdpError
from ..selectors import engine
from ..selectors._core import state_fields
from ..selectors.parse import RefSelector, parse_selector
from .core import Host, PageCtx
from ..schema import wire
from ..schema.spec import members
from .ops import op
from .receipts import run_action
from .targeting import EngineFrames, release_handles, resolver

#: rounds whose input state a page remembers (oldest forgotten first)
_INPUT_STATES = 16


#: input that only ends what an earlier command of the same action started
_RELEASES = frozenset({"mouseReleased", "keyUp"})


def _page_gone(driver: PageDriver, exc: Exception) -> bool:
    """The page the input was for has closed (or its session went with it)."""
    return driver.closed or isinstance(exc, TargetClosed)


def input_state(driver: PageDriver, token: Any) -> tuple[Mouse, Keyboard]:
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

    __slots__ = ("group", "actx", "front")

    def __init__(self, front: Any = None) -> None:
        self.group = f"ego-act-{next(_groups)}"
        self.actx: actions.ActionContext | None = None
        self.front = front


def _context(ctx: PageCtx, at: dict[str, Any], api: str, selector: str, run: _Run) -> actions.ActionContext:
    mouse, keyboard = input_state(ctx.driver, at.get("proc"))
    run.actx = actions.ActionContext(mouse=mouse, keyboard=keyboard, selector=selector, api=api,
                                     page_session=ctx.driver.session, bring_to_front=run.front)
    return run.actx


async def _act(
    host: Host, at: dict[str, Any], api: str, body: Callable[[PageCtx, _Run], Coroutine[Any, Any, Any]], *,
    navigates: bool, timeout: float,
) -> dict[str, Any]:
    """Gate, activate, serialise input on the page, run with a receipt, release handles.

    The handles live in an object group of this action alone. The receipt's flush is the
    release of that group (a renderer round trip on the page session), unless the action's
    last call already was one, after its last input (``ActionContext.flushed``): then the
    release is sent without waiting for it (no later call can use that group).
    """
    ctx = await host.page_ctx(at, activate=True)
    driver = ctx.driver
    # the host's record of the front tab can be wrong (the person switched tabs): the page
    # itself says when it is hidden, and the action then activates its tab
    run = _Run(lambda: host.activate(ctx.space.id, driver.target_id))
    released = False

    async def release() -> None:
        nonlocal released
        released = True
        if run.actx is not None and run.actx.flushed:
            host.background(asyncio.ensure_future(release_handles(driver, run.group)))
        else:
            await release_handles(driver, run.group)

    async with driver.input_lock:
        # the page's scripts below the element may not have run yet (its handlers not attached)
        await navigation.until_parsed(driver, min(timeout / 2000, _PARSE_WAIT))
        try:
            return await run_action(host, ctx, lambda: body(ctx, run), api=api, flush=release,
                                    wait_navigation=navigates, navigation_budget=_navigation_budget(timeout))
        finally:
            if not released:
                # failed, or a dialog opened: a dialog blocks the renderer, so this release
                # would only answer once the dialog is handled. Nobody waits for it.
                host.background(asyncio.ensure_future(release_handles(driver, run.group)))


#: longest an element action waits for its document to finish parsing before it acts anyway
_PARSE_WAIT = 5.0


def _navigation_budget(timeout: float) -> float:
    """Seconds an element action may spend in all, its navigation wait included: what the op's
    deadline (timeout + ``ops.MARGIN``) leaves, less a second to answer, at most the commit wait."""
    from ..driver.navigation import COMMIT_TIMEOUT
    from .ops import MARGIN

    return min(COMMIT_TIMEOUT, timeout / 1000 + MARGIN - 1.0)


#: element actions: declaration -> the driver function that runs it. The rest is derived from
#: the declaration: its ``selector``-typed parameters are resolved (the first is the element
#: acted on; a further one, such as drag_and_drop's ``target``, also goes to the driver as
#: ``<name>_selector`` text for its messages); an action with a ``no_wait_after`` parameter
#: waits for a navigation it starts; one not declared to return a receipt returns its result.
ELEMENT_ACTIONS: dict[str, Any] = {
    "Page.click": actions.click,
    "Page.dblclick": actions.dblclick,
    "Page.hover": actions.hover,
    "Page.drag_and_drop": actions.drag_and_drop,
    "Page.fill": form_actions.fill,
    "Page.select_option": form_actions.select_option,
    "Page.focus": form_actions.focus,
    "Page.press": form_actions.press,
}


def element_action(name: str, run: Any, *, navigates: bool | None = None) -> None:
    """Register the handler of element action ``name`` (a ``Page`` member) run by driver function
    ``run(actx, *resolvers, timeout_ms=..., **the other declared arguments)``. ``navigates``:
    wait for a navigation the action starts (default: when it declares ``no_wait_after``)."""
    member = wire.declaration(name)
    api = member.api
    targets = [p.name for p in member.params if p.type == "selector"]
    switch = any(p.name == "no_wait_after" for p in member.params)
    if navigates is None:
        navigates = switch
    receipt = member.returns == "ActionReceipt"

    async def handler(host: Host, at: dict[str, Any], **kwargs: Any) -> Any:
        timeout = kwargs.pop("timeout")
        no_wait_after = kwargs.pop("no_wait_after") if switch else False
        selectors = [kwargs.pop(n) for n in targets]
        for n, text in zip(targets[1:], selectors[1:]):
            kwargs[f"{n}_selector"] = text

        async def body(ctx: PageCtx, r: _Run) -> Any:
            actx = _context(ctx, at, api, selectors[0], r)
            resolvers = [resolver(host, ctx, text, r.group) for text in selectors]
            return await run(actx, *resolvers, timeout_ms=timeout, **kwargs)

        done = await _act(host, at, api, body, navigates=navigates and not no_wait_after, timeout=timeout)
        if receipt:
            return done
        return done["result"] if done.get("dialog") is None else (done.get("result") or [])

    handler.__name__ = handler.__qualname__ = member.short
    op(name)(handler)


for _name, _run in ELEMENT_ACTIONS.items():
    element_action(_name, _run)


# -- find ------------------------------------------------------------------------------------


@op("Page.find")
async def find(host: Host, at: dict[str, Any], *, selector: str, limit: int) -> list[dict[str, Any]]:
    parsed = parse_selector(selector)
    ctx = await host.page_ctx(at, activate=True)
    # a dialog blocks the renderer: fail at once, as every other call does (B151)
    return await ctx.driver.dialogs.guard("page.find", _find(host, ctx, parsed, limit))


async def _find(host: Host, ctx: PageCtx, parsed: Any, limit: Any) -> list[dict[str, Any]]:
    from .ledgers import ledger_for, save_ledger

    driver = ctx.driver
    ledger = ledger_for(host, ctx)
    if isinstance(parsed, RefSelector):
        return [await _describe_ref(host, ctx, parsed.ref)]
    from ..snapshot import settle

    # a snapshot may still be fetching its nodes' ids: numbers must be bound before we hand
    # out more, or a node could get a second one
    await settle(ledger)
    try:
        found = await engine.resolve(EngineFrames(driver), parsed, mode="all", limit=limit, describe=True,
                                     backend_ids=True, object_group=engine.DEFAULT_GROUP)
        await engine.ax_describe(found.matches)
        rows = []
        for m in found.matches:
            ref = None
            if m.backend_node_id is not None and m.loader_id:
                ref = f"@{ledger.assign((m.frame_id, m.loader_id, m.backend_node_id))}"
            rows.append(m.find_dict(ref))
        save_ledger(host, driver)
        return rows
    finally:
        await release_handles(driver)


async def _describe_ref(host: Host, ctx: PageCtx, ref: int) -> dict[str, Any]:
    from .targeting import handle_for_ref

    handle = await handle_for_ref(host, ctx, ref)
    try:
        res = await handle.session.send(
            "Runtime.callFunctionOn",
            {"objectId": handle.object_id, "returnByValue": True,
             "functionDeclaration": "function() { return globalThis.__egoSel ? __egoSel.describe(this) : null; }"},
            timeout=5.0,
        )
        info = (res.get("result") or {}).get("value")
        if info is None:
            await host_install_engine(handle)
            res = await handle.session.send(
                "Runtime.callFunctionOn",
                {"objectId": handle.object_id, "returnByValue": True,
                 "functionDeclaration": "function() { return __egoSel.describe(this); }"},
                timeout=5.0,
            )
            info = (res.get("result") or {}).get("value") or {}
    finally:
        await release_handles(ctx.driver)
    binding = ctx.driver.ledger.lookup(ref)
    frame = ctx.driver.frames.get(binding.frame_id)
    row = {"ref": f"@{ref}", "tag": info.get("tag"), "id": info.get("id"), "role": info.get("role"),
           "name": info.get("name"), "text": info.get("text"), "visible": info.get("visible"),
           "frame": None if frame is None or frame.is_main else frame.url, **state_fields(info)}
    return row


async def host_install_engine(handle: actions.ElementHandle) -> None:
    await handle.session.send(
        "Runtime.evaluate", {"expression": engine.engine_source(), "contextId": handle.context_id}, timeout=5.0
    )


# -- mouse and keyboard ---------------------------------------------------------------------


#: what the page's input objects do not take: the navigation switch (the receipt's business;
#: the pointer's caption travels in the envelope and never reaches a handler)
_NOT_INPUT = ("no_wait_after",)


def input_op(name: str) -> None:
    """Register the handler of ``Page.mouse.*`` / ``Page.keyboard.*`` member ``name``: the
    round's own Mouse or Keyboard runs the method of that name with the declared arguments; a
    member declared to return a receipt runs with one, and waits for a navigation it starts
    when it has a ``no_wait_after`` parameter."""
    member = wire.declaration(name)
    device = (member.owner or "").rpartition(".")[2]  # "mouse" | "keyboard"
    receipt = member.returns == "ActionReceipt"
    navigates = any(p.name == "no_wait_after" for p in member.params)

    async def handler(host: Host, at: dict[str, Any], **kwargs: Any) -> Any:
        wait = navigates and not kwargs.pop("no_wait_after")
        for key in _NOT_INPUT:
            kwargs.pop(key, None)
        ctx = await host.page_ctx(at, activate=True)
        mouse, keyboard = input_state(ctx.driver, at.get("proc"))
        method = getattr(mouse if device == "mouse" else keyboard, member.short)
        async with ctx.driver.input_lock:
            if receipt:
                return await run_action(host, ctx, lambda: method(**kwargs), api=member.api, wait_navigation=wait)
            await method(**kwargs)
            return None

    handler.__name__ = handler.__qualname__ = f"{device}_{member.short}"
    op(name)(handler)


for _member in members().values():
    if _member.owner in ("Page.mouse", "Page.keyboard") and _member.call == "async":
        input_op(_member.name)
