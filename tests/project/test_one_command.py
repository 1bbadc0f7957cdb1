"""One command everywhere (issue 34 point 3): every text that tells an agent or a person how to
run something says ``ego-browser`` (the command pip installs), with ``python3 -m ego_browser``
only as the named fallback; ``python -m ego_browser`` fails on Debian (no ``python``) and, in a
venv install, runs whatever ``python`` the agent's shell finds.

Read: the skill, the README, the people's docs, the generated API reference, and every module
of the package (messages, help, the guide). Not read: docs/architecture.md and
docs/benchmarks.md (records of how things were measured), the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
OLD = re.compile(r"(?<![\w.])python -m ego_browser(?![.\w])")


def _texts() -> list[Path]:
    docs = [p for p in (ROOT / "docs").glob("*.md") if p.name not in ("architecture.md", "benchmarks.md")]
    return [*(ROOT / "skills").rglob("*.md"), ROOT / "README.md", *docs, *(ROOT / "ego_browser").rglob("*.py")]


def test_no_text_tells_anyone_to_run_python_dash_m() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}" for p in _texts()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if OLD.search(line)]
    assert not found, "say `ego-browser` (fallback: `python3 -m ego_browser`): " + ", ".join(found[:20])


def test_the_skill_says_how_to_find_the_command_of_a_venv_install() -> None:
    skill = (ROOT / "skills" / "ego-browser" / "SKILL.md").read_text(encoding="utf-8")
    assert "ego-browser skill" in skill and "command not found" in skill
    assert "bin/ego-browser" in skill and "python3 -m ego_browser" in skill
