"""``a >> b >> c``: Playwright's chained selectors, in one frame.

Each part runs from every element the previous part found (Playwright's ``querySelectorAll``
over parts). The page runs the CSS/text/XPath/href/nth/visible parts itself
(``__egoSel.chain``); a ``role=`` part is Chromium's to answer, so it is resolved for the whole
document by :mod:`ego_browser.selectors.role` and then kept to the elements under the current
scopes, in Playwright's role-engine order (``__egoSel.within``). The elements between segments
stay in the page as one array object (a temporary object group, released at the end).
"""

from __future__ import annotations

import itertools
from typing import Any

from ..cdp.errors import ContextDestroyed
from ..errors import CdpError
from ._core import (
    DEFAULT_GROUP,
    FrameLike,
    Query,
    SessionLike,
    _evaluate,
    _exception_text,
    _FrameGone,
    _FrameResult,
    _invalid_from_engine,
    _materialize,
)
from .parse import ParsedSelector, filter_spec

_groups = itertools.count(1)


def _segments(steps: tuple[ParsedSelector, ...]) -> list[list[ParsedSelector]]:
    """Consecutive page-run steps together; each role step alone."""
    out: list[list[ParsedSelector]] = []
    for step in steps:
        if step.kind == "role" or not out or out[-1][0].kind == "role":
            out.append([step])
        else:
            out[-1].append(step)
    return out


def _page_spec(step: ParsedSelector, roles: list[ParsedSelector]) -> dict[str, Any]:
    """A page-run step's spec; a role= part inside a has= filter becomes ``{"k": "set", "i": n}``
    (its matches, found for the whole document, are handed to the page as the n-th set)."""
    if step.kind == "filter" and step.steps:
        def inner(s: ParsedSelector) -> dict[str, Any]:
            if s.kind == "role":
                roles.append(s)
                return {"k": "set", "i": len(roles) - 1}
            return _page_spec(s, roles)
        return filter_spec(step, inner)
    return step.to_spec()


async def _role_sets(frame: FrameLike, session: SessionLike, roles: list[ParsedSelector], *, ctx: int | None,
                     group: str, timeout: float) -> list[dict[str, Any]]:
    """Each role= part of a has= filter resolved by Chromium's tree, as one array in the page."""
    from .role import _query_role

    out: list[dict[str, Any]] = []
    for step in roles:
        found = await _query_role(frame, step, _whole_document(group, timeout))
        els = [{"objectId": m.object_id} for m in found.matches if m.object_id]
        res = await _call(session, "function(...els) { return els; }", this=None, ctx=ctx, args=els, group=group,
                          by_value=False, timeout=timeout)
        out.append({"objectId": res["objectId"]} if res.get("objectId") else {"value": []})
    return out


async def _call(session: SessionLike, fn: str, *, this: str | None, ctx: int | None, args: list[dict[str, Any]], group: str,
                by_value: bool, timeout: float) -> dict[str, Any]:
    params: dict[str, Any] = {"functionDeclaration": fn, "arguments": args, "silent": True}
    if this is not None:
        params["objectId"] = this
    else:
        params["executionContextId"] = ctx
    if by_value:
        params["returnByValue"] = True
    else:
        params["objectGroup"] = group
    r = await session.send("Runtime.callFunctionOn", params, timeout=timeout)
    if r.get("exceptionDetails"):
        raise CdpError("selector engine error: " + _exception_text(r["exceptionDetails"]),
                       method="Runtime.callFunctionOn", cdp_code=None, cdp_message=None)
    remote: dict[str, Any] = r["result"]  # a RemoteObject
    return remote


def _whole_document(group: str, timeout: float) -> Query:
    """A role= part's query: every match as a bare handle in ``group`` (scoped afterwards)."""
    return Query(nth=None, limit=None, describe=False, objects=True, object_group=group, project=None,
                 timeout=timeout, backend_ids=False)


async def query_chain(frame: FrameLike, parsed: ParsedSelector, q: Query) -> _FrameResult:
    from .role import _query_role

    timeout = q.timeout
    session = frame.session
    temp = f"ego-sel-chain-{next(_groups)}"
    current: str | None = None  # objectId of the scopes array; None = the document
    try:
        # installs the engine and learns the context the handles live in
        await _evaluate(frame, "true", by_value=True, group=None, timeout=timeout)
        ctx = await frame.utility_context()
        for segment in _segments(parsed.steps):
            if segment[0].kind == "role":
                found = await _query_role(frame, segment[0], _whole_document(temp, timeout))
                els = [{"objectId": m.object_id} for m in found.matches if m.object_id]
                scopes = {"objectId": current} if current else {"value": None}
                res = await _call(session, "function(scopes, ...els) { return __egoSel.within(scopes, els); }",
                                  this=None if current is None else current, ctx=ctx, args=[scopes, *els],
                                  group=temp, by_value=False, timeout=timeout)
            else:
                roles: list[ParsedSelector] = []
                specs = [_page_spec(s, roles) for s in segment]
                sets = await _role_sets(frame, session, roles, ctx=ctx, group=temp, timeout=timeout)
                res = await _call(
                    session, "function(scopes, steps, ...sets) { return __egoSel.chain(scopes, steps, sets); }",
                    this=current, ctx=ctx,
                    args=[{"objectId": current} if current else {"value": None}, {"value": specs}, *sets],
                    group=temp, by_value=False, timeout=timeout,
                )
            current = res.get("objectId")
            if current is None:
                return _FrameResult([], 0, 0)
        spec: dict[str, Any] = {"nth": q.nth}
        if not q.objects:
            spec["countOnly"] = True
            value = (await _call(session, "function(spec) { return __egoSel.finish(this, spec); }", this=current,
                                 ctx=None, args=[{"value": spec}], group=temp, by_value=True, timeout=timeout)).get("value") or {}
            if "invalid" in value:
                raise _invalid_from_engine(parsed, value)
            return _FrameResult([], value.get("count", 0), value.get("total", 0))
        spec.update(limit=q.limit, describe=q.describe)
        if q.project:
            spec["project"] = q.project
        res = await _call(session, "function(spec) { return __egoSel.finish(this, spec); }", this=current, ctx=None,
                          args=[{"value": spec}], group=q.object_group or DEFAULT_GROUP, by_value=False, timeout=timeout)
        return await _materialize(frame, parsed, res, backend_ids=q.backend_ids, timeout=timeout)
    except ContextDestroyed:
        raise _FrameGone(frame.frame_id) from None
    finally:
        try:
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": temp}, timeout=5.0)
        except Exception:  # noqa: BLE001 - best effort: the frame may be gone
            pass

