"""The CLI sub-commands: host management, the person's side of spaces, doctor, skills, plugins.

Each sub-command is declared once, with :func:`command`: its one-line summary, its argparse
set-up and its handler. ``ego-browser NAME --help`` and the top-level usage come from
these declarations, so a new sub-command (``profiles``) is one more declaration. Commands with
machine-readable output call :func:`add_json` in their set-up and print through :func:`emit`;
with ``--json`` an ``EgoError`` is printed as ``{"error": {"code", "message"}}`` too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import config
from ..errors import BrowserUnavailable, EgoError
from .hostctl import call as _call
from .hostctl import host_answers, host_pid
from ..states import Ownership

__all__ = ["COMMANDS", "Command", "add_json", "command", "dispatch", "emit", "usage_lines"]

PROG = "ego-browser"


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    synopsis: str  # the arguments, as the top-level usage shows them
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    hidden: bool = False  # internal entry points (the host daemon, the warm worker)


COMMANDS: dict[str, Command] = {}


def command(name: str, summary: str, synopsis: str = "", *, hidden: bool = False,
            configure: Callable[[argparse.ArgumentParser], None] | None = None,
            ) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Declare a sub-command; the decorated function takes the parsed arguments, returns the status."""

    def register(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = Command(name, summary, synopsis, configure or (lambda p: None), run, hidden)
        return run

    return register


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")


def emit(ns: argparse.Namespace, data: Any, text: Callable[[Any], None]) -> None:
    """Print ``data`` as JSON with ``--json``, else through ``text``."""
    if getattr(ns, "json", False):
        print(json.dumps(data, indent=1, sort_keys=True, default=str))
    else:
        text(data)


def usage_lines() -> list[str]:
    """Two lines per visible sub-command: how to call it, then what it does."""
    out = []
    for name, c in COMMANDS.items():
        if not c.hidden:
            out += [f"{PROG} {(name + ' ' + c.synopsis).strip()}", f"    {c.summary}"]
    return out


def parser_for(name: str) -> argparse.ArgumentParser:
    cmd = COMMANDS[name]
    parser = argparse.ArgumentParser(prog=f"{PROG} {name}", description=cmd.summary)
    cmd.configure(parser)
    return parser


def dispatch(name: str, args: list[str]) -> int:
    try:
        ns = parser_for(name).parse_args(args)
    except SystemExit as exc:  # --help (0) or a usage error (2; argparse printed why)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return COMMANDS[name].run(ns)
    except EgoError as exc:
        if getattr(ns, "json", False):
            print(json.dumps({"error": {"code": exc.code, "message": exc.message}}, indent=1))
        print(f"{exc.code}: {exc.message}", file=sys.stderr)
        return 1


# -- host ----------------------------------------------------------------------------------


def _host_args(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="{start,stop,status}", required=True)
    sub.add_parser("start", help="start the background host (and its browser) unless it runs",
                   description="Start the background host (and its browser) unless it runs.")
    sub.add_parser("stop", help="stop the host and the browser it launched",
                   description="Stop the host and the browser it launched.")
    status = sub.add_parser("status", help="show the running host (never starts one); exit 1 when none runs",
                            description="Show the running host; never starts one. Exit status 1 when none runs.")
    add_json(status)
    serve = sub.add_parser("serve")  # the daemon itself, started by the first round
    serve.add_argument("--ready-fd", type=int)
    worker = sub.add_parser("worker")  # the warm round worker, started by the host
    worker.add_argument("--lifeline", type=int, required=True)


@command("host", "manage the background host that owns the browser", "start|stop|status", configure=_host_args)
def _host(ns: argparse.Namespace) -> int:
    if ns.action == "serve":
        from ..host.core import serve_entry

        return serve_entry.main(ns.ready_fd)
    if ns.action == "worker":
        from ..round.worker import serve as serve_worker

        return serve_worker(ns.lifeline)
    if ns.action == "start":
        status = asyncio.run(_call("host.status", {}))
        print(f"host running: pid {status['pid']}, browser {status['browser']}, endpoint {status['endpoint']}")
        return 0
    if ns.action == "status":
        return _host_status(ns)
    return _host_stop()


def _host_status(ns: argparse.Namespace) -> int:
    pid, answers = _find_host()
    if pid is None:
        emit(ns, {"running": False}, lambda d: print("host not running"))
        return 1
    if not answers:
        emit(ns, {"running": True, "pid": pid, "answers": False, "socket": str(config.socket_path())}, lambda d: print(
            f"host running: pid {pid}, but it does not answer on {config.socket_path()}\n"
            f"{PROG} host stop stops it (and its browser)"))
        return 1
    status = asyncio.run(_call("host.status", {}, start=False))
    if status is None:  # it went away between the two looks
        emit(ns, {"running": False}, lambda d: print("host not running"))
        return 1

    def text(s: dict[str, Any]) -> None:
        print(
            f"host running: pid {s['pid']}\nendpoint: {s['endpoint']}\nbrowser: {s['browser']}"
            f" (pid {s['browser_pid']})\nhome: {s['home']}\nuptime: {s['uptime_s']}s, "
            f"requests: {s['requests']}\ntabs: {s.get('pages')}, listed by no space: "
            f"{s.get('orphan_pages')}\nstate store: {s.get('store_bytes')} bytes\n"
            f"calls: {s.get('calls_running')} running, {s.get('calls_waiting')} waiting, "
            f"{s.get('calls_refused')} refused (EGO_HOST_OVERLOADED); frozen idle tabs: {s.get('frozen_tabs')}"
        )
        if s.get("notice"):
            print(f"notice: {s['notice']}")

    emit(ns, {"running": True, "answers": True, **status}, text)
    return 0


def _host_stop() -> int:
    pid, answers = _find_host()
    if pid is None:
        print("host not running")
        return 0
    if answers:
        asyncio.run(_call("host.stop", {}, start=False))
    else:
        # no socket to ask through: the lock proved which process it is, so signal it
        os.kill(pid, signal.SIGTERM)
    if not _wait_exit(pid, 15):
        print(f"host (pid {pid}) did not stop within 15s", file=sys.stderr)
        return 1
    print("host stopped")
    return 0


def _find_host() -> tuple[int | None, bool]:
    """The running host's pid (found by its lock, so a deleted socket file hides nothing) and
    whether it answers on its socket (a missing one is re-created when the host is nudged)."""
    from ..wire.lockfile import recover_socket

    pid, answers, background = recover_socket(config.run_dir(), config.socket_path(), timeout=10)
    if pid is None and host_answers():
        # a host this check cannot see (no /proc/locks, no pid file): ask it over the socket
        return host_pid() or -1, True
    if pid is not None and not background:
        raise BrowserUnavailable(
            f"an in-process host (ego_browser.embedded(), pid {pid}) uses {config.home()}; it stops when that "
            "program leaves embedded()",
            endpoint=str(config.socket_path()),
        )
    return pid, answers


def _wait_exit(pid: int, timeout: float) -> bool:
    if pid <= 0:
        return True
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # waiting for another process to exit: there is no event to wait on
    return not _alive(pid)


def _alive(pid: int) -> bool:
    from ..browser.launcher import pid_alive

    return pid_alive(pid)


# -- the person's side -----------------------------------------------------------------------


def _spaces_args(p: argparse.ArgumentParser) -> None:
    add_json(p)
    sub = p.add_subparsers(dest="action", metavar="{take-over,give-back,close,new}")
    for name, what in (("take-over", "give space ID to the person: the agent's actions there fail until give-back"),
                       ("give-back", "return space ID to the agent"),
                       ("close", "close space ID: its tabs close and it leaves the list (the agent's next call "
                                 "on it fails with EGO_TASK_SPACE_NOT_FOUND)")):
        one = sub.add_parser(name, help=what, description=what[0].upper() + what[1:] + ".")
        one.add_argument("id", type=int, metavar="ID", help="the space id (first column of `spaces`)")
        if name == "give-back":
            one.add_argument("--note", default=None, help="a note for the agent (its waiting ask_human() or "
                                                          "wait_for_control() returns it)")
        add_json(one)
    new = sub.add_parser("new", help="create a space owned by the person", description="Create a space owned by the person.")
    new.add_argument("name", metavar="NAME")
    add_json(new)


@command("spaces", "list the task spaces (never starts the host), or hand one over",
         "[take-over ID | give-back ID [--note TEXT] | close ID | new NAME]", configure=_spaces_args)
def _spaces(ns: argparse.Namespace) -> int:
    if ns.action is None:
        return _list_spaces(ns)
    if ns.action == "close":
        info = asyncio.run(_call("spaces.close", {"space": ns.id}))
        emit(ns, info, lambda i: print(f"space {i['id']} ({i['name']}) closed"))
        return 0
    if ns.action == "new":
        info = asyncio.run(_call("spaces.create", {"name": ns.name}))
    elif ns.action == "take-over":
        info = asyncio.run(_call("spaces.take_over", {"space": ns.id}))
    else:
        info = asyncio.run(_call("spaces.give_back", {"space": ns.id, "note": ns.note}))
    emit(ns, info, lambda i: print(f"space {i['id']} ({i['name']}): ownership {i['ownership']}"))
    return 0


def _list_spaces(ns: argparse.Namespace) -> int:
    """From the running host, else from the state store read-only: listing launches nothing."""
    rows = asyncio.run(_call("list_task_spaces", {}, start=False)) if host_answers() else None
    running = rows is not None
    if rows is None:
        rows = _stored_spaces()

    def text(rows: list[dict[str, Any]]) -> None:
        if not running:
            print("(host not running: spaces as stored; tabs = pages recorded open)")
        if not rows:
            print("no task spaces")
            return
        print_table(["ID", "DRIVEN BY", "NAME", "TABS", "PROFILE", "BROWSER", "STATUS"],
                    [[str(r["id"]), driven_by(r), r["name"] + (" (isolated)" if r.get("isolated") else ""),
                      str(r.get("tabs", 0)), r.get("profile") or "default", r.get("browser") or "-",
                      r.get("status") or ""] for r in rows])

    emit(ns, {"host_running": running, "spaces": rows}, lambda d: text(d["spaces"]))
    return 0


#: who drives a space, in the person's words (the JSON keeps the API's ownership strings)
_DRIVEN_BY = {Ownership.AGENT: "agent", Ownership.DELEGATED: "waiting for you", Ownership.USER: "you"}
_REASONS = {"manual_takeover": "you took it over", "user_owned": "your own", "handed_off": "the agent asked",
            "closed_by_user": "you closed it"}


def driven_by(row: dict[str, Any]) -> str:
    who = _DRIVEN_BY.get(row["ownership"], str(row["ownership"]))
    reason = row.get("reason")
    if reason and row["ownership"] != Ownership.AGENT:
        who += f" ({_REASONS.get(reason, str(reason).replace('_', ' '))})"
    return who


def print_table(header: list[str], rows: list[list[str]]) -> None:
    """Columns as wide as their widest cell, so they line up whatever the names (the last one free)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    for cells in [header, *rows]:
        line = "  ".join(c.ljust(w) if i < len(cells) - 1 else c for i, (c, w) in enumerate(zip(cells, widths)))
        print(line.rstrip())


def _stored_spaces() -> list[dict[str, Any]]:
    import sqlite3

    from ..host.core.store import OPEN, UNMANAGED

    path = config.home() / "state.sqlite3"
    if not path.exists():
        return []
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return []
    try:
        spaces = db.execute(
            "SELECT id, name, task_id, ownership, created_by, isolated, status, reason, profile_id FROM spaces "
            "WHERE closed=0 ORDER BY id"
        ).fetchall()
        tabs = dict(db.execute(
            "SELECT space_id, COUNT(*) FROM pages WHERE state IN (?, ?) GROUP BY space_id", (OPEN, UNMANAGED)
        ).fetchall())
    except sqlite3.Error as exc:
        raise EgoError(f"the state store {path} cannot be read ({exc}); {PROG} doctor checks it") from exc
    finally:
        db.close()
    return [
        {"id": i, "name": n, "task_id": t, "ownership": o, "created_by": c, "isolated": bool(iso),
         "status": s, "reason": r, "tabs": tabs.get(i, 0), "profile": p or "default", "recent_tab_titles": []}
        for i, n, t, o, c, iso, s, r, p in spaces
    ]


def _dashboard_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--open", action="store_true", help="also open it in this machine's default web browser")
    add_json(p)


@command("dashboard", "start the person's dashboard (and the host if needed) and print its URL", "[--open]",
         configure=_dashboard_args)
def _dashboard(ns: argparse.Namespace) -> int:
    info = asyncio.run(_call("dashboard.open", {"once": True} if ns.open else {}))

    def text(i: dict[str, Any]) -> None:
        print(f"dashboard: {i['url']}")
        print("(the URL holds this host's secret token: do not share it; it changes when the host restarts.\n"
              f" On a remote machine: ssh -L {i['port']}:127.0.0.1:{i['port']} HOST, then open the URL here;"
              " see docs/dashboard.md)")

    once = info.pop("once_url", None)
    emit(ns, info, text)
    if ns.open:
        import webbrowser

        # a command line is readable by every local user: the browser gets a one-time code,
        # never the token
        webbrowser.open(once or info["url"].split("?", 1)[0])
    return 0


def _declare_from(name: str, module: str) -> None:
    """A command whose module declares its own summary, synopsis, arguments and handler
    (``SUMMARY``, ``SYNOPSIS``, ``configure(parser)``, ``run(ns)``): profiles, learnings,
    secrets, trace, demo-site."""
    import importlib

    mod = importlib.import_module(f"{__package__}.{module}")
    command(name, mod.SUMMARY, mod.SYNOPSIS, configure=mod.configure)(mod.run)


for _name, _module in (("profiles", "profile_commands"), ("learnings", "learning_commands"),
                       ("secrets", "secret_commands"), ("trace", "trace_commands"),
                       ("demo-site", "demo_site")):
    _declare_from(_name, _module)


def _allow_args(p: argparse.ArgumentParser) -> None:
    add_json(p)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--space", type=int, metavar="ID", help="the space whose allowlist to set")
    which.add_argument("--profile", metavar="ID", help="the profile whose default allowlist (for its spaces) to set")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("domains", nargs="*", default=[], metavar="DOMAIN",
                      help="host patterns: example.com, *.example.com, host:port")
    what.add_argument("--any", action="store_true", help="lift the list: any domain")


@command("allow", "set, widen or lift the domain allowlist of a space or a profile (the agent may only narrow it)",
         "(--space ID | --profile ID) (DOMAIN ... | --any)", configure=_allow_args)
def _allow(ns: argparse.Namespace) -> int:
    domains = None if ns.any else ns.domains
    if domains == []:
        print("allow: name at least one DOMAIN, or --any to lift the list", file=sys.stderr)
        return 2
    info = asyncio.run(_call("guard.allow", {"space_id": ns.space, "profile_id": ns.profile, "domains": domains}))
    emit(ns, info, lambda i: print(f"space lists: {i['spaces']}\nprofile defaults: {i['profiles']}"))
    return 0


def _confirm_args(p: argparse.ArgumentParser) -> None:
    add_json(p)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--space", type=int, metavar="ID", help="the space whose rules to set")
    which.add_argument("--profile", metavar="ID", help="the profile whose default rules (for its spaces) to set")
    p.add_argument("--click", nargs="+", metavar="PATTERN",
                   help="control names (regular expressions, case-insensitive) a click or press needs your yes for")
    p.add_argument("--post", nargs="+", metavar="DOMAIN",
                   help="hosts (example.com, *.example.com, host:port) a form post, fetch or XHR that sends "
                        "data (POST, PUT, PATCH, DELETE) to needs your yes for; it is held until you answer")
    p.add_argument("--downloads", action="store_true", help="every download waits for your yes (a no cancels it)")
    p.add_argument("--purchases", action="store_true",
                   help="purchases need your yes: controls named buy, pay, order, checkout, purchase, place order, "
                        "and any request that sends a payment card number")
    p.add_argument("--off", action="store_true", help="lift the rules")


@command("confirm", "make clicks, form posts, downloads or purchases wait for your yes (the agent is handed over "
         "and asks)", "(--space ID | --profile ID) ([--click PATTERN ...] [--post DOMAIN ...] [--downloads] "
         "[--purchases] | --off)", configure=_confirm_args)
def _confirm(ns: argparse.Namespace) -> int:
    given = ns.click or ns.post or ns.downloads or ns.purchases
    if ns.off == bool(given):
        print("confirm: give --click, --post, --downloads or --purchases (any together), or --off alone",
              file=sys.stderr)
        return 2
    info = asyncio.run(_call("guard.confirm", {"space_id": ns.space, "profile_id": ns.profile,
                                               "click": None if ns.off else ns.click, "post": ns.post,
                                               "downloads": bool(ns.downloads), "purchases": bool(ns.purchases)}))
    emit(ns, info, lambda i: print(f"confirmation rules: {i['confirm']}"))
    return 0


# -- guide, help, skills and plugins -----------------------------------------------------------


def _name_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help='a member ("Page.click") or topic ("selectors")')


@command("help", "API help: the overview, or one member or topic", "[NAME]", configure=_name_arg)
def _help(ns: argparse.Namespace) -> int:
    from ..helptext import help as show

    show(ns.name)
    return 0


@command("skill", "print the agent usage guide for this version")
def _skill(ns: argparse.Namespace) -> int:
    from ..helptext import guide

    sys.stdout.write(guide())
    return 0


def _mcp_args(p: argparse.ArgumentParser) -> None:
    p.epilog = ("One tool (browser_round) runs a round's code; the guide is the resource "
                "ego-browser://guide. Needs the MCP SDK: pip install 'ego_browser[mcp]'. See docs/mcp.md.")


@command("mcp", "serve ego_browser to an agent host over MCP (stdio)", configure=_mcp_args)
def _mcp(ns: argparse.Namespace) -> int:
    from .mcp_server import main as serve

    return serve([])


@command("install-skill", "copy the entry skill into ~/.agents, Claude Code's and Codex's skill folders")
def _install_skill(ns: argparse.Namespace) -> int:
    from ..learning.install import install_skill

    for line in install_skill():
        print(line)
    return 0


def _root_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("root", nargs="?", metavar="ROOT", help="a learnings folder (default: the bundled one)")


@command("validate-skills", "check every site-learnings pack without running any of it", "[ROOT]",
         configure=_root_arg)
def _validate_skills(ns: argparse.Namespace) -> int:
    from ..learning.validate import main as validate_main

    return validate_main([ns.root] if ns.root else [])


def _doctor_args(p: argparse.ArgumentParser) -> None:
    add_json(p)
    p.add_argument("--no-launch", action="store_true",
                   help="skip the checks that run Chromium and start a host (when none runs)")


@command("doctor", "check the set-up; exit 1 if any check fails", "[--json] [--no-launch]", configure=_doctor_args)
def _doctor(ns: argparse.Namespace) -> int:
    from .doctor import print_report, run_checks
    from ..progress import Progress

    with Progress("doctor: running the checks (a host start in a throwaway home included)"):
        checks = run_checks(launch=not ns.no_launch)
    failed = any(c["status"] == "fail" for c in checks)
    emit(ns, {"ok": not failed, "checks": checks}, lambda d: print_report(d["checks"]))
    return 1 if failed else 0


def _plugins_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output", metavar="DIR", default=os.path.join("dist", "plugins"),
                   help="parent folder of ego-browser-v<version>/ (default: dist/plugins)")
    add_json(p)


@command("package-plugins", "build the skill as plugins for nine agent hosts (Claude Code, Codex, ...)",
         "[--output DIR]", configure=_plugins_args)
def _package_plugins(ns: argparse.Namespace) -> int:
    from .plugins import package_plugins

    paths = package_plugins(ns.output)

    def text(rows: list[dict[str, Any]]) -> None:
        for r in rows:
            print(f"{r['bytes']:>9}  {r['path']}")
        print(f"{len(rows)} artifacts in {os.path.dirname(rows[0]['path'])}")

    emit(ns, [{"path": str(p), "bytes": p.stat().st_size} for p in paths], text)
    return 0
