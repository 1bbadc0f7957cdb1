"""The snapshot entry point: capture every frame, stitch, compact, number, print.

``take_snapshot(target, ledger, ...)`` is the one call the host makes. ``resolve_ref`` turns
``@N`` back into (session, frame, backend node) for actions.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..cdp.connection import Session
from ..errors import CdpChannelUnavailable, CdpError, InvalidArgument, SnapshotFailed, StaleRef
from .capture import (
    STRIDE, FrameCapture, SnapshotFrame, SnapshotTarget, capture_frame, frame_owner,
)
from .ident import Ident, frame_idents
from .ledger import RefLedger
from .looks import lean_urls as _lean_urls
from .modes import interactive_table

if TYPE_CHECKING:
    # the extension has no stub; its pure-Python twin has the same functions, typed (the
    # tests hold the two to the same output)
    from . import twin as _core

    CORE: str
else:
    try:
        from .. import _snapshot as _core

        CORE = "cython"
    except ImportError as _missing:  # pragma: no cover - depends on the build
        import sys as _sys

        from . import twin as _core

        CORE = "python"
        # name the missing piece: which interpreter found no compiled core, and why not
        warnings.warn(
            f"ego_browser: no compiled snapshot core for CPython {_sys.version_info[0]}.{_sys.version_info[1]} "
            f"in this install ({_missing}); using the pure-Python snapshot core (same results, slower). "
            "Install the wheel built for this Python (pip install --force-reinstall ego_browser), or a C "
            "compiler and the Python headers, then reinstall",
            RuntimeWarning,
            stacklevel=2,
        )

render_tree = _core.render_tree

__all__ = [
    "SCOPES",
    "ResolvedRef",
    "take_snapshot",
    "resolve_ref",
    "settle",
    "truncate",
    "CORE",
]

SCOPES = ("only_within_viewport", "full_page", "subtree")

_F_REF = 1
_F_IFRAME = 4


@dataclass(frozen=True, slots=True)
class ResolvedRef:
    ref: int
    session: Session
    frame_id: str
    loader_id: str
    backend_node_id: int


def truncate(text: str, max_length: int | None) -> str:
    """Cut ``text`` at a line boundary so that it and the note fit in ``max_length`` chars.

    The note is the last line: ``[… cut N chars, M lines; ...]`` (no snapshot line starts with
    ``[…``), and it says how to see the rest."""
    if not max_length or max_length <= 0 or len(text) <= max_length:
        return text
    total_lines = text.count("\n") + 1

    def note(chars: int, lines: int) -> str:
        return (f"[… cut {chars} chars, {lines} lines; to see more: root=<selector>, interactive=True or a "
                "larger max_length]")

    # the note is never longer than with the largest figures it can show
    budget = max(0, max_length - len(note(len(text), total_lines)) - 1)
    cut = text.rfind("\n", 0, budget + 1)
    if cut <= 0:
        cut = 0
    kept = text[:cut]
    kept_lines = kept.count("\n") + 1 if kept else 0
    last = note(len(text) - len(kept), total_lines - kept_lines)
    return (kept + "\n" + last) if kept else last


def _frames_by_id(target: SnapshotTarget) -> tuple[dict[str, SnapshotFrame], SnapshotFrame]:
    frames: dict[str, SnapshotFrame] = {}
    main = None
    for f in target.frames():
        frames[f.frame_id] = f
        if f.parent_frame_id is None and main is None:
            main = f
    if main is None:
        raise SnapshotFailed("snapshot: the page has no top frame", label=None)
    return frames, main


async def _safe_capture(frame: SnapshotFrame, **kw: Any) -> FrameCapture | None:
    try:
        return await capture_frame(frame, **kw)
    except (CdpError, CdpChannelUnavailable, SnapshotFailed):
        return None


async def take_snapshot(
    target: SnapshotTarget,
    ledger: RefLedger,
    *,
    scope: str = "only_within_viewport",
    root: int | None = None,
    include_action_marks: bool = True,
    include_stable_locator: bool = True,
    max_length: int | None = None,
    header: str = "",
    interactive: bool = False,
    out_locs: list[str] | None = None,
    lean_urls: bool = False,
) -> str:
    """Capture, compact and print the page; record printed refs in ``ledger``.

    ``root`` is a ref number (``@N`` already parsed) and is required exactly for ``subtree``.
    ``interactive`` prints the nodes to act on and what locates them (``modes.interactive_table``).
    ``out_locs``, when given, receives the locator column of the printed table (row 0 is the
    root's: ``page.locator_of`` asks for a subtree and reads it). ``lean_urls`` keeps a link's
    ``url=`` only where its name does not tell it (``looks.lean_urls``; the API's default look).
    Raises ``InvalidArgument``, ``StaleRef``/``UnknownRef`` (subtree root), ``SnapshotFailed``.
    """
    if scope not in SCOPES:
        raise InvalidArgument(
            f"scope must be one of {', '.join(SCOPES)}, got {scope!r}", api="snapshot", option="scope",
            expected="|".join(SCOPES),
        )
    if scope == "subtree" and root is None:
        raise InvalidArgument("subtree scope requires root", api="snapshot", option="root", expected="ref")
    if scope != "subtree" and root is not None:
        raise InvalidArgument(
            "root is only supported when scope is subtree", api="snapshot", option="root", expected=None
        )
    frames, main = _frames_by_id(target)
    root_frame = main
    root_backend = None
    if root is not None:
        binding = await _binding(ledger, int(root))
        rf = frames.get(binding.frame_id)
        if rf is None:
            raise StaleRef(f"Stale ref: @{root}; take a new snapshot", ref=int(root))
        if rf.loader_id and binding.loader_id and rf.loader_id != binding.loader_id:
            ledger.stale_frame(binding.frame_id)
            raise StaleRef(f"Stale ref: @{root}; take a new snapshot", ref=int(root))
        root_frame = rf
        root_backend = binding.backend_node_id
    viewport = scope == "only_within_viewport"
    locs = include_stable_locator
    multi = len(frames) > 1
    last_exc: Exception | None = None
    for _attempt in range(3):
        try:
            text = await _take(
                frames, main, root_frame, root_backend, ledger, viewport, locs, multi,
                include_action_marks, scope == "full_page", root, interactive, out_locs, lean_urls,
            )
            break
        except StaleRef as exc:
            if root is not None:
                ledger.stale_ref(int(root))
                raise StaleRef(f"Stale ref: @{root}; take a new snapshot", ref=int(root)) from exc
            raise
        except (CdpError, CdpChannelUnavailable, SnapshotFailed) as exc:
            last_exc = exc
            await asyncio.sleep(0)
            frames, main = _frames_by_id(target)
            if root is not None:
                root_frame = frames.get(root_frame.frame_id, root_frame)
    else:
        raise SnapshotFailed(f"snapshot failed: {last_exc}", label=None) from last_exc
    body = text
    out = (header + "\n" + body) if header else body
    return truncate(out, max_length)


async def _binding(ledger: RefLedger, ref: int) -> Any:
    """``ledger.lookup(ref)``, waiting for a backend id still being fetched."""
    b = ledger.lookup(ref)
    if b.backend_node_id < 0:
        await ledger.ids.wait(b.backend_node_id)
        if ledger.rebind(ledger.ids.get) and ledger.on_change is not None:
            ledger.on_change()
        b = ledger.lookup(ref)
        if b.backend_node_id < 0:
            ledger.stale_ref(ref)
            raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)
    return b


async def settle(ledger: RefLedger, timeout: float = 30.0) -> None:
    """Wait until every pending backend id of ``ledger`` is known (and rebound)."""
    for ref in list(ledger.pending):
        key = ledger.active.get(ref) or ledger.stale.get(ref)
        if key is not None and key[2] < 0:
            await ledger.ids.wait(key[2], timeout)
    if ledger.rebind(ledger.ids.get) and ledger.on_change is not None:
        ledger.on_change()


def _after_fetch(ledger: RefLedger, fetches: list[Any], pids: list[int]) -> None:
    """When the background fetches of this snapshot end: rebind, let the host save, and forget
    the answers (``pids``, the ids those fetches settled).

    Dropping them right after the rebind is safe: every ref the ledger holds with one of these
    ids has just been rebound, and a later capture of the same document reads the backend ids
    the fetch already wrote into the world's node map. A capture whose rows were read before
    that renders and commits without awaiting, so it is committed (and rebound here) or sees
    the real ids; it never commits an id dropped here."""

    def done(_fut: Any) -> None:
        try:
            if ledger.pending and ledger.rebind(ledger.ids.get) and ledger.on_change is not None:
                try:
                    ledger.on_change()
                except Exception:  # noqa: BLE001 - a failed save must not break the loop
                    pass
        finally:
            ledger.ids.drop(pids)

    asyncio.gather(*fetches, return_exceptions=True).add_done_callback(done)


async def _take(
    frames: dict[str, SnapshotFrame],
    main: SnapshotFrame,
    root_frame: SnapshotFrame,
    root_backend: int | None,
    ledger: RefLedger,
    viewport: bool,
    locs: bool,
    multi: bool,
    marks: bool,
    replace: bool,
    root: int | None,
    interactive: bool = False,
    out_locs: list[str] | None = None,
    lean_urls: bool = False,
) -> str:
    # which frames: all of them (uniqueness of locators is judged page-wide); for a subtree
    # only the root frame's descendants are printed
    order = list(frames.values())
    tasks: list[Awaitable[FrameCapture | None]] = []
    kw: dict[str, Any] = {"viewport": viewport, "locs": locs, "all_keys": multi and locs, "marks": marks,
          "doc_known": ledger.knows_doc, "ids": ledger.ids, "worlds": ledger.worlds}
    for f in order:
        if f is root_frame:
            tasks.append(capture_frame(f, root_backend=root_backend, **kw))
        else:
            tasks.append(_safe_capture(f, **kw))
    owner_tasks = []
    owned = []
    for f in order:
        if f.parent_frame_id is not None and f.parent_frame_id in frames:
            owned.append(f)
            owner_tasks.append(frame_owner(frames[f.parent_frame_id], f.frame_id))
    results: list[Any] = await asyncio.gather(*tasks, *owner_tasks)
    caps: dict[str, FrameCapture] = {}
    for f, cap in zip(order, results[: len(order)]):
        if cap is not None:
            caps[f.frame_id] = cap
    # (parent frame id, owner backend id) -> child frame id
    children: dict[tuple[str | None, int], str] = {}
    for f, bid in zip(owned, results[len(order):]):
        if bid is not None:
            children[(f.parent_frame_id, bid)] = f.frame_id
    # a document whose only content is a frame the walker cannot reach (Chromium's PDF
    # viewer: an <iframe> in a closed user-agent shadow root) shows that frame under its root
    embedded: dict[str, list[tuple[int, str]]] = {}
    if root_backend is None:
        for (p, b), c in children.items():
            if p in caps and c in caps:
                embedded.setdefault(p, []).append((b, c))
    # locator counts across frames
    totals: dict[str, int] | None = None
    if multi and locs:
        totals = {}
        for cap in caps.values():
            if cap.keys:
                for k, v in cap.keys.items():
                    totals[k] = totals.get(k, 0) + v

    depth: list[Any] = []
    role: list[Any] = []
    name: list[Any] = []
    flags: list[Any] = []
    key: list[Any] = []
    url: list[Any] = []
    loc: list[Any] = []
    state: list[Any] = []
    value: list[Any] = []
    # the ref-bearing nodes with what they name, in printing order (ledger.prepare/finish)
    found: list[tuple[Any, Ident]] = []
    seen: set[str] = set()

    def emit(fid: str, offset: int) -> None:
        cap = caps.get(fid)
        if cap is None or fid in seen:
            return
        seen.add(fid)
        rows = cap.rows
        fl = rows[3::STRIDE]
        n = len(fl)
        d = rows[0::STRIDE]
        if offset:
            d = [x + offset for x in d]
        lids = rows[4::STRIDE]
        ks: list[Any] = [None] * n
        lidmap = cap.lids
        loader = cap.loader_id
        iframes = []
        # a subtree's rows do not start at the document: their places are unknown
        idents = frame_idents(rows, paths=root_backend is None or fid != root_frame.frame_id)
        for i, f in enumerate(fl):
            if f:
                lid = lids[i]
                bid = lidmap.get(lid)
                if bid is None:
                    raise SnapshotFailed(f"snapshot: lost the node id of element {lid} in frame {fid}", label=None)
                if f & _F_REF:
                    ks[i] = k = (fid, loader, bid)
                    ident = idents.get(i)
                    if ident is not None:
                        found.append((k, ident))
                if f & _F_IFRAME:
                    iframes.append((i, bid))
        lc = rows[6::STRIDE]
        u = rows[5::STRIDE]
        if locs:
            if totals is not None:
                lc = [_pick_loc(c, totals) if c else "" for c in lc]
            else:
                lc = [c.split("\x1f", 1)[0] if c else "" for c in lc]
            # a link whose locator is its href: the locator already says where it goes
            for i, c in enumerate(lc):
                if c and c[0] == "h" and c.startswith("href:"):
                    u[i] = ""
        start = 0
        r = rows[1::STRIDE]
        nm = rows[2::STRIDE]
        sv = rows[7::STRIDE]
        vv = rows[8::STRIDE]
        for i, bid in iframes + [(n - 1, None)]:
            depth.extend(d[start : i + 1])
            role.extend(r[start : i + 1])
            name.extend(nm[start : i + 1])
            flags.extend(fl[start : i + 1])
            key.extend(ks[start : i + 1])
            url.extend(u[start : i + 1])
            loc.extend(lc[start : i + 1])
            state.extend(sv[start : i + 1])
            value.extend(vv[start : i + 1])
            start = i + 1
            if bid is not None:
                child = children.get((fid, bid))
                if child is not None:
                    emit(child, d[i] + 1)
        for bid, child in embedded.get(fid, ()) if n == 1 and not iframes else ():
            if child not in seen:
                depth.append(d[0] + 1)
                role.append("iframe")
                name.append("")
                flags.append(_F_REF | _F_IFRAME)
                key.append((fid, loader, bid))
                url.append("")
                loc.append("")
                state.append("")
                value.append("")
                emit(child, d[0] + 2)

    emit(root_frame.frame_id, 0)
    fetches = [c.fetch for c in caps.values() if c.fetch is not None]
    if fetches:
        # registered before anything below can return or raise: the answers of these fetches
        # are dropped after a rebind, whether or not this snapshot commits a ref holding one
        _after_fetch(ledger, fetches, [p for c in caps.values() for p in c.pids])
    if ledger.pending:
        # keys the world has resolved since the last snapshot must match the ledger's
        ledger.rebind(ledger.ids.get)
    if not depth:
        return ""
    if lean_urls:
        # a link's target only where its name does not tell it (docs/architecture.md, "Link targets")
        url = _lean_urls(role, name, url)
    if out_locs is not None:
        out_locs[:] = loc
    if interactive:
        depth, role, name, flags, key, url, loc, state, value = interactive_table(
            depth, role, name, flags, key, url, loc, state, value
        )
    text: str
    carried = ledger.prepare(found) if marks else {}
    text, next_ref, shown = render_tree(
        depth, role, name, flags, key, url, loc, state, value, ledger.keys, ledger.next_ref, marks, locs
    )
    ledger.finish(shown, found if marks else [], carried, replace=replace)
    return text


def _pick_loc(cands: str, totals: dict[str, int]) -> str:
    for c in cands.split("\x1f"):
        if totals.get(c, 0) == 1:
            return c
    return ""


async def resolve_ref(target: SnapshotTarget, ledger: RefLedger, ref: int) -> ResolvedRef:
    """``@N`` -> the session, frame and backend node to act on.

    Raises ``UnknownRef``/``StaleRef`` from the ledger, and ``StaleRef`` when the ref's frame
    is gone or shows another document.
    """
    b = await _binding(ledger, ref)
    for f in target.frames():
        if f.frame_id == b.frame_id:
            if f.loader_id and b.loader_id and f.loader_id != b.loader_id:
                ledger.stale_frame(b.frame_id)
                raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)
            return ResolvedRef(ref, f.session, b.frame_id, b.loader_id, b.backend_node_id)
    raise StaleRef(
        f"Ref @{ref} has unknown frame provenance; take a new snapshot or use a locator", ref=ref
    )


async def resolve_object(target: SnapshotTarget, ledger: RefLedger, ref: int) -> tuple[ResolvedRef, str]:
    """Like :func:`resolve_ref`, plus a remote object id of the node in the page's main world.

    A node that no longer exists (removed or replaced) stales the ref: ``StaleRef``.
    """
    r = await resolve_ref(target, ledger, ref)
    try:
        res = await r.session.send("DOM.resolveNode", {"backendNodeId": r.backend_node_id})
    except CdpError as exc:
        ledger.stale_ref(ref)
        raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref) from exc
    obj = res["object"]["objectId"]
    ok = await r.session.send(
        "Runtime.callFunctionOn",
        {"functionDeclaration": "function(){return this.isConnected}", "objectId": obj, "returnByValue": True},
    )
    if not ok.get("result", {}).get("value"):
        ledger.stale_ref(ref)
        raise StaleRef(f"Stale ref: @{ref}; take a new snapshot", ref=ref)
    return r, obj

