"""The journal's store (issue 28 §1): bounds, masking, dropped with its space unless kept."""

from __future__ import annotations

import sqlite3

from ego_browser.host.core import journal as jmod
from ego_browser.host.core.journal import Journal, masked_value


def book() -> Journal:
    return Journal(sqlite3.connect(":memory:", isolation_level=None))


def test_rounds_are_numbered_per_token_and_scripts_lose_passwords():
    j = book()
    j.add_action(1, "tok-a", {"op": "page.fill", "value": "[password]"}, secret="hunter2")
    j.add_action(1, "tok-a", {"op": "page.click"})
    j.end_round(1, "tok-a", script='await p.fill("#pw", "hunter2")\n', status="ok", error=None, started=None)
    j.add_action(1, "tok-b", {"op": "page.goto"})
    j.end_round(1, "tok-b", script="x", status="failed", error="EGO_TIMEOUT", started=None)
    data = j.read(1)
    assert [r["n"] for r in data["rounds"]] == [1, 2]
    first, second = data["rounds"]
    assert "hunter2" not in first["script"] and '"[password]"' in first["script"]
    assert [a["seq"] for a in first["actions"]] == [1, 2] and second["actions"][0]["seq"] == 3
    assert second["status"] == "failed" and second["error"] == "EGO_TIMEOUT"
    assert j.read(2)["rounds"] == []  # another space's journal is its own


def test_bounds(monkeypatch):
    monkeypatch.setattr(jmod, "MAX_ROUNDS", 3)
    monkeypatch.setattr(jmod, "MAX_ACTIONS", 2)
    j = book()
    for n in range(5):
        for _ in range(4):
            j.add_action(1, f"t{n}", {"op": "page.click"})
    rounds = j.read(1)["rounds"]
    assert [r["n"] for r in rounds] == [3, 4, 5]
    assert all(len(r["actions"]) == 2 for r in rounds)
    j.end_round(1, "t4", script="y" * (jmod.MAX_SCRIPT + 50), status="ok", error=None, started=None)
    assert len(j.read(1, [5])["rounds"][0]["script"]) == jmod.MAX_SCRIPT


def test_secrets_and_long_values_are_masked():
    assert masked_value({"$secret": "SHOP_PASSWORD"}) == "[secret:SHOP_PASSWORD]"
    assert masked_value(["a", {"$secret": "K"}]) == ["a", "[secret:K]"]
    assert len(masked_value("x" * 10_000)) == jmod.MAX_VALUE


def test_dropped_with_the_space_unless_a_tool_was_learned():
    j = book()
    j.add_action(1, "t", {"op": "page.click"})
    j.add_action(2, "t", {"op": "page.click"})
    j.keep(2)
    j.forget(1)
    j.forget(2)
    assert j.read(1)["rounds"] == []
    assert len(j.read(2)["rounds"]) == 1


def test_a_store_that_refuses_writes_never_fails_the_action():
    db = sqlite3.connect(":memory:", isolation_level=None)
    j = Journal(db)
    db.close()
    j.add_action(1, "t", {"op": "page.click"})  # no exception: the action it records goes on
    j.end_round(1, "t", script="x", status="ok", error=None, started=None)
    j.forget(1)
