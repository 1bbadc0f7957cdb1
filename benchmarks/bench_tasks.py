"""Whole tasks on local apps (benchmarks/tasks/): ego_browser vs agent-browser vs Playwright.

The work is in ``benchmarks/tasks/run.py`` (``make bench-tasks`` runs it alone and updates its
section of docs/benchmarks.md); this module lets ``run_all.py`` include it in ``make bench``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

RUNNER = Path(__file__).resolve().parent / "tasks" / "run.py"


def run() -> list[str]:
    os.environ.setdefault("BENCH_COMMAND", "make bench" if os.environ.get("MAKELEVEL") else "python benchmarks/run_all.py")
    spec = importlib.util.spec_from_file_location("tasks_run", RUNNER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run()


if __name__ == "__main__":
    print("\n\n".join(run()))
