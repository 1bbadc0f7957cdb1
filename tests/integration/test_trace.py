"""Issue 33 §2: the trace of a space — journal, pictures and requests as a zip that opens offline,
and as a Playwright script that replays the actions."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import zipfile

import pytest

from tests.learning_app import LibraryApp

_apps = itertools.count(1)


@pytest.fixture
def app(server):
    return LibraryApp(server, f"/trace{next(_apps)}")


def _round(rounds, script):
    proc = rounds.run(script)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _two_rounds(rounds, app, space):
    out = _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/login")!r})\n'
                         'await p.fill("#user", "ann")\nawait p.fill("#pw", "hunter2-secret")\n'
                         'await p.click("text=Sign in >> nth=1")\nprint(task.space_id)\n')
    _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait task.set_status("adding Dune")\n'
                   f'await p.goto({app.url("/new")!r})\nlook = await p.snapshot()\n'
                   'await p.fill("#title", "Dune")\nawait p.fill("#author", "Herbert")\n'
                   'await p.select_option("#genre", "Poetry")\nawait p.click("button", note="saving the book")\n')
    return out.strip().splitlines()[-1]


async def _open_offline(index):
    """Open the viewer from its file: what it shows, and every URL the page asked for."""
    from playwright.async_api import async_playwright

    from tests.selector_cases import CHROMIUM, PW_ARGS

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
        try:
            page = await browser.new_page()
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            await page.goto(index.as_uri())
            await page.wait_for_selector("li.action")
            await page.wait_for_function("[...document.images].every((i) => i.complete)")
            shown = await page.evaluate("""() => ({
                title: document.getElementById('title').textContent,
                rounds: [...document.querySelectorAll('section.round h2')].map((h) => h.textContent),
                ops: [...document.querySelectorAll('li.action')].map((li) => li.dataset.op),
                targets: [...document.querySelectorAll('li.action .target')].map((t) => t.textContent),
                images: [...document.images].map((i) => [i.getAttribute('src'), i.naturalWidth]),
                requests: [...document.querySelectorAll('table.requests td.url')].map((t) => t.textContent),
                notes: [...document.querySelectorAll('li.note')].map((li) => li.textContent),
                said: [...document.querySelectorAll('.note-line')].map((d) => d.textContent),
                snapshots: [...document.querySelectorAll('li.seen pre.snapshot')].map((p) => p.textContent),
            })""")
            return shown, asked
        finally:
            await browser.close()


async def test_trace_export_zip_opens_offline_with_pictures_and_requests(rounds, app, tmp_path):
    pytest.importorskip("playwright.async_api")
    space_id = _two_rounds(rounds, app, f"trace-{app.prefix.strip('/')}")
    out = tmp_path / "trace.zip"
    proc = rounds.cli("trace", "export", space_id, "--output", str(out), "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["rounds"] == 2 and summary["actions"] == 11 and summary["pictures"] >= 1

    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        assert {"index.html", "trace.js", "trace.css", "trace-data.js", "trace.json"} <= names
        data = json.loads(z.read("trace.json"))
        everything = b"".join(z.read(n) for n in names if not n.startswith("pictures/"))
        z.extractall(tmp_path / "unzipped")
    assert b"hunter2-secret" not in everything  # the password stays out of the trace
    note, goto, seen, *second = data["rounds"][1]["actions"]
    # what the agent said and saw: its status note, the snapshot's text (cut), neither with a picture
    assert (note["op"], note["value"], note["picture_after"]) == ("task.set_status", "adding Dune", None)
    assert seen["op"] == "page.snapshot" and "Title" in seen["snapshot"] and seen["picture_after"] is None
    second = [goto, *second]
    click = second[-1]
    assert click["note"] == "saving the book"
    # the action's requests: the form's POST, answered 200, a document
    posts = [r for r in click["requests"] if r["method"] == "POST"]
    assert posts and posts[0]["url"] == app.url("/add") and posts[0]["status"] == 200
    assert posts[0]["resource_type"] == "document" and posts[0]["main_frame"]
    goto = second[0]
    assert any(r["url"] == app.url("/new") and r["status"] == 200 for r in goto["requests"])
    # pictures: each action's "before" is the previous action's "after" on that page
    assert click["picture_after"] and f"pictures/{click['picture_after']}" in names
    for prev, nxt in itertools.pairwise(second):
        assert nxt["picture_before"] == prev["picture_after"]

    shown, asked = await _open_offline(tmp_path / "unzipped" / "index.html")
    assert all(u.startswith("file://") for u in asked), asked  # offline: nothing from the network
    assert shown["ops"] == [a["op"] for r in data["rounds"] for a in r["actions"]]
    assert "adding Dune" in shown["notes"][0] and "Title" in shown["snapshots"][0]
    assert shown["said"] == ["note: saving the book"]
    assert len(shown["rounds"]) == 2 and "Round 2" in shown["rounds"][1] and "ok" in shown["rounds"][1]
    assert any('role=button[name="Save book"]' in t for t in shown["targets"])
    assert shown["images"] and all(width > 0 for _, width in shown["images"])
    assert app.url("/add") in shown["requests"]


def test_trace_export_as_playwright_replays_to_the_same_end_state(rounds, app, tmp_path):
    pytest.importorskip("playwright.sync_api")
    from tests.selector_cases import CHROMIUM

    space_id = _two_rounds(rounds, app, f"trace-pw-{app.prefix.strip('/')}")
    script = tmp_path / "replay.py"
    proc = rounds.cli("trace", "export", space_id, "--output", str(script), "--as", "playwright", "--json")
    assert proc.returncode == 0, proc.stderr
    source = script.read_text()
    assert 'get_by_test_id("book-title").fill("Dune")' in source
    assert 'get_by_role("button", name="Save book", exact=True).click()' in source
    assert "hunter2-secret" not in source and 'os.environ["EGO_REPLAY_PASSWORD"]' in source
    assert app.books == [{"title": "Dune", "author": "Herbert", "genre": "Poetry"}] and app.signed_in == ["ann"]
    run = subprocess.run([sys.executable, str(script), "--executable", CHROMIUM, "--browser-arg=--no-sandbox"],
                         env={**rounds.env, "EGO_REPLAY_PASSWORD": "pw"}, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    # the replay did what the space did: signed in again and added the same book again
    assert app.signed_in == ["ann", "ann"]
    assert app.books == [{"title": "Dune", "author": "Herbert", "genre": "Poetry"}] * 2


def test_trace_export_to_a_path_that_cannot_be_written(rounds, app, tmp_path):
    space_id = _two_rounds(rounds, app, f"trace-bad-{app.prefix.strip('/')}")
    proc = rounds.cli("trace", "export", space_id, "--output", str(tmp_path / "missing" / "trace.zip"))
    assert proc.returncode != 0 and "EGO_TRACE_UNWRITABLE" in proc.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = rounds.cli("trace", "export", space_id, "--output", str(blocker / "trace.zip"))
    assert proc.returncode != 0 and "EGO_TRACE_UNWRITABLE" in proc.stderr
    proc = rounds.cli("trace", "export", space_id, "--output", str(tmp_path))  # a folder, not a file
    assert proc.returncode != 0 and "EGO_TRACE_UNWRITABLE" in proc.stderr
    # the trace is still whole: a good path works after the bad ones
    proc = rounds.cli("trace", "export", space_id, "--output", str(tmp_path / "ok.zip"), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["actions"] == 11


_FULL_DISK = """
import resource, signal, sys, json, asyncio, base64
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
out, previous = Path(sys.argv[1]), Path(sys.argv[2])
from ego_browser.errors import TraceUnwritable
from ego_browser.host.features.trace_pictures import Pictures
from ego_browser.trace.bundle import write_zip
resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
journal = {"format": 1, "space_id": 1, "rounds": [{"n": 1, "script": __import__("os").urandom(100_000).hex(), "status": "ok", "actions": []}]}
try:
    write_zip(previous, journal, {})
    print(json.dumps({"error": None}))
