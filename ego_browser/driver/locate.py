"""Locating elements: from a selector or a ref to the element handles an action acts on.

The selector engine (``ego_browser/selectors``) and the snapshot ledger resolve; the page's
:class:`Locator` (``driver.locate``) adapts its frames to the engine's protocol, turns refs
into handles in the frame's utility world, and computes where each frame sits in the
top-level viewport (the action pipeline dispatches input on the top page session in
top-level coordinates). The ledger comes from the host as a :class:`~.sites.RefBook`.
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..cdp import Session
from ..errors import CdpChannelUnavailable, CdpError, EgoError, SelectorAmbiguous, StaleRef
from ..selectors import engine
from ..selectors._core import _FrameGone, state_fields
from ..selectors.parse import ParsedSelector, RefSelector, parse_selector
from .candidates import SHOWN_CANDIDATES, ambiguity, describer
from .handles import ElementHandle, Transient
from .frames import Frame, FrameTree
from .outcomes import drop_outcome

if TYPE_CHECKING:
    from .sites import RefBook

__all__ = ["Locator", "EngineFrames", "GROUP"]

#: object group of the handles a call makes unless it names its own
GROUP = engine.DEFAULT_GROUP
#: object group of the handles an ambiguity error resolves to describe its candidates
_AMBIGUOUS_GROUP = "ego-ambiguous"

Resolver = Callable[[], Awaitable[list[ElementHandle]]]


class _Page(Protocol):
    """What locating needs of the page driver (``PageDriver`` has it all)."""

    @property
    def frames(self) -> FrameTree: ...
    @property
    def sessions(self) -> dict[str, Session]: ...
    @property
    def stats(self) -> Counter[str]: ...

    async def wait_until(self, predicate: Callable[[], Any], *, timeout: float) -> Any: ...

    def check_input(self) -> None: ...


class _EngineFrame:
    """One page frame as the selector engine sees it."""

    __slots__ = ("_frame", "_tree", "_page")

    def __init__(self, frame: Frame, tree: FrameTree, page: _Page) -> None:
        self._frame = frame
        self._tree = tree
        self._page = page

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
                self._page.stats["frames_gone"] += 1
                raise _FrameGone(frame.frame_id) from None
            # the frame is moving to (or from) its own process: its session changes under us;
            # wait (bounded) for the session that takes it over, then try once more there
            self._page.stats["frame_swap_waits"] += 1
            try:
                await self._page.wait_until(
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

    def __init__(self, page: _Page) -> None:
        self.page = page

    def frames(self) -> list[_EngineFrame]:
        tree = self.page.frames
        return [_EngineFrame(f, tree, self.page) for f in tree.frames() if f.loader_id is not None or f.is_main]


class Locator:
    """The page driver's part that finds elements (``driver.locate``)."""

    __slots__ = ("page",)

    def __init__(self, page: _Page) -> None:
        self.page = page

    def engine_frames(self) -> EngineFrames:
        """The page's frames for ``selectors.engine.resolve``."""
        return EngineFrames(self.page)

    def engine_frame(self, frame: Frame) -> _EngineFrame:
        return _EngineFrame(frame, self.page.frames, self.page)

    async def frame_offset(self, frame: Frame) -> tuple[float, float]:
        """Top-left of ``frame``'s viewport in top-level viewport coordinates."""
        x = y = 0.0
        current = frame
        while current.parent_frame_id is not None:
            parent = self.page.frames.get(current.parent_frame_id)
            if parent is None:
                raise Transient("the element's frame is detached", reason="not_found")
            try:
                owner = await parent.session.send("DOM.getFrameOwner", {"frameId": current.frame_id}, timeout=5.0)
                box = await parent.session.send("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]},
                                                timeout=5.0)
            except (CdpError, CdpChannelUnavailable):
                raise Transient("the element's frame is not laid out yet", reason="not_found") from None
            content = box["model"]["content"]
            x += content[0]
            y += content[1]
            current = parent
        return x, y

    def _offset_fn(self, frame: Frame) -> Any:
        if frame.is_main:
            return (0.0, 0.0)
        return lambda: self.frame_offset(frame)

    async def handle_for_ref(self, refs: RefBook, ref: int, group: str = GROUP, *,
                             confirm_later: bool = False) -> ElementHandle:
        """The element behind ``@ref`` in its frame's utility world; ``StaleRef`` if it is gone.

        ``confirm_later``: the liveness check is sent at once but awaited with the handle's
        first helper call (``actions.call``), so both are in flight together (one renderer
        round trip fewer per action on a ref; the helpers' checks never act on a detached
        element, so the order of the two does not matter)."""
        from ..snapshot.refcheck import check_ref

        page = self.page
        ledger = refs.ledger()
        # still the node the ref named (or its successor): never another element (refcheck.py).
        # The check walks the node in the snapshot's world while the handle is made in the
        # utility world: both in flight together (the handle is made again if the ref followed)
        judged = asyncio.ensure_future(check_ref(page.frames, ledger, ref))
        bound = ledger.active.get(ref)
        early: asyncio.Future[tuple[int, Any]] | None = None
        first = page.frames.get(bound[0]) if bound is not None and bound[2] >= 0 else None
        if bound is not None and first is not None and (not first.loader_id or first.loader_id == bound[1]):
            early = asyncio.ensure_future(self._utility_node(first, bound[2], group))
            early.add_done_callback(drop_outcome)
        try:
            resolved = await judged
        except BaseException:
            if early is not None:
                early.cancel()
            raise
        frame = page.frames.get(resolved.frame_id)
        if frame is None:
            raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)
        try:
            if early is not None and frame is first and bound is not None and resolved.backend_node_id == bound[2]:
                context_id, res = await early
            else:
                if early is not None:
                    early.cancel()
                context_id, res = await self._utility_node(frame, resolved.backend_node_id, group)
        except (CdpError, CdpChannelUnavailable) as exc:
            # the node, its document or its frame is gone ("No frame for given id found" from
            # createIsolatedWorld is the frame's document having gone): the ref is stale
            ledger.stale_ref(ref)
            raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref) from exc
        object_id = res["object"]["objectId"]
        check = asyncio.ensure_future(frame.session.send(
            "Runtime.callFunctionOn",
            {"objectId": object_id, "functionDeclaration": "function() { return this.isConnected; }",
             "returnByValue": True},
            timeout=5.0,
        ))
        check.add_done_callback(drop_outcome)  # a handle dropped before its first call

        async def confirm() -> None:
            alive = await check
            if not (alive.get("result") or {}).get("value"):
                ledger.stale_ref(ref)
                raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)

        if not confirm_later:
            await confirm()
        handle = ElementHandle(frame.session, context_id, object_id, self._offset_fn(frame))
        if confirm_later:
            handle.confirm = confirm
        handle.gate = page.check_input
        handle.describe_object = functools.partial(describer, refs, self.engine_frame(frame))
        return handle

    async def _utility_node(self, frame: Frame, backend_node_id: int, group: str) -> tuple[int, Any]:
        """(utility context id, ``DOM.resolveNode`` answer) of a node of ``frame``."""
        context_id = await self.page.frames.utility_context(frame)
        res = await frame.session.send(
            "DOM.resolveNode",
            {"backendNodeId": backend_node_id, "executionContextId": context_id, "objectGroup": group},
            timeout=5.0,
        )
        return context_id, res

    def resolver(self, refs: RefBook, selector: str, group: str = GROUP, *, confirm_later: bool = False) -> Resolver:
        """The ``resolve`` callable of the action pipeline for ``selector`` (parsed once, up
        front, so an invalid selector fails before anything happens); handles go to object
        ``group``. ``confirm_later``: see ``handle_for_ref`` (the caller's first in-page call on
        a handle must be ``actions.call`` or await ``handle.confirmed()``)."""
        parsed = parse_selector(selector)
        page = self.page
        if isinstance(parsed, RefSelector):
            ref = parsed.ref

            async def resolve_ref_handles() -> list[ElementHandle]:
                page.check_input()
                return [await self.handle_for_ref(refs, ref, group, confirm_later=confirm_later)]

            return resolve_ref_handles

        frames = EngineFrames(page)
        # every frame's matches: the action pipeline judges the top document's first and falls
        # back to the frames only when none of those passes its checks (API.md §9)
        mode: Literal["top_first", "all"] = "top_first" if parsed.nth is not None else "all"

        async def resolve_selector() -> list[ElementHandle]:
            page.check_input()  # each attempt: the user may have taken over while it waited
            try:
                found = await engine.resolve(frames, parsed, mode=mode, describe=False, backend_ids=False,
                                             object_group=group)
            except (CdpChannelUnavailable, CdpError) as exc:
                raise Transient(f"the page changed while resolving the selector ({exc})",
                                reason="not_found") from exc
            handles = []
            for m in found.matches:
                ef = m.frame
                # object_group is set: the engine hands out an object id with every match
                assert m.object_id is not None
                context_id = await ef.utility_context()
                handle = ElementHandle(ef.session, context_id, m.object_id, self._offset_fn(ef.frame))
                handle.gate = page.check_input
                handle.tier = 0 if ef.is_main else 1
                # an ambiguity error lists candidates with refs: described only then
                handle.describe = describer(refs, ef, m.object_id)
                handle.describe_object = functools.partial(describer, refs, ef)
                handles.append(handle)
            return handles

        return resolve_selector

    async def release(self, group: str = GROUP) -> None:
        """Drop the element handles a call made (one object group per session, concurrently).

        Never raises. Its answer on the page session is also a renderer round trip there (the
        receipts use it as their flush)."""

        async def one(session: Session) -> None:
            try:
                await session.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=2.0)
            except EgoError:  # every way a command fails (refused, gone, timed out, blocked by a dialog)
                pass

        sessions = list(self.page.sessions.values())
        if len(sessions) == 1:
            await one(sessions[0])
        else:
            await asyncio.gather(*(one(s) for s in sessions))

    # -- strict paths that count matches themselves, and page.find ---------------------------

    async def ambiguous_selector(self, refs: RefBook, api: str, parsed: ParsedSelector, total: int, *,
                                 mode: Literal["top_first", "all"] = "top_first",
                                 hint: str | None = None) -> SelectorAmbiguous:
        """The ``SelectorAmbiguous`` of a strict path that found ``total`` > 1 matches with a
        cheap ``limit=2`` resolve (``wait_for_selector``, ``snapshot(root=)``,
        ``set_input_files``): the selector is resolved again for up to 5 matches, which are
        described as actions describe theirs (``actions.ambiguity``). A page that changed in
        between keeps the first count."""
        matches: list[Any] = []
        try:
            res = await engine.resolve(self.engine_frames(), parsed, mode=mode, limit=SHOWN_CANDIDATES,
                                       describe=False, backend_ids=False, object_group=_AMBIGUOUS_GROUP,
                                       timeout=5.0)
            matches = res.matches
            if res.total > 1:
                total = res.total
        except (CdpError, CdpChannelUnavailable):
            pass
        try:
            describers = [describer(refs, m.frame, m.object_id) for m in matches]
            kw = {"hint": hint} if hint else {}
            return await ambiguity(api, parsed.source, total, describers, **kw)
        finally:
            await engine._release_matches(matches)

    async def find(self, refs: RefBook, parsed: ParsedSelector | RefSelector, limit: int) -> list[dict[str, Any]]:
        """``page.find``: every match (up to ``limit``) described, each with a ref."""
        if isinstance(parsed, RefSelector):
            return [await self.describe_ref(refs, parsed.ref)]
        from ..snapshot import settle

        ledger = refs.ledger()
        # a snapshot may still be fetching its nodes' ids: numbers must be bound before we hand
        # out more, or a node could get a second one
        await settle(ledger)
        try:
            found = await engine.resolve(self.engine_frames(), parsed, mode="all", limit=limit, describe=True,
                                         backend_ids=True, object_group=GROUP)
            await engine.ax_describe(found.matches)
            from ..snapshot.refcheck import number_of

            rows = []
            for m in found.matches:
                ref = None
                if m.backend_node_id is not None and m.loader_id:
                    # a node that became something else since its number was printed gets a new one
                    n = await number_of(self.page.frames, ledger, (m.frame_id, m.loader_id, m.backend_node_id))
                    ref = f"@{n}"
                rows.append(m.find_dict(ref))
            refs.save()
            return rows
        finally:
            await self.release()

    async def describe_ref(self, refs: RefBook, ref: int) -> dict[str, Any]:
        """``page.find("@N")``: the element behind a ref, described as ``find`` describes matches."""
        handle = await self.handle_for_ref(refs, ref)
        try:
            res = await handle.session.send(
                "Runtime.callFunctionOn",
                {"objectId": handle.object_id, "returnByValue": True,
                 "functionDeclaration": "function() { return globalThis.__egoSel ? __egoSel.describe(this) : null; }"},
                timeout=5.0,
            )
            info = (res.get("result") or {}).get("value")
            if info is None:
                await install_engine(handle)
                res = await handle.session.send(
                    "Runtime.callFunctionOn",
                    {"objectId": handle.object_id, "returnByValue": True,
                     "functionDeclaration": "function() { return __egoSel.describe(this); }"},
                    timeout=5.0,
                )
                info = (res.get("result") or {}).get("value") or {}
        finally:
            await self.release()
        binding = refs.ledger().lookup(ref)
        frame = self.page.frames.get(binding.frame_id)
        return {"ref": f"@{ref}", "tag": info.get("tag"), "id": info.get("id"), "role": info.get("role"),
                "name": info.get("name"), "text": info.get("text"), "visible": info.get("visible"),
                "frame": None if frame is None or frame.is_main else frame.url, **state_fields(info)}


async def install_engine(handle: ElementHandle) -> None:
    """The selector engine, installed in the world of ``handle`` (a ref's utility world)."""
    await handle.session.send(
        "Runtime.evaluate", {"expression": engine.engine_source(), "contextId": handle.context_id}, timeout=5.0
    )
