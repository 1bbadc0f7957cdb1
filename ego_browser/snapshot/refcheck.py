"""A ref at the moment it is used: still the node it named, or that node's successor, or stale.

``check_ref(target, ledger, ref)`` is what every use of ``@N`` goes through (actions, ``find``,
``snapshot(root=)``). It walks the ref's node with the snapshot walker (the same code that
printed it, in the same world) and compares what the node is now with the ledger's ident:

1. **Never another element** (issue 29 finding 2): a node whose role, name or target changed
   since the snapshot that printed the ref (a menu that relabels its items) is not acted on:
   ``StaleRef`` says what the ref named and what the node is now, and the node gets a new
   number in the next snapshot.
2. **Follow a replaced node** (issue 29 finding 3): the node is gone and exactly one node of
   the same document has the same role, name, target and place (parent path, ``ident.py``)
   and no number of its own: the ref follows it. Otherwise ``StaleRef`` names what is at the
   place now (with its ref when it has one). Rule 1 wins: a node is never followed to one
   with another role, name or target.
3. **Across documents** (issue 30 point 2): a ref of the frame's previous document whose node
   has exactly one node of the same frame, landmark path, role, name and target in the new
   document (and was unique in its own) follows it, as a snapshot would carry it.

A node the walker does not show (hidden now) is not judged: the action's own checks wait for
it. A ref handed out by ``page.find`` (no ident yet) is checked from its first use on.
"""

from __future__ import annotations

from typing import Any

from ..errors import CdpChannelUnavailable, CdpError, SnapshotFailed, StaleRef
from .capture import STRIDE, SnapshotFrame, SnapshotTarget, capture_frame
from .engine import ResolvedRef, _after_fetch, _binding
from .ident import Ident, carry_key, describe, frame_idents, same_node
from .ledger import NodeKey, RefLedger

__all__ = ["check_ref", "number_of"]

#: candidates a StaleRef message names at most
_SHOWN = 3


def _frame(target: SnapshotTarget, frame_id: str) -> SnapshotFrame | None:
    for f in target.frames():
        if f.frame_id == frame_id:
            return f
    return None


def _changed(ledger: RefLedger) -> None:
    if ledger.on_change is not None:
        try:
            ledger.on_change()
        except Exception:  # noqa: BLE001 - a failed save costs the persistence only
            pass


async def _capture(frame: SnapshotFrame, ledger: RefLedger, root_backend: int | None) -> Any:
    cap = await capture_frame(frame, viewport=False, locs=False, all_keys=False, root_backend=root_backend,
                              marks=False, doc_known=ledger.knows_doc, ids=ledger.ids, worlds=ledger.worlds)
    if cap.fetch is not None:
        _after_fetch(ledger, [cap.fetch], cap.pids)
    return cap


async def check_ref(target: SnapshotTarget, ledger: RefLedger, ref: int) -> ResolvedRef:
    """``@ref`` -> the node to act on, checked (module doc). Raises ``StaleRef``/``UnknownRef``."""
    try:
        b = await _binding(ledger, ref)
    except StaleRef as exc:
        return await _revive(target, ledger, ref, exc)
    frame = _frame(target, b.frame_id)
    if frame is None:
        raise StaleRef(f"Ref @{ref} has unknown frame provenance; take a new snapshot or use a locator", ref=ref)
    if frame.loader_id and b.loader_id and frame.loader_id != b.loader_id:
        ledger.stale_frame(b.frame_id)
        _changed(ledger)
        return await _revive(target, ledger, ref, StaleRef(ledger.stale_message(ref), ref=ref))
    try:
        cap = await _capture(frame, ledger, b.backend_node_id)
    except StaleRef:
        ledger.stale_ref(ref)  # removed or replaced
        _changed(ledger)
        return await _replaced(frame, ledger, ref)
    except (CdpError, CdpChannelUnavailable, SnapshotFailed):
        # the frame is going away: the action's own resolution says so
        return ResolvedRef(ref, frame.session, b.frame_id, b.loader_id, b.backend_node_id)
    rows = cap.rows
    # (a visibility:hidden element walks as a bare container: hidden now, not judged)
    if rows and (rows[3] & 1 or rows[1] != "container" or rows[2]):
        row = rows[:STRIDE]
        row[3] = 1  # judged as the ref line it was, whatever it is now
        now: Ident = frame_idents(row, paths=False)[0]
        was = ledger.idents.get(ref)
        if was is None:
            ledger.idents[ref] = now  # a ref from page.find: judged from here on
        elif not same_node(was, now):
            ledger.renumber(ref, f"it is now {describe(now)}")
            _changed(ledger)
            raise StaleRef(ledger.stale_message(ref), ref=ref)
    return ResolvedRef(ref, frame.session, b.frame_id, b.loader_id, b.backend_node_id)


