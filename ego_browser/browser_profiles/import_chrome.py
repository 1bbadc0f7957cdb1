"""Import a Chrome / Chromium / Brave / Edge profile (Linux) into a new profile of ours.

The source is only read: its files are copied into a private scratch directory first (SQLite
databases with their journals, so a hot journal is rolled back in the copy, never in the
source) and everything is parsed from the copy. A source browser that is running holds
``SingletonLock`` in its user-data directory; the import refuses then, because its databases
change under a copy and Chromium writes cookies out lazily.

Each category reports what it imported and what it could not, with the reason; nothing is
dropped silently. A category whose source part is corrupt or unreadable fails alone (its
``failed`` says why) and the others import. Links in the source are never followed and the
copy has a byte and file budget (``safe_copy.py``).
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import uuid
from pathlib import Path
from typing import Any, Callable

from ..errors import EgoError, InvalidArgument, InvalidState
from . import crypto, leveldb, store
from .safe_copy import Budget, BudgetExceeded, copy_file, copy_tree, sweep_leftovers

__all__ = ["SOURCES", "resolve_source", "import_profile", "running_pid"]

#: --from NAME -> its user-data directory under ~/.config
SOURCES = {
    "chrome": ".config/google-chrome",
    "chromium": ".config/chromium",
    "brave": ".config/BraveSoftware/Brave-Browser",
    "edge": ".config/microsoft-edge",
}
API = "profiles import"
#: Chromium's epoch (1601-01-01) to Unix seconds
_EPOCH_DELTA = 11644473600
#: Preferences content-setting name -> CDP PermissionDescriptor name (the ones CDP can set)
PERMISSIONS = {
    "geolocation": "geolocation",
    "notifications": "notifications",
    "media_stream_camera": "videoCapture",
    "media_stream_mic": "audioCapture",
    "midi_sysex": "midiSysex",
    "clipboard": "clipboardReadWrite",
    "background_sync": "backgroundSync",
    "sensors": "sensors",
    "idle_detection": "idleDetection",
    "local_fonts": "localFonts",
    "window_placement": "windowManagement",
    "durable_storage": "durableStorage",
    "protocol_handler": "protocolHandler",
}
_SETTINGS = {1: "granted", 2: "denied"}
_SAMESITE = {0: "None", 1: "Lax", 2: "Strict"}


def resolve_source(spec: str | None, from_dir: str | None, home_dir: Path | None = None) -> tuple[str, Path, Path]:
    """(browser, user-data dir, profile dir) for ``--from chrome[:Profile 2]`` or ``--from-dir``."""
    if (spec is None) == (from_dir is None):
        raise InvalidArgument(f"{API}: give exactly one of --from BROWSER[:PROFILE] or --from-dir DIR",
                              api=API, option="from", expected="--from or --from-dir")
    if spec is not None:
        browser, _, profile = spec.partition(":")
        browser = browser.strip().lower()
        if browser not in SOURCES:
            raise InvalidArgument(f"{API}: unknown browser {browser!r}; one of {', '.join(SOURCES)} (or --from-dir DIR)",
                                  api=API, option="from", expected=" | ".join(SOURCES))
        user_data = (home_dir or Path.home()) / SOURCES[browser]
        profile_dir = user_data / (profile.strip() or "Default")
    else:
        assert from_dir is not None  # exactly one of the two was given (checked above)
        path = Path(from_dir).expanduser().absolute()
        browser = "chromium"
        for name, rel in SOURCES.items():
            if rel.rsplit("/", 1)[-1].lower() in str(path).lower():
                browser = name
        if (path / "Preferences").is_file():
            user_data, profile_dir = path.parent, path
        else:
            user_data, profile_dir = path, path / "Default"
    if not (profile_dir / "Preferences").is_file():
        raise InvalidArgument(
            f"{API}: no browser profile at {profile_dir} (no Preferences file); give --from-dir the browser's "
            "user-data directory or one profile directory inside it", api=API, option="from", expected="a profile",
        )
    return browser, user_data, profile_dir


def running_pid(user_data: Path) -> int | None:
    """The pid of a browser holding ``user_data``, from its ``SingletonLock`` (host-pid), or
    None when the lock is absent or stale (its process is gone)."""
    try:
        target = os.readlink(user_data / "SingletonLock")
    except OSError:
        return None
    host, _, pid = target.rpartition("-")
    if not pid.isdigit():
        return -1
    if host != socket.gethostname():
        return int(pid)  # another machine's browser (a shared home): assume it runs
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return int(pid)


def _copy_source(profile_dir: Path, user_data: Path, scratch: Path, budget: Budget) -> dict[str, str]:
    """Copy what the import reads; the source is opened for reading only, never through a
    link. Returns {source file: why it could not be read}."""
    problems: dict[str, str] = {}

    def one(src: Path, dst: Path, name: str) -> None:
        try:
            before = dict(budget.left_out)
            if not copy_file(src, dst, budget) and budget.left_out != before:
                problems[name] = f"{name} is not a regular file (a link, FIFO or device): left out"
        except EgoError:
            raise
        except OSError as exc:
            problems[name] = f"{name} could not be read: {exc.strerror or exc}"

    names = ["Cookies", "Login Data", "History", "Bookmarks", "Preferences", "Secure Preferences"]
    for name in names:
        for suffix in ("", "-journal", "-wal"):
            one(profile_dir / (name + suffix), scratch / (name + suffix), name)
    for sub in ("Local Storage/leveldb", "Network"):
        try:
            copy_tree(profile_dir / sub, scratch / sub, budget, skip=frozenset({"LOCK"}))
        except EgoError:
            raise
        except OSError as exc:
            problems[sub] = f"{sub} could not be read: {exc.strerror or exc}"
    if (scratch / "Network" / "Cookies").is_file() and not (scratch / "Cookies").is_file():
        for suffix in ("", "-journal", "-wal"):  # newer Chromium keeps cookies under Network/
            src = scratch / "Network" / ("Cookies" + suffix)
            if src.is_file():
                shutil.copyfile(src, scratch / ("Cookies" + suffix))
    one(user_data / "Last Version", scratch / "Last Version", "Last Version")
    return problems


#: category -> (the source files it reads, the files it writes into the new profile)
_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cookies": (("Cookies", "Network"), ("cookies.json",)),
    "logins": (("Login Data",), ("Login Data",)),
    "bookmarks": (("Bookmarks",), ("Bookmarks",)),
    "history": (("History",), ("History",)),
    "permissions": (("Preferences",), ("permissions.json",)),
    "local_storage": (("Local Storage/leveldb",), ("local_storage.json",)),
    "extensions": ((), ("Extensions",)),
}


def _run_category(name: str, problems: dict[str, str], out: Path, fn: Callable[..., dict[str, Any]],
                  *args: Any) -> dict[str, Any]:
    """One category, failing alone: a corrupt or unreadable part of the source reports why and
    leaves nothing half-written in the new profile."""
    reads, writes = _PARTS[name]
    try:
        cat = fn(*args)
        failed = next((problems[r] for r in reads if r in problems), None)
    except BudgetExceeded:
        raise
    except EgoError as exc:
        cat, failed = _category(), exc.message
    except (sqlite3.Error, OSError, ValueError, TypeError, KeyError, AttributeError, UnicodeError,
            leveldb.LevelDbError) as exc:
        cat, failed = _category(), f"{type(exc).__name__}: {exc}"[:300]
    if failed is not None:
        cat["failed"] = failed
        if not cat["imported"]:
            for written in writes:
                target = out / written
                if target.is_dir():
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    target.unlink(missing_ok=True)
    return cat


def _category() -> dict[str, Any]:
    return {"imported": 0, "skipped": 0, "reasons": {}}


def _skip(cat: dict[str, Any], why: str, n: int = 1) -> None:
    cat["skipped"] += n
    cat["reasons"][why] = cat["reasons"].get(why, 0) + n


def _db(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=5)
    db.row_factory = sqlite3.Row
    return db


def _cookies(scratch: Path, dec: crypto.Decryptor, out: Path) -> dict[str, Any]:
    cat = _category()
    cookies: list[dict[str, Any]] = []
    path = scratch / "Cookies"
    if path.is_file():
        db = _db(path)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            hashed = int(meta.get("version", 0)) >= 24
            for row in db.execute("SELECT * FROM cookies"):
                value = row["value"]
                blob = bytes(row["encrypted_value"] or b"")
                if blob:
                    plain, why = dec.decrypt(blob, row["host_key"] if hashed else None)
                    if plain is None:
                        _skip(cat, why)
                        continue
                    try:
                        value = plain.decode("utf-8")
                    except UnicodeDecodeError:
                        _skip(cat, "value is not UTF-8 text")
                        continue
                cookie = _cookie_param(row, value)
                if cookie is None:
                    _skip(cat, "expired")
                    continue
                cookies.append(cookie)
        finally:
            db.close()
    cat["imported"] = len(cookies)
    store.write_json(out / "cookies.json", cookies)
    return cat


def _cookie_param(row: sqlite3.Row, value: str) -> dict[str, Any] | None:
    import time

    keys = row.keys()
    host = row["host_key"]
    scheme = "https" if row["is_secure"] else "http"
    cookie: dict[str, Any] = {
        "name": row["name"], "value": value, "path": row["path"] or "/", "secure": bool(row["is_secure"]),
        "httpOnly": bool(row["is_httponly"]),
        # a host-only cookie has no leading dot: CDP makes it host-only when given a url, not a domain
        **({"domain": host} if host.startswith(".") else {"url": f"{scheme}://{host}{row['path'] or '/'}"}),
    }
    persistent = bool(row["is_persistent"]) if "is_persistent" in keys else bool(row["has_expires"])
    if persistent and row["expires_utc"]:
        expires = row["expires_utc"] / 1e6 - _EPOCH_DELTA
        if expires < time.time():
            return None
        cookie["expires"] = expires
    same = _SAMESITE.get(row["samesite"]) if "samesite" in keys else None
    if same:
        cookie["sameSite"] = same
    if "source_port" in keys and row["source_port"] not in (None, -1) and "url" in cookie:
        cookie["sourcePort"] = row["source_port"]
    if "top_frame_site_key" in keys and row["top_frame_site_key"]:
        cookie["partitionKey"] = {"topLevelSite": row["top_frame_site_key"],
                                  "hasCrossSiteAncestor": bool(row["has_cross_site_ancestor"])
                                  if "has_cross_site_ancestor" in keys else False}
    return cookie


def _logins(scratch: Path, dec: crypto.Decryptor, out: Path) -> dict[str, Any]:
    """Copy the saved logins our Chromium (``--password-store=basic``, v10) can read: v11
    values are re-encrypted as v10 when the keyring secret decrypted them, and rows that
    decrypt with no key are left out and counted."""
    cat = _category()
    path = scratch / "Login Data"
    if not path.is_file():
        return cat
    src = _db(path)
    dst = sqlite3.connect(out / "Login Data")
    try:
        src.backup(dst)
        rows = dst.execute("SELECT rowid, password_value FROM logins").fetchall()
        for rowid, blob in rows:
            blob = bytes(blob or b"")
            if not blob:
                cat["imported"] += 1
                continue
            plain, why = dec.decrypt(blob)
            if plain is None:
                _skip(cat, why)
                dst.execute("DELETE FROM logins WHERE rowid = ?", (rowid,))
                continue
            if not blob.startswith(b"v10"):
                dst.execute("UPDATE logins SET password_value = ? WHERE rowid = ?", (crypto.encrypt_v10(plain), rowid))
            cat["imported"] += 1
        dst.commit()
    finally:
        src.close()
        dst.close()
    os.chmod(out / "Login Data", 0o600)
    return cat


def _history(scratch: Path, out: Path) -> dict[str, Any]:
    cat = _category()
    path = scratch / "History"
    if not path.is_file():
        return cat
    src = _db(path)
    dst = sqlite3.connect(out / "History")
    try:
        src.backup(dst)
        cat["imported"] = dst.execute("SELECT count(*) FROM urls").fetchone()[0]
    finally:
        src.close()
        dst.close()
    os.chmod(out / "History", 0o600)
    return cat


def _bookmarks(scratch: Path, out: Path) -> dict[str, Any]:
    cat = _category()
    path = scratch / "Bookmarks"
    if not path.is_file():
        return cat
    data = store.read_json(path, None)
    if not isinstance(data, dict) or not isinstance(data.get("roots"), dict):
        _skip(cat, "Bookmarks is not the JSON Chromium writes")
        return cat

    def count(node: Any) -> int:
        if not isinstance(node, dict):
            return 0
        return (node.get("type") == "url") + sum(count(c) for c in node.get("children") or ())

    cat["imported"] = sum(count(r) for r in data["roots"].values())
    data.pop("checksum", None)  # Chromium recomputes it; a stale one would discard the file
    store.write_json(out / "Bookmarks", data)
    return cat


def _permissions(prefs: dict[str, Any], out: Path) -> dict[str, Any]:
    cat = _category()
    found: list[dict[str, Any]] = []
    exceptions = (((prefs.get("profile") or {}).get("content_settings") or {}).get("exceptions") or {})
    for setting_name, entries in exceptions.items():
        if not isinstance(entries, dict):
            continue
        for pattern, entry in entries.items():
            setting = entry.get("setting") if isinstance(entry, dict) else None
            if not isinstance(setting, int) or setting not in _SETTINGS:
                continue  # 3 = ask (the default), or a structured value: not a permission decision
            if setting_name not in PERMISSIONS:
                _skip(cat, f"{setting_name}: not a permission a browser context can be given")
                continue
            origin = pattern.split(",", 1)[0]
            if "*" in origin or "://" not in origin:
                _skip(cat, f"{setting_name}: wildcard pattern {origin!r}")
                continue
            found.append({"origin": origin.removesuffix("/"), "name": PERMISSIONS[setting_name],
                          "setting": _SETTINGS[setting]})
    cat["imported"] = len(found)
    store.write_json(out / "permissions.json", found)
    return cat


def _local_storage(scratch: Path, out: Path) -> dict[str, Any]:
    cat = _category()
    origins: dict[str, dict[str, str]] = {}
    path = scratch / "Local Storage" / "leveldb"
    if path.is_dir():
        try:
            entries = leveldb.read_all(path)
        except (leveldb.LevelDbError, OSError) as exc:
            _skip(cat, f"Local Storage unreadable: {exc}")
            entries = {}
        for key, value in entries.items():
            if not key.startswith(b"_") or b"\x00" not in key:
                continue  # VERSION, META:..., METAACCESS:...
            origin_b, _, skey = key[1:].partition(b"\x00")
            origin = origin_b.decode("utf-8", "replace")
            text_key, text_value = _storage_text(skey), _storage_text(value)
            if "^" in origin or "://" not in origin:
                _skip(cat, "third-party (partitioned) storage")
                continue
            if text_key is None or text_value is None:
                _skip(cat, "undecodable entry")
                continue
            origins.setdefault(origin, {})[text_key] = text_value
            cat["imported"] += 1
    store.write_json(out / "local_storage.json", origins)
    return cat


def _storage_text(raw: bytes) -> str | None:
    """Chromium's localStorage strings: a format byte, then UTF-16LE (0) or Latin-1 (1)."""
    if not raw:
        return None
    try:
        if raw[0] == 0:
            return raw[1:].decode("utf-16-le")
        if raw[0] == 1:
            return raw[1:].decode("latin-1")
    except UnicodeDecodeError:
        return None
    return None


