"""The Chromium directory of an imported profile: what its own browser is launched on.

Bookmarks, history, saved logins and extensions live in files a browser loads only from
its own profile directory at launch; an in-memory context made over CDP never sees them. So a
space on an imported profile runs in a Chromium of its own, launched on
``HOME/profiles/<id>/chromium/`` (docs/architecture.md "Profiles"). That directory is made
on first use from the imported files: ``Default/Bookmarks``, ``Default/History`` and
``Default/Login Data`` are copies (the import keeps its own), and each imported extension is
loaded unpacked with ``--load-extension``. From then on the browser keeps the directory up to
date itself (a visit is added to its history, a bookmark saved there stays).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .. import config
from . import store

__all__ = ["uses_own_browser", "user_data_dir", "prepare", "extension_dirs", "launch_args"]

#: files the import writes in Chromium's own formats, copied into the browser's profile
_COPIED = ("Bookmarks", "History", "Login Data")
_READY = ".ego-prepared"


def uses_own_browser(profile: store.Profile) -> bool:
    """An imported profile brings data only its own Chromium can load; a profile made with
    ``profiles new`` has none, and keeps the fast in-memory context of the shared browser."""
    return not profile["is_default"] and bool(profile.get("created_from"))


def user_data_dir(profile: store.Profile) -> Path:
    return profile.path / "chromium"


def prepare(profile: store.Profile) -> Path:
    """The profile's Chromium directory, made from the imported files the first time."""
    root = user_data_dir(profile)
    default = root / "Default"
    if (root / _READY).is_file():
        return root
    config.ensure_private_dir(root)
    config.ensure_private_dir(default)
    for name in _COPIED:
        src = profile.path / name
        if src.is_file():
            tmp = default / f".{name}.tmp"
            shutil.copyfile(src, tmp)
            os.chmod(tmp, 0o600)
            os.replace(tmp, default / name)
    # written last: a launch interrupted before this copies again rather than half
    fd = os.open(root / _READY, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.close(fd)
    return root


def extension_dirs(profile: store.Profile) -> list[Path]:
    """Each imported extension's unpacked directory (``Extensions/<id>/<version>/``)."""
    base = profile.path / "Extensions"
    if not base.is_dir():
        return []
    found = []
    for ext in sorted(base.iterdir()):
        versions = sorted(v for v in ext.iterdir() if (v / "manifest.json").is_file()) if ext.is_dir() else []
        if versions:
            found.append(versions[-1])
    return found


def launch_args(profile: store.Profile) -> list[str]:
    """Extra Chromium flags for the profile's browser: its extensions, loaded unpacked."""
    dirs = extension_dirs(profile)
    if not dirs:
        return []
    # a comma separates paths in this switch; a path with one cannot be given
    usable = [str(d) for d in dirs if "," not in str(d)]
    return [f"--load-extension={','.join(usable)}"] if usable else []
