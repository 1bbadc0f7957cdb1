"""An imported profile's space runs in a Chromium of its own (issue 15, the last gap).

Bookmarks, history, saved logins and extensions load only from a browser's own profile
directory, so a space on an imported profile runs in a Chromium launched on that profile's
directory, started on first use and stopped when its last space finishes; the default profile
keeps its in-memory contexts. The source profile is built by a real Chromium
(tests/profile_source.py: a log-in cookie, localStorage, a bookmark, a permission, and the
history of that visit), plus what Chromium's UI would leave and CDP cannot make: a saved login
(a ``Login Data`` row, its password encrypted as our Chromium's basic store does) and an
installed extension whose content script marks every page. Each category is checked where
the person would see it: chrome://bookmarks and chrome://history, the served page marked by
the extension, the served log-in form filled by the password manager.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import ego_browser
from ego_browser import config
from ego_browser.browser_profiles import crypto
from ego_browser.browser_profiles.import_chrome import import_profile
from tests.profile_source import BOOKMARK_URL, build_source_profile, serve_login, tree_digest
from tests.server import Response

EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop"
LOGIN_FORM = """<title>sign in</title><form action=/signed-in method=post>
<input id=user name=username autocomplete=username>
<input id=pass type=password name=password autocomplete=current-password>
<button>Sign in</button></form>"""


def _add_saved_login(profile: Path, origin: str) -> None:
    """What the password manager's "Save" leaves: a row of ``Login Data``."""
    db = sqlite3.connect(profile / "Login Data")
    try:
        cols = {r[1] for r in db.execute("PRAGMA table_info(logins)")}
        row = {
            "origin_url": f"{origin}/signin", "action_url": f"{origin}/signed-in", "username_element": "username",
            "username_value": "alice", "password_element": "password",
            "password_value": crypto.encrypt_v10(b"correct horse"), "submit_element": "",
            "signon_realm": f"{origin}/", "date_created": 13300000000000000, "blacklisted_by_user": 0,
            "scheme": 0, "password_type": 0, "times_used": 1, "date_last_used": 13300000000000000,
            "date_password_modified": 13300000000000000,
        }
        keys = [k for k in row if k in cols]
        db.execute(f"INSERT INTO logins({','.join(keys)}) VALUES ({','.join('?' * len(keys))})",
                   [row[k] for k in keys])
        db.commit()
    finally:
        db.close()


def _add_extension(profile: Path) -> None:
    """An installed extension as the browser stores it: ``Extensions/<id>/<version>/``."""
    ext = profile / "Extensions" / EXTENSION_ID / "1.0_0"
    ext.mkdir(parents=True)
    (ext / "manifest.json").write_text(json.dumps({
        "manifest_version": 3, "name": "Page marker", "version": "1.0",
        "content_scripts": [{"matches": ["<all_urls>"], "js": ["mark.js"], "run_at": "document_end"}],
    }))
    (ext / "mark.js").write_text("document.documentElement.setAttribute('data-marked-by', 'page-marker');")


@pytest.fixture(scope="module")
async def full_source(server, tmp_path_factory):
    serve_login(server)
    server.route("/signin", Response(LOGIN_FORM))
    server.route("/plain", Response("<title>plain</title><p>plain page</p>"))
    user_data = tmp_path_factory.mktemp("chrome-full-src") / "user-data"
    await build_source_profile(user_data, server)
    # written after the browser closed: a running one would drop an extension its
    # preferences do not list, and it holds Login Data open
    _add_saved_login(user_data / "Default", server.url("").rstrip("/"))
    _add_extension(user_data / "Default")
    return user_data


def _browsers_on(directory: Path) -> list[int]:
    """Pids of Chromium processes launched on ``directory`` (read from /proc, never signalled)."""
    flag = os.fsencode(f"--user-data-dir={directory}")
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if flag in argv and not any(a.startswith(b"--type=") for a in argv) and b"keeper.py" not in b" ".join(argv):
            found.append(int(entry.name))
    return found


async def _text_of(page, url: str, wanted: str) -> str:
    """The visible text of a browser page, once ``wanted`` shows in it (the WebUI pages fill
    themselves in after load)."""
    await page.goto(url)
    await page.wait_for_function(
        "(w) => { const walk = (n) => (n.shadowRoot ? walk(n.shadowRoot) : '') + "
        "[...n.childNodes].map(c => c.nodeType === 3 ? c.textContent : walk(c)).join(' '); "
        "return walk(document.documentElement).includes(w); }", wanted, timeout=30000)
    return wanted


