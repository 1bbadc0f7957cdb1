"""Copying out of a source profile without trusting its shape (issue 31).

A source profile is a tree someone else made: a ``Network/up -> ..`` link once made the import
copy the same tree forever (3.7 GB, 765k files in two minutes), and an extension folder
linking to ``~/.ssh/id_rsa`` would have carried the key into the new profile. Here no link is
followed (a link, to a file or a folder, is left out and counted), only regular files are
read (a FIFO would block the reader forever; it is left out), and the whole copy has a byte
and a file budget. The scratch and build directories of an import carry the importing
process's pid in their names, so the next import sweeps what a killed one left behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..browser.launcher import pid_alive
from ..errors import InvalidState

__all__ = ["Budget", "BudgetExceeded", "copy_file", "copy_tree", "sweep_leftovers", "LEFTOVER_PREFIXES"]

#: names of the directories an import in progress owns: ``<prefix><pid>-<random>``
LEFTOVER_PREFIXES = (".new-", ".scratch-")
_CHUNK = 1 << 20


class BudgetExceeded(InvalidState):
    """The source is larger than an import copies: the whole import stops."""


def _limit(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


@dataclass
class Budget:
    """What one import may copy at most, and what it left out (reason -> count)."""

    max_bytes: int = field(default_factory=lambda: _limit("EGO_BROWSER_IMPORT_MAX_BYTES", 4 << 30))
    max_files: int = field(default_factory=lambda: _limit("EGO_BROWSER_IMPORT_MAX_FILES", 200_000))
    bytes: int = 0
    files: int = 0
    left_out: dict[str, int] = field(default_factory=dict)

    def leave_out(self, why: str) -> None:
        self.left_out[why] = self.left_out.get(why, 0) + 1

    def _charge(self, n_bytes: int, n_files: int = 0) -> None:
        self.bytes += n_bytes
        self.files += n_files
        if self.files > self.max_files or self.bytes > self.max_bytes:
            raise BudgetExceeded(
                f"profiles import: the source is larger than an import copies ({self.max_files} files, "
                f"{self.max_bytes} bytes; EGO_BROWSER_IMPORT_MAX_FILES / EGO_BROWSER_IMPORT_MAX_BYTES raise it); "
                "nothing was imported and nothing was left behind", api="profiles import")


def copy_file(src: Path, dst: Path, budget: Budget) -> bool:
    """Copy one regular file, never through a link; False (and counted) if it is not one."""
    try:
        st = os.lstat(src)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        budget.leave_out("a link (links are not followed)")
        return False
    if not stat.S_ISREG(st.st_mode):
        budget.leave_out("not a regular file (a FIFO, socket or device)")
        return False
    budget._charge(0, 1)
    # O_NOFOLLOW and O_NONBLOCK: the path cannot turn into a link or a FIFO between lstat and open
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            budget.leave_out("not a regular file (a FIFO, socket or device)")
            return False
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            while chunk := os.read(fd, _CHUNK):
                budget._charge(len(chunk))
                os.write(out, chunk)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    return True


def copy_tree(src: Path, dst: Path, budget: Budget, *, skip: frozenset[str] = frozenset()) -> int:
    """Copy the regular files of ``src`` (a real directory, not a link) into ``dst``; links and
    special files are left out and counted. Returns the number of files copied."""
    try:
        st = os.lstat(src)
    except FileNotFoundError:
        return 0
    if stat.S_ISLNK(st.st_mode):
        budget.leave_out("a link (links are not followed)")
        return 0
    if not stat.S_ISDIR(st.st_mode):
        return 0
    os.makedirs(dst, mode=0o700, exist_ok=True)
    copied = 0
    with os.scandir(src) as entries:
        for entry in entries:
            if entry.name in skip:
                continue
            if entry.is_symlink():
                budget.leave_out("a link (links are not followed)")
            elif entry.is_dir(follow_symlinks=False):
                budget._charge(0, 1)
                copied += copy_tree(Path(entry.path), dst / entry.name, budget, skip=skip)
            else:
                copied += copy_file(Path(entry.path), dst / entry.name, budget)
    return copied


def owner_pid(name: str) -> int | None:
    for prefix in LEFTOVER_PREFIXES:
        if name.startswith(prefix):
            head = name[len(prefix):].split("-", 1)[0]
            return int(head) if head.isdigit() else None
    return None


def sweep_leftovers(base: Path) -> list[str]:
    """Remove the scratch and build directories of imports whose process is gone."""
    swept: list[str] = []
    if not base.is_dir():
        return swept
    for child in base.iterdir():
        pid = owner_pid(child.name)
        if pid is None or pid == os.getpid() or pid_alive(pid):
            continue
        with contextlib.suppress(OSError):
            shutil.rmtree(child)
            swept.append(child.name)
    return swept
