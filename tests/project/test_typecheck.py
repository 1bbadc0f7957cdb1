"""The type check is part of the suite's contract (issue 10 point 6).

``make test`` runs ``mypy --strict`` over ``ego_browser/`` before pytest, so a type error fails
the run; these tests keep that wiring, the strict settings and the rule for ``type: ignore``
(an error code and a reason) from eroding. mypy itself runs in ``make test``, not here.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "ego_browser"
#: generated; its docstring gives the one reason for all of its ignores
GENERATED = PACKAGE / "client" / "_generated.py"
GEN_CLIENT = PACKAGE / "schema" / "gen_client.py"

_IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)$")


def _recipe(target: str) -> list[str]:
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"{target}\s*:", line))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_make_test_type_checks_before_running_the_suite() -> None:
    recipe = _recipe("test")
    mypy = [i for i, cmd in enumerate(recipe) if "-m mypy" in cmd]
    pytest = [i for i, cmd in enumerate(recipe) if "-m pytest" in cmd]
    assert mypy and pytest, f"make test must run mypy and pytest, runs {recipe}"
    assert mypy[0] < pytest[0], f"make test must type-check first, runs {recipe}"
    assert not any(cmd.startswith("-") or " || " in cmd for cmd in recipe[: mypy[0] + 1]), (
        "a failing type check must stop make test"
    )


def test_mypy_is_strict_over_the_package_and_installed_by_setup() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    settings = project["tool"]["mypy"]
    assert settings.get("strict") is True
    assert settings.get("files") == ["ego_browser"]
    # no per-module escape hatch: the whole package is held to --strict
    assert "overrides" not in settings
    test_extra = project["project"]["optional-dependencies"]["test"]
    assert any(re.match(r"mypy\b", dep) for dep in test_extra), "make setup installs the test extra"


def _unexplained_ignores(text: str, name: str, *, generated: bool = False) -> list[str]:
    bad = []
    lines = text.splitlines()
    for n, line in enumerate(lines):
        m = _IGNORE.search(line)
        if m is None:
            continue
        where = f"{name}:{n + 1}"
        if not m.group("codes"):
            bad.append(f"{where}: a bare type: ignore (name the error code)")
            continue
        reason_here = m.group("rest").strip().lstrip("#").strip()
        above = lines[n - 1].strip() if n else ""
        if not reason_here and not above.startswith("#") and not generated:
            bad.append(f"{where}: say why (a comment after it, or on the line above)")
    return bad


def test_every_type_ignore_names_its_code_and_says_why() -> None:
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == GEN_CLIENT:
            continue  # the generator's own text: it writes ignores into GENERATED
        name = str(path.relative_to(ROOT))
        bad += _unexplained_ignores(path.read_text(), name, generated=path == GENERATED)
    assert not bad, "\n".join(bad)


def test_the_ignore_rule_catches_what_it_should() -> None:
    text = "\n".join([
        "x = f()  # type: ignore",
        "y = f()  # type: ignore[misc]",
        "z = f()  # type: ignore[misc]  # typeshed marks it Final",
        "# the C module has no stub",
        "import _c  # type: ignore[import-not-found]",
    ])
    assert _unexplained_ignores(text, "sample.py") == [
        "sample.py:1: a bare type: ignore (name the error code)",
        "sample.py:2: say why (a comment after it, or on the line above)",
    ]
