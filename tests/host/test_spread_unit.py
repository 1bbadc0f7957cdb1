"""Placement over a Grid's nodes (host/core/spread.py): the node with the fewest of our spaces,
a browser with room before a new session, each browser's cap kept; and the hub's /status read
into free slots per node (browser/grid.py)."""

from __future__ import annotations

from ego_browser.browser.grid import free_slots
from ego_browser.host.core.spread import Choice, choose

A, B = "http://a:5555", "http://b:5555"


def place_one_by_one(n: int, limit: int, slots: int = 4) -> tuple[dict[str, int], dict[str, list[int]]]:
    """Place n spaces as the host does, opening a browser on the chosen node when told to."""
    members: list[tuple[str, str]] = [("s0", A)]  # the host opens one browser at start
    counts: dict[str, int] = {}
    for _ in range(n):
        opened = {node: sum(1 for _i, m in members if m == node) for node in (A, B)}
        choice = choose(members, counts, limit, {node: slots - opened[node] for node in (A, B)})
        instance = choice.instance
        if not instance:
            instance = f"s{len(members)}"
            members.append((instance, choice.node))
        counts[instance] = counts.get(instance, 0) + 1
    per_node: dict[str, int] = {}
    per_browser: dict[str, list[int]] = {}
    for instance, node in members:
        per_node[node] = per_node.get(node, 0) + counts.get(instance, 0)
        per_browser.setdefault(node, []).append(counts.get(instance, 0))
    return per_node, per_browser


def test_spaces_spread_evenly_over_the_nodes_instead_of_filling_one_browser():
    # the default cap of 8: fill-first put all 8 in one browser on one node
    per_node, per_browser = place_one_by_one(8, limit=8)
    assert per_node == {A: 4, B: 4}
    assert per_browser == {A: [4], B: [4]}  # one browser per node: no session opened needlessly


def test_the_cap_per_browser_still_holds_and_odd_counts_differ_by_one():
    per_node, per_browser = place_one_by_one(5, limit=2)
    assert per_node == {A: 3, B: 2}
    assert all(n <= 2 for counts in per_browser.values() for n in counts), per_browser
    per_node, _ = place_one_by_one(16, limit=8)
    assert per_node == {A: 8, B: 8}
    # past the cap: a second session on each node, the nodes still even (docs/scale-out.md)
    per_node, per_browser = place_one_by_one(20, limit=8)
    assert per_node == {A: 10, B: 10} and per_browser == {A: [8, 2], B: [8, 2]}


def test_a_browser_with_room_wins_over_a_new_session_at_equal_counts():
    assert choose([("s0", A)], {}, 8, {A: 3, B: 4}) == Choice("s0", A)
    # fewer spaces on B, where nothing of ours runs: a new session meant for B
    assert choose([("s0", A)], {"s0": 1}, 8, {A: 3, B: 4}) == Choice("", B)


def test_a_full_node_is_passed_over_and_all_full_leaves_the_choice_to_the_grid():
    # B has fewer spaces but no room and no free slot: A's browser takes it
    members = [("s0", A), ("s1", A), ("s2", B)]
    assert choose(members, {"s0": 4, "s1": 1, "s2": 4}, 4, {A: 0, B: 0}) == Choice("s1", A)
    assert choose([("s0", A), ("s1", B)], {"s0": 2, "s1": 2}, 2, {A: 0, B: 0}) == Choice("", "")
    # several browsers on one node: the first with room is filled first (within the node)
    members = [("s0", A), ("s1", A), ("s2", B)]
    assert choose(members, {"s0": 2, "s1": 1, "s2": 4}, 2, {A: 2, B: 2}) == Choice("s1", A)


def test_without_the_hubs_status_only_the_open_browsers_count():
    members = [("s0", A), ("s1", B)]
    assert choose(members, {"s0": 3, "s1": 1}, 8, None) == Choice("s1", B)
    assert choose(members, {"s0": 8, "s1": 8}, 8, None) == Choice("", "")


def test_free_slots_from_the_hubs_status():
    def slot(browser: str, busy: bool) -> dict:
        return {"stereotype": {"browserName": browser}, "session": {"sessionId": "x"} if busy else None}

    status = {"nodes": [
        {"uri": A + "/", "availability": "UP", "maxSessions": 4,
         "slots": [slot("chrome", True), slot("chrome", False), slot("chrome", False), slot("firefox", False)]},
        # more slots than it runs at once: maxSessions bounds what it still takes
        {"uri": B, "availability": "UP", "maxSessions": 2,
         "slots": [slot("chrome", True), slot("chrome", False), slot("chrome", False), slot("chrome", False)]},
        {"uri": "http://c:5555", "availability": "DRAINING", "maxSessions": 4, "slots": [slot("chrome", False)]},
    ]}
    assert free_slots(status) == {A: 2, B: 1}
