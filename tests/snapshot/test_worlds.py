"""A page's walker worlds: bounded, and a frame that went away takes its worlds with it."""

from __future__ import annotations

from ego_browser.snapshot.worlds import MAX_WORLDS, World, Worlds


def test_a_page_keeps_at_most_max_worlds_dropping_the_oldest() -> None:
    worlds = Worlds()
    for n in range(MAX_WORLDS + 3):
        worlds.put("S", f"F{n}", World("L", n))
    assert len(worlds) == MAX_WORLDS
    assert worlds.get("S", "F0") is None and worlds.get("S", "F2") is None
    assert worlds.get("S", f"F{MAX_WORLDS + 2}") is not None


def test_using_a_world_again_keeps_it_newest() -> None:
    worlds = Worlds()
    first = World("L", 1)
    worlds.put("S", "F0", first)
    for n in range(1, MAX_WORLDS):
        worlds.put("S", f"F{n}", World("L", n))
    worlds.put("S", "F0", first)  # re-made for a new document of the same frame
    worlds.put("S", "new", World("L", 0))
    assert worlds.get("S", "F0") is first and worlds.get("S", "F1") is None


def test_forgetting_a_frame_or_session_keeps_the_others() -> None:
    worlds = Worlds()
    worlds.put("main", "top", World("L", 1))
    worlds.put("main", "child", World("L", 2))
    worlds.put("oopif", "child", World("L", 3))
    worlds.put("oopif", "grandchild", World("L", 4))
    worlds.forget_frame("child")
    assert worlds.keys() == [("main", "top"), ("oopif", "grandchild")]
    worlds.forget_session("oopif")
    assert worlds.keys() == [("main", "top")]
