"""Shared plumbing of the selector engine: protocols, Match, engine install and calls.

Not public: :mod:`ego_browser.selectors.engine` re-exports what the host uses.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

import orjson

from .. import jsbundle
from .. import jsonsafe
from ..cdp.errors import ContextDestroyed, error_type_in
from ..errors import CdpChannelUnavailable, CdpError, InvalidSelector
from .parse import ParsedSelector

logger = logging.getLogger("ego_browser.selectors")

#: the isolated world the engine lives in
ENGINE_WORLD = "__ego_util"
DEFAULT_GROUP = "ego-selectors"
_MISSING = "__ego_missing__"

#: our role names -> Chromium's AX role values where they differ
_ROLE_ALIASES: dict[str, tuple[str, ...]] = {
    "img": ("image",),
    "image": ("image",),
    "iframe": ("Iframe",),
    "text": ("StaticText",),
    "root": ("RootWebArea",),
    "option": ("option", "MenuListOption"),
    # a table Chromium judges to be for layout (no headers, no caption...) has these roles;
    # Playwright (and ARIA) still call them cell, row and table
    "cell": ("cell", "LayoutTableCell"),
    "row": ("row", "LayoutTableRow"),
    "table": ("table", "LayoutTable"),
}


class SessionLike(Protocol):
    def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = ...) -> Awaitable[dict[str, Any]]: ...


class FrameLike(Protocol):
    """One frame as the engine reads it (read-only: the driver's frames and ``standalone.py``'s)."""

    @property
    def frame_id(self) -> str: ...

    @property
    def session(self) -> SessionLike: ...

    @property
    def loader_id(self) -> str | None: ...

    @property
    def url(self) -> str: ...

    @property
    def is_main(self) -> bool: ...

    @property
    def installed(self) -> set[str]:
        """What the current utility context holds (reset by the frame when that context changes)."""

    async def utility_context(self) -> int: ...


class FrameTreeLike(Protocol):
    def frames(self) -> Sequence[FrameLike] | Awaitable[Sequence[FrameLike]]: ...


@dataclass(frozen=True, slots=True)
class Query:
    """What one frame's query asks for, passed whole through the engine's paths (CSS/text/XPath
    in the page, ``role.py``, ``chain.py``); ``engine.query_frame`` makes it from its options.

    ``nth``: the one match wanted (None: every match); ``limit``: at most this many matches
    built; ``describe``: fill ``Match.info``; ``objects``: element handles (False: counts only,
    by value), in ``object_group``; ``project``: a JS ``el => value`` added per match;
    ``backend_ids``: fill ``Match.backend_node_id``; ``timeout``: seconds per CDP call.
    """

    nth: int | None
    limit: int | None
    describe: bool
    objects: bool
    object_group: str | None
    project: str | None
    timeout: float
    backend_ids: bool


@dataclass
class Match:
    """One matched element."""

    frame: Any  # FrameLike
    backend_node_id: int | None
    object_id: str | None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def frame_id(self) -> str:
        frame_id: str = self.frame.frame_id
        return frame_id

    @property
    def loader_id(self) -> str | None:
        return getattr(self.frame, "loader_id", None)

    def find_dict(self, ref: Any) -> dict[str, Any]:
        """The ``page.find`` row once the host has assigned ``ref``."""
        info = self.info
        return {
            "ref": ref,
            "tag": info.get("tag"),
            "id": info.get("id"),
            "role": info.get("role"),
            "name": info.get("name"),
            "text": info.get("text"),
            "visible": info.get("visible"),
            "frame": None if getattr(self.frame, "is_main", False) else getattr(self.frame, "url", None),
            **state_fields(info),
        }


def state_fields(info: dict[str, Any]) -> dict[str, Any]:
    """The state columns of a ``page.find`` row (``element_state.js``; the snapshot's marks)."""
    return {k: info.get(k) for k in ("value", "checked", "disabled", "expanded", "selected")}


@dataclass
class Resolution:
    """Matches in match order (at most ``limit``) and the total number of matches."""

    matches: list[Match]
    total: int
    selector: str


# ------------------------------------------------------------------------------------ engine


def engine_source() -> str:
    """The engine's install program (``js/utility/selector_engine.js``; yields ``true``)."""
    return jsbundle.program("utility", "selector_engine")


#: the key under which a frame records that its utility context holds the engine
ENGINE_KEY = "selector_engine"


class _FrameGone(Exception):
    """The frame's context went away twice in a row; it counts as having no match."""


def _installed_set(frame: FrameLike) -> set[str]:
    """The frame's own record of what its current utility context holds.

    Frames reset it whenever their utility context changes, so the record lives and dies with
    the page (no process-wide cache keyed by session or ``id()``).
    """
    installed: set[str] | None = getattr(frame, "installed", None)
    if installed is None:
        raise TypeError(f"{type(frame).__name__} has no 'installed' set (see FrameLike)")
    return installed


_T = TypeVar("_T")


async def _with_context(frame: FrameLike, call: Callable[[int], Awaitable[_T | str]], *, timeout: float) -> _T:
    """Run ``call(ctx)`` with the engine installed in the frame's utility context.

    ``call`` returns a CDP result, or ``_MISSING`` when the engine is not there (a context
    whose id we recorded as installed was replaced); one reinstall or context refresh is tried.
    """
    session = frame.session
    for attempt in range(3):
        ctx = await frame.utility_context()
        installed = _installed_set(frame)
        try:
            if ENGINE_KEY not in installed:
                await _install(session, ctx, timeout)
                installed.add(ENGINE_KEY)
            result = await call(ctx)
        except ContextDestroyed:
            _installed_set(frame).discard(ENGINE_KEY)
            invalidate = getattr(frame, "invalidate_utility_context", None)
            if invalidate is not None:
                invalidate()
            continue
        if isinstance(result, str) and result == _MISSING:
            _installed_set(frame).discard(ENGINE_KEY)
            continue
        return cast(_T, result)  # the check above took out the one string call() adds to _T
    raise _FrameGone(frame.frame_id)


async def _install(session: SessionLike, ctx: int, timeout: float) -> None:
    r = await session.send(
        "Runtime.evaluate",
        {"expression": engine_source(), "contextId": ctx, "returnByValue": True, "silent": True},
        timeout=timeout,
    )
    if r.get("exceptionDetails"):
        text = _exception_text(r["exceptionDetails"])
        # the world went away while the engine ran: the same retry as a refused command
        cls = ContextDestroyed if issubclass(error_type_in(text), ContextDestroyed) else CdpError
        raise cls(
            "selector engine failed to install: " + text,
            method="Runtime.evaluate",
            cdp_code=None,
            cdp_message=None,
        )


def _exception_text(details: dict[str, Any]) -> str:
    exc = details.get("exception") or {}
    return exc.get("description") or details.get("text") or "exception"


def _dumps(value: Any) -> str:
    return jsonsafe.dumps(value).decode()  # a selector's lone surrogate is sent as U+FFFD


async def _evaluate(frame: FrameLike, expression: str, *, by_value: bool, group: str | None, timeout: float) -> Any:
    """Evaluate ``expression`` (which may use ``__egoSel``) in the frame's utility world."""
    session = frame.session
    guarded = f"globalThis.__egoSel ? ({expression}) : {_dumps(_MISSING)}"

    async def call(ctx: int) -> Any:
        params: dict[str, Any] = {"expression": guarded, "contextId": ctx, "silent": True}
        if by_value:
            params["returnByValue"] = True
        if group:
            params["objectGroup"] = group
        r = await session.send("Runtime.evaluate", params, timeout=timeout)
        if r.get("exceptionDetails"):
            raise CdpError(
                "selector engine error: " + _exception_text(r["exceptionDetails"]),
                method="Runtime.evaluate",
                cdp_code=None,
                cdp_message=None,
            )
        res = r["result"]
        if res.get("type") == "string" and res.get("value") == _MISSING:
            return _MISSING
        return res

    return await _with_context(frame, call, timeout=timeout)


# ------------------------------------------------------------------------------------ frames


async def _frames(target: Any) -> list[Any]:
    frames = target.frames()
    if inspect.isawaitable(frames):
        frames = await frames
    return list(frames)


@dataclass
class _FrameResult:
    matches: list[Match]
    count: int  # matches in the frame before nth
    total: int  # after nth
    visible: bool = False  # the first match is visible (only when counted with ``visible_first``)


def _invalid_from_engine(parsed: ParsedSelector, value: dict[str, Any]) -> InvalidSelector:
    part = value.get("part") or ""
    detail = f"{value.get('invalid')}" + (f" (in {part!r})" if part else "")
    return InvalidSelector(f"Invalid selector {parsed.source!r}: {detail}", selector=parsed.source, detail=detail)


async def _materialize(frame: FrameLike, parsed: ParsedSelector, res: dict[str, Any], *, backend_ids: bool, timeout: float) -> _FrameResult:
    session = frame.session
    array_id = res.get("objectId")
    if array_id is None:
        return _FrameResult([], 0, 0)
    if res.get("subtype") == "node":
        # the engine's single-match answer (spec.single): the element itself
        backend1: list[int | None] = [None]
        if backend_ids:
            backend1 = await _backend_ids(session, [array_id], timeout)
        return _FrameResult([Match(frame, backend1[0], array_id, {})], 1, 1)
    try:
        props = await session.send(
            "Runtime.getProperties", {"objectId": array_id, "ownProperties": True}, timeout=timeout
        )
    finally:
        pass
    elements: dict[int, str] = {}
    meta: dict[str, Any] = {}
    for prop in props.get("result", ()):
        name = prop.get("name")
        value = prop.get("value") or {}
        if name == "meta":
            meta = jsonsafe.loads(value.get("value") or "{}")  # may quote page text
        elif name is not None and name.isdigit() and value.get("objectId"):
            elements[int(name)] = value["objectId"]
    # the array itself is no longer needed (its elements keep their own handles): released
    # alongside the ids' round trip rather than before it
    released = asyncio.ensure_future(_release(session, array_id))
    object_ids = [elements[i] for i in sorted(elements)]
    backend: list[int | None] = [None] * len(object_ids)
    try:
        if "invalid" in meta:
            raise _invalid_from_engine(parsed, meta)
        if backend_ids and object_ids:
            backend = await _backend_ids(session, object_ids, timeout)
    finally:
        await released
    describes = meta.get("describe") or [{} for _ in object_ids]
    projects = meta.get("project")
    matches = []
    for i, oid in enumerate(object_ids):
        info = dict(describes[i]) if i < len(describes) else {}
        if projects is not None:
            info["project"] = projects[i]
        matches.append(Match(frame, backend[i], oid, info))
    return _FrameResult(matches, meta.get("count", meta.get("total", len(matches))), meta.get("total", len(matches)))


async def _release(session: SessionLike, object_id: str) -> None:
    try:
        await session.send("Runtime.releaseObject", {"objectId": object_id}, timeout=5.0)
    except (CdpError, CdpChannelUnavailable):
        pass


async def _backend_ids(session: SessionLike, object_ids: list[str], timeout: float) -> list[int | None]:
    async def one(oid: str) -> int | None:
        try:
            r = await session.send("DOM.describeNode", {"objectId": oid}, timeout=timeout)
        except CdpError:
            return None
        backend: int | None = r["node"].get("backendNodeId")
        return backend

    return list(await asyncio.gather(*(one(oid) for oid in object_ids)))


# ------------------------------------------------------------------------------------ role


def _nth_index(nth: int, n: int) -> int | None:
    i = n - 1 if nth == -1 else nth
    return i if 0 <= i < n else None


# ------------------------------------------------------------------------------------ public

