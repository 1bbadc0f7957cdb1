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
