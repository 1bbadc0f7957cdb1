"""Secrets (issue 32, point 1): the person stores them with the CLI, a round types them by name,
and no byte the project writes afterwards holds their value.

Real rounds (``python -m ego_browser``) against a background host of a private home; the key
file is outside that home. The log-in page echoes what is typed everywhere a page can (its
text, its title, its URL, the console, an alert), and the form is posted to the test server,
which proves the values were really typed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.server import Response, TestServer

ROOT = Path(__file__).resolve().parents[2]

PASSWORD = "gh-S3cr3t&Value/93"  # an & and a / so that its URL, HTML and JSON spellings differ
OTP = "c0de-482913"

LOGIN = """<!doctype html><title>Log in</title>
<form id="f" method="post" action="/login">
<label>User <input id="user" name="user"></label>
<label>Password <input id="password" name="password" type="password"></label>
<label>Token <input id="token" name="token"></label>
<label>Code <input id="otp" name="otp"></label>
<label>Note <textarea id="note" name="note"></textarea></label>
<button id="go">Log in</button>
</form>
<p id="echo"></p>
<script>
for (const el of document.querySelectorAll("input, textarea")) {
  el.addEventListener("input", () => {
    if (el.type === "password") return;
    document.getElementById("echo").textContent = "you typed " + el.value;
    document.title = "Hi " + el.value;
    console.log("typed", el.value);
    history.replaceState(null, "", "?v=" + encodeURIComponent(el.value));
  });
}
</script>"""

ROUND = r"""
task = await task_space("secrets-round")
page = task.page("p1")
await page.goto(URL)
await page.fill("#user", "octocat")
print("fill:", await page.fill("#password", secret("github")))
print("fill token:", await page.fill("#token", secret("github")))
await page.focus("#otp")
await page.keyboard.type(secret("otp"))
await page.focus("#note")
await page.keyboard.insert_text(secret("github"))
print("snapshot:", await page.snapshot())
print("find:", await page.find("input"))
print("values:", await page.evaluate("[...document.querySelectorAll('input, textarea')].map(e => e.value)"))
print("title:", await page.title(), "url:", await page.url())
print("text:", await page.inner_text("#echo"), await page.input_value("#token"))
print("events:", page.events())
try:
    await page.evaluate("() => { throw new Error('leaked ' + document.querySelector('#token').value) }")
except EgoError as exc:
    print("error:", exc)
try:
    await page.fill("#nowhere", secret("github"), timeout=300)
except EgoError as exc:
    print("missing field:", exc)
try:
    await page.fill("#token", secret("nope"))
except EgoError as exc:
    print("unknown:", exc.code, exc)
print("marker:", secret("github"), [secret("otp")])
await page.click("#go")
print("journal:", await task.journal())
await task.finish(keep=[])
"""


def _env(home: str, key: str) -> dict[str, str]:
    return {**os.environ, "EGO_BROWSER_HOME": home, "EGO_BROWSER_SECRET_KEY_FILE": key, "PYTHONPATH": str(ROOT),
            "EGO_BROWSER_SECRETS_BACKEND": "file"}


def _cli(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ego_browser", *args], input=stdin, env=env, capture_output=True,
                          text=True, timeout=120, cwd=str(ROOT))


@pytest.fixture
def home():
    base = tempfile.mkdtemp(prefix="ego-test-secrets-")
    home, key = os.path.join(base, "home"), os.path.join(base, "config", "secret.key")
    env = _env(home, key)
    try:
        yield home, key, env
    finally:
        _cli(env, "host", "stop")
        shutil.rmtree(base, ignore_errors=True)


def _files(root: Path, skip: tuple[Path, ...]) -> list[Path]:
    out = []
    for dirpath, _dirs, names in os.walk(root):
        if any(Path(dirpath).is_relative_to(s) for s in skip):
            continue
        out += [Path(dirpath) / n for n in names]
    return out


def test_secrets_typed_through_every_path_appear_in_no_byte_the_project_wrote(home):
    home_dir, key, env = home
    srv = TestServer()
    posted: list[bytes] = []

    def login(req):
        posted.append(req.body)
        return Response("<title>Welcome</title><p>logged in</p>")

    try:
        srv.route("/login", login)
        url = srv.page("/login.html", LOGIN)
        stored = [_cli(env, "secrets", "set", "github", stdin=PASSWORD + "\n"),
                  _cli(env, "secrets", "set", "otp", stdin=OTP + "\n")]
        assert all(p.returncode == 0 for p in stored), [p.stderr for p in stored]
        listed = _cli(env, "secrets", "list", "--json")
        assert [r["name"] for r in json.loads(listed.stdout)] == ["github", "otp"]

        out = _cli(env, stdin=f"URL = {url!r}\n" + ROUND)
        assert out.returncode == 0, out.stderr
        text = out.stdout

        # the values were really typed: the form reached the server with them
        assert posted and PASSWORD.encode() in posted[0].replace(b"%26", b"&").replace(b"%2F", b"/")
        assert OTP.encode() in posted[0]
        # ... and the round saw only their names
        assert "[secret:github]" in text
        assert "you typed [secret:github]" in text or "you typed [secret:otp]" in text
        assert "Hi [secret:github]" in text
        assert "unknown: EGO_SECRET_NOT_FOUND" in text
        assert "marker: [secret:github] [[secret:otp]]" in text
        # the journal the learned tools are made from keeps the secret's name, never its value
        journal = text[text.index("journal:"):]
        assert "[secret:github]" in journal and "[secret:otp]" in journal, journal

        _cli(env, "host", "stop")
        spellings = {PASSWORD, OTP, PASSWORD.replace("&", "%26").replace("/", "%2F"), PASSWORD.replace("&", "&amp;")}
        outputs = [text, out.stderr, *(p.stdout + p.stderr for p in stored), listed.stdout]
        for blob in outputs:
            assert not any(s in blob for s in spellings), blob
        # every byte the project wrote: the store, the host's log, the index of secrets, run files;
        # not the browser's own user-data directory (Chromium's history, caches and session of the
        # page itself, which held the value as any browser does)
        root = Path(home_dir)
        browser_data = (root / "profiles" / "default",)
        files = _files(root, browser_data)
        assert any(f.name == "secrets.json" for f in files) and any(f.name == "host.log" for f in files)
        assert any(f.name.startswith("state.sqlite3") for f in files)
        hits = [str(f) for f in files for s in spellings if s.encode() in f.read_bytes()]
        assert hits == []
    finally:
        srv.close()
