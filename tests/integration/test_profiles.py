"""Profiles (issue 15): spaces on named profiles, and importing a real Chromium profile.

The source profile is built by a real Chromium (tests/profile_source.py): a served page logs
the user in and stores localStorage, the profile holds a bookmark and a granted permission.
The browser is closed, the profile imported, and a new space of the imported profile is
checked through the browser: the served page sees the user logged in, localStorage and the
permission are there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import ego_browser
from ego_browser import config
from ego_browser.cli import profile_commands
from ego_browser.client.channel import current_channel
from ego_browser.errors import InvalidArgument, InvalidState, ProfileNotFound
from ego_browser.browser_profiles import aes, crypto, leveldb, store
from ego_browser.browser_profiles.import_chrome import import_profile
from tests.profile_source import BOOKMARK_URL, build_source_profile, serve_login, tree_digest



@pytest.fixture(scope="module")
async def source(server, tmp_path_factory):
    """A closed Chromium profile whose user logged in as alice."""
    serve_login(server)
    user_data = tmp_path_factory.mktemp("chrome-src") / "user-data"
    await build_source_profile(user_data, server)
    return user_data


def no_keyring(_browser: str) -> None:
    return None


async def _whoami(task, server) -> str:
    page = task.page("p1")
    await page.goto(server.url("/whoami"))
    return await page.evaluate("document.getElementById('who').textContent")


async def test_import_then_space_sees_login_storage_permission(host, server, source, space_name):
    before = tree_digest(source)
    report = import_profile(from_dir=str(source), name="Imported alice", secret_lookup=no_keyring)
    assert tree_digest(source) == before, "the source profile changed"
    cats = report["categories"]
    assert cats["cookies"]["imported"] == 1 and cats["cookies"]["skipped"] == 0
    assert cats["bookmarks"]["imported"] == 1
    assert cats["local_storage"]["imported"] == 1
    assert cats["permissions"]["imported"] == 1
    assert cats["history"]["imported"] >= 1
    profile_id = report["profile"]["id"]
    listed = {p["id"]: p for p in await ego_browser.profiles()}
    assert listed[profile_id]["name"] == "Imported alice"
    assert listed[profile_id]["created_from"] == str(source / "Default")
    assert listed[profile_id]["is_default"] is False

    task = await ego_browser.task_space(space_name, profile_id=profile_id)
    try:
        assert await _whoami(task, server) == "logged in as alice"
        page = task.page("p1")
        assert await page.evaluate("localStorage.getItem('note')") == "kept by alice"
        state = await page.evaluate("navigator.permissions.query({name: 'geolocation'}).then(r => r.state)")
        assert state == "granted"
        # the bookmark is in the profile, in the format Chromium reads
        bookmarks = (config.home() / "profiles" / profile_id / "Bookmarks").read_text()
        assert BOOKMARK_URL in bookmarks
        # the default profile's spaces are not logged in by the import
        other = await ego_browser.task_space(space_name + "-default")
        try:
            assert await _whoami(other, server) == "logged out"
        finally:
            await other.finish(keep=[])
    finally:
        await task.finish(keep=[])
    assert tree_digest(source) == before


async def test_import_refuses_a_running_source(host):
    # the session's own Chromium runs on the default profile's user-data directory
    running = config.home() / "profiles" / "default"
    assert (running / "SingletonLock").is_symlink()
    with pytest.raises(InvalidState, match="running .*SingletonLock.*quit it"):
        import_profile(from_dir=str(running), name="never", secret_lookup=no_keyring)
    assert "never" not in {p["name"] for p in store.list_profiles()}


def _as_v11(copy: Path, secret: bytes) -> None:
    """Re-encrypt the copy's cookie as a keyring (v11) value, as Chrome with a desktop keyring
    stores it, and add a saved login encrypted the same way."""
    key = crypto.derive_key(secret)
    db = sqlite3.connect(copy / "Default" / "Cookies")
    host_key, blob = db.execute("SELECT host_key, encrypted_value FROM cookies").fetchone()
    plain = crypto.Decryptor(None).decrypt(bytes(blob), host_key)[0]
    digest = hashlib.sha256(host_key.encode()).digest()
    db.execute("UPDATE cookies SET encrypted_value = ?", (b"v11" + aes.cbc_encrypt(key, b" " * 16, digest + plain),))
    db.commit()
    db.close()
    db = sqlite3.connect(copy / "Default" / "Login Data")
    cols = [r[1] for r in db.execute("PRAGMA table_info(logins)")]
    values = {c: "" for c in cols}
    values.update({"origin_url": "http://127.0.0.1/", "signon_realm": "http://127.0.0.1/", "username_value": "alice",
                   "password_value": b"v11" + aes.cbc_encrypt(key, b" " * 16, b"s3cret"), "date_created": 1,
                   "scheme": 0})
    notnull = {r[1] for r in db.execute("PRAGMA table_info(logins)") if r[3]}
    values = {c: v for c, v in values.items() if c in notnull or c in ("origin_url", "password_value", "username_value")}
    for c in notnull:
        if values.get(c) == "" and c not in ("origin_url", "signon_realm", "username_value"):
            values[c] = 0
    db.execute(f"INSERT INTO logins ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})", list(values.values()))
    db.commit()
    db.close()


async def test_unreadable_keyring_secret_gives_a_partial_import(host, server, source, tmp_path, space_name):
    copy = tmp_path / "keyring-src"
    shutil.copytree(source, copy, symlinks=True)
    _as_v11(copy, b"the-desktop-keyring-secret")
    report = import_profile(from_dir=str(copy), name="No keyring", secret_lookup=no_keyring)
    cats = report["categories"]
    assert cats["cookies"] == {"imported": 0, "skipped": 1, "reasons": {
        "encrypted with the desktop keyring's secret (v11), which could not be read": 1}}
    assert cats["logins"]["skipped"] == 1 and cats["logins"]["imported"] == 0
    # what does not depend on the keyring still came over
    assert cats["local_storage"]["imported"] == 1 and cats["bookmarks"]["imported"] == 1
    task = await ego_browser.task_space(space_name, profile_id=report["profile"]["id"])
    try:
        assert await _whoami(task, server) == "logged out"
    finally:
        await task.finish(keep=[])

    # with the keyring's secret the same source imports whole, the login re-encrypted for our Chromium
    report = import_profile(from_dir=str(copy), name="With keyring",
                            secret_lookup=lambda _b: b"the-desktop-keyring-secret")
    assert report["categories"]["cookies"]["imported"] == 1
    assert report["categories"]["logins"] == {"imported": 1, "skipped": 0, "reasons": {}}
    db = sqlite3.connect(config.home() / "profiles" / report["profile"]["id"] / "Login Data")
    (blob,) = db.execute("SELECT password_value FROM logins").fetchone()
    db.close()
    assert bytes(blob).startswith(b"v10") and crypto.Decryptor(None).decrypt(bytes(blob))[0] == b"s3cret"
    task = await ego_browser.task_space(space_name + "-k", profile_id=report["profile"]["id"])
    try:
        assert await _whoami(task, server) == "logged in as alice"
    finally:
        await task.finish(keep=[])


async def test_two_profiles_at_once_keep_separate_cookies(host, server, space_name):
    serve_login(server)
    a = store.create("Concurrent A")
    b = store.create("Concurrent B")
    ta = await ego_browser.task_space(space_name + "-a", profile_id=a["id"])
    tb = await ego_browser.task_space(space_name + "-b", profile_id=b["id"])
    try:
        await ta.page("p1").goto(server.url("/login?user=ann"))
        await tb.page("p1").goto(server.url("/login?user=bob"))
        assert await _whoami(ta, server) == "logged in as ann"
        assert await _whoami(tb, server) == "logged in as bob"
        # a tab the agent opens through raw CDP lands in the profile's context, not the default one
        made = await ta.cdp("Target.createTarget", {"url": "about:blank"})
        first = await ta.cdp("Target.getTargetInfo", {"targetId": ta.page("p1").target_id})
        info = await ta.cdp("Target.getTargetInfo", {"targetId": made["targetId"]})
        assert info["targetInfo"]["browserContextId"] == first["targetInfo"]["browserContextId"]
        await ta.cdp("Target.closeTarget", {"targetId": made["targetId"]})
        # a second space of profile A shares A's cookies, not B's
        ta2 = await ego_browser.task_space(space_name + "-a2", profile_id=a["id"])
        try:
            assert await _whoami(ta2, server) == "logged in as ann"
        finally:
            await ta2.finish(keep=[])
    finally:
        await ta.finish(keep=[])
        kept = await tb.finish(keep=["p1"])  # a kept page's storage is saved too
        saved = store.read_json(config.home() / "profiles" / b["id"] / "local_storage.json", {})
        await (await ego_browser.claim_task_space(kept["space_id"])).finish(keep=[])
        assert saved[server.url("/").rstrip("/")] == {"note": "kept by bob"}
    # finishing kept each profile's data: its log-in is in its own file
    saved_a = store.read_json(config.home() / "profiles" / a["id"] / "cookies.json", [])
    saved_b = store.read_json(config.home() / "profiles" / b["id"] / "cookies.json", [])
    assert [c["value"] for c in saved_a if c["name"] == "session"] == ["ann"]
    assert [c["value"] for c in saved_b if c["name"] == "session"] == ["bob"]
    origin = server.url("/").rstrip("/")
    assert store.read_json(config.home() / "profiles" / a["id"] / "local_storage.json", {})[origin] == {
        "note": "kept by ann"}


async def test_remove_a_profile_a_space_uses(host, server, space_name):
    serve_login(server)
    prof = store.create("Removable")
    task = await ego_browser.task_space(space_name, profile_id=prof["id"])
    await task.page("p1").goto(server.url("/login?user=carol"))
    with pytest.raises(InvalidState, match=f"profile {prof['id']} backs open task space.*{task.space_id}.*finish"):
        await current_channel().call("profiles.remove", {"id": prof["id"]})
    assert prof["id"] in {p["id"] for p in await ego_browser.profiles()}
    await task.finish(keep=[])
    assert (config.home() / "profiles" / prof["id"] / "cookies.json").is_file()  # finish deleted nothing
    removed = await current_channel().call("profiles.remove", {"id": prof["id"]})
    assert removed["id"] == prof["id"]
    assert prof["id"] not in {p["id"] for p in await ego_browser.profiles()}
    assert not (config.home() / "profiles" / prof["id"]).exists()
    with pytest.raises(ProfileNotFound, match="removed, or never existed"):
        await ego_browser.task_space(space_name + "-again", profile_id=prof["id"])


async def test_isolated_space_takes_no_profile(host, space_name):
    prof = store.create("Not for isolated")
    # a space on the default profile is open: removing default is refused for what it is
    busy = await ego_browser.task_space(space_name + "-busy")
    with pytest.raises(InvalidArgument, match="isolated space starts empty"):
        await ego_browser.task_space(space_name, profile_id=prof["id"], isolated=True)
    with pytest.raises(InvalidArgument, match="default profile cannot be removed"):
        await current_channel().call("profiles.remove", {"id": "default"})
    await busy.finish(keep=[])


def test_aes_matches_fips_197():
    keys = aes._expand(bytes(range(16)))
    block = bytes.fromhex("00112233445566778899aabbccddeeff")
    assert aes._encrypt_block(block, keys).hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert aes._decrypt_block(bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a"), keys) == block


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "EGO_BROWSER_HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parent.parent.parent)}
    return subprocess.run([sys.executable, "-m", "ego_browser", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def test_cli_profiles_list_new_import_rm(server, source, tmp_path):
    home = tmp_path / "home"
    made = _cli(home, "profiles", "new", "Shopping", "--json")
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["id"] == "shopping"
    imported = _cli(home, "profiles", "import", "--from-dir", str(source), "--name", "From chromium", "--json")
    assert imported.returncode == 0, imported.stderr
    report = json.loads(imported.stdout)
    assert report["categories"]["cookies"]["imported"] == 1
    text = _cli(home, "profiles", "import", "--from-dir", str(source))
    assert "cookies: 1 imported" in text.stdout and "use it: task_space(NAME, profile_id=" in text.stdout
    listed = json.loads(_cli(home, "profiles", "list", "--json").stdout)
    assert [p["id"] for p in listed] == ["default", "chromium-default", "from-chromium", "shopping"]
    assert listed[0]["is_default"] and listed[2]["created_from"] == str(source / "Default")
    gone = _cli(home, "profiles", "rm", "shopping")
    assert gone.returncode == 0 and "removed" in gone.stdout
    missing = _cli(home, "profiles", "rm", "shopping", "--json")
    assert missing.returncode == 1 and json.loads(missing.stdout)["error"]["code"] == "EGO_PROFILE_NOT_FOUND"
    assert _cli(home, "profiles", "import").returncode == 2  # --from or --from-dir is required


def test_cli_profiles_new_refuses_a_name_already_taken(tmp_path):
    # issue 34: a duplicate used to become "shopping-2" silently
    home = tmp_path / "home"
    assert _cli(home, "profiles", "new", "Shopping").returncode == 0
    again = _cli(home, "profiles", "new", "shopping", "--json")
    assert again.returncode == 1, again.stdout
    error = json.loads(again.stdout)["error"]
    assert error["code"] == "EGO_INVALID_ARGUMENT" and "already exists (id shopping)" in error["message"]
    listed = json.loads(_cli(home, "profiles", "list", "--json").stdout)
    assert [p["id"] for p in listed] == ["default", "shopping"]


def test_doctor_lists_profiles_and_warns_about_a_far_newer_source(tmp_path):
    home = tmp_path / "home"
    old = store.create("Same version", home)
    newer = store.create("From the future", home)
    store.write_json(newer.path / "profile.json", {"name": "From the future", "created_from": "chrome:Default",
                                                   "source_version": "999.0.1.2"})
    store.write_json(old.path / "profile.json", {"name": "Same version", "created_from": "chrome:Default",
                                                 "source_version": profile_commands.chromium_version()})
    out = _cli(home, "doctor").stdout
    assert "OK  profile default: Default (default)" in out
    assert f"OK  profile {old['id']}: Same version, imported from chrome:Default" in out
    assert f"WARN  profile {newer['id']}: From the future" in out and "far newer" in out


def test_leveldb_reads_snappy_tables_and_the_newest_entry_wins(tmp_path):
    assert leveldb.snappy_decompress(b"\x0c\x08abc\x15\x03") == b"abcabcabcabc"  # a literal, then a copy

    def varint(n: int) -> bytes:
        out = bytearray()
        while n >= 0x80:
            out.append(n & 0x7F | 0x80)
            n >>= 7
        return bytes(out + bytes([n]))

    def block(entries: list[tuple[bytes, bytes]]) -> bytes:
        body = b"".join(varint(0) + varint(len(k)) + varint(len(v)) + k + v for k, v in entries)
        return body + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")

    def ikey(key: bytes, seq: int, kind: int = 1) -> bytes:
        return key + ((seq << 8) | kind).to_bytes(8, "little")

    data = block([(ikey(b"_http://a.test\x00\x01k", 5), b"\x01old"), (ikey(b"_http://a.test\x00\x01z", 6, 0), b"")])
    index = block([(ikey(b"_http://a.test\x00\x01z", 6), varint(0) + varint(len(data)))])
    table = data + b"\x00\0\0\0\0" + index + b"\x00\0\0\0\0"
    footer = varint(0) + varint(0) + varint(len(data) + 5) + varint(len(index))
    table += footer.ljust(40, b"\0") + (0xDB4775248B80FB57).to_bytes(8, "little")
    (tmp_path / "000005.ldb").write_bytes(table)
    # a newer write in the log overrides the table's value; the table's deletion hides "z"
    batch = (9).to_bytes(8, "little") + (1).to_bytes(4, "little") + b"\x01" + varint(17) + b"_http://a.test\x00\x01k" \
        + varint(4) + b"\x01new"
    record = (0).to_bytes(4, "little") + len(batch).to_bytes(2, "little") + b"\x01" + batch
    (tmp_path / "000007.log").write_bytes(record)
    assert leveldb.read_all(tmp_path) == {b"_http://a.test\x00\x01k": b"\x01new"}


def test_import_from_a_named_browser_profile(source, tmp_path):
    """``--from chrome:Profile 2`` finds the profile under the browser's user-data directory."""
    fake_home = tmp_path / "user-home"
    chrome = fake_home / ".config" / "google-chrome"
    chrome.mkdir(parents=True)
    shutil.copytree(source / "Default", chrome / "Profile 2", symlinks=True)
    shutil.copyfile(source / "Last Version", chrome / "Last Version")
    report = import_profile(spec="chrome:Profile 2", source_home=fake_home, home=tmp_path / "ego-home",
                            secret_lookup=no_keyring)
    assert report["source"] == "chrome:Profile 2" and report["profile"]["name"] == "chrome Profile 2"
    assert report["categories"]["cookies"]["imported"] == 1
    assert report["source_version"] == (source / "Last Version").read_text().strip()
    with pytest.raises(InvalidArgument, match="no browser profile at .*Profile 3"):
        import_profile(spec="chrome:Profile 3", source_home=fake_home, home=tmp_path / "ego-home")
    with pytest.raises(InvalidArgument, match="unknown browser 'firefox'"):
        import_profile(spec="firefox", source_home=fake_home, home=tmp_path / "ego-home")


_RESTART = """
import asyncio, sys
import ego_browser
from ego_browser.browser_profiles import store

async def main(base):
    prof = store.create("Restart")
    async with ego_browser.embedded():
        task = await ego_browser.task_space("restart", profile_id=prof["id"])
        await task.page("p1").goto(base + "/login?user=dora")
    # the host stopped and its Chromium with it: the profile kept the log-in
    print("saved", [c["value"] for c in store.read_json(prof.path / "cookies.json", []) if c["name"] == "session"])
    async with ego_browser.embedded():  # a new Chromium: the space's page reopens in its profile
        task = await ego_browser.task_space("restart")
        page = task.page("p1")
        await page.goto(base + "/whoami")
        print("who", await page.evaluate("document.getElementById('who').textContent"))
        await task.finish(keep=[])

asyncio.run(main(sys.argv[1]))
"""


def test_host_stop_saves_and_a_new_browser_reseeds_the_profile(server, tmp_path):
    serve_login(server)
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent.parent)}
    out = subprocess.run([sys.executable, "-c", _RESTART, server.url("").rstrip("/")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "saved ['dora']" in out.stdout
    assert "who logged in as dora" in out.stdout