async def test_imported_profile_space_sees_bookmarks_history_logins_and_extensions(
        host, server, full_source, space_name):
    before = tree_digest(full_source)
    report = import_profile(from_dir=str(full_source), name="Everything of alice", secret_lookup=lambda _b: None)
    cats = report["categories"]
    assert cats["logins"]["imported"] == 1 and cats["extensions"]["imported"] == 1
    assert cats["bookmarks"]["imported"] == 1 and cats["history"]["imported"] >= 1
    profile_id = report["profile"]["id"]
    chromium_dir = config.home() / "profiles" / profile_id / "chromium"
    assert _browsers_on(chromium_dir) == []

    task = await ego_browser.task_space(space_name, profile_id=profile_id)
    try:
        # a Chromium of its own, on the profile's directory, started for this space
        assert len(_browsers_on(chromium_dir)) == 1
        page = task.page("p1")
        # the cookie of the log-in, as before
        await page.goto(server.url("/whoami"))
        assert await page.evaluate("document.getElementById('who').textContent") == "logged in as alice"
        # the extension's content script ran in the served page
        await page.goto(server.url("/plain"))
        assert await page.evaluate("document.documentElement.getAttribute('data-marked-by')") == "page-marker"
        # the saved login is offered: the password manager filled both fields (their values
        # stay hidden from the page's scripts until the person interacts, as in Chrome)
        await page.goto(server.url("/signin"))
        await page.wait_for_selector("loc=css:#pass:autofill", timeout=30000)
        filled = await page.evaluate("[...document.querySelectorAll(':autofill')].map(e => e.id).sort()")
        assert filled == ["pass", "user"]
        # the bookmark and the history, in the browser's own pages
        await _text_of(page, "chrome://bookmarks", "Reading list")
        await _text_of(page, "chrome://history", "logged in")
        # a default-profile space still sees none of it
        other = await ego_browser.task_space(space_name + "-default")
        try:
            p = other.page("p1")
            await p.goto(server.url("/plain"))
            assert await p.evaluate("document.documentElement.getAttribute('data-marked-by')") is None
        finally:
            await other.finish(keep=[])
    finally:
        await task.finish(keep=[])
    # its last space finished: the profile's browser is stopped, its data kept
    assert _browsers_on(chromium_dir) == []
    assert (chromium_dir / "Default" / "Bookmarks").is_file()
    assert tree_digest(full_source) == before, "the source profile changed"


_RESTART = """
import asyncio, os, sys
from pathlib import Path
import ego_browser
from ego_browser.browser_profiles import store

def _browsers_on(directory):  # Chromium browser processes on directory (read from /proc)
    flag = os.fsencode(f"--user-data-dir={directory}")
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\\0") if entry.name.isdigit() else []
        except OSError:
            continue
        if flag in argv and not any(a.startswith(b"--type=") for a in argv) and b"keeper.py" not in b" ".join(argv):
            found.append(entry.name)
    return found

async def main(base):
    prof = store.create("Restart", created_from="a closed Chromium")  # imported: its own browser
    chromium = prof.path / "chromium"
    async with ego_browser.embedded():
        task = await ego_browser.task_space("restart", profile_id=prof["id"])
        await task.page("p1").goto(base + "/login?user=erin")
        print("running", len(_browsers_on(chromium)))
    # the host stopped, and the profile's Chromium with it: the profile kept the log-in
    print("after stop", len(_browsers_on(chromium)))
    print("saved", [c["value"] for c in store.read_json(prof.path / "cookies.json", []) if c["name"] == "session"])
    async with ego_browser.embedded():  # a new host: the space's page reopens in a new one
        task = await ego_browser.task_space("restart")
        page = task.page("p1")
        await page.goto(base + "/whoami")
        print("who", await page.evaluate("document.getElementById('who').textContent"))
        print("reopened", len(_browsers_on(chromium)))
        await task.finish(keep=[])
        print("after finish", len(_browsers_on(chromium)))

asyncio.run(main(sys.argv[1]))
"""


def test_host_stop_ends_the_profile_browser_and_a_new_host_reopens_the_space_in_it(server, tmp_path):
    serve_login(server)
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent.parent)}
    out = subprocess.run([sys.executable, "-c", _RESTART, server.url("").rstrip("/")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines == ["running 1", "after stop 0", "saved ['erin']", "who logged in as erin", "reopened 1",
                     "after finish 0"], out.stdout


_RESTART_TWO = """
import asyncio, sys
import ego_browser
from ego_browser.client.channel import InProcessChannel, set_default_channel
from ego_browser.browser_profiles import store
from ego_browser.host.ops.spaces import list_task_spaces

async def main():
    prof = store.create("Work", created_from="a closed Chromium")  # imported: its own browser
    async with ego_browser.embedded() as h:
        set_default_channel(InProcessChannel(h))
        await (await ego_browser.task_space("on-profile", profile_id=prof["id"])).page("p1").goto("about:blank")
        await (await ego_browser.task_space("plain")).page("p1").goto("about:blank")
    async with ego_browser.embedded() as h:  # a new host reopens both
        set_default_channel(InProcessChannel(h))
        for r in await list_task_spaces(h, {}):
            print(r["name"], r["profile"], r["browser"])

asyncio.run(main())
"""


def test_after_a_restart_a_plain_space_is_not_listed_on_an_imported_profile(tmp_path):
    # issue 34: reopening the profile's space first made its browser the current one, and the
    # plain space reopened there too (listed as running on the imported profile)
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent.parent)}
    out = subprocess.run([sys.executable, "-c", _RESTART_TWO], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == ["on-profile work profile work", "plain default local"], out.stdout
