"""The profile store: ``HOME/profiles/<id>/``, one directory per profile.

``default`` is the persistent Chromium profile the host launches on (its cookies live in
Chromium's own files). Every other profile is a directory of ours::

    profile.json        {id, name, created_from, created_at, source_version}
    cookies.json        the cookies a space of this profile starts with (CDP cookie params);
                        written back when such a space finishes and when the host stops
    local_storage.json  {origin: {key: value}}
    permissions.json    [{origin, name, setting}]
    import.json         the import report (per category: imported, skipped, why)
    Bookmarks, History, Login Data, Extensions/   copied from the source, in Chromium's formats

A space of such a profile runs in one browser context shared by the profile's spaces, seeded
from these files (docs/architecture.md "Profiles" says why it is not a Chromium profile
directory). Every write is atomic (a temporary file renamed over the old one); a new profile
is built under a dot-name and renamed into place, and a removed one is renamed away first, so
a listing never sees half a profile.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

from .. import config
from ..errors import InvalidArgument, ProfileNotFound

__all__ = [
    "DEFAULT", "Profile", "list_profiles", "get", "create", "remove", "new_dir", "commit_dir",
    "read_json", "write_json",
]

DEFAULT = "default"


class Profile(dict[str, Any]):
    """``{id, name, is_default, created_from}`` plus where it lives (``path``, not listed)."""

    @property
    def path(self) -> Path:
        return Path(self["_path"])

    def public(self) -> dict[str, Any]:
        return {k: v for k, v in self.items() if not k.startswith("_")}


def root(home: Path | None = None) -> Path:
    return (home or config.home()) / "profiles"


def read_json(path: Path, default: Any) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return default
    except orjson.JSONDecodeError:
        return default


def write_json(path: Path, value: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(orjson.dumps(value, option=orjson.OPT_INDENT_2))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _load(path: Path) -> Profile:
    meta = read_json(path / "profile.json", {})
    meta = meta if isinstance(meta, dict) else {}
    return Profile(
        id=path.name, name=str(meta.get("name") or path.name), is_default=False,
        created_from=meta.get("created_from"), source_version=meta.get("source_version"), _path=path,
    )


def list_profiles(home: Path | None = None) -> list[Profile]:
    base = root(home)
    found = [Profile(id=DEFAULT, name="Default", is_default=True, created_from=None, source_version=None,
                     _path=base / DEFAULT)]
    if base.is_dir():
        for child in sorted(base.iterdir()):
            if child.is_dir() and child.name != DEFAULT and not child.name.startswith("."):
                found.append(_load(child))
    return found


def get(profile_id: str, home: Path | None = None) -> Profile:
    if isinstance(profile_id, str) and profile_id == DEFAULT:
        return list_profiles(home)[0]
    if not isinstance(profile_id, str) or not _ID.fullmatch(profile_id):
        raise ProfileNotFound(f"Profile not found: {profile_id!r}; see profiles()", profile_id=str(profile_id))
    path = root(home) / profile_id
    if not path.is_dir():
        raise ProfileNotFound(
            f"Profile not found: {profile_id} (it was removed, or never existed); see profiles() "
            "or `ego-browser profiles list`", profile_id=profile_id,
        )
    return _load(path)


_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", name.strip().lower()).strip("-._")[:48]
    return slug or "profile"


def check_name(name: Any, api: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > 100 or any(ord(c) < 32 for c in name):
        raise InvalidArgument(
            f"{api}: NAME must be a non-empty name of at most 100 printable characters (got {name!r})",
            api=api, option="name", expected="non-empty str",
        )
    return name.strip()


def new_dir(name: str, home: Path | None = None) -> Path:
    """A private build directory for a new profile (renamed into place by ``commit_dir``)."""
    base = root(home)
    config.ensure_private_dir(base)
    # the pid in the name lets the next import sweep what a killed one left (safe_copy.sweep_leftovers)
    build = base / f".new-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    build.mkdir(mode=0o700)
    return build


def commit_dir(build: Path, name: str, meta: dict[str, Any], home: Path | None = None) -> Profile:
    """Write ``profile.json`` and move the build directory to a free id derived from ``name``."""
    base = root(home)
    write_json(build / "profile.json", {"name": name, "created_at": time.time(), **meta})
    stem = _slug(name)
    if stem == DEFAULT:
        stem = "default-2"
    for n in range(1, 1000):
        candidate = base / (stem if n == 1 else f"{stem}-{n}")
        try:
            # rename onto an absent name only: a concurrent `profiles new` of the same name
            # gets the next id instead of replacing this one
            os.mkdir(candidate, 0o700)
        except FileExistsError:
            continue
        try:
            os.rename(build, candidate)  # replaces the empty directory just made, atomically
        except OSError:
            os.rmdir(candidate)
            raise
        return _load(candidate)
    raise InvalidArgument(f"too many profiles named {name!r}", api="profiles new", option="name",
                          expected="another name")


def _refuse_duplicate(name: str, api: str, home: Path | None) -> None:
    # two profiles one name apart only by an id suffix are a trap for the person picking one
    for prof in list_profiles(home):
        if str(prof["name"]).casefold() == name.casefold():
            raise InvalidArgument(
                f"{api}: a profile named {prof['name']!r} already exists (id {prof['id']}); use it, "
                "choose another name, or remove it first (`ego-browser profiles rm ID`)",
                api=api, option="name", expected="a name no profile has",
            )


def create(name: str, home: Path | None = None, *, created_from: str | None = None) -> Profile:
    name = check_name(name, "profiles new")
    _refuse_duplicate(name, "profiles new", home)
    build = new_dir(name, home)
    try:
        for fname, empty in (("cookies.json", []), ("local_storage.json", {}), ("permissions.json", [])):
            write_json(build / fname, empty)
        return commit_dir(build, name, {"created_from": created_from}, home)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


def remove(profile_id: str, home: Path | None = None) -> Profile:
    if profile_id == DEFAULT:
        raise InvalidArgument(
            "profiles rm: the default profile cannot be removed (it is the browser's own)",
            api="profiles rm", option="id", expected="a profile id other than default",
        )
    profile = get(profile_id, home)
    trash = root(home) / f".removed-{profile_id}-{uuid.uuid4().hex[:8]}"
    os.rename(profile.path, trash)  # gone from listings at once; the delete may take a while
    shutil.rmtree(trash, ignore_errors=True)
    return profile
