"""``ego-browser --json``: a round's outcome as one JSON object (issue 34 point 7).

The agent or a harness gets stdout, the error's code, message and script line, the page calls
with their receipts, and the duration, without parsing free text.
"""

from __future__ import annotations

import json
import subprocess
import sys

PAGE = "<button onclick=\"document.title='clicked'\">Go</button>"


def test_a_failing_round_reports_its_output_error_line_and_calls(rounds, server):
    url = server.page("/json-round", PAGE, title="J")
    proc = rounds.run(
        'task = await task_space("json-round")\npage = task.page("p1")\n'
        f"await page.goto({url!r})\nawait page.click('button')\nprint('title', await page.title())\n"
        "await page.click('#missing', timeout=300)\nprint('never')\n",
        "--json",
    )
    assert proc.returncode == 1
    assert proc.stderr == ""  # everything is in the object
    report = json.loads(proc.stdout)
    assert report["ok"] is False and report["status"] == 1
    assert report["stdout"] == "title clicked\n"
    assert report["error"]["code"] == "EGO_SELECTOR_NOT_FOUND" and report["error"]["line"] == 6
    assert "#missing" in report["error"]["message"]
    ops = [(c["op"], c.get("selector")) for c in report["calls"]]
    assert ("page.click", "button") in ops and ("page.click", "#missing") in ops
    clicked = next(c for c in report["calls"] if c.get("selector") == "button")
    assert clicked["receipt"]["dialog"] is None and clicked["receipt"]["popups"] == []
    failed = next(c for c in report["calls"] if c.get("selector") == "#missing")
    assert failed["error"] == "EGO_SELECTOR_NOT_FOUND"
    assert report["duration_ms"] > 0


def test_a_clean_round_and_a_syntax_error(rounds):
    ok = json.loads(rounds.run("print('hello')\n", "--json").stdout)
    assert ok["ok"] is True and ok["stdout"] == "hello\n" and ok["error"] is None and ok["calls"] == []
    bad = rounds.run("print(\n", "--json")
    assert bad.returncode == 2
    report = json.loads(bad.stdout)
    assert report["ok"] is False and "SyntaxError" in report["error"]["message"]


def test_verbose_prints_the_calls_on_stderr_and_a_bad_level_is_refused(rounds, server):
    url = server.page("/verbose-round", PAGE, title="V")
    script = f'page = (await task_space("verbose-round")).page("p1")\nawait page.goto({url!r})\nprint("ok")\n'
    quiet = rounds.run(script)
    assert quiet.returncode == 0 and "[ego-browser:log]" not in quiet.stderr
    loud = rounds.run(script, "--verbose")
    assert loud.returncode == 0, loud.stderr
    assert loud.stdout == "ok\n"  # log lines never mix into the round's output
    assert "[ego-browser:log]" in loud.stderr and "-> page.goto" in loud.stderr and "<- page.goto" in loud.stderr
    bad = subprocess.run([sys.executable, "-m", "ego_browser", "-e", "print(1)"], env={**rounds.env, "EGO_BROWSER_LOG": "loud"},
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "EGO_INVALID_ARGUMENT: EGO_BROWSER_LOG='loud' is not a level" in bad.stderr
