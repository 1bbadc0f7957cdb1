"""The frames of one tab, across processes.

A tab's frames live in its own session and, for out-of-process iframes, in child sessions
attached through ``Target.setAutoAttach(flatten=True)``. ``FrameTree`` keeps one ``Frame``
per frame id with the session that owns it, the current document's loader id, the
lifecycle events seen for that document, and the utility (isolated) world where our
in-page helpers run, so that page scripts can neither see nor tamper with them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..cdp import Session
from .preload import SNAPSHOT_WORLD, UTILITY_KEYS, UTILITY_WORLD

__all__ = ["Frame", "FrameTree", "UTILITY_WORLD"]



@dataclass(eq=False)
class Frame:
    frame_id: str
    parent_frame_id: str | None
    session: Session
    loader_id: str | None = None
    url: str = ""
    name: str = ""
    #: lifecycle events seen for the current document ("DOMContentLoaded", "load", ...)
    lifecycle: set[str] = field(default_factory=set)
    #: execution context ids: the page's main world and our utility world
    main_context: int | None = None
    utility_context: int | None = None
    #: the snapshot walker's world made by the new-document script (``driver/preload.py``)
    snapshot_context: int | None = None
    #: sources installed in the utility context (by key) so each is evaluated once
    installed: set[str] = field(default_factory=set)
    #: True when this frame is the root of an out-of-process child target
    is_oopif_root: bool = False
    #: True between a "swap" detach and the session that takes the frame over: the only
    #: time a frame that does not answer is worth waiting for
    swapping: bool = False

    @property
    def is_main(self) -> bool:
        return self.parent_frame_id is None

    @property
    def session_id(self) -> str:
        return self.session.session_id


class FrameTree:
    """Frames of one tab, kept current from ``Page.*`` and ``Runtime.*`` events."""

    def __init__(self, main_session: Session) -> None:
        self.main_session = main_session
        self.main_frame_id: str | None = None
        self._frames: dict[str, Frame] = {}
        self._context_frames: dict[tuple[str, int], Frame] = {}
        self._utility_pending: dict[str, asyncio.Future[int]] = {}
        #: called with (frame, old_loader_id) when a frame's document changes
        self.on_document: list[Callable[[Frame, str | None], Any]] = []
        #: called with (frame,) when a frame goes away
        self.on_detach: list[Callable[[Frame], Any]] = []
        #: called with (frame,) after every committed navigation of a frame
        self.on_navigated: list[Callable[[Frame], Any]] = []
        #: called with no argument whenever lifecycle state changes
        self.on_lifecycle: list[Callable[[], Any]] = []

    # -- queries ----------------------------------------------------------------------------

    def get(self, frame_id: str) -> Frame | None:
        return self._frames.get(frame_id)

    @property
    def main(self) -> Frame | None:
        return self._frames.get(self.main_frame_id) if self.main_frame_id else None

    def frames(self) -> list[Frame]:
        """All frames, top document first, then in tree (document) order."""
        children: dict[str | None, list[Frame]] = {}
        for frame in self._frames.values():
            children.setdefault(frame.parent_frame_id, []).append(frame)
        out: list[Frame] = []

        def walk(parent: str | None) -> None:
            for child in children.get(parent, ()):
                out.append(child)
                walk(child.frame_id)

        walk(None)
        return out

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames())

    def children_of(self, frame_id: str) -> list[Frame]:
        return [f for f in self.frames() if f.parent_frame_id == frame_id]

    # -- building ---------------------------------------------------------------------------

    def load_tree(self, tree: dict[str, Any], session: Session, *, parent_id: str | None = None, oopif: bool = False) -> None:
        """Merge a ``Page.getFrameTree`` result for ``session``."""
        info = tree["frame"]
        frame_id = info["id"]
        frame = self._frames.get(frame_id)
        if frame is None:
            frame = Frame(frame_id, info.get("parentId", parent_id), session)
            self._frames[frame_id] = frame
        else:
            frame.session = session
        frame.swapping = False
        if oopif:
            frame.is_oopif_root = True
            # the child target reports no parent; keep the one the parent session gave
            if frame.parent_frame_id is None and parent_id is not None:
                frame.parent_frame_id = parent_id
        frame.loader_id = info.get("loaderId")
        frame.url = info.get("url", "") + info.get("urlFragment", "")
        frame.name = info.get("name", "")
        if frame.parent_frame_id is None and session is self.main_session:
            self.main_frame_id = frame_id
        for child in tree.get("childFrames", ()):
            self.load_tree(child, session, parent_id=frame_id)

    def frame_attached(self, params: dict[str, Any], session: Session) -> None:
        frame_id = params["frameId"]
        if frame_id in self._frames:
            frame = self._frames[frame_id]
            # an OOPIF root re-attached by its parent after swapping back in-process
            frame.parent_frame_id = params.get("parentFrameId", frame.parent_frame_id)
            return
        self._frames[frame_id] = Frame(frame_id, params.get("parentFrameId"), session)

    def frame_navigated(self, params: dict[str, Any], session: Session) -> None:
        info = params["frame"]
        frame_id = info["id"]
        frame = self._frames.get(frame_id)
        if frame is None:
            frame = Frame(frame_id, info.get("parentId"), session)
            self._frames[frame_id] = frame
        if session is not frame.session and not frame.is_oopif_root:
            frame.session = session
        if session is frame.session:
            frame.swapping = False
        if info.get("parentId") is None and session is self.main_session:
            self.main_frame_id = frame_id
        old = frame.loader_id
        frame.loader_id = info.get("loaderId")
        frame.url = info.get("url", "") + info.get("urlFragment", "")
        frame.name = info.get("name", "")
        if old != frame.loader_id:
            self._document_changed(frame, old)
        for cb in self.on_navigated:
            cb(frame)

    def navigated_within_document(self, params: dict[str, Any]) -> None:
        frame = self._frames.get(params["frameId"])
        if frame is not None:
            frame.url = params["url"]

    def frame_detached(self, params: dict[str, Any], session: Session) -> None:
        frame = self._frames.get(params["frameId"])
        if frame is None:
            return
        if params.get("reason") == "swap":
            # becoming (or ceasing to be) out-of-process: the frame lives on in another session
            frame.swapping = True
            return
        if frame.session is not session and frame.is_oopif_root:
            return
        self._remove(frame)

    def forget(self, frame: Frame) -> None:
        """Drop a frame the browser no longer knows (it said "No frame for given id")."""
        if self._frames.get(frame.frame_id) is frame and not frame.is_main:
            self._remove(frame)

    def _remove(self, frame: Frame) -> None:
        for child in [f for f in self._frames.values() if f.parent_frame_id == frame.frame_id]:
            self._remove(child)
        self._frames.pop(frame.frame_id, None)
        self._forget_contexts(frame)
        for cb in self.on_detach:
            cb(frame)

    def session_detached(self, session: Session) -> None:
        """An OOPIF's target went away: drop the frames only it owned."""
        for frame in [f for f in self._frames.values() if f.session is session]:
            parent = self._frames.get(frame.parent_frame_id or "")
            if frame.is_oopif_root and parent is not None:
                # the parent keeps an <iframe> element: the frame came back in-process (its
                # parent's session answers for it now) or is going away (the parent's
                # frameDetached follows). Either way the dead session never answers again.
                frame.lifecycle.clear()
                frame.main_context = frame.utility_context = None
                frame.installed.clear()
                frame.session = parent.session
                frame.is_oopif_root = False
                frame.swapping = True
                continue
            self._remove(frame)

    def lifecycle_event(self, params: dict[str, Any]) -> None:
        frame = self._frames.get(params["frameId"])
        if frame is None:
            return
        name = params["name"]
        if name == "init":
            if params.get("loaderId") != frame.loader_id:
                old = frame.loader_id
                frame.loader_id = params.get("loaderId")
                self._document_changed(frame, old)
            # "init" stays in the set: this document was watched from its start, so its later
            # lifecycle events will come and nobody needs to ask it for its readyState
            frame.lifecycle = {"init"}
        elif params.get("loaderId") in (None, frame.loader_id):
            frame.lifecycle.add(name)
        for cb in self.on_lifecycle:
            cb()

    def _document_changed(self, frame: Frame, old_loader: str | None) -> None:
        frame.lifecycle = set()
        self._forget_contexts(frame)
        # the old document's iframes went with it. Chromium sends no frameDetached for them
        # (nor always a detachedFromTarget first): left in the tree, every selector query
        # would ask them and wait for an answer that never comes (issue 11 point 0)
        for child in [f for f in self._frames.values() if f.parent_frame_id == frame.frame_id]:
            self._remove(child)
        for cb in self.on_document:
            cb(frame, old_loader)

    # -- execution contexts -----------------------------------------------------------------

    def context_created(self, params: dict[str, Any], session: Session) -> None:
        ctx = params["context"]
        aux = ctx.get("auxData") or {}
        frame = self._frames.get(aux.get("frameId", ""))
        if frame is None:
            return
        key = (session.session_id, ctx["id"])
        if aux.get("isDefault"):
            frame.main_context = ctx["id"]
            self._context_frames[key] = frame
        elif ctx.get("name") == UTILITY_WORLD:
            # a world our new-document script made holds the helpers; one that
            # ``utility_context`` asked for is reset to empty once its answer is in, and a
            # missing helper is detected by every call anyway
            frame.utility_context = ctx["id"]
            frame.installed = set(UTILITY_KEYS)
            self._context_frames[key] = frame
        elif ctx.get("name") == SNAPSHOT_WORLD:
            frame.snapshot_context = ctx["id"]
            self._context_frames[key] = frame

    def context_destroyed(self, params: dict[str, Any], session: Session) -> None:
        frame = self._context_frames.pop((session.session_id, params["executionContextId"]), None)
        if frame is None:
            return
        if frame.main_context == params["executionContextId"]:
            frame.main_context = None
        if frame.utility_context == params["executionContextId"]:
            frame.utility_context = None
            frame.installed = set()
        if frame.snapshot_context == params["executionContextId"]:
            frame.snapshot_context = None

    def contexts_cleared(self, session: Session) -> None:
        for key in [k for k in self._context_frames if k[0] == session.session_id]:
            frame = self._context_frames.pop(key)
            frame.main_context = frame.utility_context = frame.snapshot_context = None
            frame.installed = set()

    def _forget_contexts(self, frame: Frame) -> None:
        frame.main_context = None
        frame.utility_context = None
        frame.snapshot_context = None
        frame.installed = set()

    async def utility_context(self, frame: Frame, *, timeout: float = 10.0) -> int:
        """The utility world's context id in ``frame``, created on first use."""
        if frame.utility_context is not None:
            return frame.utility_context
        res = await frame.session.send(
            "Page.createIsolatedWorld",
            {"frameId": frame.frame_id, "worldName": UTILITY_WORLD, "grantUniveralAccess": True},
            timeout=timeout,
        )
        ctx: int = res["executionContextId"]
        frame.utility_context = ctx
        frame.installed = set()
        self._context_frames[(frame.session.session_id, ctx)] = frame
        return ctx

    async def install(self, frame: Frame, key: str, source: str, *, timeout: float = 10.0) -> int:
        """Evaluate ``source`` once per utility context (idempotent); returns the context id."""
        ctx = await self.utility_context(frame, timeout=timeout)
        if key not in frame.installed:
            res = await frame.session.send(
                "Runtime.evaluate", {"expression": source, "contextId": ctx, "returnByValue": True}, timeout=timeout
            )
            if "exceptionDetails" in res:
                raise RuntimeError(f"installing {key} failed: {res['exceptionDetails'].get('text')}")
            frame.installed.add(key)
        return ctx
