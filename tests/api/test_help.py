"""help(), ``python -m ego_browser help`` and ``skill`` (B177, issue 6)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ego_browser
from ego_browser import __version__

ROOT = Path(__file__).resolve().parent.parent.parent


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ego_browser", *args], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_b177_overview_and_unknown_topic(capsys):
    ego_browser.help()
    out = capsys.readouterr().out
    for name in ("TaskSpace.new_page", "TaskSpace.pages", "TaskSpace.tabs", "profiles", "Page.wait_for_timeout"):
        assert name in out
    ego_browser.help("TaskSpace.list_pages")
    out = capsys.readouterr().out
    assert out.startswith("Unknown help topic: TaskSpace.list_pages")
    assert "TaskSpace.pages" in out


def test_topics_are_case_insensitive(capsys):
    ego_browser.help("page.click")
    out = capsys.readouterr().out
    assert out.startswith("await Page.click(selector, *, button=\"left\", click_count=1")
    assert "Example:" in out and "click_count" in out
    ego_browser.help("Page.keyboard.press")
    assert "Page.keyboard.press(key" in capsys.readouterr().out
    for topic in ("selectors", "SNAPSHOT", "errors", "learnings", "runner", "TaskSpace"):
        ego_browser.help(topic)
        text = capsys.readouterr().out
        assert text.strip() and not text.startswith("Unknown help topic"), topic
    ego_browser.help("errors")
    assert "EGO_SELECTOR_AMBIGUOUS" in capsys.readouterr().out


def test_cli_help_prints_the_same_text(capsys):
    for args in ((), ("page.goto",), ("nope",)):
        ego_browser.help(*args)
        expected = capsys.readouterr().out
        run = cli("help", *args)
        assert run.returncode == 0 and run.stdout == expected, args
    assert cli("help", "a", "b").returncode != 0


def test_skill_guide_bounds_and_extra_argument():
    run = cli("skill")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"[ego-browser:skill] ego-browser usage guide v{__version__}"
    assert lines[-1] == f"[ego-browser:skill] end of guide v{__version__}"
    for needle in ("finish(keep=[])", "hand_off", "loc=", "accept_dialog", "iframe", "wait_for_url", "snapshot"):
        assert needle in run.stdout
    bad = cli("skill", "foo")
    assert bad.returncode != 0 and bad.stdout == "" and "usage" in bad.stderr


def test_import_does_not_load_the_schema():
    code = "import sys, ego_browser; print(any(m.startswith('ego_browser.schema') for m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.stdout.strip() == "False"
    code = ("import sys, ego_browser.client.page, ego_browser.client.api; "
            "print(sorted(m for m in sys.modules if m.startswith('ego_browser.schema')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.stdout.strip() == "['ego_browser.schema']", run.stdout + run.stderr
