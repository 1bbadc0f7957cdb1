"""What the repository tracks is the project's own files, never a link into this machine.

A worktree's ``benchmarks/.peers`` symlink (to the main checkout's peers) was once committed with
``git commit -a``: merging it replaced the main checkout's installed peers with a link to itself,
and every clone got a link to a path of the machine it was made on.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tracked() -> list[tuple[str, str]]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    rows = []
    for line in out.stdout.splitlines():
        meta, path = line.split("\t", 1)
        rows.append((meta.split()[0], path))
    return rows


def test_no_symlink_is_tracked():
    links = [path for mode, path in _tracked() if mode == "120000"]
    assert links == [], f"symlinks are tracked (remove them with git rm --cached): {links}"


def test_the_peers_directory_is_ignored_as_a_link_too():
    out = subprocess.run(["git", "check-ignore", "--no-index", "-q", "benchmarks/.peers"], cwd=ROOT, timeout=60)
    assert out.returncode == 0, "benchmarks/.peers must be ignored whether it is a directory or a link"
