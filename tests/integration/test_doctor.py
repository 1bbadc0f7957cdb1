"""``doctor`` really checks (issue 13, point 3): each check is made to fail here, the way a
broken install would, and must say FAIL (or WARN for the slower pure-Python core) and why."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from ego_browser.cli import doctor
from tests.conftest import ROOT

BOUND = 240


def _doctor(tmp_path: Path, *args: str, pythonpath: str = str(ROOT), cwd: Path | None = None,
            python: tuple[str, ...] = (sys.executable,), **env: str) -> tuple[int, dict[str, dict[str, str]]]:
    home = tmp_path / "home"
    full = {**os.environ, "EGO_BROWSER_HOME": str(home), "PYTHONPATH": pythonpath, **env}
    for name in ("EGO_BROWSER_CDP_URL", "EGO_BROWSER_LEARNINGS_DIR", "EGO_BROWSER_AGENT_WORKSPACE"):
        if name not in env:
            full.pop(name, None)
    proc = subprocess.run([*python, "-m", "ego_browser", "doctor", "--json", *args], env=full,
                          capture_output=True, text=True, timeout=BOUND, cwd=str(cwd or tmp_path),
                          stdin=subprocess.DEVNULL)
    data = json.loads(proc.stdout)
    assert data["ok"] is (proc.returncode == 0), proc.stdout
    return proc.returncode, {c["name"]: c for c in data["checks"]}


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_all_checks_pass_on_this_set_up(tmp_path):
    code, checks = _doctor(tmp_path)
    assert code == 0, checks
    assert [c for c in checks.values() if c["status"] != "ok"] == []
    core = {"python", "imports", "snapshot core", "chromium", "home", "state store", "skill", "site learnings", "host"}
    assert core <= set(checks) and all(name.startswith("profile ") for name in set(checks) - core), checks
    assert "started and stopped" in checks["host"]["detail"]


def test_an_old_python_fails():
    assert doctor.check_python((3, 10, 12))["status"] == "fail"
    assert "3.11" in doctor.check_python((3, 10, 12))["detail"]


def test_a_module_that_does_not_import_fails(tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "websockets.py").write_text("raise ImportError('this websockets is broken')\n")
    code, checks = _doctor(tmp_path, "--no-launch", pythonpath=f"{shadow}{os.pathsep}{ROOT}")
    assert code == 1
    assert checks["imports"]["status"] == "fail" and "this websockets is broken" in checks["imports"]["detail"]
    assert checks["host"]["status"] == "fail" and "not tried" in checks["host"]["detail"]


def test_a_package_without_its_core_skill_and_learnings_says_so(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(ROOT / "ego_browser", site / "ego_browser",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "_skill"))
    # -S: no site hooks, so the checkout's editable install cannot shadow the copy; the
    # dependencies come from site-packages put on the path by hand
    deps = next(p for p in sys.path if p.endswith("site-packages"))
    code, checks = _doctor(tmp_path, "--no-launch", pythonpath=f"{site}{os.pathsep}{deps}", python=(sys.executable, "-S"))
    assert code == 1
    assert checks["snapshot core"]["status"] == "warn" and "pure-Python twin" in checks["snapshot core"]["detail"]
    assert checks["skill"]["status"] == "fail" and "entry skill is missing" in checks["skill"]["detail"]
    assert checks["site learnings"]["status"] == "fail" and "no packs" in checks["site learnings"]["detail"]


def test_a_missing_or_broken_chromium_fails(tmp_path, monkeypatch):
    monkeypatch.delenv("EGO_BROWSER_CDP_URL", raising=False)
    monkeypatch.setenv("EGO_BROWSER_CHROMIUM", str(tmp_path / "no-such-chromium"))
    check = doctor.check_chromium()
    assert check["status"] == "fail" and "not an executable" in check["detail"]
    broken = _script(tmp_path / "broken", "echo 'error while loading shared libraries: libnss3.so' >&2\nexit 127\n")
    monkeypatch.setenv("EGO_BROWSER_CHROMIUM", broken)
    check = doctor.check_chromium()
    assert check["status"] == "fail" and "libnss3.so" in check["detail"] and "status 127" in check["detail"]


def test_no_host_start_is_tried_without_a_browser(tmp_path):
    code, checks = _doctor(tmp_path, EGO_BROWSER_CHROMIUM=str(tmp_path / "no-such-chromium"))
    assert code == 1 and checks["chromium"]["status"] == "fail"
    assert checks["host"]["status"] == "fail" and "not tried" in checks["host"]["detail"]


def test_a_host_that_cannot_start_fails_with_its_cause(tmp_path):
    # answers --version like a browser, but dies when launched for real
    fake = _script(tmp_path / "fake", 'if [ "$1" = "--version" ]; then echo "Chromium 1.0"; exit 0; fi\n'
                   "echo 'cannot open display: sandbox says no' >&2\nexit 1\n")
    code, checks = _doctor(tmp_path, EGO_BROWSER_CHROMIUM=fake)
    assert code == 1
    assert checks["chromium"]["status"] == "ok"
    assert checks["host"]["status"] == "fail", checks["host"]
    assert "does not start" in checks["host"]["detail"] and "EGO_BROWSER_UNAVAILABLE" in checks["host"]["detail"]


def test_an_unwritable_home_fails(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("EGO_BROWSER_HOME", str(blocker / "home"))
    check = doctor.check_home()
    assert check["status"] == "fail" and str(blocker) in check["detail"]


def test_a_damaged_store_fails(tmp_path):
    store = tmp_path / "state.sqlite3"
    store.write_bytes(os.urandom(8192))
    check = doctor.check_store(store)
    assert check["status"] == "fail" and "damaged" in check["detail"]


def test_missing_or_invalid_learnings_fail(tmp_path, monkeypatch):
    empty = tmp_path / "workspace"
    (empty / "learnings").mkdir(parents=True)
    monkeypatch.setenv("EGO_BROWSER_AGENT_WORKSPACE", str(empty))
    monkeypatch.delenv("EGO_BROWSER_LEARNINGS_DIR", raising=False)
    check = doctor.check_learnings()
    assert check["status"] == "fail" and "no packs" in check["detail"]
    (empty / "learnings" / "broken").mkdir()
    (empty / "learnings" / "broken" / "manifest.json").write_text("{not json")
    check = doctor.check_learnings()
    assert check["status"] == "fail" and "broken:" in check["detail"]
