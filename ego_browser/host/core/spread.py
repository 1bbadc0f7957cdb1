"""Where a new space goes when the browsers run on several nodes (a Selenium Grid).

Fill-first (the first browser with room) piles every space on one node while the others idle:
with the default of 8 spaces per browser, 8 agents share one node's cores. So the spaces go to
the **node** with the fewest of our spaces, among the nodes that can take one: a node where a
browser of ours has room (fewer than ``EGO_BROWSER_SPACES_PER_BROWSER`` spaces), or a node
with a free slot for a new session. At equal counts a browser with room wins over a new
session (a session is a whole Chromium); within a node, the first browser with room is filled
(its cap still holds). Pure: the counts come from the caller, who holds the placement lock.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Choice", "choose"]


@dataclass(frozen=True)
class Choice:
    #: the browser (instance) to use; "" when a new one is to be opened
    instance: str
    #: the node the space is meant for ("" when unknown: the Grid chooses)
    node: str


def choose(members: list[tuple[str, str]], counts: dict[str, int], limit: int,
           free: dict[str, int] | None) -> Choice:
    """``members``: (instance, node) of each browser, in the order they were opened;
    ``counts``: spaces per instance (placed but not stored ones included); ``free``: node ->
    sessions it can still open (None: unknown, only the open browsers are considered)."""
    spaces: dict[str, int] = {}
    room: dict[str, str] = {}  # node -> its first browser with room
    for instance, node in members:
        spaces[node] = spaces.get(node, 0) + counts.get(instance, 0)
        if counts.get(instance, 0) < limit and node not in room:
            room[node] = instance
    for node in free or {}:
        spaces.setdefault(node, 0)
    order = list(spaces)  # first opened first: ties keep the old order

    def open_slots(node: str) -> int:
        return (free or {}).get(node, 0)

    able = [n for n in order if n in room or open_slots(n) > 0]
    if not able:
        return Choice("", "")  # all full: the Grid queues the new session (or says it cannot)
    best = min(able, key=lambda n: (spaces[n], n not in room, -open_slots(n), order.index(n)))
    return Choice(room.get(best, ""), best)
