"""Resolve selectors in a page's frames (API.md §9) with the in-page engine.

The engine (``ego_browser/js/utility/selector_engine.js``) is installed once per execution context in
the frame's isolated world and called with ``Runtime.evaluate(contextId=...)``. Refs are not
resolved here: :func:`parse_selector` returns a ``RefSelector`` and the host resolves it
through its ledger. ``loc=role:`` uses Chromium's accessibility tree
(``Accessibility.queryAXTree``), so roles and names are the ones the snapshot prints.

What the host provides (its FrameTree implements these; ``standalone.PageFrames`` is a
minimal reference implementation used by the tests and the benchmark)::

    class FrameLike(Protocol):
        frame_id: str
        session: SessionLike          # .send(method, params, timeout=seconds) -> result dict
        loader_id: str | None
        url: str
        is_main: bool
        installed: set[str]           # what the current utility context holds; the frame
                                      # empties it whenever that context changes
        async def utility_context(self) -> int
            # executionContextId of the frame's isolated world ("__ego_util"); the engine is
            # installed lazily once per context and recorded in ``installed``
        # optional: def invalidate_utility_context(self) -> None
            # called when the context id turned out dead, before one retry

    class FrameTreeLike(Protocol):
        def frames(self) -> Sequence[FrameLike]   # or an awaitable of it; top document first,
                                                  # then the others in document order

Matches hold the frame, the ``backendNodeId`` and the element's ``objectId`` in the isolated
world (in ``object_group``; release it with ``Runtime.releaseObjectGroup`` when done), and
``info``: ``{tag, id, role, name, text, visible}`` (role and name are Chromium's for role
queries, a cheap in-page approximation otherwise; :func:`ax_describe` upgrades them).

Frame order: with ``mode="top_first"`` (the strict actions' rule) the top document is searched
first and used alone if it has a match; otherwise all other frames together. ``mode="all"``
(``page.find``) concatenates all frames, top first. ``>> nth=N`` always counts over all frames
in that order (top document, then frames), before any action check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Literal

from .. import jsbundle
from ..errors import CdpChannelUnavailable, CdpError, EgoError
from ._core import (
    FrameLike,
    Query,
    _MISSING,
    DEFAULT_GROUP,
    ENGINE_WORLD,
    FrameLike,
    FrameTreeLike,
    Match,
    Resolution,
    SessionLike,
    _backend_ids,
    _dumps,
    _evaluate,
    _FrameGone,
    _frames,
    _FrameResult,
    _invalid_from_engine,
    _materialize,
    _nth_index,
    _release,
    _with_context,
    engine_source,
    logger,
)
from .parse import ParsedSelector, RefSelector, normalize_whitespace, parse_selector
from .role import _query_role

__all__ = [
    "DEFAULT_GROUP",
    "ENGINE_WORLD",
    "FrameLike",
    "FrameTreeLike",
    "Match",
    "Resolution",
    "SessionLike",
    "ax_describe",
    "count",
    "engine_source",
    "fill_backend_ids",
    "query_all",
    "query_frame",
    "resolve",
    "retarget",
    "selector_state",
    "wait_for_dom_change",
    "dom_quiet",
    "since_change",
]


async def query_frame(
    frame: FrameLike,
    selector: ParsedSelector | str,
    *,
    limit: int | None = None,
    nth: int | None | Literal["selector"] = "selector",
    describe: bool = True,
    backend_ids: bool = True,
    objects: bool = True,
    object_group: str | None = DEFAULT_GROUP,
    project: str | None = None,
    timeout: float = 10.0,
    visible_first: bool = False,
) -> _FrameResult:
    """Resolve ``selector`` in one frame.

    ``nth`` defaults to the selector's own; pass ``None`` to get every match. ``project``
    (a JS function source ``el => value``) adds ``info["project"]`` per match (tests use it).
    With ``objects=False`` only counts are returned, by value; with ``visible_first`` too
    (CSS, text and XPath selectors), whether the first match is visible.
    """
    parsed = _parsed(selector)
    if nth == "selector":
        nth = parsed.nth
    try:
        if parsed.kind in ("chain", "role"):
            q = Query(nth=nth, limit=limit, describe=describe, objects=objects, object_group=object_group,
                      project=project, timeout=timeout, backend_ids=backend_ids)
            if parsed.kind == "role":
                return await _query_role(frame, parsed, q)
            from .chain import query_chain

            return await query_chain(frame, parsed, q)
        spec = dict(parsed.to_spec())
        spec["nth"] = nth
        if not objects:
            if visible_first:
                spec["visibleFirst"] = True
            res = await _evaluate(frame, f"__egoSel.count({_dumps(spec)})", by_value=True, group=None, timeout=timeout)
            value = res.get("value") or {}
            if "invalid" in value:
                raise _invalid_from_engine(parsed, value)
            return _FrameResult([], value.get("count", value["total"]), value["total"], bool(value.get("visible")))
        spec["limit"] = limit
        spec["describe"] = describe
        if project:
            spec["project"] = project
        elif not describe and nth is None:
            spec["single"] = True  # a lone match comes back as the element itself
        res = await _evaluate(frame, f"__egoSel.run({_dumps(spec)})", by_value=False, group=object_group, timeout=timeout)
        return await _materialize(frame, parsed, res, backend_ids=backend_ids, timeout=timeout)
    except _FrameGone:
        logger.debug("frame %s went away during a selector query", frame.frame_id)
        return _FrameResult([], 0, 0)
    except CdpChannelUnavailable:
        if getattr(frame, "is_main", False):
            raise
        return _FrameResult([], 0, 0)


async def fill_backend_ids(matches: list[Match], *, timeout: float = 10.0) -> None:
    """Fill ``backend_node_id`` where missing (after ``resolve(..., backend_ids=False)``):
    one ``DOM.describeNode`` per match, concurrently. Strict actions resolve without ids and
    fill only the match they act on."""
    todo = [m for m in matches if m.backend_node_id is None and m.object_id]
    by_session: dict[int, list[Match]] = {}
    for m in todo:
        by_session.setdefault(id(m.frame.session), []).append(m)
    results = await asyncio.gather(
        *(_backend_ids(ms[0].frame.session, [m.object_id for m in ms if m.object_id], timeout) for ms in by_session.values())
    )
    for ms, ids in zip(by_session.values(), results):
        for m, backend in zip(ms, ids):
            m.backend_node_id = backend


def _parsed(selector: ParsedSelector | str) -> ParsedSelector:
    parsed = parse_selector(selector)
    if isinstance(parsed, RefSelector):
        raise TypeError("refs are resolved by the host's ledger, not by the selector engine")
    return parsed


async def resolve(
    target: Any,
    selector: ParsedSelector | str,
    *,
    limit: int | None = None,
    mode: Literal["top_first", "all"] = "top_first",
    describe: bool = True,
    backend_ids: bool = True,
    object_group: str | None = DEFAULT_GROUP,
    project: str | None = None,
    timeout: float = 10.0,
) -> Resolution:
    """Resolve ``selector`` over the target's frames.

    Args:
        target: a FrameTreeLike (``frames()`` top document first).
        selector: a selector string or a ParsedSelector (not a ref).
        limit: at most this many Match objects are built (``total`` still counts all).
        mode: ``top_first`` (strict actions: the top document alone if it matches, else all
            other frames together) or ``all`` (``page.find``: every frame, top first).
        describe: fill ``Match.info`` with ``{tag, id, role, name, text, visible}``.
        backend_ids: fill ``Match.backend_node_id`` (one ``DOM.describeNode`` per match).
        object_group: the Runtime object group of the element handles.

    Raises:
        InvalidSelector: unparsable selector, or CSS/XPath the browser rejects.
        TypeError: a RefSelector (the host resolves refs).
    """
    parsed = _parsed(selector)
    frames = await _frames(target)
    if not frames:
        return Resolution([], 0, parsed.source)
    kw: dict[str, Any] = dict(
        describe=describe, backend_ids=backend_ids, object_group=object_group, project=project, timeout=timeout
    )
    top, others = frames[0], frames[1:]
    if parsed.nth is not None:
        return await _resolve_nth(top, others, parsed, kw)
    first = await query_frame(top, parsed, limit=limit, nth=None, **kw)
    if mode == "top_first" and first.total:
        return Resolution(first.matches, first.total, parsed.source)
    if not others:
        return Resolution(first.matches, first.total, parsed.source)
    rest_limit = None if limit is None else max(0, limit - len(first.matches))
    # other frames together, concurrently; each gets the remaining limit, trimmed below
    results = await asyncio.gather(*(query_frame(f, parsed, limit=rest_limit, nth=None, **kw) for f in others))
    matches = list(first.matches)
    total = first.total
    for r in results:
        matches.extend(r.matches)
        total += r.total
    if limit is not None and len(matches) > limit:
        extra = matches[limit:]
        matches = matches[:limit]
        await _release_matches(extra)
    return Resolution(matches, total, parsed.source)


async def selector_state(target: Any, selector: ParsedSelector | str, *, timeout: float = 10.0) -> tuple[int, bool]:
    """How many elements ``selector`` matches over the target's frames (the top document if it
    has any, else the other frames together, as ``resolve``), and whether the first is visible.

    CSS, text and XPath selectors are counted by value in one call per frame; role selectors
    and chains (whose matches Chromium's accessibility tree confirms) resolve as ``resolve``
    does and release their handles."""
    parsed = _parsed(selector)
    if parsed.kind in ("chain", "role") or parsed.nth is not None:
        res = await resolve(target, parsed, limit=2, describe=True, backend_ids=False, timeout=timeout)
        try:
            return res.total, bool(res.matches and res.matches[0].info.get("visible"))
        finally:
            await _release_matches(res.matches)
    frames = await _frames(target)
    if not frames:
        return 0, False

    def count(frame: FrameLike) -> Coroutine[Any, Any, _FrameResult]:
        return query_frame(frame, parsed, nth=None, objects=False, visible_first=True, timeout=timeout)

    top = await count(frames[0])
    if top.total or len(frames) == 1:
        return top.total, top.visible
    rest = await asyncio.gather(*(count(f) for f in frames[1:]))
    return sum(r.total for r in rest), next((r.visible for r in rest if r.total), False)


async def _release_matches(matches: list[Match]) -> None:
    await asyncio.gather(*(_release(m.frame.session, m.object_id) for m in matches if m.object_id))


async def _resolve_nth(top: Any, others: list[Any], parsed: ParsedSelector, kw: dict[str, Any]) -> Resolution:
    nth = parsed.nth
    assert nth is not None
    first = await query_frame(top, parsed, nth=nth, **kw)
    if (nth >= 0 and first.count > nth) or not others:
        return Resolution(first.matches, first.total, parsed.source)
    counts = await asyncio.gather(
        *(query_frame(f, parsed, nth=None, objects=False, timeout=kw["timeout"]) for f in others)
    )
    per_frame = [(top, first.count)] + [(f, c.count) for f, c in zip(others, counts)]
    overall = sum(c for _, c in per_frame)
    index = _nth_index(nth, overall)
    await _release_matches(first.matches)
    if index is None:
        return Resolution([], 0, parsed.source)
    for frame, c in per_frame:
        if index < c:
            r = await query_frame(frame, parsed, nth=index, **kw)
            return Resolution(r.matches, r.total, parsed.source)
        index -= c
    return Resolution([], 0, parsed.source)


async def query_all(target: Any, selector: ParsedSelector | str, *, limit: int | None = None, **kw: Any) -> list[Match]:
    """The matches of :func:`resolve` (``mode="top_first"`` unless given)."""
    return (await resolve(target, selector, limit=limit, **kw)).matches


async def count(
    target: Any,
    selector: ParsedSelector | str,
    *,
    mode: Literal["top_first", "all"] = "top_first",
    timeout: float = 10.0,
) -> int:
    """How many elements match (same frame rule as :func:`resolve`); no handles are made."""
    parsed = _parsed(selector)
    frames = await _frames(target)
    if not frames:
        return 0
    if parsed.nth is not None:
        results = [await query_frame(f, parsed, nth=None, objects=False, timeout=timeout) for f in frames[:1]]
        n = results[0].count
        if not (parsed.nth >= 0 and n > parsed.nth) and len(frames) > 1:
            more = await asyncio.gather(*(query_frame(f, parsed, nth=None, objects=False, timeout=timeout) for f in frames[1:]))
            n += sum(r.count for r in more)
        return int(_nth_index(parsed.nth, n) is not None)
    first = await query_frame(frames[0], parsed, objects=False, timeout=timeout)
    if (mode == "top_first" and first.total) or len(frames) == 1:
        return first.total
    more = await asyncio.gather(*(query_frame(f, parsed, objects=False, timeout=timeout) for f in frames[1:]))
    return first.total + sum(r.total for r in more)


async def retarget(
    match: Match,
    behavior: Literal["none", "follow-label", "no-follow-label", "button-link"] = "no-follow-label",
    *,
    object_group: str | None = DEFAULT_GROUP,
    timeout: float = 10.0,
) -> Match:
    """The element a pointer action should hit (Playwright's retarget): a ``<span>`` inside a
    button becomes the button; ``follow-label`` also maps a label to its control."""
    if match.object_id is None:
        raise ValueError("retarget needs a match with an object_id")
    session = match.frame.session
    params: dict[str, Any] = {
        "objectId": match.object_id,
        "functionDeclaration": jsbundle.function("utility", "retarget"),
        "arguments": [{"value": behavior}],
    }
    if object_group:
        params["objectGroup"] = object_group
    r = await session.send("Runtime.callFunctionOn", params, timeout=timeout)
    res = r.get("result") or {}
    oid = res.get("objectId")
    if r.get("exceptionDetails") or not oid:
        return match
    d = await session.send("DOM.describeNode", {"objectId": oid}, timeout=timeout)
    info = await session.send(
        "Runtime.callFunctionOn",
        {"objectId": oid, "functionDeclaration": "function() { return __egoSel.describe(this); }", "returnByValue": True},
        timeout=timeout,
    )
    return Match(match.frame, d["node"].get("backendNodeId"), oid, (info.get("result") or {}).get("value") or {})


async def ax_describe(matches: list[Match], *, timeout: float = 10.0) -> None:
    """Replace ``info["role"]``/``info["name"]`` by Chromium's (one getPartialAXTree per match)."""

    async def one(m: Match) -> None:
        if m.backend_node_id is None:
            return
        try:
            r = await m.frame.session.send(
                "Accessibility.getPartialAXTree",
                {"backendNodeId": m.backend_node_id, "fetchRelatives": False},
                timeout=timeout,
            )
        except CdpError:
            return
        for node in r.get("nodes", ()):
            if node.get("backendDOMNodeId") == m.backend_node_id:
                m.info["role"] = (node.get("role") or {}).get("value")
                m.info["name"] = normalize_whitespace(str((node.get("name") or {}).get("value") or ""))
                break

    await asyncio.gather(*(one(m) for m in matches))


async def engine_ready(frame: FrameLike, *, timeout: float = 5.0) -> None:
    """Make the frame's utility world and install the engine in it, unless both are there
    (then nothing is sent): afterwards a call into the engine goes out in its first step.
    A frame that is gone, or a world that cannot be made now, is left to the next call."""

    async def call(ctx: int) -> bool:
        return True

    try:
        await _with_context(frame, call, timeout=timeout)
    except (_FrameGone, EgoError):  # CdpError, a channel gone, its deadline: the next call tells
        pass


async def wait_for_dom_change(frame: FrameLike, timeout_ms: float, *, timeout: float | None = None) -> bool:
    """Resolve at the frame's next DOM mutation (True) or after ``timeout_ms`` (False)."""
    session = frame.session
    budget = timeout if timeout is not None else timeout_ms / 1000 + 5.0

    async def call(ctx: int) -> str | bool:
        r = await session.send(
            "Runtime.evaluate",
            {
                "expression": f"globalThis.__egoSel ? __egoSel.nextMutation({float(timeout_ms)}) : {_dumps(_MISSING)}",
                "contextId": ctx, "awaitPromise": True, "returnByValue": True, "silent": True,
            },
            timeout=budget,
        )
        value = (r.get("result") or {}).get("value")
        return _MISSING if value == _MISSING else bool(value)

    try:
        changed: bool = await _with_context(frame, call, timeout=budget)
        return changed
    except _FrameGone:
        return True  # the document changed under us: that is a change



async def dom_quiet(frame: FrameLike, quiet_ms: float, timeout_ms: float) -> bool:
    """True once the frame's DOM has not changed for ``quiet_ms``; False after ``timeout_ms``."""
    session = frame.session
    budget = timeout_ms / 1000 + 5.0

    async def call(ctx: int) -> str | bool:
        r = await session.send(
            "Runtime.evaluate",
            {
                "expression": f"globalThis.__egoSel ? __egoSel.domQuiet({float(quiet_ms)}, {float(timeout_ms)}) "
                              f": {_dumps(_MISSING)}",
                "contextId": ctx, "awaitPromise": True, "returnByValue": True, "silent": True,
            },
            timeout=budget,
        )
        value = (r.get("result") or {}).get("value")
        return _MISSING if value == _MISSING else bool(value)

    try:
        quiet: bool = await _with_context(frame, call, timeout=budget)
        return quiet
    except _FrameGone:
        return False  # the document was replaced while we waited: not quiet


async def since_change(frame: FrameLike, *, timeout: float = 2.0) -> tuple[float, float] | None:
    """(ms since the frame's DOM last changed after its load, ms that run of changes lasted),
    None when it has not (the engine's observer starts with its world: at document start when
    preloaded)."""
    session = frame.session

    async def call(ctx: int) -> str | tuple[float, float] | None:
        r = await session.send(
            "Runtime.evaluate",
            {"expression": f"globalThis.__egoSel ? __egoSel.sinceChange() : {_dumps(_MISSING)}",
             "contextId": ctx, "returnByValue": True, "silent": True},
            timeout=timeout,
        )
        value = (r.get("result") or {}).get("value")
        if value == _MISSING:
            return _MISSING
        if isinstance(value, list) and len(value) == 2:
            return float(value[0]), float(value[1])
        return None

    try:
        found: tuple[float, float] | None = await _with_context(frame, call, timeout=timeout)
        return found
    except _FrameGone:
        return None