def _extensions(profile_dir: Path, prefs: dict[str, Any], out: Path, budget: Budget) -> dict[str, Any]:
    """Copy the user's installed extensions (not the browser's built-in components)."""
    cat = _category()
    cat["names"] = []
    src = profile_dir / "Extensions"
    settings = ((prefs.get("extensions") or {}).get("settings") or {})
    if src.is_symlink() or not src.is_dir():
        return cat
    for ext in sorted(src.iterdir()):
        if ext.is_symlink() or not ext.is_dir():
            continue
        info = settings.get(ext.name) if isinstance(settings, dict) else None
        if isinstance(info, dict) and info.get("location") in (5, 10):  # component extensions
            continue
        versions = sorted(v for v in ext.iterdir() if not v.is_symlink() and (v / "manifest.json").is_file()
                          and not (v / "manifest.json").is_symlink())
        if not versions:
            _skip(cat, "no manifest.json")
            continue
        # links inside an extension (one to ~/.ssh/id_rsa) are left out, never followed
        dest = out / "Extensions" / ext.name / versions[-1].name
        copy_tree(versions[-1], dest, budget)
        manifest = store.read_json(dest / "manifest.json", {})
        cat["names"].append(str(manifest.get("name") or ext.name) if isinstance(manifest, dict) else ext.name)
        cat["imported"] += 1
    return cat


