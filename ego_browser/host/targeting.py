"""From a selector or a ref to element handles the action pipeline can act on.

The selector engine (``ego_browser/selectors``) and the snapshot ledger resolve; this module
adapts the host's frames to the engine's protocol, turns refs into handles in the frame's
utility world, and computes where each frame sits in the top-level viewport (the action
pipeline dispatches input on the top page session in top-level coordinates).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from ..cdp import Session
from ..driver.actions import ElementHandle, Transient
from ..driver.frames import Frame, FrameTree
from ..driver.page import PageDriver
from ..errors import CdpChannelUnavailable, CdpError, EgoError, StaleRef
from ..selectors import engine
from ..selectors._core import _FrameGone
from ..selectors.parse import RefSelector, parse_selector
from .candidates import describer
from .core import Host, PageCtx

__all__ = ["EngineFrames", "resolver", "frame_offset", "release_handles"]

GROUP = engine.DEFAULT_GROUP


class _EngineFrame:
    """One host frame as the selector engine sees it."""

    __slots__ = ("_frame", "_tree", "_driver")

    def __init__(self, frame: Frame, tree: FrameTree, driver: PageDriver) -> None:
        self._frame = frame
        self._tree = tree
        self._driver = driver

    @property
    def frame_id(self) -> str:
        return self._frame.frame_id

    @property
    def session(self) -> Session:
        return self._frame.session

    @property
    def loader_id(self) -> str | None:
        return self._frame.loader_id

    @property
    def url(self) -> str:
        return self._frame.url

    @property
    def is_main(self) -> bool:
        return self._frame.is_main

    @property
    def frame(self) -> Frame:
        return self._frame

    @property
    def installed(self) -> set[str]:
        return self._frame.installed

    async def utility_context(self) -> int:
        frame = self._frame
        session = frame.session
        try:
            return await self._tree.utility_context(frame)
        except CdpError:
            if not frame.swapping:
                # not moving between processes: the browser no longer has this frame (its
                # document went away). It leaves the tree now; waiting would only stall
                # every later action on the page (issue 11 point 0)
                self._tree.forget(frame)
                self._driver.stats["frames_gone"] += 1
                raise _FrameGone(frame.frame_id) from None
            # the frame is moving to (or from) its own process: its session changes under us;
            # wait (bounded) for the session that takes it over, then try once more there
            self._driver.stats["frame_swap_waits"] += 1
            try:
                await self._driver.wait_until(
                    lambda: frame.session is not session or self._tree.get(frame.frame_id) is not frame, timeout=2.0
                )
            except TimeoutError:
                raise _FrameGone(frame.frame_id) from None
            if self._tree.get(frame.frame_id) is not frame:
                raise _FrameGone(frame.frame_id) from None
            return await self._tree.utility_context(frame)

    def invalidate_utility_context(self) -> None:
        self._frame.utility_context = None
        self._frame.installed = set()


class EngineFrames:
    """The page's frames (all sessions), top document first, for the selector engine."""

    def __init__(self, driver: PageDriver) -> None:
        self.driver = driver

    def frames(self) -> list[_EngineFrame]:
        tree = self.driver.frames
        return [_EngineFrame(f, tree, self.driver) for f in tree.frames() if f.loader_id is not None or f.is_main]


