"""``ego-browser profiles [list | new NAME | rm ID | import ...]`` and the profile
lines of ``doctor``.

Listing, creating and importing are file work in the profile store and need no host; removing
asks the running host (it refuses while a space uses the profile) and, when none runs, checks
the state store itself.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from .. import config
from ..errors import EgoError, InvalidState

__all__ = ["configure", "run", "main", "doctor_lines", "SUMMARY", "SYNOPSIS"]

SUMMARY = "list, create, remove or import browser profiles (the user's Chrome data)"
SYNOPSIS = "[list | new NAME | rm ID | import (--from BROWSER[:PROFILE] | --from-dir DIR) [--name NAME]]"
#: a source browser this many major versions past ours may have written data ours cannot read
FAR_NEWER = 3


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    sub = p.add_subparsers(dest="action", metavar="{list,new,rm,import}")
    lst = sub.add_parser("list", help="the profiles a task space can use (the default)",
                         description="List the profiles a task space can use.")
    lst.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    new = sub.add_parser("new", help="create an empty profile", description="Create an empty profile.")
    new.add_argument("name", metavar="NAME")
    new.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    rm = sub.add_parser("rm", help="remove a profile and its data (refused while a space uses it)",
                        description="Remove a profile and all its data; refused while an open space uses it.")
    rm.add_argument("id", metavar="ID")
    rm.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    imp = sub.add_parser(
        "import", help="import a closed Chrome/Chromium/Brave/Edge profile into a new profile",
        description="Copy cookies, saved logins, bookmarks, history, site permissions, local storage and "
                    "extensions of a closed Chrome, Chromium, Brave or Edge profile (Linux) into a new profile. "
                    "The source is only read; a running source browser is refused.",
    )
    src = imp.add_mutually_exclusive_group(required=True)
    src.add_argument("--from", dest="source", metavar="BROWSER[:PROFILE]",
                     help="chrome, chromium, brave or edge, optionally with a profile directory (chrome:Profile 2)")
    src.add_argument("--from-dir", metavar="DIR", help="a user-data directory, or one profile directory in it")
    imp.add_argument("--name", help="the new profile's name (default: BROWSER PROFILE)")
    imp.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")


def _emit(ns: argparse.Namespace, data: Any, text: Callable[[Any], None]) -> None:
    if getattr(ns, "json", False):
        print(json.dumps(data, indent=1, sort_keys=True, default=str))
    else:
        text(data)


def run(ns: argparse.Namespace) -> int:
    from ..browser_profiles import store

    action = ns.action or "list"
    if action == "list":
        rows = [p.public() for p in store.list_profiles()]
        _emit(ns, rows, _print_list)
        return 0
    if action == "new":
        prof = store.create(ns.name).public()
        _emit(ns, prof, lambda p: print(f"profile {p['id']} ({p['name']}) created"))
        return 0
    if action == "rm":
        prof = _remove(ns.id)
        _emit(ns, prof, lambda p: print(f"profile {p['id']} ({p['name']}) removed"))
        return 0
    from ..progress import Progress

    with Progress(f"importing the profile from {ns.source or ns.from_dir} (cookies, logins, history, ...)"):
        report = _import(ns)
    _emit(ns, report, _print_report)
    return 0


def _import(ns: argparse.Namespace) -> dict[str, Any]:
    """Run the import; SIGTERM (a killed terminal, a service stop) unwinds through its clean-up
    like an error, and whatever fails unexpectedly is still an EgoError (so --json prints one)."""
    import signal

    import threading

    from ..browser_profiles.import_chrome import import_profile

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, stop) if main else None
    try:
        return import_profile(spec=ns.source, from_dir=ns.from_dir, name=ns.name)
    except EgoError:
        raise
    except Exception as exc:  # a source shaped like nothing the import knows
        raise InvalidState(f"profiles import failed ({type(exc).__name__}: {exc}); nothing was imported and "
                           "the source was not changed", api="profiles import") from exc
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _print_list(rows: list[dict[str, Any]]) -> None:
    for p in rows:
        mark = " (default)" if p["is_default"] else ""
        origin = f"\tfrom {p['created_from']}" if p.get("created_from") else ""
        print(f"{p['id']}\t{p['name']}{mark}{origin}")


def _print_report(report: dict[str, Any]) -> None:
    prof = report["profile"]
    print(f"profile {prof['id']} ({prof['name']}) imported from {report['source']}"
          + (f" (version {report['source_version']})" if report.get("source_version") else ""))
    for name, cat in report["categories"].items():
        line = f"  {name}: {cat['imported']} imported"
        if cat["skipped"]:
            line += f", {cat['skipped']} not imported: " + "; ".join(f"{n} {why}" for why, n in cat["reasons"].items())
        if cat.get("failed"):
            line += f" -- failed: {cat['failed']}"
        print(line)
    for why, n in (report.get("left_out") or {}).items():
        print(f"  left out of the copy: {n} x {why}")
    print(f"use it: task_space(NAME, profile_id={prof['id']!r})")


def _remove(profile_id: str) -> dict[str, Any]:
    from ..browser_profiles import store
    from .hostctl import call as _call
    from .hostctl import host_answers as _host_answers

    if _host_answers():
        import asyncio

        return asyncio.run(_call("profiles.remove", {"id": profile_id}, start=False))
    using = _spaces_using(profile_id)
    if using:
        raise InvalidState(
            f"profiles rm: profile {profile_id} backs open task space(s) {', '.join(using)}; finish them first "
            "and remove it again", api="profiles rm",
        )
    return store.remove(profile_id).public()


def _spaces_using(profile_id: str) -> list[str]:
    path = config.home() / "state.sqlite3"
    if not path.exists():
        return []
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            rows = db.execute("SELECT id, name FROM spaces WHERE profile_id=? AND closed=0", (profile_id,)).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    return [f'{i} "{n}"' for i, n in rows]


def main(args: list[str]) -> int:
    """The sub-command on its own (until the CLI declares commands in one table)."""
    parser = argparse.ArgumentParser(prog="ego-browser profiles", description=SUMMARY)
    configure(parser)
    try:
        ns = parser.parse_args(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return run(ns)
    except EgoError as exc:
        if getattr(ns, "json", False):
            print(json.dumps({"error": {"code": exc.code, "message": exc.message}}, indent=1))
        print(f"{exc.code}: {exc.message}", file=sys.stderr)
        return 1


# -- doctor ------------------------------------------------------------------------------------


def _major(version: str | None) -> int | None:
    head = (version or "").strip().split(".")[0]
    return int(head) if head.isdigit() else None


def chromium_version() -> str | None:
    from ..browser.launcher import find_chromium

    try:
        out = subprocess.run([find_chromium(), "--version"], capture_output=True, text=True, timeout=15,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired, EgoError):
        return None
    words = [w for w in out.stdout.split() if w[:1].isdigit() and "." in w]
    return words[0] if words else None


def doctor_lines(ours: str | None) -> list[tuple[str, str, str]]:
    """(level, what, detail) per profile: OK, or WARN for one imported from a far newer browser."""
    from ..browser_profiles import store

    lines = []
    our_major = _major(ours)
    for p in store.list_profiles():
        detail = p["name"] + (" (default)" if p["is_default"] else "")
        if p.get("created_from"):
            detail += f", imported from {p['created_from']}"
        src_major = _major(p.get("source_version"))
        if src_major is not None:
            detail += f" (version {p['source_version']})"
        if src_major is not None and our_major is not None and src_major - our_major >= FAR_NEWER:
            lines.append(("WARN", f"profile {p['id']}", detail + f": its browser is far newer than our Chromium "
                          f"{ours}; data it wrote may not read back (update Chromium, or re-import)"))
        else:
            lines.append(("OK", f"profile {p['id']}", detail))
    return lines
