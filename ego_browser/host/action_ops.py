"""Element actions, ``page.find``, and the page's mouse and keyboard.

Input to one page runs in call order (the page's input lock); reads and waits are not held up
by it. Mouse position, held buttons and held keys belong to the round (process) that made
them: each round sends a token and gets its own ``Mouse``/``Keyboard`` pair.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from typing import Any
from urllib.parse import urlsplit

from ..cdp.errors import TargetClosed
from ..driver import actions, dispatch
from ..driver.keyboard import Keyboard
from ..driver.mouse import Mouse
from ..driver.page import PageDriver
from ..errors import CdpChannelUnavailable, CdpError, InvalidArgument
from ..selectors import engine
from ..selectors._core import state_fields
from ..selectors.parse import RefSelector, parse_selector
from .core import Host, PageCtx
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
    states: OrderedDict = getattr(driver, "input_states", None)  # type: ignore[assignment]
    if states is None:
        states = OrderedDict()
        driver.input_states = states  # type: ignore[attr-defined]
    key = str(token or "")
    pair = states.get(key)
    if pair is None:
        session = driver.session
        check = driver.check_input

        async def send(method: str, params: dict | None = None) -> Any:
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


def _context(ctx: PageCtx, args: dict[str, Any], api: str, selector: str, run: _Run) -> actions.ActionContext:
    mouse, keyboard = input_state(ctx.driver, args.get("proc"))
    run.actx = actions.ActionContext(mouse=mouse, keyboard=keyboard, selector=selector, api=api,
                                     page_session=ctx.driver.session, bring_to_front=run.front)
    return run.actx


async def _act(host: Host, args: dict[str, Any], api: str, body, *, navigates: bool = False) -> dict[str, Any]:
    """Gate, activate, serialise input on the page, run with a receipt, release handles.

    The handles live in an object group of this action alone. The receipt's flush is the
    release of that group (a renderer round trip on the page session), unless the action's
    last call already was one, after its last input (``ActionContext.flushed``): then the
    release is sent without waiting for it (no later call can use that group).
    """
    ctx = await host.page_ctx(args, activate=True)
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
        try:
            return await run_action(host, ctx, lambda: body(ctx, run), api=api, flush=release,
                                    wait_navigation=navigates and not args.get("no_wait_after"),
                                    navigation_budget=_navigation_budget(args))
        finally:
            if not released:
                # failed, or a dialog opened: a dialog blocks the renderer, so this release
                # would only answer once the dialog is handled. Nobody waits for it.
                host.background(asyncio.ensure_future(release_handles(driver, run.group)))


def _navigation_budget(args: dict[str, Any]) -> float:
    """Seconds an element action may spend in all, its navigation wait included: what the op's
    deadline (timeout + ``ops.MARGIN``) leaves, less a second to answer, at most the commit wait."""
    from ..driver.navigation import COMMIT_TIMEOUT
    from .ops import MARGIN

    return min(COMMIT_TIMEOUT, _timeout(args) / 1000 + MARGIN - 1.0)


def _timeout(args: dict[str, Any]) -> float:
    return args.get("timeout", 3000)


@op("page.click")
async def click(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.click(
            _context(ctx, args, "page.click", sel, run), resolver(host, ctx, sel, run.group),
            button=args.get("button", "left"), click_count=args.get("click_count", 1), delay=args.get("delay", 0),
            position=args.get("position"), force=args.get("force", False), timeout_ms=_timeout(args),
            label=args.get("label"),
        )

    return await _act(host, args, "page.click", body, navigates=True)


@op("page.dblclick")
async def dblclick(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.dblclick(
            _context(ctx, args, "page.dblclick", sel, run), resolver(host, ctx, sel, run.group),
            button=args.get("button", "left"), delay=args.get("delay", 0), position=args.get("position"),
            force=args.get("force", False), timeout_ms=_timeout(args), label=args.get("label"),
        )

    return await _act(host, args, "page.dblclick", body, navigates=True)


@op("page.hover")
async def hover(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.hover(
            _context(ctx, args, "page.hover", sel, run), resolver(host, ctx, sel, run.group),
            position=args.get("position"), force=args.get("force", False), timeout_ms=_timeout(args),
            label=args.get("label"),
        )

    return await _act(host, args, "page.hover", body)


@op("page.drag_and_drop")
async def drag_and_drop(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    source, target = args["source"], args["target"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.drag_and_drop(
            _context(ctx, args, "page.drag_and_drop", source, run), resolver(host, ctx, source, run.group),
            resolver(host, ctx, target, run.group), button=args.get("button", "left"),
            source_position=args.get("source_position"), target_position=args.get("target_position"),
            force=args.get("force", False), timeout_ms=_timeout(args), label=args.get("label"),
            target_selector=target,
        )

    return await _act(host, args, "page.drag_and_drop", body)


@op("page.fill")
async def fill(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.fill(
            _context(ctx, args, "page.fill", sel, run), resolver(host, ctx, sel, run.group), args["value"],
            clear_first=args.get("clear_first", True), timeout_ms=_timeout(args),
        )

    return await _act(host, args, "page.fill", body)


@op("page.select_option")
async def select_option(host: Host, args: dict[str, Any]) -> list[str]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.select_option(
            _context(ctx, args, "page.select_option", sel, run), resolver(host, ctx, sel, run.group), args.get("value"),
            timeout_ms=_timeout(args),
        )

    receipt = await _act(host, args, "page.select_option", body)
    return receipt["result"] if receipt.get("dialog") is None else (receipt.get("result") or [])


@op("page.focus")
async def focus(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.focus(
            _context(ctx, args, "page.focus", sel, run), resolver(host, ctx, sel, run.group), timeout_ms=_timeout(args)
        )

    return await _act(host, args, "page.focus", body)


@op("page.press")
async def press(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    sel = args["selector"]

    async def body(ctx: PageCtx, run: _Run) -> Any:
        return await actions.press(
            _context(ctx, args, "page.press", sel, run), resolver(host, ctx, sel, run.group), args["key"],
            delay=args.get("delay", 0), timeout_ms=_timeout(args),
        )

    return await _act(host, args, "page.press", body, navigates=True)


# -- find ------------------------------------------------------------------------------------


@op("page.find")
async def find(host: Host, args: dict[str, Any]) -> list[dict[str, Any]]:
    selector = args["selector"]
    limit = args.get("limit", 100)
    from .dialog_ops import guarded

    parsed = parse_selector(selector)
    ctx = await host.page_ctx(args, activate=True)
    # a dialog blocks the renderer: fail at once, as every other call does (B151)
    return await guarded(ctx.driver, "page.find", _find(host, ctx, parsed, limit))


async def _find(host: Host, ctx: PageCtx, parsed: Any, limit: Any) -> list[dict[str, Any]]:
    from .snapshot_ops import ledger_for, save_ledger

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


async def _input(host: Host, args: dict[str, Any], body, *, receipt: bool, api: str = "",
                 navigates: bool = False) -> Any:
    ctx = await host.page_ctx(args, activate=True)
    mouse, keyboard = input_state(ctx.driver, args.get("proc"))
    async with ctx.driver.input_lock:
        if receipt:
            return await run_action(host, ctx, lambda: body(mouse, keyboard), api=api,
                                    wait_navigation=navigates and not args.get("no_wait_after"))
        await body(mouse, keyboard)
        return None


@op("mouse.click")
async def mouse_click(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: m.click(
        args["x"], args["y"], button=args.get("button", "left"), click_count=args.get("click_count", 1),
        delay=args.get("delay", 0)), receipt=True, api="mouse.click", navigates=True)


@op("mouse.move")
async def mouse_move(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: m.move(args["x"], args["y"], steps=args.get("steps", 1)), receipt=False)


@op("mouse.down")
async def mouse_down(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: m.down(
        button=args.get("button", "left"), click_count=args.get("click_count", 1)), receipt=False)


@op("mouse.up")
async def mouse_up(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: m.up(
        button=args.get("button", "left"), click_count=args.get("click_count", 1)), receipt=False)


@op("mouse.wheel")
async def mouse_wheel(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: m.wheel(args["delta_x"], args["delta_y"]), receipt=False)


@op("keyboard.down")
async def key_down(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: k.down(args["key"]), receipt=False)


@op("keyboard.up")
async def key_up(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: k.up(args["key"]), receipt=False)


@op("keyboard.press")
async def key_press(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: k.press(args["key"], delay=args.get("delay", 0)), receipt=True,
                        api="keyboard.press", navigates=True)


@op("keyboard.type")
async def key_type(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: k.type(args["text"], delay=args.get("delay", 0)), receipt=False)


@op("keyboard.insert_text")
async def key_insert_text(host: Host, args: dict[str, Any]) -> Any:
    return await _input(host, args, lambda m, k: k.insert_text(args["text"]), receipt=False)


@op("keyboard.paste")
async def key_paste(host: Host, args: dict[str, Any]) -> Any:
    content = args["content"]
    if not isinstance(content, (str, dict)):
        raise InvalidArgument(
            "keyboard.paste: content must be a str or {\"text\": str, \"html\": str}", api="keyboard.paste",
            option="content", expected="str or dict",
        )
    return await _input(host, args, lambda m, k: k.paste(content), receipt=True, api="keyboard.paste")
