"""Has the package's code changed since the warm worker imported it?

The worker (``round/worker.py``) must not run a round with code older than the files on disk.
It used to answer that with :func:`fingerprint` (a scandir + stat of every file) on every
round: 0.8 ms of each round's critical path. :class:`PackageWatch` asks the kernel instead
(Linux inotify over every directory of the package, through libc with ctypes: no polling,
one non-blocking read per round), and falls back to the fingerprint where inotify is not
available (another OS, no free watches). Only code files count (``.py``, ``.so``, ``.js``)
and directories; ``__pycache__`` is not watched (the worker writes ``.pyc`` files itself).
"""

from __future__ import annotations

import os
import struct

__all__ = ["fingerprint", "PackageWatch", "KINDS"]

KINDS = (".py", ".so", ".js")

# <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_DELETE_SELF, _IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ISDIR = 0x4000, 0x8000, 0x40000000
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, 0o2000000
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
         | _IN_DELETE_SELF | _IN_MOVE_SELF)
#: a watched directory itself went away, or the kernel dropped events: assume a change
_ALWAYS = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_Q_OVERFLOW | _IN_IGNORED
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


def _dirs(root: str) -> list[str]:
    found, stack = [], [root]
    while stack:
        d = stack.pop()
        found.append(d)
        with os.scandir(d) as it:
            stack.extend(e.path for e in it if e.is_dir(follow_symlinks=False) and e.name != "__pycache__")
    return found


def fingerprint(root: str) -> int:
    """A hash of the package's code files (names, sizes, mtimes): a change means re-import."""
    items: list[tuple[str, int, int]] = []
    for d in _dirs(root):
        with os.scandir(d) as it:
            for e in it:
                if e.name.endswith(KINDS) and not e.is_dir(follow_symlinks=False):
                    st = e.stat()
                    items.append((e.path, st.st_mtime_ns, st.st_size))
    return hash(tuple(sorted(items)))


def _code_event(mask: int, name: bytes) -> bool:
    if mask & _ALWAYS:
        return True
    if mask & _IN_ISDIR:
        return not name.startswith(b"__pycache__")
    return name.rstrip(b"\0").endswith(tuple(k.encode() for k in KINDS))


class PackageWatch:
    """Set up *before* the worker imports the package: an edit after that is always seen."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.fd = -1
        self.fp: int | None = None
        self.seen_change = False
        try:
            self.fd = self._inotify(root)
        except OSError:
            self.fp = fingerprint(root)

    @staticmethod
    def _inotify(root: str) -> int:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = int(libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        try:
            for d in _dirs(root):
                if libc.inotify_add_watch(fd, os.fsencode(d), _MASK) < 0:
                    raise OSError(ctypes.get_errno(), f"inotify_add_watch {d}")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def fileno(self) -> int:
        """The inotify descriptor for a selector (-1 with the fingerprint fallback)."""
        return self.fd

    def changed(self) -> bool:
        """Whether any code file changed since the watch began (reads what is pending, never blocks)."""
        if self.seen_change:
            return True
        if self.fd < 0:
            self.seen_change = fingerprint(self.root) != self.fp
            return self.seen_change
        while not self.seen_change:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            pos = 0
            while pos + _EVENT.size <= len(data):
                _wd, mask, _cookie, size = _EVENT.unpack_from(data, pos)
                name = data[pos + _EVENT.size:pos + _EVENT.size + size]
                pos += _EVENT.size + size
                if _code_event(mask, name):
                    self.seen_change = True
        return self.seen_change

    def edited_since_start(self) -> bool:
        """Count (and say) an edit made after this process started and before the watch began.

        The worker imports part of the package (its own modules, the command line) before it
        can set the watch up, and that can take a second on a loaded machine: a code file
        written since the process started may be newer than what it imported.
        """
        import time

        try:
            with open("/proc/self/stat", "rb") as fh:
                ticks = int(fh.read().rsplit(b") ", 1)[1].split()[19])
            started = time.time() - (time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK"))
        except (OSError, ValueError, IndexError):
            return False
        since = int((started - 0.05) * 1e9)  # the start time is in clock ticks (10 ms)
        for d in _dirs(self.root):
            with os.scandir(d) as it:
                for e in it:
                    if e.name.endswith(KINDS) and e.stat().st_mtime_ns >= since:
                        self.seen_change = True
        return self.seen_change

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
