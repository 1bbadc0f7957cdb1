"""docs/security.md names the tests that cover each threat; this keeps that list honest: every
test it names exists, and every row of its threat tables names at least one test by name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ego_browser.pysource import parse

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "security.md"
#: `tests/...py` or `tests/...py::test_name`, as the doc quotes them
_NAMED = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`")
_SECTION = "## Threats and the tests that cover them"


def _tests_in(path: Path) -> set[str]:
    tree = parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name.startswith("test_")}


def test_every_test_the_security_doc_names_exists():
    text = DOC.read_text(encoding="utf-8")
    named = _NAMED.findall(text)
    assert len(named) > 50
    missing = []
    for file, name in named:
        path = ROOT / file
        if not path.is_file():
            missing.append(file)
        elif name and name not in _tests_in(path):
            missing.append(f"{file}::{name}")
    assert not missing, f"docs/security.md names tests that do not exist: {sorted(set(missing))}"


def test_every_threat_row_names_a_test_by_name():
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(_SECTION):]
    rows = [line for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| threat |")]
    assert len(rows) > 40
    bare = [row for row in rows if not any(name for _file, name in _NAMED.findall(row))]
    assert not bare, f"threat rows naming no test (file::test): {bare}"
