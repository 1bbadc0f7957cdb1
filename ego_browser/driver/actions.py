"""The element-action pipeline: checks, wheel scrolling, hit test, trusted input, retry.

The page's ``Locator`` (``driver/locate.py``) resolves selectors; this module acts on what it
resolves. Every action takes an ``ActionContext`` (``driver/handles.py``: the Page's mouse and
keyboard, the selector text for messages, the API name) and ``resolve``, an async callable
returning the current candidates as ``ElementHandle`` s (it is called again on every attempt,
so a re-rendered page is seen). What an ambiguity error lists is ``driver/candidates.py``'s.

One attempt: resolve → per-candidate :func:`check` (a candidate is a match passing the
action's checks; two passing → ``SelectorAmbiguous``) → scroll into view with trusted wheel
events over each scroll container → press point from the visible box → hit test → move →
hit test again → re-read the box → press. Transient blockers are retried, pausing
0, 20, 100, 100, 500, 500… ms, until ``timeout_ms``; then the last blocker is raised as
``<api> timed out after <N>ms: <blocker>``. Input is delivered at most once.

Coordinates: see ``driver/handles.py``. Chromium routes top-session input into same-process
and out-of-process iframes alike.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .. import jsbundle
from ..cdp.errors import ContextDestroyed, ObjectNotFound
from ..errors import (
    CdpChannelUnavailable,
    CdpError,
    NotActionable,
    PageScriptError,
    SelectorNotFound,
)
from . import dispatch, preload
from .candidates import ambiguous_candidates, fill_targets_ambiguous
from .handles import ActionContext, ElementHandle, Resolve, Transient

__all__ = [
    "RETRY_PAUSES_MS",
    "check",
    "click",
    "dblclick",
    "hover",
    "drag_and_drop",
    "call",
]

#: pauses between attempts; the last one repeats
RETRY_PAUSES_MS = (0, 20, 100, 100, 500)

#: moves between a drag's press and its release, so mouse-driven widgets see a drag
DRAG_STEPS = 5

# ---- in-page helper calls ------------------------------------------------------------------


#: helpers that change the page (focus, selection, a value set by script): input, for
#: ``EgoTimeout.input_dispatched``
_MUTATING = frozenset({"fillPrepare", "focusForFill", "focus", "selectOption"})


#: ``action_helper`` for a world without the helpers: installs them, then calls (see ``call``)
_INSTALL_AND_CALL_HEAD = "function(name, ...args) { const A = "
_INSTALL_AND_CALL_TAIL = "; return A[name](this, ...args); }"


async def call(handle: ElementHandle, name: str, *args: Any) -> Any:
    """Call ``A[name](element, *args)`` in the handle's world; installs the helpers on first use."""
    if handle.gate is not None:
        handle.gate()
    if name in _MUTATING:
        dispatch.mark()
    params = {
        "functionDeclaration": jsbundle.function("utility", "action_helper"),
        "objectId": handle.object_id,
        "arguments": [{"value": name}] + [{"value": a} for a in args],
        "returnByValue": True,
        "awaitPromise": True,
    }
    try:
        value = await _call_helper(handle, name, params)
    except Exception:
        await handle.confirmed()  # a ref gone stale explains the failure better
        raise
    await handle.confirmed()
    return value


async def _call_helper(handle: ElementHandle, name: str, params: dict[str, Any]) -> Any:
    for _ in range(2):
        try:
            res = await handle.session.send("Runtime.callFunctionOn", params)
        except (ContextDestroyed, ObjectNotFound) as exc:
            # the element's document or world was replaced: resolve again on the next attempt
            raise Transient(f"the page changed under the action ({exc.cdp_message})") from exc
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            msg = (d.get("exception") or {}).get("description") or d.get("text") or "error"
            raise PageScriptError(f"actionability helper {name} failed: {msg}", js_name=name, stack=None)
        value = res["result"].get("value")
        if isinstance(value, dict) and value.get("__ego_missing"):
            # a new document or world: install the helpers and make the call in the same round
            # trip (a separate install was one more wait for the renderer on the first action
            # of every page)
            params = dict(params, functionDeclaration=_INSTALL_AND_CALL_HEAD + preload.actions_install()
                          + _INSTALL_AND_CALL_TAIL)
            continue
        return value
    raise PageScriptError("actionability helpers did not install", js_name="actionability.js", stack=None)