except TraceUnwritable as exc:
    print(json.dumps({"error": exc.code, "message": exc.message}))

class Session:
    async def send(self, method, params, timeout):
        return {"data": base64.b64encode(bytes(range(256)) * 400).decode()}

class Driver:
    target_id, dialogs, session = "t1", None, Session()

async def pictures():
    p = Pictures(out / "traces")
    name = p.schedule(1, "p1", Driver())
    await p.settle()
    return {"name": name, "failures": p.failures, "files": sorted(p.files(1))}

print(json.dumps(asyncio.run(pictures())))
"""


def test_a_full_disk_fails_the_export_with_a_code_and_never_the_recording(tmp_path):
    """A full disk (a file-size limit in a child: writes fail as they would): the export fails with
    EGO_TRACE_UNWRITABLE and leaves the previous file whole; a picture that cannot be written is
    skipped without an error reaching the action."""
    import os
    import subprocess

    previous = tmp_path / "trace.zip"
    previous.write_bytes(b"the previous export")
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK, str(tmp_path), str(previous)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "EGO_BROWSER_TRACE_PICTURES": "1"})
    assert proc.returncode == 0, proc.stderr
    export, pictures = (json.loads(line) for line in proc.stdout.strip().splitlines())
    assert export["error"] == "EGO_TRACE_UNWRITABLE" and "free some space" in export["message"]
    assert previous.read_bytes() == b"the previous export"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no half-written file left
    assert pictures["name"] and pictures["failures"] == 1 and pictures["files"] == []


def test_pictures_that_cannot_be_written_never_break_the_round_or_the_trace(rounds, app, tmp_path):
    """The space's picture folder cannot be made (a file stands in its place, as a full or broken
    disk would refuse it): the actions and the round succeed, the journal has every action, and
    the export works, without those pictures."""
    from pathlib import Path

    space = f"trace-nopix-{app.prefix.strip('/')}"
    space_id = _round(rounds, f"task = await task_space({space!r})\nprint(task.space_id)\n").strip().splitlines()[-1]
    folder = Path(rounds.env["EGO_BROWSER_HOME"]) / "traces" / space_id
    if folder.is_dir():
        import shutil

        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("in the way")
    _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/new")!r})\n'
                   'await p.fill("#title", "Dune")\nawait p.click("button")\n')
    assert app.books[-1]["title"] == "Dune"
    proc = rounds.cli("trace", "export", space_id, "--output", str(tmp_path / "t.zip"), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["actions"] == 3 and summary["pictures"] == 0
    with zipfile.ZipFile(tmp_path / "t.zip") as z:
        actions = json.loads(z.read("trace.json"))["rounds"][-1]["actions"]
    assert [a["op"] for a in actions] == ["page.goto", "page.fill", "page.click"]
    assert all(a["picture_after"] is None and a["outcome"] == "ok" for a in actions)
