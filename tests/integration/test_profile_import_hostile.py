"""``profiles import`` against hostile and broken sources (issue 31, points 3 and 4).

The sources here are made by hand (no browser needed): a ``Network/up -> ..`` loop, an
extension folder linking to a private key, a source past the copy budget, leftovers of a
killed import, and a profile whose parts are each broken in their own way.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ego_browser.browser_profiles import store
from ego_browser.browser_profiles.import_chrome import import_profile
from ego_browser.browser_profiles.safe_copy import BudgetExceeded
from tests.conftest import ROOT
from tests.profile_source import tree_digest


def no_keyring(_browser: str) -> None:
    return None


def _source(root: Path) -> Path:
    """A minimal profile: a granted permission, a bookmark, a cookie database."""
    profile = root / "user-data" / "Default"
    profile.mkdir(parents=True)
    (profile / "Preferences").write_text(json.dumps({"profile": {"content_settings": {"exceptions": {
        "geolocation": {"https://maps.example:443,*": {"setting": 1}}}}}}))
    (profile / "Bookmarks").write_text(json.dumps({"version": 1, "roots": {"bookmark_bar": {
        "type": "folder", "children": [{"type": "url", "name": "r", "url": "https://read.example/"}]}}}))
    db = sqlite3.connect(profile / "Cookies")
    db.executescript("""CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('version', '21');
        CREATE TABLE cookies (host_key TEXT, name TEXT, value TEXT, encrypted_value BLOB, path TEXT,
          expires_utc INTEGER, is_secure INTEGER, is_httponly INTEGER, has_expires INTEGER, is_persistent INTEGER,
          samesite INTEGER);
        INSERT INTO cookies VALUES ('.shop.example', 'session', 'alice', x'', '/', 0, 1, 1, 0, 0, 1);""")
    db.commit()
    db.close()
    return profile


def _leftovers(home: Path) -> list[str]:
    base = store.root(home)
    return sorted(p.name for p in base.iterdir() if p.name.startswith(".")) if base.is_dir() else []


def test_links_in_the_source_are_never_followed(tmp_path):
    profile = _source(tmp_path)
    secret = tmp_path / "dot-ssh"
    secret.mkdir()
    (secret / "id_rsa").write_text("-----BEGIN PRIVATE KEY----- not for the agent")
    (profile / "Network").mkdir()
    (profile / "Network" / "up").symlink_to("..")  # the loop that once wrote 3.7 GB
    (profile / "Network" / "Cookies").symlink_to(secret / "id_rsa")
    leveldb = profile / "Local Storage" / "leveldb"
    leveldb.mkdir(parents=True)
    (leveldb / "again").symlink_to(profile)
    ext = profile / "Extensions" / "abcdefghijklmnop" / "1.0"
    ext.mkdir(parents=True)
    (ext / "manifest.json").write_text(json.dumps({"name": "Helper", "manifest_version": 3, "version": "1.0"}))
    (ext / "key.pem").symlink_to(secret / "id_rsa")
    (ext / "ssh").symlink_to(secret)
    (profile / "Extensions" / "zzzzlinkedextension").symlink_to(secret)
    before = tree_digest(tmp_path / "user-data")
    home = tmp_path / "home"
    report = import_profile(from_dir=str(tmp_path / "user-data"), name="Linked", home=home,
                            secret_lookup=no_keyring)
    built = store.get(report["profile"]["id"], home).path
    everything = [p for p in built.rglob("*")]
    assert not any(p.is_symlink() for p in everything)
    assert not any(b"PRIVATE KEY" in p.read_bytes() for p in everything if p.is_file())
    assert sorted(p.name for p in (built / "Extensions").iterdir()) == ["abcdefghijklmnop"]
    assert sorted(p.name for p in (built / "Extensions" / "abcdefghijklmnop" / "1.0").iterdir()) == ["manifest.json"]
    assert report["left_out"]["a link (links are not followed)"] >= 3
    assert report["categories"]["cookies"]["imported"] == 1 and report["categories"]["extensions"]["imported"] == 1
    assert len(everything) < 30
    assert _leftovers(home) == []
    assert tree_digest(tmp_path / "user-data") == before  # the source is untouched


def test_a_source_past_the_budget_stops_and_leaves_nothing(tmp_path, monkeypatch):
    profile = _source(tmp_path)
    leveldb = profile / "Local Storage" / "leveldb"
    leveldb.mkdir(parents=True)
    for i in range(60):
        (leveldb / f"{i:06d}.ldb").write_bytes(b"x" * 100)
    monkeypatch.setenv("EGO_BROWSER_IMPORT_MAX_FILES", "40")
    home = tmp_path / "home"
    with pytest.raises(BudgetExceeded) as info:
        import_profile(from_dir=str(tmp_path / "user-data"), name="Huge", home=home, secret_lookup=no_keyring)
    assert info.value.code == "EGO_INVALID_STATE" and "EGO_BROWSER_IMPORT_MAX_FILES" in info.value.message
    assert _leftovers(home) == [] and [p["id"] for p in map(dict, store.list_profiles(home))] == ["default"]
    monkeypatch.setenv("EGO_BROWSER_IMPORT_MAX_FILES", "1000")
    monkeypatch.setenv("EGO_BROWSER_IMPORT_MAX_BYTES", "3000")
    with pytest.raises(BudgetExceeded):
        import_profile(from_dir=str(tmp_path / "user-data"), name="Huge", home=home, secret_lookup=no_keyring)
    assert _leftovers(home) == []


def test_the_next_import_sweeps_what_a_killed_one_left(tmp_path):
    _source(tmp_path)
    home = tmp_path / "home"
    base = store.root(home)
    base.mkdir(parents=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    for name in (f".new-{gone.pid}-0123456789ab", f".scratch-{gone.pid}-0123456789ab"):
        (base / name / "Network" / "up").mkdir(parents=True)
        (base / name / "Network" / "up" / "big").write_bytes(b"x" * 1000)
    alive = f".scratch-{os.getppid()}-0123456789ab"  # an import still running: left alone
    (base / alive).mkdir()
    import_profile(from_dir=str(tmp_path / "user-data"), name="After", home=home, secret_lookup=no_keyring)
    assert _leftovers(home) == [alive]


def test_sigterm_mid_import_cleans_up(tmp_path):
    """A killed terminal's SIGTERM unwinds the import's clean-up: a FIFO the import would once
    have blocked on stands in for a slow copy, opened by a hook that signals the import."""
    _source(tmp_path)
    home = tmp_path / "home"
    hook = ("import os, signal, sys\n"
            "from ego_browser.browser_profiles import import_chrome as ic\n"
            "real = ic._cookies\n"
            "def slow(*a):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*a)\n"
            "ic._cookies = slow\n"
            "from ego_browser.cli import profile_commands\n"
            "sys.exit(profile_commands.main(sys.argv[1:]))\n")
    env = {**os.environ, "EGO_BROWSER_HOME": str(home), "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", hook, "import", "--from-dir", str(tmp_path / "user-data")],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 128 + 15, run.stderr
    assert _leftovers(home) == []
    assert [p["id"] for p in map(dict, store.list_profiles(home))] == ["default"]


def test_each_broken_part_fails_alone_and_json_says_why(tmp_path):
    profile = _source(tmp_path)
    db = sqlite3.connect(profile / "Cookies")
    db.execute("UPDATE meta SET value = 'twenty-four' WHERE key = 'version'")  # an odd meta.version
    db.commit()
    db.close()
    (profile / "History").write_bytes(b"SQLite format 3\x00" + os.urandom(3000))  # garbage
    os.mkfifo(profile / "Login Data")  # would block a reader forever
    (profile / "Bookmarks").unlink()
    (profile / "Bookmarks").mkdir()  # not a file at all
    before = tree_digest(tmp_path / "user-data")
    home = tmp_path / "home"
    env = {**os.environ, "EGO_BROWSER_HOME": str(home), "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "ego_browser", "profiles", "import", "--from-dir",
                          str(tmp_path / "user-data"), "--json"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    cats = json.loads(run.stdout)["categories"]
    assert "version" in cats["cookies"]["failed"] or "twenty-four" in cats["cookies"]["failed"], cats["cookies"]
    assert cats["history"]["failed"] and cats["history"]["imported"] == 0
    assert "Login Data" in cats["logins"]["failed"], cats["logins"]
    assert cats["permissions"] == {"imported": 1, "skipped": 0, "reasons": {}}
    built = store.root(home) / json.loads(run.stdout)["profile"]["id"]
    assert not (built / "History").exists() and not (built / "Login Data").exists()
    assert tree_digest(tmp_path / "user-data") == before
    text = subprocess.run([sys.executable, "-m", "ego_browser", "profiles", "import", "--from-dir",
                           str(tmp_path / "user-data")], env=env, capture_output=True, text=True, timeout=120)
    assert text.returncode == 0 and "history: 0 imported -- failed:" in text.stdout, text.stdout + text.stderr
