"""Form actions: fill, select_option, focus and press, on the pipeline of ``actions``.

Same rules as the pointer actions (see ``driver/actions.py``): the resolver gives the
candidates, ``_pick`` applies the checks and strictness, ``_retry`` waits out transient
blockers until the deadline, and input is delivered at most once.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgument, NotActionable
from .handles import ActionContext, ElementHandle, Resolve
from .keyboard import normalize_key_name, split_chord
from .actions import (  # the shared pipeline
    _Blocked,
    _hit,
    _pick,
    _press_point,
    _retry,
    _scroll_into_view,
    call,
    target_handle,
)

__all__ = ["fill", "select_option", "focus", "press"]


# ---- fill ----------------------------------------------------------------------------------


async def fill(
    ctx: ActionContext,
    resolve: Resolve,
    *,
    value: str,
    clear_first: bool,
    timeout_ms: float,
) -> dict[str, Any]:
    """Fill the field, its editing host or a wrapper's single fillable descendant.

    One native insertion (``Input.insertText``) → one trusted ``input`` with ``data == value``;
    date/color/range… get ``.value`` + ``input``/``change``. The value is read back with
    formatting tolerance. An editor that ignored the insertion gets one real click and one
    more insertion, unless that click would hit a link inside the editor (``unsafe_activation``).
    Returns ``{"value": <read back>}``.
    """
    assert isinstance(value, str) and timeout_ms > 0, "the schema checks the arguments (a secret is resolved)"
    delivered = False

    async def insert(h: ElementHandle, before: str) -> dict[str, Any]:
        if value == "":
            if clear_first and before != "":
                await ctx.keyboard.press("Delete", delay=0)
        else:
            await ctx.keyboard.insert_text(value)
        verified: dict[str, Any] = await call(h, "fillVerify", value, before, clear_first)
        return verified

    async def attempt() -> dict[str, Any]:
        nonlocal delivered
        picked = await _pick(ctx, resolve, "fill", None if delivered else ("fillStart", value, clear_first))
        start = picked.fused
        if start is not None and start.get("detached"):
            raise _Blocked("hidden", "element is not attached to the DOM")
        if start is not None and "prep" in start:
            # the checks passed, the element is its own fill target, already in view: fillStart
            # ran fillPrepare and isFocused in the same call
            h = picked
            prep = start["prep"]
        else:
            h = picked if start is not None and start.get("same") else await target_handle(picked, "fill")
            if delivered:
                raise _Blocked("not_editable", "the field did not keep the value")
            await _scroll_into_view(ctx, h, "fill", None)
            prep = await call(h, "fillPrepare", value, clear_first)
            start = None
        if prep.get("error"):
            raise InvalidArgument(f"{ctx.api}: {prep['error']}", api=ctx.api, option="value", expected="a value the field accepts")
        if prep.get("done"):
            delivered = True
            res = await call(h, "fillVerify", value, "", True)
            ctx._finished_on(h)
            return {"value": res["value"]}
        before = prep["before"]
        focused = start["focused"] if start is not None else await call(h, "isFocused", "fill")
        res = None
        if focused:
            delivered = True
            res = await insert(h, before)
            if res["ok"]:
                ctx._finished_on(h)  # insert() ends with fillVerify
                return {"value": res["value"]}
            if not res.get("unchanged"):
                raise NotActionable(
                    f"{ctx.api}: the field shows {res['value']!r} after filling {value!r}",
                    selector=ctx.selector, timeout_ms=None, reason="not_editable",
                )
        # the editor ignored focus or the insertion: one real click (never on a link), then retry
        fx, fy, x, y = await _press_point(h, "fill", None)
        link = await call(h, "linkAt", fx, fy)
        if link:
            raise NotActionable(
                f"{ctx.api}: cannot safely activate the editor: a click would hit the link {link}",
                selector=ctx.selector, timeout_ms=None, reason="unsafe_activation",
            )
        await _hit(h, "fill", fx, fy)
        await ctx.mouse.click(x, y, button="left", click_count=1, delay=0)
        delivered = True
        await call(h, "focusForFill", clear_first)
        res = await insert(h, (await call(h, "fillPrepare", value, clear_first))["before"] if not clear_first else before)
        if res["ok"]:
            ctx._finished_on(h)
            return {"value": res["value"]}
        raise NotActionable(
            f"{ctx.api}: the field shows {res['value']!r} after filling {value!r}",
            selector=ctx.selector, timeout_ms=None, reason="not_editable",
        )

    return await _retry(ctx, timeout_ms, attempt)


# ---- select_option -------------------------------------------------------------------------


def _descriptors(value: Any) -> tuple[list[dict[str, Any]], bool]:
    """The in-page helper's option descriptors (the schema's ``select_value`` checked the form)."""
    if value is None:
        return [], True
    items = value if isinstance(value, (list, tuple)) else [value]
    if not items:
        return [], True
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            out.append({"valueOrLabel": item})
        else:
            out.append({k: item[k] for k in ("value", "label", "index") if k in item})
    return out, False


async def select_option(ctx: ActionContext, resolve: Resolve, *, value: Any, timeout_ms: float) -> list[str]:
    """Select options of a ``<select>`` (API.md §4.3); returns the selected values."""
    descriptors, clear = _descriptors(value)
    assert timeout_ms > 0, "the schema checks the arguments"

    async def attempt() -> list[str]:
        h = await _pick(ctx, resolve, "select", ("selectOption", descriptors, clear))
        res = h.fused if h.fused is not None else await call(h, "selectOption", descriptors, clear)
        if "missing" in res:
            raise _Blocked("option_not_found", f"did not find some options; available options: {res['missing']}")
        ctx._finished_on(h)
        values: list[str] = res["values"]
        return values

    return await _retry(ctx, timeout_ms, attempt)


# ---- focus and press -----------------------------------------------------------------------


async def focus(ctx: ActionContext, resolve: Resolve, *, timeout_ms: float) -> dict[str, Any]:
    """Focus the element, its nearest focusable ancestor (through slots) or its single
    editable descendant."""
    assert timeout_ms > 0, "the schema checks the arguments"

    async def attempt() -> dict[str, Any]:
        h = await _pick(ctx, resolve, "focus")
        if not await call(h, "focus", "focus"):
            raise _Blocked("not_focusable", "element did not take focus")
        return {"target": await call(h, "describe")}

    return await _retry(ctx, timeout_ms, attempt)


async def press(ctx: ActionContext, resolve: Resolve, *, key: str, delay: float, timeout_ms: float) -> dict[str, Any]:
    """``focus`` then ``keyboard.press(key)``; the key is looked up before anything happens
    (the schema checks its form, the key table its name)."""
    for token in split_chord(key):
        try:
            normalize_key_name(token)
        except InvalidArgument as exc:
            exc.api = ctx.api
            raise
    assert delay >= 0 and timeout_ms > 0, "the schema checks the arguments"

    async def attempt() -> dict[str, Any]:
        h = await _pick(ctx, resolve, "press")
        if not await call(h, "focus", "press"):
            raise _Blocked("not_focusable", "element did not take focus")
        return {}

    await _retry(ctx, timeout_ms, attempt)
    await ctx.keyboard.press(key, delay=delay)
    return {}

