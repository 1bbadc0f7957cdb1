"""Docs for people (issue 13, point 7; issue 34, point 6): every block of the tutorial runs, in
order, as a reader runs it, against the demo shop the tutorial serves itself; troubleshooting lists every error code; the README has the
install and agent sections; no doc points at a file that is not in the repository; the guide's
URL waits do not use a glob that a redirect adding a parameter would break."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request

import pytest

from ego_browser._version import __version__
from ego_browser.errors import _all_classes
from ego_browser.schema.render import guide
from tests.conftest import ROOT

TUTORIAL = ROOT / "docs" / "tutorial.md"
PEOPLE_DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
               *sorted((ROOT / "skills").rglob("*.md"))]
#: what each block of the tutorial must do, in order, as the tutorial tells the reader: its exit
#: status and what it prints (a block that runs but does nothing fails here)
TUTORIAL_SAYS: list[tuple[int, list[str]]] = [
    (0, ["OK"]),                                            # ego-browser doctor
    (0, ["http://127.0.0.1:"]),                             # export SHOP=$(ego-browser demo-site --detach)
    (0, ["p1", "Kettle"]),                                  # 1. open
    (0, ["results:"]),                                      # 2. search
    (0, ["Added Travel Kettle"]),                           # 3. act
    (0, ["on", "Travel Kettle"]),                           # Locators
    (0, ["dialog:", "p2"]),                                 # 4. popup and dialog
    (0, ["'closed_space': True"]),                          # 5. finish
    (1, ["no gift wrapping here: EGO_SELECTOR_NOT_FOUND", "EGO_SELECTOR_NOT_FOUND:", "line 7"]),  # errors
    (0, ["Kettle & Co."]),                                  # python shop_title.py (the background host)
    (0, []),                                                # ego-browser host stop
    (0, ["Kettle & Co."]),                                  # python embedded_title.py (embedded())
    (0, ["stopped the demo site"]),                         # ego-browser demo-site --stop
]
_BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.S | re.M)


def tutorial_blocks() -> list[tuple[str, str]]:
    return _BLOCK.findall(TUTORIAL.read_text())


def test_the_tutorial_runs_block_by_block_in_one_terminal(tmp_path):
    """Every block of docs/tutorial.md, in order, as a reader runs it: shell blocks in bash (one
    terminal: what a block exports, the next one sees) with the venv's ``ego-browser`` first on
    the PATH, the Python programs saved under the name the tutorial gives and run with ``python``.
    The shop is the one the tutorial serves itself (``ego-browser demo-site``)."""
    blocks = tutorial_blocks()
    install, blocks = blocks[0], blocks[1:]
    # the one block not run: it makes the venv this test already runs in
    assert install[0] == "bash" and "pip install ego_browser" in install[1] and "activate" in install[1]
    assert "shop.example" not in TUTORIAL.read_text()
    assert len(blocks) == len(TUTORIAL_SAYS), [b[1].splitlines()[0] for b in blocks]
    venv_bin = os.path.dirname(sys.executable)
    assert os.path.exists(os.path.join(venv_bin, "ego-browser")), "the venv has no ego-browser command"
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("EGO_")}
    env.update(EGO_BROWSER_HOME=str(home), PYTHONPATH=str(ROOT), PATH=f"{venv_bin}:{env.get('PATH', '')}")
    terminal = tmp_path / "terminal.sh"  # what the reader's shell has exported so far
    terminal.write_text("")
    programs = iter(re.findall(r"`python (\w+\.py)`", TUTORIAL.read_text()))
    try:
        for i, ((kind, body), (status, says)) in enumerate(zip(blocks, TUTORIAL_SAYS), 1):
            if kind == "python":
                name = next(programs)
                (cwd / name).write_text(body)
                body = f"python {name}\n"
            script = f". {terminal}\n{body}\nexport -p > {terminal}.next\n"
            proc = subprocess.run(["bash", "-e", "-c", script], env=env, cwd=str(cwd), capture_output=True,
                                  text=True, timeout=300, stdin=subprocess.DEVNULL)
            out = proc.stdout + proc.stderr
            assert proc.returncode == status, f"tutorial block {i} exited {proc.returncode}:\n{body}\n---\n{out}"
            for word in says:
                assert word in out, f"tutorial block {i} printed:\n{out}"
            if status == 0:
                os.replace(f"{terminal}.next", terminal)
        shop = re.search(r"SHOP=\"?(http://127\.0\.0\.1:\d+)", terminal.read_text()).group(1)
        # the last block stopped the shop the tutorial served
        with pytest.raises(OSError):
            urllib.request.urlopen(shop, timeout=5)
    finally:
        for argv in (["host", "stop"], ["demo-site", "--stop"]):
            subprocess.run([os.path.join(venv_bin, "ego-browser"), *argv], env=env, capture_output=True,
                           timeout=60, stdin=subprocess.DEVNULL)


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
