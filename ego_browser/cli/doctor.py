"""``ego-browser doctor``: checks that really exercise the set-up.

Each check returns ``{"name", "status", "detail"}`` with status ``ok``, ``warn`` (works, but
not as well as it could: the pure-Python snapshot core) or ``fail``. Nothing here trusts a file
merely existing: modules are imported, Chromium is run, a host is started (in a throwaway home,
so the person's spaces and browser are untouched), the state store gets SQLite's quick check
and the site learnings are validated.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import config
from ..errors import EgoError

__all__ = ["run_checks", "print_report"]

#: every module a round or the host loads; a broken install or a shadowing file shows here
MODULES = (
    "websockets", "orjson", "pydantic",
    "ego_browser.cdp.connection", "ego_browser.browser.launcher", "ego_browser.host.core.server",
    "ego_browser.client", "ego_browser.driver.actions", "ego_browser.selectors", "ego_browser.snapshot",
    "ego_browser.learning.loader", "ego_browser.schema.render", "ego_browser.round.runner",
)
RUN_TIMEOUT = 30.0  # chromium --version on a cold disk
HOST_TIMEOUT = 90.0  # a host start launches Chromium: slow on a loaded machine, never unbounded


def _check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"name": name, "status": status, "detail": detail}


def check_python(version: tuple[int, ...] | None = None) -> dict[str, str]:
    version = tuple(sys.version_info[:3]) if version is None else version
    shown = ".".join(map(str, version))
    if version >= (3, 11):
        return _check("python", "ok", f"{shown} at {sys.executable}")
    return _check("python", "fail", f"{shown}: ego_browser needs Python 3.11 or newer")


def check_imports(modules: tuple[str, ...] = MODULES) -> dict[str, str]:
    broken = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # any failure to import is what this check reports
            broken.append(f"{name} ({type(exc).__name__}: {exc})")
    if broken:
        return _check("imports", "fail", "cannot import " + "; ".join(broken) + " (reinstall: pip install -U ego_browser)")
    return _check("imports", "ok", f"{len(modules)} modules import")


def check_core() -> dict[str, str]:
    try:
        from .. import _snapshot  # noqa: F401
    except ImportError as exc:
        return _check("snapshot core", "warn", f"the compiled core is not importable ({exc}); the pure-Python twin "
                      "is used (same results, slower). Reinstall with a C compiler, or `make setup` in a checkout")
    return _check("snapshot core", "ok", f"compiled ({Path(_snapshot.__file__).name})")


def check_grid(url: str) -> dict[str, str]:
    """The Selenium Grid answers /status and says it is ready (docs/scale-out.md)."""
    from ..browser.grid import GridClient

    client = GridClient(url)
    try:
        status = client._call("GET", "/status")
    except EgoError as exc:
        return _check("selenium grid", "fail", exc.message)
    value = (status or {}).get("value") or {}
    nodes = value.get("nodes") or []
    if not value.get("ready"):
        return _check("selenium grid", "fail", f"{client.url}/status says not ready: {value.get('message', '')}")
    return _check("selenium grid", "ok", f"{client.url}: ready, {len(nodes)} node(s)")


def check_chromium() -> dict[str, str]:
    """The executable is found and runs (``--version``): a missing library fails here."""
    grid = os.environ.get("EGO_BROWSER_GRID_URL", "").strip()
    if grid:
        return check_grid(grid)
    remote = os.environ.get("EGO_BROWSER_CDP_URL")
    if remote:
        from ..browser.launcher import resolve_cdp_url

        try:
            return _check("cdp endpoint", "ok", ", ".join(
                resolve_cdp_url(u.strip()) for u in remote.split(",") if u.strip()))
        except EgoError as exc:
            return _check("cdp endpoint", "fail", exc.message)
    from ..browser.launcher import find_chromium

    try:
        exe = find_chromium()
    except EgoError as exc:
        return _check("chromium", "fail", exc.message)
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=RUN_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return _check("chromium", "fail", f"{exe} --version did not answer within {RUN_TIMEOUT:.0f}s")
    except OSError as exc:
        return _check("chromium", "fail", f"{exe} cannot be run: {exc}")
    out = (proc.stdout or proc.stderr).strip().splitlines()
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        return _check("chromium", "fail", f"{exe} --version exited with status {proc.returncode}: {tail}")
    return _check("chromium", "ok", f"{exe}: {out[0] if out else 'runs'}")


def check_home() -> dict[str, str]:
    home = config.home()
    try:
        config.ensure_home(home)
        probe = home / ".doctor-probe"
        probe.write_text("ok")
        probe.unlink()
    except (OSError, EgoError) as exc:
        return _check("home", "fail", f"{home}: {getattr(exc, 'message', exc)}")
    return _check("home", "ok", f"{home} is writable")


def check_store(path: Path | None = None) -> dict[str, str]:
    """SQLite's quick check of the state store, read-only (a running host is not disturbed)."""
    import sqlite3

    from ..host.core.store import integrity_problem

    path = config.home() / "state.sqlite3" if path is None else path
    kept = sorted(p.name for p in path.parent.glob(path.name + ".corrupt-*") if not p.name.endswith(("-wal", "-shm")))
    earlier = f"; damaged copies kept: {', '.join(kept)}" if kept else ""
    if not path.exists():
        return _check("state store", "ok", f"{path} not created yet (the first round creates it){earlier}")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            problem = integrity_problem(db)
        finally:
            db.close()
    except sqlite3.Error as exc:
        problem = str(exc)
    if problem:
        return _check("state store", "fail", (
            f"{path} is damaged ({problem}); the next host start moves it aside and starts a fresh one "
            f"(ego-browser host stop first if a host runs){earlier}"))
    return _check("state store", "ok", f"{path} passes SQLite's quick check{earlier}")


