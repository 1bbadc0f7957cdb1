"""``check``/``uncheck``/``set_checked`` and the element reads (issue 13, point 5).

Playwright's semantics: ``check`` on a checked box does nothing; otherwise it clicks (with the
click's actionability checks) and then requires the state to have changed; a radio cannot be
unchecked; an element that is neither a checkbox nor a radio button (a label stands for its
control) is an error at once, without retrying. The reads (``is_checked``, ``is_enabled``,
``is_visible``, ``input_value``, ``text_content``, ``inner_text``, ``get_attribute``) wait
for the selector to match (``is_visible`` does not: no match is ``False``) and are strict: two
matches in the top document raise ``SelectorAmbiguous`` listing them, as actions do.
The in-page half is ``__egoSel.readState`` (``js/selector_engine.js``).
"""

from __future__ import annotations

from typing import Any

from ..errors import CdpError, NotActionable, PageScriptError
from .actions import _retry, click
from .candidates import ambiguous_candidates
from .handles import ActionContext, ElementHandle, Resolve, Transient

__all__ = ["set_checked", "check", "uncheck", "read_state"]

async def _read(h: ElementHandle, kind: str, arg: Any = None) -> dict[str, Any]:
    """``{value}`` or ``{error}`` from the page; installs the selector engine in the handle's
    world if a ref's handle got there first."""
    from .. import jsbundle

    await h.confirmed()  # a ref's pending liveness check (StaleRef for a detached element)
    params = {"functionDeclaration": jsbundle.function("utility", "element_read"), "objectId": h.object_id,
              "arguments": [{"value": kind}, {"value": arg}], "returnByValue": True}
    for _ in range(2):
        try:
            res = await h.session.send("Runtime.callFunctionOn", params, timeout=10.0)
        except CdpError as exc:
            raise Transient(f"the page changed under the read ({exc.cdp_message or exc})") from exc
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            msg = (d.get("exception") or {}).get("description") or d.get("text") or "error"
            raise PageScriptError(f"element read {kind} failed: {msg}", js_name="readState", stack=None)
        value = res["result"].get("value") or {}
        if value.get("missing"):
            from ..selectors.engine import engine_source

            await h.session.send("Runtime.evaluate", {"expression": engine_source(), "contextId": h.context_id},
                                 timeout=10.0)
            continue
        if value.get("detached"):
            raise Transient("the element left the document")
        return value
    raise PageScriptError("the selector engine did not install", js_name="selector_engine.js", stack=None)


async def pick_one(ctx: ActionContext, resolve: Resolve, *, required: bool = True) -> ElementHandle | None:
    """The one element the selector means, without actionability checks: the top document's
    match if it has one (two are ambiguous), else the frames' (same rule). ``None`` for no
    match when not ``required`` (else a retryable not-found)."""
    handles = await resolve()
    top = [h for h in handles if h.tier == 0]
    tier = top or [h for h in handles if h.tier != 0]
    if len(tier) > 1:
        raise await ambiguous_candidates(ctx, tier)
    if not tier:
        if not required:
            return None
        raise Transient(f"selector {ctx.selector} matched 0 elements")
    return tier[0]


def _not_checkable(ctx: ActionContext, error: str) -> NotActionable:
    return NotActionable(f"{ctx.api}: selector {ctx.selector}: {error}; check and uncheck take a checkbox, a radio "
                         "button, an element with role checkbox/radio/switch, or their label",
                         selector=ctx.selector, timeout_ms=0, reason="not_checkable")


async def set_checked(ctx: ActionContext, resolve: Resolve, *, checked: bool, position: dict[str, float] | None,
                      force: bool, timeout_ms: float) -> dict[str, Any]:
    """Make the element checked (or not). Returns ``{"changed": bool}``."""
    assert timeout_ms > 0, "the schema checks the arguments"

    async def state() -> tuple[ElementHandle, dict[str, Any]]:
        h = await pick_one(ctx, resolve)
        assert h is not None  # required: no match is a retryable not-found
        return h, await _read(h, "checked")

    h, now = await _retry(ctx, timeout_ms, state)
    if "error" in now:
        raise _not_checkable(ctx, now["error"])
    if now["value"] is checked:
        return {"changed": False}
    if not checked and now.get("radio"):
        raise NotActionable(f"{ctx.api}: selector {ctx.selector} is a radio button: it cannot be unchecked; check "
                            "another radio button of its group instead", selector=ctx.selector, timeout_ms=0,
                            reason="radio")
    # the click a person makes on a checkbox: one press of the main button
    await click(ctx, resolve, button="left", click_count=1, delay=0, position=position, force=force,
                timeout_ms=timeout_ms, action="click")
    after = await _read(h, "checked")
    if after.get("value") is not checked:
        raise NotActionable(f"{ctx.api}: clicking {ctx.selector} did not change its checked state (the page "
                            "handles the click itself?)", selector=ctx.selector, timeout_ms=0, reason="unchanged")
    return {"changed": True}


async def check(ctx: ActionContext, resolve: Resolve, *, position: dict[str, float] | None, force: bool,
                timeout_ms: float) -> dict[str, Any]:
    return await set_checked(ctx, resolve, checked=True, position=position, force=force, timeout_ms=timeout_ms)


async def uncheck(ctx: ActionContext, resolve: Resolve, *, position: dict[str, float] | None, force: bool,
                  timeout_ms: float) -> dict[str, Any]:
    return await set_checked(ctx, resolve, checked=False, position=position, force=force, timeout_ms=timeout_ms)


async def read_state(ctx: ActionContext, resolve: Resolve, *, kind: str, arg: Any, timeout_ms: float,
                     wait: bool) -> Any:
    """One read of the element the selector means (see the module doc)."""
    assert timeout_ms > 0, "the schema checks the arguments"

    async def attempt() -> Any:
        h = await pick_one(ctx, resolve, required=wait)
        if h is None:
            return {"value": False}
        return await _read(h, kind, arg)

    if wait:
        out = await _retry(ctx, timeout_ms, attempt)
    else:
        try:
            out = await attempt()
        except Transient:
            out = {"value": False}  # is_visible: an element that just left is not visible
    if "error" in out:
        if kind == "checked":
            raise _not_checkable(ctx, out["error"])
        raise NotActionable(f"{ctx.api}: selector {ctx.selector}: {out['error']}", selector=ctx.selector,
                            timeout_ms=0, reason="wrong_element")
    return out["value"]