async def _revive(target: SnapshotTarget, ledger: RefLedger, ref: int, exc: StaleRef) -> ResolvedRef:
    """A stale ref: follow its node's successor where rules 2 and 3 allow, else ``exc``."""
    key = ledger.stale.get(ref)
    was = ledger.idents.get(ref)
    if key is None or was is None or ref in ledger.now:
        raise exc  # no ident, or the node became something else (rule 1)
    frame = _frame(target, key[0])
    if frame is None or not frame.loader_id:
        raise exc
    if frame.loader_id != key[1]:
        return await _carried(frame, ledger, ref, was, exc)
    # same document: only a node that is gone has a successor (a ref staled for another reason
    # whose node is still there stays stale, as before)
    try:
        res = await frame.session.send("DOM.resolveNode", {"backendNodeId": key[2]}, timeout=5.0)
        oid = res["object"]["objectId"]
        alive = await frame.session.send(
            "Runtime.callFunctionOn",
            {"objectId": oid, "functionDeclaration": "function() { return this.isConnected; }",
             "returnByValue": True}, timeout=5.0)
        await frame.session.send("Runtime.releaseObject", {"objectId": oid}, timeout=5.0)
        if (alive.get("result") or {}).get("value"):
            raise exc
    except (CdpError, CdpChannelUnavailable, KeyError):
        pass
    return await _replaced(frame, ledger, ref)


async def _nodes(frame: SnapshotFrame, ledger: RefLedger) -> list[tuple[NodeKey, Ident]]:
    """Every ref-bearing node of the frame's document with its ident (a whole-document walk)."""
    cap = await _capture(frame, ledger, None)
    rows = cap.rows
    loader = cap.loader_id or frame.loader_id or ""
    out: list[tuple[NodeKey, Ident]] = []
    for i, ident in frame_idents(rows).items():
        bid = cap.lids.get(rows[i * STRIDE + 4])
        if bid is not None:
            out.append(((frame.frame_id, loader, bid), ident))
    return out


async def _bind(frame: SnapshotFrame, ledger: RefLedger, ref: int, key: NodeKey, ident: Ident,
                exc: StaleRef) -> ResolvedRef:
    if key[2] < 0:  # the walker's world fetches backend ids after the walk
        bid = await ledger.ids.wait(key[2])
        if not isinstance(bid, int):
            raise exc
        key = (key[0], key[1], bid)
    if key in ledger.keys:
        raise exc
    ledger.follow(ref, key)
    ledger.idents[ref] = ident
    _changed(ledger)
    return ResolvedRef(ref, frame.session, key[0], key[1], key[2])


def _listing(ledger: RefLedger, nodes: list[tuple[NodeKey, Ident]]) -> str:
    parts = []
    for key, ident in nodes[:_SHOWN]:
        r = ledger.keys.get(key)
        parts.append(describe(ident) + (f" @{r}" if r is not None and r in ledger.active else ""))
    more = len(nodes) - _SHOWN
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


async def _replaced(frame: SnapshotFrame, ledger: RefLedger, ref: int) -> ResolvedRef:
    """Rule 2: the node of ``ref`` is gone from its document."""
    was = ledger.idents.get(ref)
    exc = StaleRef(ledger.stale_message(ref, "its node is gone"), ref=ref)
    if was is None or was[4] is None:
        raise exc
    try:
        nodes = await _nodes(frame, ledger)
    except (CdpError, CdpChannelUnavailable, SnapshotFailed, StaleRef):
        raise exc from None
    place = [(k, i) for k, i in nodes if i[4] == was[4]]
    same = [(k, i) for k, i in place if same_node(i, was)]
    if len(same) == 1 and same[0][0] not in ledger.keys:
        return await _bind(frame, ledger, ref, same[0][0], same[0][1], exc)
    if same:
        now = f"its node is gone; {len(same)} like it at its place: {_listing(ledger, same)}"
    elif place:
        now = f"its node is gone; at its place now: {_listing(ledger, place)}"
    else:
        now = "its node is gone; nothing at its place"
    ledger.now[ref] = now
    raise StaleRef(ledger.stale_message(ref), ref=ref)


async def _carried(frame: SnapshotFrame, ledger: RefLedger, ref: int, was: Ident, exc: StaleRef) -> ResolvedRef:
    """Rule 3: the frame shows another document than the one ``ref`` was numbered in."""
    ck = carry_key(was)
    prev = ledger.prev.get(frame.frame_id)
    if ck is None or prev is None or prev[1].get(ck) != ref:
        raise exc
    try:
        nodes = await _nodes(frame, ledger)
    except (CdpError, CdpChannelUnavailable, SnapshotFailed, StaleRef):
        raise exc from None
    same = [(k, i) for k, i in nodes if carry_key(i) == ck]
    if len(same) != 1 or same[0][0] in ledger.keys:
        raise exc
    resolved = await _bind(frame, ledger, ref, same[0][0], same[0][1], exc)
    del prev[1][ck]
    return resolved


async def number_of(target: SnapshotTarget, ledger: RefLedger, key: NodeKey) -> int:
    """The number to hand out for the node ``key`` outside a snapshot (``page.find``, the
    candidates of an ambiguity error): its own, unless its node became something else since that
    number was printed (rule 1), then a new one."""
    ref = ledger.assign(key)
    if ref in ledger.idents:
        try:
            await check_ref(target, ledger, ref)
        except StaleRef:
            ref = ledger.assign(key)  # renumbered: the node's new number
    return ref
