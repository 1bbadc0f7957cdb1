"""The ref ledger of one Page: snapshot numbers bound to (frame, document loader, backend node).

Rules (API.md §10):

- a number is issued once, in printing order, and never moves to another node;
- an unchanged node keeps its number in every later snapshot of any scope (the key of a node
  is ``(frame_id, loader_id, backend_node_id)``; a replaced node has a new backend id, a new
  document a new loader id, so neither inherits a number);
- ``full_page`` replaces the active set (refs it does not print become stale); viewport and
  subtree snapshots merge;
- ``stale_frame(frame_id)`` (that frame's document changed) and ``stale_all()`` stale refs;
- ``lookup(n)`` returns the :class:`RefBinding` or raises ``StaleRef`` / ``UnknownRef``;
- at most ``MAX_STALE`` stale numbers are remembered; older ones report ``UnknownRef``;
- ``to_bytes()`` / ``from_bytes(data, browser_instance)`` persist it (orjson); a ledger written
  by another browser instance, by another format, or a corrupt one, loads as empty.
- what each ref names (``idents``, see ``ident.py``): a snapshot that finds a numbered node with
  another role, name or target gives it a new number (``prepare``), and the old number then
  raises ``StaleRef`` saying what the node is now; resolution checks the same (``refcheck.py``);
- the previous document of each frame (``prev``): when a frame's document changes, its refs go
  stale but are remembered by (landmark path, role, name, target); a node of the new document
  that a snapshot finds with exactly that identity, unique on both sides, keeps the number
  (``prepare`` / ``finish``). ``prev`` is memory only (a restarted host numbers anew).
- a key whose backend id is still being fetched (see ``capture`` "Deferred ids") carries a
  negative *pending id* (answered in ``ids``, this page's); ``rebind(resolve)`` swaps in the real backend id (or stales the ref
  if the node could not be resolved). Pending keys are not persisted; ``on_change`` (set by the
  host) is called after a rebind so that the ledger can be saved again.

Internally the core (``_snapshot.render_tree``) works on ``keys``: a dict from node key to
number, shared by active and remembered stale numbers, so that a node that shows again after
being staled (for instance after ``stale_all()``) gets its own number back.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import StaleRef, UnknownRef
from .ident import Ident, carry_key, describe, same_node
from .pending import PendingIds
from .worlds import Worlds

__all__ = ["MAX_STALE", "RefBinding", "RefLedger", "NodeKey"]

#: stale numbers remembered per Page; older stale numbers report UnknownRef
MAX_STALE = 10_000

#: (frame_id, loader_id, backend_node_id)
NodeKey = tuple[str, str, int]

_FORMAT = 2


@dataclass(frozen=True, slots=True)
class RefBinding:
    """What a ref points at. ``frame_id``/``loader_id`` name the owning document."""

    ref: int
    frame_id: str
    loader_id: str
    backend_node_id: int

    @property
    def key(self) -> NodeKey:
        return (self.frame_id, self.loader_id, self.backend_node_id)


class RefLedger:
    """Refs of one Page. Not thread-safe; used from the host's event loop only."""

    __slots__ = ("browser_instance", "next_ref", "keys", "active", "stale", "pending", "on_change", "ids", "worlds",
                 "idents", "prev", "now")

    def __init__(self, browser_instance: str = "") -> None:
        self.browser_instance = browser_instance
        #: the next number to issue (numbers start at 1)
        self.next_ref = 1
        #: node key -> number, for active and remembered stale numbers
        self.keys: dict[Any, int] = {}
        #: number -> key, active refs
        self.active: dict[int, NodeKey] = {}
        #: number -> key, stale refs, oldest first
        self.stale: OrderedDict[int, NodeKey] = OrderedDict()
        #: numbers whose key still holds a pending (negative) backend id
        self.pending: set[int] = set()
        #: called after ``rebind`` changed something (the host saves the ledger then)
        self.on_change: Any = None
        #: answers of this page's pending ids until ``rebind`` has used them (memory only)
        self.ids = PendingIds()
        #: the snapshot walker's isolated worlds in this page's frames (memory only)
        self.worlds = Worlds()
        #: number -> what it names (active and remembered stale numbers)
        self.idents: dict[int, Ident] = {}
        #: frame id -> (loader of the frame's previous numbered document, carry key -> number):
        #: the numbers a node of the frame's next document can keep (memory only)
        self.prev: dict[str, tuple[str, dict[Any, int]]] = {}
        #: stale number -> what its node is now, for the StaleRef message (memory only)
        self.now: dict[int, str] = {}

    # -- reading ----------------------------------------------------------------------------

    def lookup(self, ref: int) -> RefBinding:
        """The binding of an active ref; ``StaleRef`` or ``UnknownRef`` otherwise."""
        key = self.active.get(ref)
        if key is not None:
            return RefBinding(ref, key[0], key[1], key[2])
        if ref in self.stale:
            raise StaleRef(self.stale_message(ref), ref=ref)
        raise UnknownRef(f"Unknown ref: {ref}; take a new snapshot", ref=ref)

    def stale_message(self, ref: int, now: str | None = None) -> str:
        """``Stale ref: @5 was menuitem "Rename"; it is now menuitem "New Folder"; take a new
        snapshot`` (what the ref named and what became of its node, as far as known)."""
        was = self.idents.get(ref)
        now = now or self.now.get(ref)
        msg = f"Stale ref: @{ref}"
        if was is not None:
            msg += f" was {describe(was)}"
        if now:
            msg += f"; {now}"
        return msg + "; take a new snapshot"

    def __contains__(self, ref: object) -> bool:
        return ref in self.active

    def __len__(self) -> int:
        return len(self.active)

    def refs_in_frame(self, frame_id: str) -> list[int]:
        return [r for r, k in self.active.items() if k[0] == frame_id]

    # -- updating ---------------------------------------------------------------------------

    def assign(self, key: NodeKey) -> int:
        """The number of the node ``key`` (issuing the next one if it has none) and make it
        active: ``page.find`` hands out refs without printing a snapshot."""
        ref = self.keys.get(key)
        if ref is None:
            ref = self.next_ref
            self.next_ref += 1
            self.keys[key] = ref
        self.stale.pop(ref, None)
        self.active[ref] = key
        return ref

    def commit(self, shown: list[int], *, replace: bool, carried: dict[int, NodeKey] | None = None) -> None:
        """Record the numbers a snapshot printed (the core already put new keys in ``keys``).

        ``replace`` (full_page): every active ref not printed becomes stale. ``carried``: old
        numbers that ``prepare`` gave to nodes of a new document (number -> new key).
        """
        active = self.active
        stale = self.stale
        old_next = self.next_ref
        new_keys: dict[int, Any] = {}
        top = max(shown) + 1 if shown else old_next
        if top > old_next:
            # new numbers are the last entries of ``keys`` (dicts keep insertion order)
            want = top - old_next
            for key, ref in reversed(self.keys.items()):
                if ref >= old_next:
                    new_keys[ref] = key
                    if len(new_keys) == want:
                        break
            self.next_ref = top
        if replace:
            shown_set = set(shown)
            for ref in [r for r in active if r not in shown_set]:
                self._make_stale(ref, active.pop(ref))
        for ref in shown:
            if ref not in active:
                key = new_keys.get(ref)
                if key is None and carried:
                    key = carried.get(ref)
                if key is None:
                    key = stale.pop(ref)
                else:
                    stale.pop(ref, None)
                active[ref] = key
                if key[2] < 0:
                    self.pending.add(ref)

    def knows_doc(self, frame_id: str, loader_id: str) -> bool:
        """Whether any node of this document ever got a number that is still remembered."""
        for k in self.keys:
            if k[0] == frame_id and k[1] == loader_id:
                return True
        return False

    def rebind(self, resolve: Any) -> bool:
        """Swap pending backend ids for real ones; ``resolve(pid)`` gives the backend id, None
        (the node is gone: the ref goes stale) or anything else (not yet). True if changed."""
        changed = False
        for ref in list(self.pending):
            key = self.active.get(ref)
            where = self.active
            if key is None:
                key = self.stale.get(ref)
                where = self.stale
            if key is None or key[2] >= 0:
                self.pending.discard(ref)
                continue
            bid = resolve(key[2])
            if bid is not None and not isinstance(bid, int):
                continue
            self.pending.discard(ref)
            changed = True
            had = self.keys.get(key) == ref
            if had:
                del self.keys[key]
            if bid is None:
                if where is self.active:
                    del self.active[ref]
                    self._make_stale(ref, key)
                continue
            new = (key[0], key[1], bid)
            where[ref] = new
            if had and new not in self.keys:
                self.keys[new] = ref
        return changed

    def _make_stale(self, ref: int, key: NodeKey) -> None:
        stale = self.stale
        stale[ref] = key
        stale.move_to_end(ref)
        while len(stale) > MAX_STALE:
            old_ref, old_key = stale.popitem(last=False)
            if self.keys.get(old_key) == old_ref:
                del self.keys[old_key]
            self.idents.pop(old_ref, None)
            self.now.pop(old_ref, None)

    def stale_frame(self, frame_id: str) -> None:
        """A document change in ``frame_id``: its refs go stale and its keys are forgotten; the
        numbers of the document that went away are kept in ``prev`` for its successor."""
        self._remember_doc(frame_id)
        for ref in [r for r, k in self.active.items() if k[0] == frame_id]:
            key = self.active.pop(ref)
            self._make_stale(ref, key)
            self.keys.pop(key, None)

    def stale_all(self) -> None:
        """Every active ref goes stale (a node shown again later gets its number back)."""
        for ref, key in list(self.active.items()):
            self._make_stale(ref, key)
        self.active.clear()

    def stale_ref(self, ref: int) -> None:
        """One node is known to be gone (removed or replaced)."""
        key = self.active.pop(ref, None)
        if key is not None:
            self._make_stale(ref, key)
            self.keys.pop(key, None)

    def clear(self) -> None:
        """Drop every ref (the Page closed); numbers keep growing."""
        self.keys.clear()
        self.active.clear()
        self.stale.clear()
        self.pending.clear()
        self.idents.clear()
        self.prev.clear()
        self.now.clear()

    # -- what refs name: changed nodes, carried numbers (issue 29 finding 2, issue 30 point 2) --

    def renumber(self, ref: int, now: str) -> None:
        """The node behind ``ref`` is something else now: the number goes stale for good (the
        node gets a new number when it is printed again) and says ``now`` when used."""
        key = self.active.pop(ref, None)
        if key is not None:
            self._make_stale(ref, key)
        else:
            key = self.stale.get(ref)
        if key is not None and self.keys.get(key) == ref:
            del self.keys[key]
        self.pending.discard(ref)
        self.now[ref] = now

    def _remember_doc(self, frame_id: str) -> None:
        """Before ``frame_id``'s document goes: its numbered nodes by carry key (the keys of a
        number a snapshot of the frame printed or ``find`` handed out), the ambiguous left out."""
        table: dict[Any, int] = {}
        dup: set[Any] = set()
        # the document going away is the one of the frame's active numbers, else of its latest
        # number (keys of older documents that went stale while remembered may still be there)
        loader = next((k[1] for k in self.active.values() if k[0] == frame_id), "")
        top = 0
        for key, ref in self.keys.items() if not loader else ():
            if key[0] == frame_id and ref > top:
                top, loader = ref, key[1]
        for key, ref in self.keys.items():
            if key[0] != frame_id or key[1] != loader:
                continue
            ident = self.idents.get(ref)
            ck = carry_key(ident) if ident is not None else None
            if ck is None:
                continue
            if ck in table:
                dup.add(ck)
            else:
                table[ck] = ref
        for ck in dup:
            del table[ck]
        if table:
            self.prev[frame_id] = (loader, table)

    def prepare(self, found: list[tuple[NodeKey, Ident]]) -> dict[int, NodeKey]:
        """Before a snapshot prints: ``found`` are its ref-bearing nodes (key, ident).

        A numbered node whose role, name or target changed loses its number (``renumber``). A
        node of a frame's new document whose carry key is unique among ``found`` in that frame
        and names a number of the frame's previous document gets that number (put in ``keys``
        for the core); returns those (number -> key) for ``commit`` and ``finish``."""
        keys = self.keys
        idents = self.idents
        for key, ident in found:
            ref = keys.get(key)
            if ref is not None:
                was = idents.get(ref)
                if was is not None and not same_node(was, ident):
                    self.renumber(ref, f"it is now {describe(ident)}")
        carried: dict[int, NodeKey] = {}
        if not self.prev:
            return carried
        cands: list[tuple[NodeKey, Any]] = []
        counts: dict[tuple[str, Any], int] = {}
        for key, ident in found:
            p = self.prev.get(key[0])
            if p is None or p[0] == key[1] or key in keys:
                continue
            ck = carry_key(ident)
            if ck is None:
                continue
            cands.append((key, ck))
            counts[(key[0], ck)] = counts.get((key[0], ck), 0) + 1
        for key, ck in cands:
            if counts[(key[0], ck)] != 1:
                continue
            ref = self.prev[key[0]][1].get(ck)
            if ref is None or ref in self.active or ref in carried:
                continue
            keys[key] = ref
            carried[ref] = key
        return carried

    def finish(self, shown: list[int], found: list[tuple[NodeKey, Ident]], carried: dict[int, NodeKey], *,
               replace: bool) -> None:
        """After the core printed: ``commit`` and record what each printed number names."""
        self.commit(shown, replace=replace, carried=carried)
        active = self.active
        for ref, key in carried.items():
            if active.get(ref) == key:
                table = self.prev[key[0]][1]
                for ck, r in list(table.items()):
                    if r == ref:
                        del table[ck]
            elif self.keys.get(key) == ref:
                del self.keys[key]  # not printed (interactive mode left it out): not carried
        keys = self.keys
        idents = self.idents
        for key, ident in found:
            num = keys.get(key)
            if num is None or active.get(num) != key:
                continue
            if ident[3] is None:
                old = idents.get(num)
                if old is not None and same_node(old, ident):
                    continue  # a subtree snapshot: keep the paths a whole-document one saw
            idents[num] = ident
            self.now.pop(num, None)

    def follow(self, ref: int, key: NodeKey) -> None:
        """``ref`` now names the node ``key`` (the same role, name and target: ``refcheck``)."""
        old = self.active.pop(ref, None) or self.stale.pop(ref, None)
        if old is not None and self.keys.get(old) == ref:
            del self.keys[old]
        self.stale.pop(ref, None)
        self.keys[key] = ref
        self.active[ref] = key
        if key[2] < 0:
            self.pending.add(ref)
        self.now.pop(ref, None)

    # -- persistence ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        docs: dict[tuple[str, str], int] = {}
        doc_list: list[list[str]] = []

        def doc(key: NodeKey) -> int:
            d = (key[0], key[1])
            i = docs.get(d)
            if i is None:
                i = docs[d] = len(doc_list)
                doc_list.append([key[0], key[1]])
            return i

        active: list[Any] = []
        for ref, key in self.active.items():
            if key[2] >= 0:  # pending keys are saved once resolved
                active += (ref, doc(key), key[2])
        stale: list[Any] = []
        for ref, key in self.stale.items():
            if key[2] >= 0:
                stale += (ref, doc(key), key[2], 1 if self.keys.get(key) == ref else 0)
        # what each number names, paths shared through a table (a page's refs share a few)
        paths: dict[Any, int] = {}
        path_list: list[Any] = []

        def path(p: Any) -> int:
            if p is None:
                return -1
            i = paths.get(p)
            if i is None:
                i = paths[p] = len(path_list)
                path_list.append([list(x) for x in p])
            return i

        # (active numbers only: a stale number's ident only words its error, and the record is
        # written after every snapshot)
        idents: list[Any] = []
        for ref in self.active:
            ident = self.idents.get(ref)
            if ident is not None:
                idents += (ref, ident[0], ident[1], ident[2], path(ident[3]), path(ident[4]))
        return {
            "v": _FORMAT,
            "b": self.browser_instance,
            "n": self.next_ref,
            "d": doc_list,
            "a": active,
            "s": stale,
            "i": idents,
            "p": path_list,
        }

    def to_bytes(self) -> bytes:
        return orjson.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any, browser_instance: str) -> RefLedger:
        ledger = cls(browser_instance)
        try:
            if not isinstance(data, dict) or data.get("v") != _FORMAT or data.get("b") != browser_instance:
                return ledger
            docs = [(str(f), str(l)) for f, l in data["d"]]
            a = data["a"]
            s = data["s"]
            nxt = int(data["n"])
            for i in range(0, len(a), 3):
                f, l = docs[a[i + 1]]
                key = (f, l, int(a[i + 2]))
                ref = int(a[i])
                if ref >= nxt or ref < 1:
                    raise ValueError("ref beyond next")
                ledger.active[ref] = key
                ledger.keys[key] = ref
            for i in range(0, len(s), 4):
                f, l = docs[s[i + 1]]
                key = (f, l, int(s[i + 2]))
                ref = int(s[i])
                ledger.stale[ref] = key
                if s[i + 3]:
                    ledger.keys[key] = ref
            path_list = [tuple((str(r), str(n)) for r, n in p) for p in data["p"]]
            ids = data["i"]
            for i in range(0, len(ids), 6):
                lm, pp = int(ids[i + 4]), int(ids[i + 5])
                ledger.idents[int(ids[i])] = (str(ids[i + 1]), str(ids[i + 2]), str(ids[i + 3]),
                                              path_list[lm] if lm >= 0 else None,
                                              path_list[pp] if pp >= 0 else None)
            ledger.next_ref = nxt
        except (KeyError, IndexError, TypeError, ValueError):
            return cls(browser_instance)
        return ledger

    @classmethod
    def from_bytes(cls, data: bytes | str | None, browser_instance: str) -> RefLedger:
        """Restore a ledger; another browser instance or a corrupt record gives an empty one."""
        if not data:
            return cls(browser_instance)
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            return cls(browser_instance)
        return cls.from_dict(obj, browser_instance)

    def __repr__(self) -> str:
        return f"<RefLedger active={len(self.active)} stale={len(self.stale)} next={self.next_ref}>"