def check_skill() -> dict[str, str]:
    from ..learning.install import skill_source

    try:
        source = skill_source()
    except FileNotFoundError as exc:
        return _check("skill", "fail", f"{exc}; install-skill has nothing to copy (reinstall ego_browser)")
    return _check("skill", "ok", f"{source / 'SKILL.md'}")


def check_learnings() -> dict[str, str]:
    from ..learning.loader import iter_pack_dirs, learnings_root
    from ..learning.validate import validate_skills

    root = learnings_root()
    packs = iter_pack_dirs(root)
    if not packs:
        where = " (EGO_BROWSER_AGENT_WORKSPACE)" if os.environ.get("EGO_BROWSER_AGENT_WORKSPACE") else ""
        return _check("site learnings", "fail", f"no packs in {root}{where}; learn_context() would find nothing")
    problems = validate_skills(root)
    if problems:
        shown = "; ".join(problems[:3]) + (" ..." if len(problems) > 3 else "")
        return _check("site learnings", "fail", f"{len(problems)} problem(s) in {root}: {shown} "
                      "(ego-browser validate-skills lists them)")
    return _check("site learnings", "ok", f"{len(packs)} pack(s) valid in {root}")


def check_host(launch: bool = True) -> dict[str, str]:
    """The running host answers; with none running, one starts (and stops) in a throwaway home."""
    from .hostctl import call, host_answers

    if host_answers():
        try:
            status = asyncio.run(call("host.status", {}, start=False))
        except EgoError as exc:
            return _check("host", "fail", f"the running host does not answer: {exc.message}")
        if status is not None:
            return _check("host", "ok", f"running: pid {status['pid']}, browser {status['browser']}, "
                          f"endpoint {status['endpoint']}")
    if not launch:
        return _check("host", "ok", "not running (not started: --no-launch); the first round starts it")
    scratch = tempfile.mkdtemp(prefix="ego-doctor-")
    env = {**os.environ, "EGO_BROWSER_HOME": scratch, "EGO_BROWSER_IDLE_SHUTDOWN": "120"}
    cmd = [sys.executable, "-m", "ego_browser", "host"]
    try:
        try:
            proc = subprocess.run([*cmd, "start"], env=env, capture_output=True, text=True, timeout=HOST_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return _check("host", "fail", f"a host did not start within {HOST_TIMEOUT:.0f}s (log: {scratch}/run)")
        if proc.returncode != 0:
            why = (proc.stderr or proc.stdout).strip()
            return _check("host", "fail", f"a host does not start: {why}")
        return _check("host", "ok", "not running; a test host started and stopped: " + proc.stdout.strip())
    finally:
        try:
            subprocess.run([*cmd, "stop"], env=env, capture_output=True, timeout=HOST_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            pass
        shutil.rmtree(scratch, ignore_errors=True)


def run_checks(*, launch: bool = True) -> list[dict[str, str]]:
    checks = [check_python(), check_imports(), check_core(), check_chromium(), check_home(), check_store(),
              check_skill(), check_learnings()]
    broken = any(c["status"] == "fail" and c["name"] in ("imports", "chromium", "cdp endpoint") for c in checks)
    if broken:  # a host cannot start without these; say so instead of a second, vaguer failure
        checks.append(_check("host", "fail", "not tried: fix the failures above first"))
    else:
        checks.append(check_host(launch))
    return checks + check_profiles(remote=bool(os.environ.get("EGO_BROWSER_CDP_URL")))


def check_profiles(*, remote: bool) -> list[dict[str, str]]:
    """One line per browser profile: WARN for one imported from a far newer browser."""
    from .profile_commands import chromium_version, doctor_lines

    try:
        lines = doctor_lines(None if remote else chromium_version())
    except (OSError, EgoError) as exc:
        return [_check("profiles", "fail", f"the profile store cannot be read: {getattr(exc, 'message', exc)}")]
    return [_check(what, level.lower(), detail) for level, what, detail in lines]


def print_report(checks: list[dict[str, Any]]) -> None:
    for c in checks:
        print(f"{c['status'].upper()}  {c['name']}: {c['detail']}")
