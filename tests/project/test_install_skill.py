"""``python -m ego_browser install-skill`` (issue 6): install, update, never overwrite the user's copy.

HOME points at a temporary folder in every test; the real home is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ego_browser.learning.install import MANIFEST, install_skill, skill_source

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return h


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "src" / "ego-browser"
    shutil.copytree(skill_source(), src, ignore=shutil.ignore_patterns("__pycache__"))
    return src


TARGETS = (".agents/skills/ego-browser", ".claude/skills/ego-browser", ".codex/skills/ego-browser")


def statuses(home, source):
    return [line.split(": ", 2)[2] for line in install_skill(home=home, source=source)]


def test_cli_installs_into_three_folders(home):
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    run = subprocess.run([sys.executable, "-m", "ego_browser", "install-skill"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3 and all(line.endswith(": installed") for line in lines), lines
    for rel in TARGETS:
        target = home / rel
        assert (target / "SKILL.md").read_text() == (skill_source() / "SKILL.md").read_text()
        assert (target / "references" / "install.md").is_file()
        manifest = json.loads((target / MANIFEST).read_text())
        assert "SKILL.md" in manifest["files"]
    again = subprocess.run([sys.executable, "-m", "ego_browser", "install-skill"], env=env, capture_output=True,
                           text=True, timeout=60)
    assert all(line.endswith(": unchanged") for line in again.stdout.splitlines()), again.stdout
    bad = subprocess.run([sys.executable, "-m", "ego_browser", "install-skill", "extra"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "usage" in bad.stderr


def test_update_replaces_only_our_unchanged_copies(home, source):
    assert statuses(home, source) == ["installed"] * 3
    # the user edits the Codex copy and adds a pack to the agents copy
    (home / TARGETS[2] / "SKILL.md").write_text("my own notes\n")
    mine = home / TARGETS[0] / "learnings" / "mysite" / "notes.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("keep me\n")
    # a new release changes the skill
    (source / "SKILL.md").write_text((source / "SKILL.md").read_text() + "\nNew in this release.\n")
    (source / "references" / "new.md").write_text("new\n")
    result = statuses(home, source)
    assert result[0] == "updated" and result[1] == "updated"
    assert result[2].startswith("skipped (user-modified: SKILL.md")
    for rel in TARGETS[:2]:
        assert "New in this release." in (home / rel / "SKILL.md").read_text()
        assert (home / rel / "references" / "new.md").is_file()
    assert mine.read_text() == "keep me\n"
    assert (home / TARGETS[2] / "SKILL.md").read_text() == "my own notes\n"
    assert not (home / TARGETS[2] / "references" / "new.md").exists()
    assert statuses(home, source)[:2] == ["unchanged", "unchanged"]


def test_user_installed_copies_and_symlinks_are_left_alone(home, source, tmp_path):
    own = home / TARGETS[0]
    own.mkdir(parents=True)
    (own / "SKILL.md").write_text("installed by hand\n")
    elsewhere = tmp_path / "shared-skill"
    elsewhere.mkdir()
    (elsewhere / "SKILL.md").write_text("shared\n")
    link = home / TARGETS[1]
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere)
    result = statuses(home, source)
    assert result[0].startswith("skipped (installed by the user")
    assert result[1].startswith("skipped (a symlink")
    assert result[2] == "installed"
    assert (own / "SKILL.md").read_text() == "installed by hand\n"
    assert not (own / MANIFEST).exists()
    assert (elsewhere / "SKILL.md").read_text() == "shared\n" and link.is_symlink()


def test_deleted_file_counts_as_modified(home, source):
    statuses(home, source)
    (home / TARGETS[1] / "references" / "install.md").unlink()
    (source / "SKILL.md").write_text("v2\n")
    result = statuses(home, source)
    assert result[1].startswith("skipped (user-modified: references/install.md")
    assert result[0] == result[2] == "updated"