async def target_handle(handle: ElementHandle, action: str) -> ElementHandle:
    """A handle on the element input is aimed at for ``action`` (e.g. a wrapper's field)."""
    res = await handle.session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": "function(a) { return globalThis.__egoActions.target(this, a); }",
            "objectId": handle.object_id,
            "arguments": [{"value": action}],
        },
    )
    obj = res.get("result", {}).get("objectId")
    if "exceptionDetails" in res or not obj:
        raise _Blocked("hidden", "element is not attached to the DOM")
    out = ElementHandle(handle.session, handle.context_id, obj, handle.frame_offset, handle.gate)
    out.matched = handle.matched
    return out


async def check(handle: ElementHandle, action: str) -> str | None:
    """``None`` when the element passes ``action``'s checks, else the blocker text.

    ``action`` ∈ click, dblclick, hover, drag, fill, select, focus, press. For the host's
    resolver: a candidate is a match for which this returns ``None``.
    """
    b = await call(handle, "check", action)
    return None if b is None else b["message"]


# ---- retry loop ----------------------------------------------------------------------------


class _Blocked(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


_T = TypeVar("_T")


async def _retry(ctx: ActionContext, timeout_ms: float, attempt: Callable[[], Awaitable[_T]]) -> _T:
    deadline = time.monotonic() + timeout_ms / 1000
    last: _Blocked | None = None
    n = 0
    while True:
        # the specified retry back-off (API.md §4.3) is the longest pause: a change of the page
        # (the element added, a frame attached) ends it at once, as a wait for page state. The
        # watch is armed before the attempt, so a change while the attempt looks counts too.
        pause = RETRY_PAUSES_MS[min(n, len(RETRY_PAUSES_MS) - 1)] / 1000
        n += 1
        remaining = deadline - time.monotonic()
        watch = (await ctx.arm_change(min(pause, remaining))
                 if pause > 0 and remaining > 0 and ctx.arm_change is not None else None)
        try:
            try:
                return await attempt()
            except Transient as t:
                last = _Blocked(t.reason, t.message)
            except _Blocked as b:
                last = b
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if watch is not None:
                await watch.wait()
            else:
                await asyncio.sleep(min(pause, remaining))
        finally:
            if watch is not None:
                await watch.cancel()
        if time.monotonic() >= deadline and pause > 0:
            break
    shown = int(timeout_ms) if float(timeout_ms).is_integer() else timeout_ms
    text = f"{ctx.api} timed out after {shown}ms: {last.message}"
    if last.reason == "not_found":
        raise SelectorNotFound(text, selector=ctx.selector, timeout_ms=shown)
    raise NotActionable(text, selector=ctx.selector, timeout_ms=shown, reason=last.reason)


async def _pick(ctx: ActionContext, resolve: Resolve, action: str,
                fused: tuple[Any, ...] | None = None, *, frames_only: bool = False) -> ElementHandle:
    """The one candidate passing ``action``'s checks.

    Strictness follows API.md §9: candidates of the top document (``tier`` 0) are judged
    first: one passing is used, two raise ``SelectorAmbiguous``; only when none passes are
    the frames' candidates (``tier`` 1) judged together under the same rule.
    ``frames_only`` skips the top document (its one candidate failed the hit test).

    ``fused`` = ``(helper, *args)``: when a tier has a single candidate, that helper runs in
    the same in-page call as the checks, right after they pass (one round trip instead of
    two); its result is left on the handle as ``fused`` (``None`` when it did not run).
    """
    handles = await resolve()
    if not handles:
        raise _Blocked("not_found", f"selector {ctx.selector} matched 0 elements")
    tiers = (
        [h for h in handles if h.tier == 0],
        [h for h in handles if h.tier != 0],
    )
    first: dict[str, Any] | None = None
    for index, tier in enumerate(tiers):
        if not tier or (frames_only and index == 0):
            continue
        passing: list[ElementHandle] = []
        for h in tier:
            h.fused = None
            if fused is not None and len(tier) == 1:
                r = await call(h, "checkThen", action, *fused)
                b = r.get("blocker")
                if b is None:
                    h.fused = r.get("value")
            else:
                b = await call(h, "check", action)
            if b is None:
                passing.append(h)
                continue
            if b.get("permanent"):
                raise await fill_targets_ambiguous(ctx, h, int(b.get("count") or 0))
            if first is None:
                first = b
        if len(passing) > 1:
            raise await ambiguous_candidates(ctx, passing)
        if passing:
            chosen = passing[0]
            chosen.matched = (ctx.selector, len(handles))  # for blocker messages after the checks
            chosen.frame_candidates = len(tiers[1]) if index == 0 else 0
            return chosen
    if first is None:
        raise _Blocked("not_found", f"selector {ctx.selector} matched 0 elements")
    reason = first["reason"] if first["reason"] != "detached" else "hidden"
    raise _Blocked(
        reason,
        f"selector {ctx.selector} matched {len(handles)} elements, but none can receive input; {first['message']}",
    )




async def _pick_and_point(ctx: ActionContext, resolve: Resolve, action: str, position: dict[str, Any] | None,
                          force: bool, *, arm: bool = False) -> tuple[ElementHandle, float, float]:
    """Pick the candidate and bring the pointer over it. A top-document candidate that something
    covers does not pass the hit-test check: the frames' candidates are tried next (API.md §9).

    ``arm``: a click that sends its move with its press (``_click_in_one_go``); a top-document
    candidate then comes back armed (``h.fused["armed"]``) with the pointer not moved yet."""
    prep = ("pointerPrep", action, position, force, arm)
    h = await _pick(ctx, resolve, action, prep)
    try:
        return (h, *await _point_at(ctx, h, action, position, force, arm))
    except _Blocked as blocked:
        if blocked.reason != "intercepted" or force or not h.frame_candidates:
            raise
    h = await _pick(ctx, resolve, action, prep, frames_only=True)
    return (h, *await _point_at(ctx, h, action, position, force, arm))


def _after_checks(h: ElementHandle, message: str) -> str:
    sel, n = h.matched
    if sel is None:
        return message
    return f"selector {sel} matched {n} elements, but none can receive input; {message}"


# ---- geometry and scrolling ----------------------------------------------------------------


async def _viewport(ctx: ActionContext) -> tuple[float, float]:
    if ctx.viewport is not None:
        return await ctx.viewport()
    res = await ctx.mouse._send(
        "Runtime.evaluate",
        {"expression": jsbundle.call("main", "viewport_size"), "returnByValue": True},
    )
    w, h = res["result"]["value"]
    return float(w), float(h)


async def _settle_scroll(h: ElementHandle, action: str, before: str) -> bool:
    """Wait (in animation frames, in the page) until a wheel's scroll lands; True if anything moved."""
    return bool(await call(h, "settleScroll", action, before))


async def _scroll_into_view(ctx: ActionContext, h: ElementHandle, action: str, position: dict[str, Any] | None) -> None:
    """Trusted wheel events over each scroll container until the press point is in view."""
    stuck = 0
    for _ in range(30):
        step = await call(h, "scrollStep", action, position)
        if step is None:
            break
        ox, oy = await h.offset()
        before = step["pos"]  # the position before the wheel, read by the same call as the step
        await ctx.mouse.move(step["x"] + ox, step["y"] + oy, steps=1)
        await ctx.mouse.wheel(step["dx"], step["dy"])
        if not await _settle_scroll(h, action, before):
            stuck += 1
            if stuck >= 3:
                break
        else:
            stuck = 0
    # the frame itself may be outside the top-level viewport (iframes): scroll the outer page
    for _ in range(15):
        ox, oy = await h.offset()
        if ox == 0 and oy == 0:
            return
        box = await call(h, "box", action, )
        if box is None:
            return
        r = box["rect"]
        px = (r["x"] + (position["x"] if position else r["width"] / 2)) + ox
        py = (r["y"] + (position["y"] if position else r["height"] / 2)) + oy
        vw, vh = await _viewport(ctx)
        if 2 <= px <= vw - 2 and 2 <= py <= vh - 2:
            return
        dx = px - vw / 2 if not (0 <= px <= vw) else 0
        dy = py - vh / 2 if not (0 <= py <= vh) else 0
        await ctx.mouse.move(vw / 2, vh / 2, steps=1)
        await ctx.mouse.wheel(dx, dy)
        await call(h, "raf", 2)
        nx, ny = await h.offset()
        if (nx, ny) == (ox, oy):
            await call(h, "raf", 4)


async def _press_point(h: ElementHandle, action: str, position: dict[str, Any] | None) -> tuple[float, float, float, float]:
    """(frame x, frame y, top x, top y) of the press point, from a fresh box."""
    box = await call(h, "box", action)
    if box is None:
        raise _Blocked("hidden", "element is not attached to the DOM")
    r = box["rect"]
    if position is not None:
        fx, fy = r["x"] + position["x"], r["y"] + position["y"]
    else:
        v = box["visible"] or r
        fx, fy = v["x"] + v["width"] / 2, v["y"] + v["height"] / 2
    ox, oy = await h.offset()
    return fx, fy, fx + ox, fy + oy


async def _hit(h: ElementHandle, action: str, fx: float, fy: float) -> None:
    who = await call(h, "hitTest", action, fx, fy)
    if who:
        text = f"{who} intercepts pointer events" if not who.startswith("element is") else who
        raise _Blocked("intercepted", _after_checks(h, text))


def _point_of(box: dict[str, Any] | None, position: dict[str, Any] | None) -> tuple[float, float]:
    """The press point in frame coordinates from a ``box`` helper result (as ``pressPoint``)."""
    if box is None:
        raise _Blocked("hidden", "element is not attached to the DOM")
    r = box["rect"]
    if position is not None:
        return r["x"] + position["x"], r["y"] + position["y"]
    v = box["visible"] or r
    return v["x"] + v["width"] / 2, v["y"] + v["height"] / 2


def _raise_hit(h: ElementHandle, who: str | None) -> None:
    if who:
        text = f"{who} intercepts pointer events" if not who.startswith("element is") else who
        raise _Blocked("intercepted", _after_checks(h, text))


async def _point_at(
    ctx: ActionContext, h: ElementHandle, action: str, position: dict[str, Any] | None, force: bool,
    arm: bool = False,
) -> tuple[float, float]:
    """Scroll, hit-test, move, hit-test again, re-read the box; returns the top-level point.

    In the top document, when ``_pick`` ran ``pointerPrep`` with the checks and found the press
    point in view, its box and hit test are used as they are (same order, one call fewer);
    the hit test after the move and the box re-read share one call. A top-document element
    that had to be scrolled into view is prepared the same way once it is in view (one call
    instead of the box, the hit test, a move answered at the next frame and the hit test after
    it), so its click also goes out in one go.
    """
    prep = h.fused
    if prep is not None and prep.get("hidden") and ctx.bring_to_front is not None:
        await ctx.bring_to_front()
    offset = h.frame_offset  # a fixed offset: the top document (a frame's is computed)
    if prep is not None and not callable(offset) and "step" in prep and not prep.get("detached"):
        await _scroll_into_view(ctx, h, action, position)
        again = await call(h, "pointerPrep", action, position, force, arm)
        h.last_call_js = True
        if isinstance(again, dict) and "box" in again:
            prep = h.fused = again
    if prep is not None and not callable(offset) and "box" in prep:
        fx, fy = _point_of(prep["box"], position)
        ox, oy = offset
        x, y = fx + ox, fy + oy
        if not force:
            _raise_hit(h, prep.get("hit"))
    else:
        if prep is not None and prep.get("detached"):
            raise _Blocked("hidden", "element is not attached to the DOM")
        await _scroll_into_view(ctx, h, action, position)
        fx, fy, x, y = await _press_point(h, action, position)
        if not force:
            await _hit(h, action, fx, fy)
    if prep is not None and prep.get("armed"):
        return x, y  # the caller moves and presses in one go; the hit is tested as the press lands
    await ctx.mouse.move(x, y, steps=1)
    # an overlay created on mouseenter is caught here; then re-read the box right before
    # pressing (moving elements are still hit)
    after = await call(h, "afterMove", action, fx, fy, force)
    if not force:
        _raise_hit(h, after.get("hit"))
    fx2, fy2 = _point_of(after.get("box"), position)
    ox, oy = await h.offset()
    x2, y2 = fx2 + ox, fy2 + oy
    h.last_call_js = True  # afterMove was the last call, unless the pointer moves again
    if abs(x2 - x) > 0.5 or abs(y2 - y) > 0.5:
        await ctx.mouse.move(x2, y2, steps=1)
        h.last_call_js = False
        x, y = x2, y2
    return x, y


# ---- pointer actions -----------------------------------------------------------------------


async def click(
    ctx: ActionContext,
    resolve: Resolve,
    *,
    button: str,
    click_count: int,
    delay: float,
    position: dict[str, Any] | None,
    force: bool,
    timeout_ms: float,
    action: str = "click",
) -> dict[str, Any]:
    """Trusted click on the resolved element. Returns ``{"x", "y"}`` (top-level viewport).

    The arguments are the schema's (``Page.click``), checked on the way in; ``action`` names
    the checks (``dblclick``, or ``click`` for check/uncheck)."""
    assert timeout_ms > 0 and click_count >= 1, "the schema checks the arguments"

    async def attempt() -> dict[str, Any]:
        h, x, y = await _pick_and_point(ctx, resolve, action, position, force, arm=not delay)
        if isinstance(h.fused, dict) and h.fused.get("armed"):
            await _click_in_one_go(ctx, h, x, y, button, click_count)
        else:
            await ctx.mouse.press_here(button=button, click_count=click_count, delay=delay)
        return {"x": x, "y": y}

    return await _retry(ctx, timeout_ms, attempt)


async def _click_in_one_go(ctx: ActionContext, h: ElementHandle, x: float, y: float, button: str,
                           click_count: int) -> None:
    """Move, press and release with every command in flight at once, then ask the armed
    listeners what the press hit.

    A move is answered only once the renderer has dispatched it, at its next animation frame
    (Chromium aligns mouse moves with frames): awaited on its own it cost ~8 ms of every click
    (median, up to a frame), and the hit test after it one more round trip. A press queued
    behind the move makes the renderer dispatch the move at once, right before the press, so
    the page sees the same sequence (mouseover/enter handlers run before pointerdown). The hit
    is tested by the listeners ``pointerPrep`` armed, when the press lands; a press that hit
    something else was swallowed with its whole click, and the attempt is retried like a hit
    test that failed before input (docs/architecture.md "Clicks in one go")."""
    await ctx.mouse.click_from_move(x, y, button=button, click_count=click_count)
    if ctx.navigation_started is not None and ctx.navigation_started():
        # the click started a navigation, so it reached the page: and Chromium answers no
        # command of the old document any more (the receipt waits for the commit, if asked)
        return
    disarm = asyncio.ensure_future(call(h, "disarm"))
    if ctx.answered_unless_navigating is not None and not await ctx.answered_unless_navigating(disarm):
        return  # the click started a navigation while its hit was being read: it reached the page
    try:
        outcome = await disarm
    except (Transient, PageScriptError, CdpError, CdpChannelUnavailable):
        # the click went out; the element's world or page is gone (it navigated or closed
        # itself, or the handles were released while a dialog held the page): never retry
        # input that was delivered
        return
    h.last_call_js = True
    ctx._finished_on(h)  # disarm was a renderer round trip after the last input
    _raise_hit(h, outcome.get("hit") if isinstance(outcome, dict) else None)


async def dblclick(ctx: ActionContext, resolve: Resolve, *, button: str, delay: float,
                   position: dict[str, Any] | None, force: bool, timeout_ms: float) -> dict[str, Any]:
    return await click(ctx, resolve, button=button, click_count=2, delay=delay, position=position,
                       force=force, timeout_ms=timeout_ms, action="dblclick")


async def hover(ctx: ActionContext, resolve: Resolve, *, position: dict[str, Any] | None, force: bool,
                timeout_ms: float) -> dict[str, Any]:
    assert timeout_ms > 0, "the schema checks the arguments"

    async def attempt() -> dict[str, Any]:
        h, x, y = await _pick_and_point(ctx, resolve, "hover", position, force)
        if h.last_call_js:
            ctx._finished_on(h)
        return {"x": x, "y": y}

    return await _retry(ctx, timeout_ms, attempt)


async def drag_and_drop(
    ctx: ActionContext,
    resolve_source: Resolve,
    resolve_target: Resolve,
    *,
    button: str,
    source_position: dict[str, Any] | None,
    target_position: dict[str, Any] | None,
    force: bool,
    timeout_ms: float,
    target_selector: str | None,
) -> dict[str, Any]:
    """Trusted press on the source, interpolated moves, release on the target.

    Both elements get the hover checks (visible, size, hit target; disabled is fine).
    """
    assert timeout_ms > 0, "the schema checks the arguments"
    tctx = ActionContext(ctx.mouse, ctx.keyboard, target_selector or ctx.selector, ctx.api, viewport=ctx.viewport)
    pressed = False

    async def attempt() -> dict[str, Any]:
        nonlocal pressed
        if not pressed:
            src = await _pick(ctx, resolve_source, "drag")
            sx, sy = await _point_at(ctx, src, "drag", source_position, force)
            await ctx.mouse.down(button=button, click_count=1)
            pressed = True
        dst = await _pick(tctx, resolve_target, "drag")
        await _scroll_into_view(tctx, dst, "drag", target_position)
        fx, fy, x, y = await _press_point(dst, "drag", target_position)
        # move in steps so mouse-driven widgets see a drag, then check and release
        await ctx.mouse.move(x, y, steps=DRAG_STEPS)
        if not force:
            try:
                await _hit(dst, "drag", fx, fy)
            except _Blocked:
                # the dragged item itself may sit under the pointer: only other elements block
                pass
        _, _, x2, y2 = await _press_point(dst, "drag", target_position)
        if abs(x2 - x) > 0.5 or abs(y2 - y) > 0.5:
            await ctx.mouse.move(x2, y2, steps=1)
        await ctx.mouse.up(button=button, click_count=1)
        return {"x": x2, "y": y2}

    try:
        return await _retry(ctx, timeout_ms, attempt)
    finally:
        if button in ctx.mouse.buttons:
            await ctx.mouse.up(button=button, click_count=1)
