"""Docs for people (issue 13, point 7): the tutorial's rounds run, in order, as real
``python -m ego_browser`` processes; troubleshooting lists every error code; the README has the
install and agent sections; no doc points at a file that is not in the repository; the guide's
URL waits do not use a glob that a redirect adding a parameter would break."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from ego_browser._version import __version__
from ego_browser.errors import _all_classes
from ego_browser.schema.render import guide
from tests.conftest import ROOT
from tests.integration.test_docs_examples import LEARNINGS, SHOP, rounds_of, shop  # noqa: F401 - shop is a fixture

TUTORIAL = ROOT / "docs" / "tutorial.md"
PEOPLE_DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
               *sorted((ROOT / "skills").rglob("*.md"))]
# what each tutorial round must print, in order (a round that runs but does nothing fails here)
TUTORIAL_SAYS = [["p1", "Kettle"], ["results:"], ["Added Travel Kettle"], ["dialog:", "p2"], ["'closed_space': True"]]


def test_the_tutorial_rounds_run_in_order(rounds, shop):  # noqa: F811 - the fixture
    scripts = rounds_of(TUTORIAL.read_text())
    assert len(scripts) == len(TUTORIAL_SAYS)
    env = {**rounds.env, "EGO_BROWSER_LEARNINGS_DIR": str(LEARNINGS)}
    for i, (script, says) in enumerate(zip(scripts, TUTORIAL_SAYS), 1):
        proc = subprocess.run([sys.executable, "-m", "ego_browser"], input=script.replace(SHOP, shop), env=env,
                              capture_output=True, text=True, timeout=180, cwd=str(ROOT))
        assert proc.returncode == 0, f"tutorial round {i} failed:\n{script}\n--- stderr:\n{proc.stderr}"
        for word in says:
            assert word in proc.stdout, f"tutorial round {i} printed:\n{proc.stdout}"


def test_troubleshooting_lists_every_error_code():
    text = (ROOT / "docs" / "troubleshooting.md").read_text()
    missing = [code for code in sorted(_all_classes()) if f"**`{code}`**" not in text]
    assert missing == [], f"docs/troubleshooting.md has no entry for {missing}"
    listed = set(re.findall(r"\*\*`(EGO_[A-Z_]+)`\*\*", text))
    assert listed <= set(_all_classes()), f"entries for codes that do not exist: {listed - set(_all_classes())}"


def test_readme_speaks_to_library_users_and_agents():
    text = (ROOT / "README.md").read_text()
    for heading in ("## Install as a library", "## Use from an agent"):
        assert heading in text
    assert "pip install ego_browser" in text and "install-skill" in text and "package-plugins" in text


def test_the_changelog_names_this_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog") and f"## {__version__}" in text


@pytest.mark.parametrize("path", PEOPLE_DOCS, ids=[str(p.relative_to(ROOT)) for p in PEOPLE_DOCS])
def test_docs_point_only_at_files_in_the_repository(path):
    text = path.read_text()
    # the design notes the project started from are not part of the repository
    gone = re.findall(r"(?<![\w/.-])(DESIGN|API|BEHAVIOURS|STYLE|PEERS)\.md", text)
    assert gone == [], f"{path.name} points at design files outside the repo: {gone}"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a URL
        assert (path.parent / target).exists(), f"{path.name} links to {target}, which does not exist"


def test_guide_url_waits_avoid_globs_with_a_query():
    # a glob must match the whole final URL: "**/search.html?q=kettle" times out when a redirect
    # adds a parameter; the guide shows re.compile(...) or a callable instead
    for source in (guide(), TUTORIAL.read_text()):
        globs = re.findall(r"await [\w.]+\.wait_for_url\(\s*\"([^\"]*\*[^\"]*)\"", source)
        assert [g for g in globs if "?" in g] == []
    assert "re.compile(" in guide() and "redirect" in guide()


def test_one_python_requirement_everywhere():
    import tomllib

    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"] == ">=3.11"
    for path in [*PEOPLE_DOCS, ROOT / "scripts" / "setup.sh"]:
        older = re.findall(r"Python 3\.(?:[0-9]|10)\b(?!\.)(?:\+| or newer)", path.read_text())
        assert older == [], f"{path.name} still says {older}"
