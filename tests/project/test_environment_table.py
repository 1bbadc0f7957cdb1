"""Every environment variable is documented in one table (issue 34 point 7).

docs/environment.md lists the ``EGO_BROWSER_*`` variables; this test reads the names the code
and the set-up scripts use and compares both ways, so a new variable cannot land undocumented
and a removed one cannot linger in the table. Error codes that happen to start with
``EGO_BROWSER_`` (``EGO_BROWSER_LOST``) are not variables and are left out by reading the
error classes themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

from ego_browser import errors

ROOT = Path(__file__).resolve().parent.parent.parent
NAME = re.compile(r"\bEGO_BROWSER_[A-Z0-9_]+\b")


def _error_codes() -> set[str]:
    codes = set()
    for obj in vars(errors).values():
        code = getattr(obj, "code", None)
        if isinstance(obj, type) and isinstance(code, str):
            codes.add(code)
    return codes


def _used() -> set[str]:
    found: set[str] = set()
    sources = [*(ROOT / "ego_browser").rglob("*.py"), *(ROOT / "scripts").glob("*.sh"), ROOT / "Makefile"]
    for path in sources:
        found |= set(NAME.findall(path.read_text(encoding="utf-8")))
    return found - _error_codes()


def _documented() -> set[str]:
    text = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"^\| `(EGO_BROWSER_[A-Z0-9_]+)` \|", text, re.M)}


def test_every_variable_the_code_reads_is_in_the_table() -> None:
    missing = sorted(_used() - _documented())
    assert not missing, f"add these to docs/environment.md: {missing}"


def test_the_table_names_no_variable_the_code_does_not_read() -> None:
    stale = sorted(_documented() - _used())
    assert not stale, f"docs/environment.md documents variables nothing reads: {stale}"
