"""The CLI subcommands: host management, the person's side of spaces, doctor, skills."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from typing import Any

from . import config
from .errors import BrowserUnavailable, EgoError

__all__ = ["dispatch"]


def dispatch(name: str, args: list[str]) -> int:
    handler = _HANDLERS[name]
    try:
        return handler(args)
    except EgoError as exc:
        print(f"{exc.code}: {exc.message}", file=sys.stderr)
        return 1


def _usage(message: str, usage: str) -> int:
    print(f"{message}\nusage: {usage}", file=sys.stderr)
    return 2


async def _call(op: str, args: dict[str, Any], *, start: bool = True) -> Any:
    from .client.channel import SocketChannel

    channel = SocketChannel()
    channel.loop = asyncio.get_running_loop()
    try:
        if not start and not config.socket_path().exists():
            return None
        return await channel.call(op, args)
    finally:
        await channel.aclose()


def _host_pid() -> int | None:
    try:
        return int((config.run_dir() / "host.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _host_answers() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(str(config.socket_path()))
        return True
    except OSError:
        return False


# -- host ----------------------------------------------------------------------------------


def _host(args: list[str]) -> int:
    usage = "python -m ego_browser host start|stop|status"
    if not args:
        return _usage("host needs an action", usage)
    action, rest = args[0], args[1:]
    if action == "serve":
        ready_fd = None
        if rest[:1] == ["--ready-fd"] and len(rest) == 2:
            ready_fd = int(rest[1])
        elif rest:
            return _usage("unexpected arguments", "python -m ego_browser host serve [--ready-fd FD]")
        from .host.server import serve

        return asyncio.run(serve(ready_fd))
    if action == "worker":
        if rest[:1] != ["--lifeline"] or len(rest) != 2:
            return _usage("unexpected arguments", "python -m ego_browser host worker --lifeline FD")
        from .round_worker import serve as serve_worker

        return serve_worker(int(rest[1]))
    if rest:
        return _usage(f"host {action} takes no arguments", usage)
    if action == "start":
        status = asyncio.run(_call("host.status", {}))
        print(f"host running: pid {status['pid']}, browser {status['browser']}, endpoint {status['endpoint']}")
        return 0
    if action == "status":
        pid, answers = _find_host()
        if pid is None:
            print("host not running")
            return 1
        if not answers:
            print(
                f"host running: pid {pid}, but it does not answer on {config.socket_path()}\n"
                "python -m ego_browser host stop stops it (and its browser)"
            )
            return 1
        status = asyncio.run(_call("host.status", {}, start=False))
        print(
            f"host running: pid {status['pid']}\nendpoint: {status['endpoint']}\nbrowser: {status['browser']}"
            f" (pid {status['browser_pid']})\nhome: {status['home']}\nuptime: {status['uptime_s']}s, "
            f"requests: {status['requests']}\ntabs: {status.get('pages')}, listed by no space: "
            f"{status.get('orphan_pages')}\nstate store: {status.get('store_bytes')} bytes"
        )
        if status.get("notice"):
            print(f"notice: {status['notice']}")
        return 0
    if action == "stop":
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
    return _usage(f"unknown host action {action!r}", usage)


def _find_host() -> tuple[int | None, bool]:
    """The running host's pid (found by its lock, so a deleted socket file hides nothing) and
    whether it answers on its socket (a missing one is re-created when the host is nudged)."""
    from .host.lockfile import recover_socket

    pid, answers, background = recover_socket(config.run_dir(), config.socket_path(), timeout=10)
    if pid is None and _host_answers():
        # a host this check cannot see (no /proc/locks, no pid file): ask it over the socket
        return _host_pid() or -1, True
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
    from .browser.launcher import pid_alive

    return pid_alive(pid)


# -- the person's side -----------------------------------------------------------------------


def _spaces(args: list[str]) -> int:
    usage = "python -m ego_browser spaces [take-over ID | give-back ID | new NAME]"
    if not args:
        rows = asyncio.run(_call("list_task_spaces", {}))
        if not rows:
            print("no task spaces")
        for r in rows:
            status = r.get("status") or ""
            iso = " isolated" if r.get("isolated") else ""
            reason = f" ({r['reason']})" if r.get("reason") and r["ownership"] != "agent" else ""
            print(f"{r['id']}\t{r['ownership']}{reason}\t{r['name']}{iso}\ttabs={r.get('tabs', 0)}\t{status}")
        return 0
    if len(args) == 2 and args[0] == "new":
        info = asyncio.run(_call("spaces.create", {"name": args[1]}))
        print(f"space {info['id']} ({info['name']}): ownership {info['ownership']}")
        return 0
    if len(args) != 2 or args[0] not in ("take-over", "give-back"):
        return _usage("unknown spaces command", usage)
    try:
        space_id = int(args[1])
    except ValueError:
        return _usage(f"ID must be a number (got {args[1]!r})", usage)
    op = "spaces.take_over" if args[0] == "take-over" else "spaces.give_back"
    info = asyncio.run(_call(op, {"space": space_id}))
    print(f"space {info['id']} ({info['name']}): ownership {info['ownership']}")
    return 0


# -- doctor ----------------------------------------------------------------------------------


def _doctor(args: list[str]) -> int:
    if args:
        return _usage("doctor takes no arguments", "python -m ego_browser doctor")
    failed = False

    def line(ok: bool, what: str, detail: str) -> None:
        nonlocal failed
        failed |= not ok
        print(f"{'OK' if ok else 'FAIL'}  {what}: {detail}")

    line(sys.version_info >= (3, 11), "python", sys.version.split()[0] + " (3.11+ needed)")
    remote = os.environ.get("EGO_BROWSER_CDP_URL")
    if remote:
        try:
            from .browser.launcher import resolve_cdp_url

            line(True, "cdp endpoint", resolve_cdp_url(remote))
        except EgoError as exc:
            line(False, "cdp endpoint", exc.message)
    else:
        try:
            from .browser.launcher import find_chromium

            line(True, "chromium", find_chromium())
        except EgoError as exc:
            line(False, "chromium", exc.message)
    home = config.home()
    try:
        config.ensure_home(home)
        probe = home / ".doctor-probe"
        probe.write_text("ok")
        probe.unlink()
        line(True, "home", f"{home} is writable")
    except (OSError, EgoError) as exc:
        line(False, "home", f"{home}: {exc}")
    ok, detail = _store_check(home / "state.sqlite3")
    line(ok, "state store", detail)
    try:
        from . import _snapshot  # noqa: F401

        line(True, "snapshot core", "Cython extension loaded")
    except ImportError:
        line(False, "snapshot core", "Cython extension missing (run `make setup`); the pure-Python twin is slower")
    if _host_answers():
        try:
            status = asyncio.run(_call("host.status", {}, start=False))
            line(True, "host", f"pid {status['pid']}, browser {status['browser']}")
            line(True, "cdp", status["endpoint"])
        except EgoError as exc:
            line(False, "host", exc.message)
    else:
        print("OK  host: not running (the first round starts it)")
    from .profile_commands import chromium_version, doctor_lines

    for level, what, detail in doctor_lines(None if remote else chromium_version()):
        print(f"{level}  {what}: {detail}")
    return 1 if failed else 0


def _store_check(path: Any) -> tuple[bool, str]:
    """SQLite's quick check of the state store, read-only (a running host is not disturbed)."""
    import sqlite3

    from .host.store import integrity_problem

    kept = sorted(p.name for p in path.parent.glob(path.name + ".corrupt-*") if not p.name.endswith(("-wal", "-shm")))
    earlier = f"; damaged copies kept: {', '.join(kept)}" if kept else ""
    if not path.exists():
        return True, f"{path} not created yet (the first round creates it){earlier}"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            problem = integrity_problem(db)
        finally:
            db.close()
    except sqlite3.Error as exc:
        problem = str(exc)
    if problem:
        return False, (
            f"{path} is damaged ({problem}); the next host start moves it aside and starts a fresh one "
            f"(python -m ego_browser host stop first if a host runs){earlier}"
        )
    return True, f"{path} passes SQLite's quick check{earlier}"