def import_profile(
    *, spec: str | None = None, from_dir: str | None = None, name: str | None = None,
    home: Path | None = None, source_home: Path | None = None,
    secret_lookup: Callable[[str], bytes | None] = crypto.keyring_secret,
) -> dict[str, Any]:
    """Import into a new profile; returns ``{profile, source, source_version, categories}``."""
    browser, user_data, profile_dir = resolve_source(spec, from_dir, source_home)
    pid = running_pid(user_data)
    if pid is not None:
        raise InvalidState(
            f"{API}: {browser} is running on {user_data} (SingletonLock held by pid {pid}); quit it completely "
            "and run the import again (its files change while it runs, and it writes cookies out late)",
            api=API,
        )
    label = name or f"{browser} {profile_dir.name}"
    label = store.check_name(label, API)
    base = store.root(home)
    sweep_leftovers(base)
    build = store.new_dir(label, home)
    scratch = base / f".scratch-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    budget = Budget()
    try:
        scratch.mkdir(mode=0o700)
        problems = _copy_source(profile_dir, user_data, scratch, budget)
        prefs = store.read_json(scratch / "Preferences", {})
        prefs = prefs if isinstance(prefs, dict) else {}
        dec = crypto.Decryptor(secret_lookup(browser))
        categories = {
            "cookies": _run_category("cookies", problems, build, _cookies, scratch, dec, build),
            "logins": _run_category("logins", problems, build, _logins, scratch, dec, build),
            "bookmarks": _run_category("bookmarks", problems, build, _bookmarks, scratch, build),
            "history": _run_category("history", problems, build, _history, scratch, build),
            "permissions": _run_category("permissions", problems, build, _permissions, prefs, build),
            "local_storage": _run_category("local_storage", problems, build, _local_storage, scratch, build),
            "extensions": _run_category("extensions", problems, build, _extensions, profile_dir, prefs, build,
                                        budget),
        }
        version = _last_version(scratch)
        source = f"{browser}:{profile_dir.name}" if spec else str(profile_dir)
        report = {"source": source, "source_version": version, "categories": categories,
                  "left_out": dict(budget.left_out)}
        store.write_json(build / "import.json", report)
        profile = store.commit_dir(build, label, {"created_from": source, "source_version": version}, home)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"profile": profile.public(), **report}


def _last_version(scratch: Path) -> str | None:
    try:
        text = (scratch / "Last Version").read_text(errors="replace").strip()
    except OSError:
        return None
    return text[:64] or None
