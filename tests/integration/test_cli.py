"""The command line as a person or a script meets it (issue 13, point 3): ``--help`` on every
sub-command, ``--json`` where output is read by programs, read-only commands that launch
nothing, and a host that cannot start saying why."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ego_browser import cli
from ego_browser.cli import commands
from tests.conftest import ROOT

BOUND = 180  # a host start on a loaded machine; never reached when all is well


def _spy_chromium(tmp_path: Path) -> tuple[str, Path]:
    """An executable that records that it ran, then fails like a missing browser would."""
    marker = tmp_path / "chromium-ran"
    spy = tmp_path / "spy-chromium"
    spy.write_text(f"#!/bin/sh\necho \"$@\" >> {marker}\nexit 1\n")
    spy.chmod(spy.stat().st_mode | stat.S_IXUSR)
    return str(spy), marker


def test_every_subcommand_has_help(capsys):
    visible = [n for n, c in commands.COMMANDS.items() if not c.hidden]
    assert {"skill", "help", "spaces", "host", "doctor", "install-skill", "validate-skills",
            "package-plugins"} <= set(visible)
    for argv in [[name, "--help"] for name in visible] + [["host", a, "--help"] for a in ("start", "stop", "status")]:
        assert cli.main(argv) == 0, argv
        out = capsys.readouterr().out
        assert out.startswith("usage: ego-browser " + " ".join(argv[:-1])), (argv, out)
        if len(argv) == 2:
            assert commands.COMMANDS[argv[0]].summary in " ".join(out.split()), (argv, out)
    # and through the real entry point, as a person types it
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "spaces", "--help"], capture_output=True,
                          text=True, timeout=120, cwd=str(ROOT), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and "--json" in proc.stdout and "take-over" in proc.stdout


def test_top_level_usage_lists_every_visible_subcommand(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name, c in commands.COMMANDS.items():
        assert (f"ego-browser {name}" in out) is not c.hidden, name


def test_usage_errors_exit_2_and_say_what_is_wrong(capsys):
    assert cli.main(["spaces", "take-over", "seven"]) == 2
    assert "invalid int value: 'seven'" in capsys.readouterr().err
    assert cli.main(["host"]) == 2
    assert "the following arguments are required" in capsys.readouterr().err
    assert cli.main(["doctr"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'doctr'" in err and "ego-browser doctor" in err


def test_read_only_commands_launch_no_browser_and_list_stored_spaces(fresh_rounds, tmp_path):
    made = fresh_rounds.run("t = await task_space('kept offline')\nprint(t.space_id)\n", timeout=BOUND)
    assert made.returncode == 0, made.stderr
    space_id = int(made.stdout.split()[-1])
    assert fresh_rounds.cli("host", "stop", timeout=BOUND).returncode == 0

    spy, marker = _spy_chromium(tmp_path)
    fresh_rounds.env["EGO_BROWSER_CHROMIUM"] = spy
    listed = fresh_rounds.cli("spaces", "--json", timeout=BOUND)
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data["host_running"] is False
    assert [(s["id"], s["name"], s["ownership"]) for s in data["spaces"]] == [(space_id, "kept offline", "agent")]
    text = fresh_rounds.cli("spaces", timeout=BOUND)
    assert "host not running" in text.stdout and "kept offline" in text.stdout

    status = fresh_rounds.cli("host", "status", "--json", timeout=BOUND)
    assert status.returncode == 1 and json.loads(status.stdout) == {"running": False}
    assert fresh_rounds.cli("host", "status", timeout=BOUND).stdout.strip() == "host not running"
    assert not marker.exists(), "a read-only command ran Chromium: " + marker.read_text()
    assert not (Path(fresh_rounds.home) / "run" / "host.sock").exists()


def test_json_output_of_a_running_host(fresh_rounds):
    made = fresh_rounds.run("t = await task_space('json one')\nprint(t.space_id)\n", timeout=BOUND)
    assert made.returncode == 0, made.stderr
    status = fresh_rounds.cli("host", "status", "--json", timeout=BOUND)
    assert status.returncode == 0, status.stderr
    s = json.loads(status.stdout)
    assert s["running"] is True and s["home"] == fresh_rounds.home and isinstance(s["pid"], int)
    listed = json.loads(fresh_rounds.cli("spaces", "--json", timeout=BOUND).stdout)
    assert listed["host_running"] is True
    assert [x["name"] for x in listed["spaces"]] == ["json one"]
    taken = fresh_rounds.cli("spaces", "take-over", str(listed["spaces"][0]["id"]), "--json", timeout=BOUND)
    assert json.loads(taken.stdout)["ownership"] == "user"
    bad = fresh_rounds.cli("spaces", "give-back", "9999", "--json", timeout=BOUND)
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["error"]["code"] == "EGO_TASK_SPACE_NOT_FOUND"


def test_a_host_that_cannot_start_shows_its_cause(fresh_rounds):
    # a log path the host cannot open kills it before it can report on its ready pipe:
    # the cause is only in its output, which the round must show
    run = Path(fresh_rounds.home) / "run"
    run.mkdir(mode=0o700, parents=True)
    os.chmod(fresh_rounds.home, 0o700)
    (run / "host.log").mkdir(mode=0o700)
    proc = fresh_rounds.run("t = await task_space('never')\n", timeout=BOUND)
    assert proc.returncode == 1
    assert "EGO_BROWSER_UNAVAILABLE" in proc.stderr
    assert "IsADirectoryError" in proc.stderr and "host.log" in proc.stderr, proc.stderr
    assert "last lines of" in proc.stderr
