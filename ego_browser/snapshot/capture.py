"""CDP capture of a page's documents for the snapshot engine.

The host gives the engine a :class:`SnapshotTarget`::

    class SnapshotTarget(Protocol):
        main_session: Session                 # the page (top document) session
        def frames(self) -> Iterable[SnapshotFrame]: ...

    class SnapshotFrame(Protocol):
        frame_id: str                         # CDP frame id (an OOPIF's root frame id = its target id)
        parent_frame_id: str | None           # None for the top document
        session: Session                      # the session that owns the frame: the page session,
                                              # or the OOPIF's child session (flatten=True)
        loader_id: str | None                 # current document loader id (None or "" if unknown)

``frames()`` lists every frame the host knows (top, same-process and out-of-process,
nested). The engine never enables domains, never focuses, scrolls, reloads or activates
anything: per frame it uses one isolated world (``Page.createIsolatedWorld``, cached per
document in the page's :class:`~.worlds.Worlds`), one ``Runtime.evaluate`` (or ``DOM.resolveNode`` + ``Runtime.callFunctionOn`` for a
subtree root), and ``DOM.getFrameOwner`` to hang a child frame under its ``iframe`` element.

How a capture learns backend node ids cheaply: the in-page walker keeps a per-document
``WeakMap`` from element to a small local id; only elements seen for the first time are
returned as DOM nodes, with ``serialization: "deep"``, which carries their ``backendNodeId``
and ``loaderId``. Later snapshots of the same document send numbers only.

Deferred ids: on a document the page's ledger has never numbered (the usual first snapshot
after a navigation), every element already has a stable identity in the walker's world (its
local id), so the snapshot does not wait for backend ids. New ref-bearing elements get a
*pending* id (a negative number, unique in this process) and one background call
(``__egoSnapTake()``) fetches their backend ids right after the text is returned. The answers
go to the page's :class:`~.pending.PendingIds` (``ids``, its ledger's), which the ledger rebinds
pending keys from; nothing about pending ids is process-wide.
A world created on a document the ledger already knows (host restart, lost context) resolves
eagerly, as before, so that a node seen before keeps its number. Iframes are always resolved
at once: their backend id hangs child frames under them.

:class:`CdpSnapshotTarget` is an adapter that builds a target straight from a
:class:`~ego_browser.cdp.connection.Connection` (tests and benchmarks use it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import orjson

from ..cdp.connection import Connection, Session
from .. import jsbundle
from .. import jsonsafe
from ..cdp.errors import ContextDestroyed, FrameNotFound
from ..errors import CdpChannelUnavailable, CdpError, EgoError, SnapshotFailed, StaleRef
from .pending import PendingIds
from .worlds import World, Worlds

__all__ = [
    "SnapshotFrame",
    "SnapshotTarget",
    "FrameCapture",
    "CdpSnapshotTarget",
    "SimpleFrame",
    "capture_frame",
    "frame_owner",
    "WORLD_NAME",
]

WORLD_NAME = "ego_snapshot"
#: values per walker row: depth, role, name, flags, lid, url, locs, state, value
STRIDE = 9

_SERIALIZE = {
    "serialization": "deep",
    "maxDepth": 2,
    "additionalParameters": {"maxNodeDepth": 0, "includeShadowTree": "none"},
}
_CALL_ON = "function(o){return __egoSnap(this,o)}"


@lru_cache(maxsize=1)
def _call_on_install() -> str:
    """``_CALL_ON`` that installs the walker first (a world the walker has not run in yet)."""
    return "function(o){" + jsbundle.program("snapshot", "snapshot_walker") + ";return __egoSnap(this,o)}"


_OBJECT_GROUP = "ego_snapshot"
_group_seq = 0


def _new_group() -> str:
    """An object group of its own per call, released when that call is done (calls overlap)."""
    global _group_seq
    _group_seq += 1
    return f"{_OBJECT_GROUP}.{_group_seq}"


@runtime_checkable
class SnapshotFrame(Protocol):
    # read-only: the driver's frames and SimpleFrame both qualify
    @property
    def frame_id(self) -> str: ...
    @property
    def parent_frame_id(self) -> str | None: ...
    @property
    def session(self) -> Session: ...
    @property
    def loader_id(self) -> str | None: ...  # None or "": not known yet


@runtime_checkable
class SnapshotTarget(Protocol):
    main_session: Session

    def frames(self) -> Iterable[SnapshotFrame]: ...


@dataclass
class SimpleFrame:
    """A plain :class:`SnapshotFrame`."""

    frame_id: str
    parent_frame_id: str | None
    session: Session
    loader_id: str = ""
    url: str = ""


@dataclass
class FrameCapture:
    """One frame's walk: the walker's flat rows (``STRIDE``) and what the engine needs around them."""

    frame_id: str
    loader_id: str | None  # None: the driver did not know the frame's document yet
    rows: list[Any]
    #: walker local id -> backend node id (for this document)
    lids: dict[int, int]
    #: locator key -> count in this document (only when requested)
    keys: dict[str, int] | None
    #: background fetch of pending backend ids started by this capture (or None)
    fetch: asyncio.Task[None] | None = None
    #: the pending ids that fetch settles (the engine drops them once the ledger rebound them)
    pids: list[int] = field(default_factory=list)


async def _world(frame: SnapshotFrame, worlds: Worlds, fresh: bool = False) -> World:
    sid = frame.session.session_id
    w = worlds.get(sid, frame.frame_id)
    if w is not None and not fresh and (not frame.loader_id or w.loader_id == frame.loader_id):
        return w
    preloaded = getattr(frame, "snapshot_context", None)
    if preloaded is not None and not fresh and (w is None or w.context_id != preloaded):
        # made with the walker installed as the document started (driver/preload.py)
        w = World(frame.loader_id, preloaded, preloaded=True)
        worlds.put(sid, frame.frame_id, w)
        return w
    res = await frame.session.send(
        "Page.createIsolatedWorld",
        {"frameId": frame.frame_id, "worldName": WORLD_NAME, "grantUniveralAccess": False},
    )
    ctx = res["executionContextId"]
    if w is not None and w.context_id == ctx and w.loader_id == frame.loader_id:
        return w
    w = World(frame.loader_id, ctx)
    worlds.put(sid, frame.frame_id, w)
    return w


#: the frame's world is gone (its document replaced, or the frame removed): make a new world
_WORLD_GONE = (ContextDestroyed, FrameNotFound)


async def _run(
    frame: SnapshotFrame, w: World, opts: dict[str, Any], root_backend: int | None, install: bool, group: str
) -> dict[str, Any]:
    session = frame.session
    if root_backend is None:
        expr = ("(" + jsbundle.program("snapshot", "snapshot_walker") + ", " if install else "(") + (
            "__egoSnap(null, " + orjson.dumps(opts).decode() + "))"
        )
        res: dict[str, Any] = await session.send(
            "Runtime.evaluate",
            {
                "expression": expr,
                "contextId": w.context_id,
                "serializationOptions": _SERIALIZE,
                "objectGroup": group,
                "awaitPromise": False,
            },
        )
        return res
    try:
        node = await session.send(
            "DOM.resolveNode",
            {"backendNodeId": root_backend, "executionContextId": w.context_id, "objectGroup": group},
        )
    except _WORLD_GONE:
        raise
    except CdpError as exc:
        raise _NodeGone() from exc
    res = await session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": _call_on_install() if install else _CALL_ON,
            "objectId": node["object"]["objectId"],
            "arguments": [{"value": opts}],
            "serializationOptions": _SERIALIZE,
            "objectGroup": group,
        },
    )
    return res


class _NodeGone(Exception):
    pass


async def capture_frame(
    frame: SnapshotFrame,
    *,
    viewport: bool,
    locs: bool,
    all_keys: bool,
    root_backend: int | None = None,
    marks: bool = True,
    doc_known: Callable[[str, str], bool] | None = None,
    ids: PendingIds | None = None,
    worlds: Worlds | None = None,
) -> FrameCapture:
    """Walk one frame's document (or the subtree of ``root_backend``) in its isolated world.

    ``doc_known(frame_id, loader_id)`` tells whether the ledger already numbered nodes of this
    document; when it does not (or is not given), backend ids are fetched after the capture
    (see the module doc) and settled in ``ids`` (the page's; a throwaway one if not given).
    ``worlds`` are the page's walker worlds (its ledger's); without them the walker runs in a
    new world of its own.
    Raises ``StaleRef`` when ``root_backend`` no longer exists,
    ``CdpError`` / ``CdpChannelUnavailable`` when the frame is gone.
    """
    if worlds is None:
        worlds = Worlds()
    w = await _world(frame, worlds)
    if w.defer is None:
        w.defer = bool(w.loader_id and doc_known is not None and not doc_known(frame.frame_id, w.loader_id))
    opts = {"viewport": viewport, "locs": locs, "marks": marks, "eager": not w.defer, "allKeys": all_keys,
            "countAll": root_backend is not None, "reset": not w.token}
    install = not w.token and not w.preloaded
    res = None
    group = _new_group()
    for attempt in range(3):
        try:
            res = await _run(frame, w, opts, root_backend, install, group)
        except _NodeGone:
            raise StaleRef(f"Stale ref: node {root_backend} is gone; take a new snapshot", ref=None) from None
        except _WORLD_GONE:
            if attempt < 2:
                w = await _world(frame, worlds, fresh=True)
                install = True
                continue
            raise
        exc_details = res.get("exceptionDetails")
        if exc_details is not None:
            text = str(exc_details.get("exception", {}).get("description") or exc_details.get("text"))
            if not install and "__egoSnap" in text:
                install = True  # a new world (navigation): install the walker and retry
                continue
            raise SnapshotFailed(f"snapshot walker failed in frame {frame.frame_id}: {text[:300]}", label=None)
        break
    else:
        raise SnapshotFailed(f"snapshot walker could not run in frame {frame.frame_id}", label=None)
    # release the remote objects of this call (fire and forget)
    session = frame.session
    session.connection._spawn(_release(session, group))
    value = res["result"].get("deepSerializedValue", {}).get("value")
    if not value or len(value) < 3:
        raise SnapshotFailed(f"snapshot walker returned nothing in frame {frame.frame_id}", label=None)
    token = value[0]["value"]
    data = jsonsafe.loads(value[1]["value"])  # page text may hold lone surrogates
    if data.get("gone"):
        raise StaleRef(f"Stale ref: node {root_backend} is gone; take a new snapshot", ref=None)
    els = value[2].get("value") or []
    if token != w.token:
        w.token = token
        w.lids = {}
    lids = w.lids
    loader: str | None = w.doc_loader
    for lid, el in zip(data["e"], els):
        v = el.get("value") or {}
        bid = v.get("backendNodeId")
        if bid is not None:
            lids[lid] = bid
        if not loader:
            loader = v.get("loaderId") or ""
    if loader:
        w.doc_loader = loader
    else:
        loader = frame.loader_id
    if w.defer:
        # keys of a deferred world always name the document by the loader the world was made for
        loader = w.loader_id
    rows = data["r"]
    fetch = None
    pids: list[int] = []
    if data.get("p"):
        if ids is None:
            ids = PendingIds()
        for f, lid in zip(rows[3::STRIDE], rows[4::STRIDE]):
            if f and lid not in lids:
                lids[lid] = pid = ids.new()
                pids.append(pid)
        fetch = session.connection._spawn(_fetch_pending(session, w, pids, ids))
    keys = None
    k = data.get("k")
    if k:
        keys = {k[i]: k[i + 1] for i in range(0, len(k), 2)}
    return FrameCapture(frame.frame_id, loader, rows, lids, keys, fetch, pids)


async def _fetch_pending(session: Session, w: World, pids: list[int], store: PendingIds) -> None:
    """Learn the backend ids of the elements the walker left pending; settle ``pids``."""
    async with w.lock:  # one fetch at a time per world: each takes everything pending so far
        group = _new_group()
        try:
            res = await session.send(
                "Runtime.evaluate",
                {
                    "expression": "__egoSnapTake()",
                    "contextId": w.context_id,
                    "serializationOptions": _SERIALIZE,
                    "objectGroup": group,
                },
                timeout=30,
            )
            value = res["result"].get("deepSerializedValue", {}).get("value") or []
            if len(value) == 2 and "exceptionDetails" not in res:
                ids = jsonsafe.loads(value[0]["value"])
                lids = w.lids
                for lid, el in zip(ids, value[1].get("value") or []):
                    v = el.get("value") or {}
                    bid = v.get("backendNodeId")
                    ldr = v.get("loaderId") or ""
                    if bid is None or (ldr and w.loader_id and ldr != w.loader_id):
                        continue  # another document: leave it unresolved (stale)
                    old = lids.get(lid)
                    lids[lid] = bid
                    if old is not None and old in store.unresolved:
                        store.settle(old, bid)
            session.connection._spawn(_release(session, group))
        except (CdpError, CdpChannelUnavailable, KeyError, TypeError, ValueError, asyncio.TimeoutError):
            pass
        finally:
            for pid in pids:
                if pid in store.unresolved:
                    store.settle(pid, None)


async def _release(session: Session, group: str) -> None:
    try:
        await session.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=5)
    except EgoError:  # every way a command fails (refused, gone, timed out, blocked by a dialog)
        pass


async def frame_owner(parent: SnapshotFrame, frame_id: str) -> int | None:
    """Backend node id of the ``iframe`` element that hosts ``frame_id`` (asked in its parent)."""
    try:
        res = await parent.session.send("DOM.getFrameOwner", {"frameId": frame_id})
    except (CdpError, CdpChannelUnavailable):
        return None
    backend: int | None = res.get("backendNodeId")
    return backend


# -- adapter for tests and benchmarks -------------------------------------------------------


class CdpSnapshotTarget:
    """A :class:`SnapshotTarget` built directly on a connection and one page target.

    Attaches with ``flatten=True``, auto-attaches out-of-process iframes (recursively), and
    keeps the frame list current through :meth:`refresh` (frame trees of every session).
    """

    def __init__(self, conn: Connection, target_id: str, session: Session) -> None:
        self.conn = conn
        self.target_id = target_id
        self.main_session = session
        self._children: dict[str, tuple[Session, str]] = {}  # target id -> (session, parent session id)
        self._frames: list[SimpleFrame] = []
        self._offs: list[Any] = []

    @classmethod
    async def attach(cls, conn: Connection, target_id: str) -> CdpSnapshotTarget:
        res = await conn.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        self = cls(conn, target_id, conn.session(res["sessionId"]))
        self._offs.append(conn.on("Target.attachedToTarget", self._on_attached))
        self._offs.append(conn.on("Target.detachedFromTarget", self._on_detached))
        await self._setup(self.main_session)
        await self.refresh()
        return self

    @classmethod
    async def new_page(cls, conn: Connection, url: str = "about:blank") -> CdpSnapshotTarget:
        t = await conn.send("Target.createTarget", {"url": "about:blank"})
        self = await cls.attach(conn, t["targetId"])
        if url != "about:blank":
            await self.goto(url)
        return self

    async def _setup(self, session: Session) -> None:
        await session.send("Page.enable")
        await session.send(
            "Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}
        )

    def _on_attached(self, params: dict[str, Any], session_id: str | None) -> Awaitable[None] | None:
        info = params.get("targetInfo", {})
        if info.get("type") != "iframe":
            return None
        child = self.conn.session(params["sessionId"])
        self._children[info["targetId"]] = (child, session_id or "")
        return self._setup_child(child)

    async def _setup_child(self, child: Session) -> None:
        try:
            await self._setup(child)
        except (CdpError, CdpChannelUnavailable):
            pass

    def _on_detached(self, params: dict[str, Any], session_id: str | None) -> None:
        tid = params.get("targetId")
        if tid in self._children:
            self._children.pop(tid)

    async def goto(self, url: str, *, wait_load: bool = True) -> None:
        loaded = asyncio.get_running_loop().create_future()

        def on_load(params: dict[str, Any], sid: str | None) -> None:
            if not loaded.done():
                loaded.set_result(None)

        off = self.main_session.on("Page.loadEventFired", on_load)
        try:
            await self.main_session.send("Page.navigate", {"url": url})
            if wait_load:
                await asyncio.wait_for(loaded, 30)
        finally:
            off()
        await self.refresh()

    async def refresh(self) -> list[SimpleFrame]:
        """Re-read the frame trees of the page and of every OOPIF session."""
        frames: dict[str, SimpleFrame] = {}

        def walk(node: dict[str, Any], session: Session, parent: str | None) -> None:
            f = node["frame"]
            fid = f["id"]
            if fid not in frames or frames[fid].session is self.main_session:
                frames[fid] = SimpleFrame(fid, f.get("parentId", parent), session, f.get("loaderId", ""), f.get("url", ""))
            for c in node.get("childFrames", []) or []:
                walk(c, session, fid)

        tree = await self.main_session.send("Page.getFrameTree")
        walk(tree["frameTree"], self.main_session, None)
        frames[tree["frameTree"]["frame"]["id"]].parent_frame_id = None
        for tid, (sess, _) in list(self._children.items()):
            try:
                t = await sess.send("Page.getFrameTree")
            except (CdpError, CdpChannelUnavailable):
                continue
            root = t["frameTree"]
            # the OOPIF's root frame: owned by the child session
            walk(root, sess, frames[root["frame"]["id"]].parent_frame_id if root["frame"]["id"] in frames else None)
        self._frames = list(frames.values())
        return self._frames

    def frames(self) -> list[SimpleFrame]:
        return self._frames

    async def evaluate(self, expression: str) -> Any:
        res = await self.main_session.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in res:
            raise RuntimeError(str(res["exceptionDetails"]))
        return res["result"].get("value")

    async def close(self) -> None:
        for off in self._offs:
            off()
        try:
            await self.conn.send("Target.closeTarget", {"targetId": self.target_id})
        except (CdpError, CdpChannelUnavailable):
            pass
