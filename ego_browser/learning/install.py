"""``ego-browser install-skill``: copy the entry skill where agents look for skills.

Targets: ``~/.agents/skills/ego-browser``, Claude Code's ``~/.claude/skills/ego-browser``
(``$CLAUDE_CONFIG_DIR/skills``) and Codex's ``~/.codex/skills/ego-browser`` (``$CODEX_HOME/skills``).

Each copy we write gets a manifest, ``.ego-browser-install.json``, with the SHA-256 of every
file we put there. A copy is ours only while those files are unchanged; then it is updated in
place (files the user added, such as their own ``learnings/<site>/``, are kept). A copy without
our manifest (installed by the user or a package manager), a symlink, or one whose files were
edited or removed is never touched: it is reported as skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from .._version import __version__

__all__ = ["install_skill", "skill_source", "skill_targets", "MANIFEST"]

MANIFEST = ".ego-browser-install.json"
_SKIP_DIRS = {"__pycache__", ".git"}


def skill_source() -> Path:
    """The entry skill shipped with this ego_browser (package data, else the source tree)."""
    package = Path(__file__).resolve().parent.parent
    for skill in (package / "_skill" / "ego-browser", package.parent / "skills" / "ego-browser"):
        if (skill / "SKILL.md").is_file():
            return skill
    raise FileNotFoundError(f"the entry skill is missing (looked in {package / '_skill'} and "
                            f"{package.parent / 'skills'})")


def skill_targets(home: Path | None = None) -> list[tuple[str, Path]]:
    home = Path(home) if home is not None else Path.home()
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) if os.environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    codex = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else home / ".codex"
    return [
        ("agents", home / ".agents" / "skills" / "ego-browser"),
        ("claude", claude / "skills" / "ego-browser"),
        ("codex", codex / "skills" / "ego-browser"),
    ]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(root: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every regular file under ``root`` (no caches, no manifest)."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if rel == MANIFEST or name.endswith(".pyc"):
                continue
            out[rel] = _digest(full)
    return out


def _read_manifest(target: Path) -> dict[str, str] | None:
    try:
        data = json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None
    return files


def _modified(target: Path, installed: dict[str, str]) -> list[str]:
    """Files we installed that are now changed or gone."""
    changed = []
    for rel, digest in installed.items():
        path = target / rel
        if path.is_symlink() or not path.is_file() or _digest(path) != digest:
            changed.append(rel)
    return changed


def _write(source: Path, target: Path, files: dict[str, str], previous: dict[str, str]) -> None:
    for rel in files:
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".ego-tmp")
        shutil.copyfile(source / rel, tmp)
        shutil.copymode(source / rel, tmp)
        os.replace(tmp, dest)
    for rel in set(previous) - set(files):  # files we shipped before and no longer do
        (target / rel).unlink(missing_ok=True)
        parent = (target / rel).parent
        while parent != target and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    manifest = {"installed_by": "ego_browser", "version": __version__, "source": str(source), "files": files}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def install_one(source: Path, target: Path, files: dict[str, str]) -> str:
    """Install or update one copy; returns the status word and why."""
    if target.is_symlink():
        return "skipped (a symlink the user made; left untouched)"
    if not target.exists():
        _write(source, target, files, {})
        return "installed"
    if not target.is_dir():
        return "skipped (not a folder; left untouched)"
    installed = _read_manifest(target)
    if installed is None:
        return "skipped (installed by the user or another tool; left untouched)"
    changed = _modified(target, installed)
    if changed:
        shown = ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
        return f"skipped (user-modified: {shown}; left untouched)"
    clashes = [rel for rel in files if rel not in installed and (target / rel).exists()]
    if clashes:
        return f"skipped (user-modified: {', '.join(clashes[:3])} added; left untouched)"
    if installed == files:
        return "unchanged"
    _write(source, target, files, installed)
    return "updated"


def install_skill(home: Path | None = None, source: Path | None = None) -> Iterator[str]:
    """Install the entry skill into every target; yields one printable line per target."""
    source = Path(source) if source is not None else skill_source()
    files = _files(source)
    for name, target in skill_targets(home):
        try:
            status = install_one(source, target, files)
        except OSError as exc:
            status = f"failed ({exc})"
        yield f"{name}: {target}: {status}"