# -- guide, help and skills ----------------------------------------------------------------


def _help(args: list[str]) -> int:
    if len(args) > 1:
        return _usage("help takes at most one name", "python -m ego_browser help [NAME]")
    from .helptext import help as show

    show(args[0] if args else None)
    return 0


def _skill(args: list[str]) -> int:
    if args:
        return _usage(f"skill takes no arguments (got {' '.join(args)})", "python -m ego_browser skill")
    from .helptext import guide

    sys.stdout.write(guide())
    return 0


def _install_skill(args: list[str]) -> int:
    if args:
        return _usage("install-skill takes no arguments", "python -m ego_browser install-skill")
    from .learning.install import install_skill

    for line in install_skill():
        print(line)
    return 0


def _profiles(args: list[str]) -> int:
    from .profile_commands import main

    return main(args)


def _validate_skills(args: list[str]) -> int:
    if len(args) > 1:
        return _usage("validate-skills takes at most one ROOT", "python -m ego_browser validate-skills [ROOT]")
    from .learning.validate import main as validate_main

    return validate_main(args)


_HANDLERS = {
    "host": _host,
    "spaces": _spaces,
    "doctor": _doctor,
    "profiles": _profiles,
    "help": _help,
    "skill": _skill,
    "install-skill": _install_skill,
    "validate-skills": _validate_skills,
}
