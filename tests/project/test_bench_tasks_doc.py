"""The task benchmark rewrites its section of docs/benchmarks.md and keeps the notes people
wrote under it (they were lost at every run)."""

from __future__ import annotations

import sys

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks" / "tasks"))

import run  # noqa: E402


def test_a_new_run_replaces_the_tables_and_keeps_the_notes(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## bench_x\n\nother\n\n## bench_tasks\n\nold tables\n\n"
                   f"{run.NOTES}\n\nwhat moved the figures\n\n## bench_y\n\nlast\n")
    run.update_doc("new tables", doc)
    text = doc.read_text()
    assert "old tables" not in text
    assert text.index("new tables") < text.index(run.NOTES) < text.index("what moved the figures") < text.index("## bench_y")
    assert "## bench_x\n\nother" in text and text.endswith("## bench_y\n\nlast\n")
    run.update_doc("newer tables", doc)  # and again: the notes stay once, after the tables
    text = doc.read_text()
    assert text.count(run.NOTES) == 1 and "new tables" not in text and "newer tables" in text


def test_a_section_without_notes_is_replaced_whole(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## bench_tasks\n\nold\n")
    run.update_doc("fresh", doc)
    assert doc.read_text() == "# Benchmarks\n\n## bench_tasks\n\nfresh\n"


def _rec(task, tool, seconds, turns):
    return {"task": task, "tool": tool, "run": 1, "success": True, "detail": "", "seconds": seconds,
            "turns": turns, "calls": turns, "bytes": 1000, "floor": 0.5, "loads": [0.5]}


def test_the_round_cost_diagnostic_is_reported_apart_from_the_targets():
    tools = ["ego", "agent-browser", run.DIAGNOSTIC]
    result = {"tasks": ["orders"], "tools": tools, "missing": {}, "runs": 1, "runs_done": 1, "stopped": "",
              "load_start": (0.1, 0, 0), "load_end": (0.2, 0, 0), "steal": None, "seconds": 9.0, "cpus": 2,
              "started": "2026-12-03 00:00 UTC",
              "records": [_rec("orders", "ego", 2.0, 4), _rec("orders", "agent-browser", 2.5, 6),
                          _rec("orders", run.DIAGNOSTIC, 1.6, 4)]}
    text = run.render(result, run.summarize(result), "make bench-tasks", None)
    targets = text[text.index("| ego_browser target"):text.index("Diagnostic")]
    assert run.DIAGNOSTIC not in targets  # the targets compare the agent's real rounds only
    line = text[text.index("Diagnostic"):].split("\n", 1)[0]
    assert "1.60 s" in line and "cost 0.40 s (100 ms each" in line
    assert "0.64× agent-browser's (with them 0.80×)" in line


def _spa_rec(task, tool, turns, *, stale=0, relooks=0, other=0, changing=0, ok=True):
    return {**_rec(task, tool, 3.0, turns), "success": ok, "stale_failures": stale, "other_failures": other,
            "relooks": relooks, "changing_looks": changing, "failed_rounds": ["EGO_STALE_REF"] * stale}


def test_the_spa_set_reports_stale_ref_failures_and_relooks_apart_from_the_admin_set():
    tools = ["ego", "agent-browser", "playwright"]
    records = [_rec("orders", "ego", 2.0, 4), _rec("orders", "agent-browser", 2.5, 6), _rec("orders", "playwright", 1, 1),
               _spa_rec("spa_rename", "ego", 4), _spa_rec("spa_rename", "agent-browser", 7, relooks=3),
               _spa_rec("spa_rename", "playwright", 1),
               _spa_rec("spa_edit", "ego", 5, stale=1, changing=2),
               _spa_rec("spa_edit", "agent-browser", 9, relooks=4, other=1), _spa_rec("spa_edit", "playwright", 1)]
    result = {"tasks": ["orders", "spa_rename", "spa_edit"], "tools": tools, "missing": {}, "runs": 1,
              "runs_done": 1, "stopped": "", "load_start": (0.1, 0, 0), "load_end": (0.2, 0, 0), "steal": None,
              "seconds": 9.0, "cpus": 2, "started": "2026-12-06 00:00 UTC", "records": records}
    text = run.render_sets(result, "make bench-tasks", None)
    admin, spa = text.split(f"### {run.SET_TITLES['spa']}")
    assert "SPA rounds" not in admin and "spa_" not in admin.lower()  # the admin totals hold the admin tasks only
    rounds = spa[spa.index("**SPA rounds**"):spa.index("| ego_browser on the SPA set")]
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in rounds.splitlines() if line.startswith("| ")]
    assert rows[0][:2] == ["task", "tool"] and rows[0][5:] == ["stale-ref failures", "other failures", "re-looks",
                                                               "changing looks"]
    edit = rows.index(next(r for r in rows if r[0].startswith("S4.")))
    assert rows[edit][1:] == ["ego", "1/1", "5", "1.0", "1", "0", "0", "2"]
    assert rows[edit + 1][1:] == ["agent-browser", "1/1", "9", "1.0", "0", "1", "4", "—"]
    assert not any(r[1] == "playwright" for r in rows)  # one script: nothing to count
    targets = spa[spa.index("| ego_browser on the SPA set"):]
    assert "| failed rounds caused by a stale ref | 1 | 0 | **not met** |" in targets
    assert "| re-looks a settle wait would have saved | 0 | 0 | met |" in targets
    assert "| turns (agent-browser's) | 9 (16; 16 CLI calls) |" in targets
    assert "agent-browser: stale-ref failures, re-looks | 0, 7 |" in targets
