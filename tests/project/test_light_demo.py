"""`make demo` is light (issue 34 point 6): no Java, no Grid, no Xvfb on its path.

The Grid's parts (Java 17, chromedriver, the Selenium jar) and Xvfb are for the tests that need
them; `make test` installs them, `make demo` must not (it stopped on a machine without root).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_make_demo_runs_the_set_up_in_its_demo_mode() -> None:
    plan = subprocess.run(["make", "-n", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert plan.returncode == 0, plan.stderr
    assert "scripts/setup.sh --demo" in plan.stdout
    assert "setup_grid" not in plan.stdout and "java" not in plan.stdout.lower()


def test_the_demo_set_up_never_reaches_the_grid_or_xvfb_parts() -> None:
    # traced for real (the venv is already current here, so this is quick): what the shell ran
    env = {**os.environ, "PS4": "+TRACE "}
    env.pop("EGO_BROWSER_SKIP_GRID_SETUP", None)
    run = subprocess.run(["bash", "-x", "scripts/setup.sh", "--demo"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    traced = "\n".join(line for line in run.stderr.splitlines() if line.startswith("+"))
    assert "setup_grid.sh" not in traced
    assert "apt-get install -y -qq xvfb" not in traced
    assert "[setup] Chromium found" in run.stdout or "no local Chromium needed" in run.stdout
