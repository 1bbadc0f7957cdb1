"""What refs name (ledger idents): renumbering a changed node, carrying refs to the next
document (issue 30 point 2), persistence. Property: a carried ref never lands on a node with
another role, name, target or landmark path."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ego_browser.errors import StaleRef
from ego_browser.snapshot.engine import render_tree
from ego_browser.snapshot.ident import frame_idents
from ego_browser.snapshot.ledger import RefLedger


def look(ledger: RefLedger, nodes: list, *, replace: bool = True) -> dict:
    """A snapshot of ``nodes`` [(key, ident)], one ref-bearing line each: key -> number shown."""
    n = len(nodes)
    t = ([0] + [1] * n, ["root"] + [i[0] for _, i in nodes], [""] + [i[1] for _, i in nodes], [0] + [1] * n,
         [None] + [k for k, _ in nodes], [""] + [i[2] for _, i in nodes], [""] * (n + 1), [""] * (n + 1),
         [""] * (n + 1))
    carried = ledger.prepare(nodes)
    _, _, shown = render_tree(*t, ledger.keys, ledger.next_ref, True, True)
    ledger.finish(shown, nodes, carried, replace=replace)
    return {k: ledger.keys[k] for k, _ in nodes}


def ident(role: str, name: str, target: str = "", lm: tuple = (("banner", ""),)) -> tuple:
    return (role, name, target, lm, lm)


def test_frame_idents_paths():
    rows = []
    for d, r, nm, f, u in [(0, "root", "", 0, ""), (1, "banner", "", 0, ""), (2, "container", "", 0, ""),
                           (3, "link", "Home", 1, "/"), (1, "main", "", 0, ""), (2, "region", "Cell 1", 0, ""),
                           (3, "container", "", 0, ""), (4, "textbox", "Code  editor", 1, ""),
                           (2, "text", "hello", 0, "")]:
        rows += [d, r, nm, f, 0, u, "", "", ""]
    got = frame_idents(rows)
    assert got[3] == ("link", "Home", "/", (("banner", ""),), (("banner", ""),))
    assert got[7] == ("textbox", "Code editor", "", (("main", ""), ("region", "Cell 1")),
                      (("main", ""), ("region", "Cell 1")))
    assert frame_idents(rows, paths=False)[3][3:] == (None, None)


def test_relabelled_node_gets_a_new_number_and_old_one_says_why():
    led = RefLedger("b")
    k = ("F", "L", 7)
    assert look(led, [(k, ident("menuitem", "Rename"))])[k] == 1
    assert look(led, [(k, ident("menuitem", "New Folder"))])[k] == 2
    with pytest.raises(StaleRef, match=r'^Stale ref: @1 was menuitem "Rename"; it is now menuitem "New Folder"; '
                                       r"take a new snapshot$"):
        led.lookup(1)
    assert look(led, [(k, ident("menuitem", "New Folder"))])[k] == 2  # stable from there on


def test_refs_carry_to_the_next_document_only_where_the_node_survived():
    led = RefLedger("b")
    old = [(("F", "L1", i), x) for i, x in enumerate([
        ident("link", "Home", "/"), ident("button", "Sign out"), ident("link", "Profile", "/p/a"),
        ident("button", "Export", lm=(("main", ""),)), ident("link", "Dup", "/d"), ident("link", "Dup", "/d")])]
    first = look(led, old)
    led.stale_frame("F")
    new = [(("F", "L2", 100 + i), x) for i, x in enumerate([
        ident("link", "Home", "/"), ident("button", "Sign out"), ident("link", "Profile", "/p/b"),
        ident("button", "Invite", lm=(("main", ""),)), ident("link", "Dup", "/d"),
        ident("button", "Sign out", lm=(("main", ""),))])]
    second = look(led, new)
    assert second[new[0][0]] == first[old[0][0]] and second[new[1][0]] == first[old[1][0]]
    kept = set(first.values()) & set(second.values())
    assert kept == {first[old[0][0]], first[old[1][0]]}  # target, place or uniqueness differ elsewhere
    with pytest.raises(StaleRef):
        led.lookup(first[old[3][0]])
    # another frame's document change carries nothing into this one
    led.stale_frame("G")
    assert look(led, new) == second


def test_idents_persist():
    led = RefLedger("b")
    look(led, [(("F", "L", 1), ident("link", "Home", "/"))])
    again = RefLedger.from_bytes(led.to_bytes(), "b")
    assert again.idents == led.idents and again.lookup(1).key == ("F", "L", 1)


ROLES = st.sampled_from(["link", "button", "textbox"])
NAMES = st.sampled_from(["A", "B", ""])
TARGETS = st.sampled_from(["", "/x", "/y"])
MARKS = st.sampled_from([(), (("banner", ""),), (("navigation", "Side"),)])
IDENT = st.tuples(ROLES, NAMES, TARGETS, MARKS).map(lambda t: (t[0], t[1], t[2], t[3], t[3]))


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(st.lists(IDENT, max_size=8), min_size=2, max_size=4), frames=st.lists(
    st.sampled_from(["F", "G"]), min_size=8, max_size=8))
def test_carried_ref_never_lands_on_another_node(docs, frames):
    led = RefLedger("b")
    named: dict[int, tuple] = {}  # number -> (frame, landmarks, role, name, target) it first named
    bid = 0
    for n, doc in enumerate(docs):
        if n:
            led.stale_frame("F")
        nodes = []
        for i, x in enumerate(doc):
            bid += 1
            f = frames[i % len(frames)]
            nodes.append(((f, "L" if f == "G" else f"L{n}", bid), x))
        for key, num in look(led, nodes, replace=bool(n % 2)).items():
            x = dict(nodes)[key]
            what = (key[0], x[3], x[0], x[1], x[2])
            assert named.setdefault(num, what) == what


OPS = st.lists(st.tuples(st.sampled_from(["navigate", "relabel", "look", "stale_all", "partial"]),
                         st.lists(IDENT, min_size=1, max_size=6)), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(first=st.lists(IDENT, max_size=6), ops=OPS)
def test_a_number_names_one_thing_through_any_history(first, ops):
    """Navigations, relabelled nodes (same key, new ident), partial and full looks, stale_all:
    every number a look prints names one frame, landmark path, role, name and target."""
    led = RefLedger("b")
    named: dict[int, tuple] = {}
    doc = 0
    bid = 0
    nodes = []
    for x in first:
        bid += 1
        nodes.append((("F", "L0", bid), x))

    where: dict[int, tuple] = {}  # number -> (document, landmarks) it was last printed in

    def check(shown: dict) -> None:
        for key, num in shown.items():
            x = dict(nodes)[key]
            what = (key[0], x[0], x[1], x[2])
            assert named.setdefault(num, what) == what, (num, named[num], what)
            # the same node may move within its document; carried to another document, the
            # number keeps its landmark path
            last = where.get(num)
            assert last is None or last[0] == key[1] or last[1] == x[3], (num, last, key, x)
            where[num] = (key[1], x[3])

    check(look(led, nodes))
    for op, idents in ops:
        if op == "navigate":
            doc += 1
            led.stale_frame("F")
            nodes = []
            for x in idents:
                bid += 1
                nodes.append((("F", f"L{doc}", bid), x))
            check(look(led, nodes))
        elif op == "relabel":
            nodes = [(k, idents[i % len(idents)] if i % 2 else x) for i, (k, x) in enumerate(nodes)]
            check(look(led, nodes))
        elif op == "stale_all":
            led.stale_all()
        elif op == "partial":
            part = nodes[: len(nodes) // 2]
            check(look(led, part, replace=False))
        else:
            check(look(led, nodes))
