"""Element actions, ``page.find``, and the page's mouse and keyboard: their declarations.

Each handler takes the request's page through the ownership gate (``host.page_ctx``) and
calls the driver function its declaration names (``driver/act.py``, ``driver/locate.py``);
what only the host knows goes with it as the page's :class:`~.page_site.PageSite`.
"""

from __future__ import annotations

import time
from typing import Any

from ...driver import act, actions, form_actions
from ...driver.navigation import COMMIT_TIMEOUT
from ...schema import wire
from ...schema.spec import members
from ...selectors.parse import RefSelector, parse_selector
from ..core.host import Host
from ..core.dispatch import MARGIN, op
from ..features import consent, consent_holds
from ..core.page_site import PageSite

__all__ = ["ELEMENT_ACTIONS", "element_action", "input_op"]


def _navigation_budget(timeout: float) -> float:
    """Seconds an element action may spend in all, its navigation wait included: what the op's
    deadline (timeout + ``ops.MARGIN``) leaves, less a second to answer, at most the commit wait."""
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


def _takes_secrets(member: Any) -> bool:
    """Whether a parameter of the declaration may be ``secret(NAME)`` (typed ``text|secret``)."""
    return any(p.type in ("text|secret", "typed|secret") for p in member.params)


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
    secrets = _takes_secrets(member)

    async def handler(host: Host, at: dict[str, Any], **kwargs: Any) -> Any:
        timeout = kwargs.pop("timeout")
        no_wait_after = kwargs.pop("no_wait_after") if switch else False
        selectors = [kwargs.pop(n) for n in targets]
        for n, text in zip(targets[1:], selectors[1:]):
            kwargs[f"{n}_selector"] = text
        ctx = await host.page_ctx(at, activate=True)
        if selectors and api in consent.CONSENT_OPS:
            await consent.check(host, ctx, api, selectors[0])  # a control the person wants to be asked about
        if secrets:  # after the gate, right before typing: the value never reaches the round
            kwargs = await host.secrets.resolve_args(kwargs)
        since = time.monotonic()
        # a request the action starts may be held for the person's yes (consent_holds.py)
        done = await consent_holds.race(host, ctx.space.id, act.element_action(
            ctx.driver, PageSite(host, ctx), run, selectors, api=api, token=at.get("proc"),
            navigates=navigates and not no_wait_after, timeout_ms=timeout, budget=_navigation_budget(timeout),
            **kwargs,
        ))
        host.guard.raise_if_blocked(ctx.space, since)  # a link, form or popup out of the allowlist
        if receipt:
            return done
        return done["result"] if done.get("dialog") is None else (done.get("result") or [])

    handler.__name__ = handler.__qualname__ = member.short
    op(name)(handler)


for _name, _run in ELEMENT_ACTIONS.items():
    element_action(_name, _run)


@op("Page.find")
async def find(host: Host, at: dict[str, Any], *, selector: str, limit: int) -> list[dict[str, Any]]:
    parsed = parse_selector(selector)
    ctx = await host.page_ctx(at, activate=True)
    # a dialog blocks the renderer: fail at once, as every other call does (B151)
    return await ctx.driver.dialogs.guard("page.find", ctx.driver.locate.find(PageSite(host, ctx), parsed, limit))


@op("Page.count")
async def count(host: Host, at: dict[str, Any], *, selector: str) -> int:
    parsed = parse_selector(selector)
    ctx = await host.page_ctx(at, activate=True)
    if isinstance(parsed, RefSelector):  # a ref names one node: it is there or it raises StaleRef
        return len(await ctx.driver.dialogs.guard("page.count", ctx.driver.locate.find(PageSite(host, ctx), parsed, 1)))
    from ...selectors import engine

    # no handles, no descriptions, no refs: the engine's count, with the actions' frame rule
    return await ctx.driver.dialogs.guard("page.count", engine.count(ctx.driver.locate.engine_frames(), parsed))


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
    secrets = _takes_secrets(member)

    async def handler(host: Host, at: dict[str, Any], **kwargs: Any) -> Any:
        wait = navigates and not kwargs.pop("no_wait_after")
        for key in _NOT_INPUT:
            kwargs.pop(key, None)
        ctx = await host.page_ctx(at, activate=True)
        if secrets:
            kwargs = await host.secrets.resolve_args(kwargs)
        since = time.monotonic()
        done = await consent_holds.race(host, ctx.space.id, act.input_action(
            ctx.driver, PageSite(host, ctx), at.get("proc"), device, member.short, kwargs,
            api=member.api, receipt=receipt, navigates=wait))
        host.guard.raise_if_blocked(ctx.space, since)
        return done

    handler.__name__ = handler.__qualname__ = f"{device}_{member.short}"
    op(name)(handler)


for _member in members().values():
    if _member.owner in ("Page.mouse", "Page.keyboard") and _member.call == "async":
        input_op(_member.name)
