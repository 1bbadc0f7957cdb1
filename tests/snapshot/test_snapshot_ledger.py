"""Ref ledger: numbering, merge/replace, staleness, limits, persistence."""

from __future__ import annotations

import pytest

from ego_browser.errors import StaleRef, UnknownRef
from ego_browser.snapshot import ledger as ledger_mod
from ego_browser.snapshot.engine import render_tree
from ego_browser.snapshot.ledger import RefLedger


def snap(ledger: RefLedger, keys: list, *, replace: bool) -> list[int]:
    """Print a flat page holding one button per key, like a snapshot would."""
    n = len(keys)
    t = ([0] + [1] * n, ["root"] + ["button"] * n, [""] + [f"b{i}" for i in range(n)], [0] + [1] * n,
         [None] + list(keys), [""] * (n + 1), [""] * (n + 1), [""] * (n + 1), [""] * (n + 1))
    _, nxt, shown = render_tree(*t, ledger.keys, ledger.next_ref, True, True)
    ledger.commit(shown, replace=replace)
    return shown


K = [("F", "L", i) for i in range(100)]


def test_numbers_stay_grow_and_never_move():
    led = RefLedger("b1")
    assert snap(led, K[:3], replace=True) == [1, 2, 3]
    assert snap(led, [K[2], K[3], K[0]], replace=False) == [3, 4, 1]
    b = led.lookup(4)
    assert (b.frame_id, b.loader_id, b.backend_node_id) == K[3]
    # partial snapshots merge: 2 stays valid
    assert led.lookup(2).key == K[1]


def test_full_page_replaces_and_stale_vs_unknown():
    led = RefLedger("b1")
    snap(led, K[:3], replace=True)
    snap(led, [K[0]], replace=True)
    assert led.lookup(1).key == K[0]
    with pytest.raises(StaleRef, match=r"^Stale ref: @2; take a new snapshot$"):
        led.lookup(2)
    with pytest.raises(UnknownRef, match=r"^Unknown ref: 999; take a new snapshot$"):
        led.lookup(999)
    # the node shows again: it gets its own number back, never a new one
    assert snap(led, [K[1]], replace=False) == [2]


def test_replaced_node_never_inherits_number():
    led = RefLedger("b1")
    snap(led, [("F", "L", 10)], replace=True)
    led.stale_ref(1)
    assert snap(led, [("F", "L", 11)], replace=True) == [2]
    with pytest.raises(StaleRef):
        led.lookup(1)


def test_stale_frame_and_stale_all():
    led = RefLedger("b1")
    snap(led, [("A", "L1", 1), ("B", "L2", 1)], replace=True)
    led.stale_frame("A")
    with pytest.raises(StaleRef):
        led.lookup(1)
    assert led.lookup(2).frame_id == "B"
    # the new document of A gets new numbers
    assert snap(led, [("A", "L3", 1), ("B", "L2", 1)], replace=True) == [3, 2]
    led.stale_all()
    with pytest.raises(StaleRef):
        led.lookup(2)


def test_stale_numbers_are_bounded(monkeypatch):
    monkeypatch.setattr(ledger_mod, "MAX_STALE", 5)
    led = RefLedger("b1")
    snap(led, K[:10], replace=True)
    led.stale_all()
    for ref in range(1, 6):
        with pytest.raises(UnknownRef):
            led.lookup(ref)
    for ref in range(6, 11):
        with pytest.raises(StaleRef):
            led.lookup(ref)
    # forgotten numbers are never reissued
    assert snap(led, [K[0]], replace=True) == [11]


def test_persistence_round_trip_and_instances():
    led = RefLedger("b1")
    snap(led, [("A", "L1", 5), ("B", "L2", 5), ("A", "L1", 6)], replace=True)
    snap(led, [("A", "L1", 5)], replace=True)
    data = led.to_bytes()
    back = RefLedger.from_bytes(data, "b1")
    assert back.lookup(1).key == ("A", "L1", 5)
    with pytest.raises(StaleRef):
        back.lookup(2)
    assert back.next_ref == led.next_ref
    assert snap(back, [("B", "L2", 5), ("X", "Y", 1)], replace=False) == [2, 4]
    # another browser instance or a corrupt record: empty
    other = RefLedger.from_bytes(data, "b2")
    with pytest.raises(UnknownRef):
        other.lookup(1)
    for bad in (b"{", b"[]", b'{"v":1,"b":"b1","n":"x"}', b'{"v":1,"b":"b1","n":3,"d":[],"a":[1,0,2],"s":[]}'):
        with pytest.raises(UnknownRef):
            RefLedger.from_bytes(bad, "b1").lookup(1)


def test_pending_backend_ids_are_rebound_or_staled():
    """Deferred ids: keys printed with a pending (negative) id get the real one later."""
    led = RefLedger("b1")
    pend = [("F", "L", -1), ("F", "L", -2), ("F", "L", -3)]
    assert snap(led, pend, replace=True) == [1, 2, 3]
    assert led.pending == {1, 2, 3}
    assert led.knows_doc("F", "L") and not led.knows_doc("F", "other")
    # not yet resolved: nothing changes, and pending keys are not persisted
    assert not led.rebind(lambda pid: ...)
    assert RefLedger.from_bytes(led.to_bytes(), "b1").active == {}
    assert led.rebind({-1: 101, -2: 102, -3: None}.get)
    assert led.pending == set()
    assert led.lookup(1).key == ("F", "L", 101) and led.lookup(2).key == ("F", "L", 102)
    with pytest.raises(StaleRef):
        led.lookup(3)  # the node could not be resolved
    # the resolved key keeps its number in later snapshots
    assert snap(led, [("F", "L", 102), ("F", "L", 101)], replace=False) == [2, 1]
    assert RefLedger.from_bytes(led.to_bytes(), "b1").lookup(2).key == ("F", "L", 102)