async def frame_offset(driver: PageDriver, frame: Frame) -> tuple[float, float]:
    """Top-left of ``frame``'s viewport in top-level viewport coordinates."""
    x = y = 0.0
    current = frame
    while current.parent_frame_id is not None:
        parent = driver.frames.get(current.parent_frame_id)
        if parent is None:
            raise Transient("the element's frame is detached", reason="not_found")
        try:
            owner = await parent.session.send("DOM.getFrameOwner", {"frameId": current.frame_id}, timeout=5.0)
            box = await parent.session.send("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]}, timeout=5.0)
        except (CdpError, CdpChannelUnavailable):
            raise Transient("the element's frame is not laid out yet", reason="not_found") from None
        content = box["model"]["content"]
        x += content[0]
        y += content[1]
        current = parent
    return x, y


def _offset_fn(driver: PageDriver, frame: Frame) -> Any:
    if frame.is_main:
        return (0.0, 0.0)
    return lambda: frame_offset(driver, frame)


async def handle_for_ref(host: Host, ctx: PageCtx, ref: int, group: str = GROUP) -> ElementHandle:
    """The element behind ``@ref`` in its frame's utility world; ``StaleRef`` if it is gone."""
    from ..snapshot import resolve_ref
    from .ledgers import ledger_for

    driver = ctx.driver
    ledger = ledger_for(host, ctx)
    resolved = await resolve_ref(driver.frames, ledger, ref)
    frame = driver.frames.get(resolved.frame_id)
    if frame is None:
        raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)
    try:
        context_id = await driver.frames.utility_context(frame)
        res = await frame.session.send(
            "DOM.resolveNode",
            {"backendNodeId": resolved.backend_node_id, "executionContextId": context_id, "objectGroup": group},
            timeout=5.0,
        )
    except (CdpError, CdpChannelUnavailable):
        # the node, its document or its frame is gone ("No frame for given id found" from
        # createIsolatedWorld is the frame's document having gone): the ref is stale
        ledger.stale_ref(ref)
        raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref) from None
    object_id = res["object"]["objectId"]
    alive = await frame.session.send(
        "Runtime.callFunctionOn",
        {"objectId": object_id, "functionDeclaration": "function() { return this.isConnected; }", "returnByValue": True},
        timeout=5.0,
    )
    if not (alive.get("result") or {}).get("value"):
        ledger.stale_ref(ref)
        raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)
    handle = ElementHandle(frame.session, context_id, object_id, _offset_fn(driver, frame))
    handle.gate = driver.check_input
    handle.describe_object = functools.partial(describer, host, ctx, _EngineFrame(frame, driver.frames, driver))
    return handle


def resolver(
    host: Host, ctx: PageCtx, selector: str, group: str = GROUP
) -> Callable[[], Awaitable[list[ElementHandle]]]:
    """The ``resolve`` callable of the action pipeline for ``selector`` (parsed once, up front,
    so an invalid selector fails before anything happens); handles go to object ``group``."""
    parsed = parse_selector(selector)
    driver = ctx.driver
    if isinstance(parsed, RefSelector):
        ref = parsed.ref

        async def resolve_ref_handles() -> list[ElementHandle]:
            driver.check_input()
            return [await handle_for_ref(host, ctx, ref, group)]

        return resolve_ref_handles

    frames = EngineFrames(driver)
    # every frame's matches: the action pipeline judges the top document's first and falls
    # back to the frames only when none of those passes its checks (API.md §9)
    mode: Literal["top_first", "all"] = "top_first" if parsed.nth is not None else "all"

    async def resolve_selector() -> list[ElementHandle]:
        driver.check_input()  # each attempt: the user may have taken over while it waited
        try:
            found = await engine.resolve(frames, parsed, mode=mode, describe=False, backend_ids=False,
                                         object_group=group)
        except (CdpChannelUnavailable, CdpError) as exc:
            raise Transient(f"the page changed while resolving the selector ({exc})", reason="not_found") from None
        handles = []
        for m in found.matches:
            ef = m.frame
            # object_group is set: the engine hands out an object id with every match
            assert m.object_id is not None
            context_id = await ef.utility_context()
            handle = ElementHandle(ef.session, context_id, m.object_id, _offset_fn(driver, ef.frame))
            handle.gate = driver.check_input
            handle.tier = 0 if ef.is_main else 1
            # an ambiguity error lists candidates with refs: described only then
            handle.describe = describer(host, ctx, ef, m.object_id)
            handle.describe_object = functools.partial(describer, host, ctx, ef)
            handles.append(handle)
        return handles

    return resolve_selector




async def release_handles(driver: PageDriver, group: str = GROUP) -> None:
    """Drop the element handles an action made (one object group per session, concurrently).

    Never raises. Its answer on the page session is also a renderer round trip there (the
    receipts use it as their flush)."""

    async def one(session: Any) -> None:
        try:
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=2.0)
        except EgoError:  # every way a command fails (refused, gone, timed out, blocked by a dialog)
            pass

    sessions = list(driver.sessions.values())
    if len(sessions) == 1:
        await one(sessions[0])
    else:
        await asyncio.gather(*(one(s) for s in sessions))
