"""The secrets' store (issue 32, point 1): the OS keyring when a backend answers, else an
encrypted file whose key lives elsewhere; and the host's masks. No browser."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import keyring
import orjson
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from ego_browser.errors import InvalidArgument, SecretNotFound
from ego_browser.host.core.secret_book import MaskingFilter, SecretBook
from ego_browser.secret_ref import Secret, marker_name, secret
from ego_browser.host.core.secret_store import SecretStore, secret_key_path

ROOT = Path(__file__).resolve().parents[2]
VALUE = "pa55/w&rd-42"


class MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        self.items.pop((service, username), None)


@pytest.fixture
def places(tmp_path, monkeypatch):
    home, key = tmp_path / "home", tmp_path / "elsewhere" / "secret.key"
    monkeypatch.setenv("EGO_BROWSER_HOME", str(home))
    monkeypatch.setenv("EGO_BROWSER_SECRET_KEY_FILE", str(key))
    monkeypatch.delenv("EGO_BROWSER_SECRETS_BACKEND", raising=False)
    previous = keyring.get_keyring()
    yield home, key
    keyring.set_keyring(previous)


def test_without_a_keyring_backend_the_value_goes_encrypted_to_a_private_file_keyed_elsewhere(places):
    home, key = places
    keyring.set_keyring(fail.Keyring())  # what a headless machine has: every call raises
    store = SecretStore()
    assert store.set("github", VALUE) == "file"
    index = home / "secrets.json"
    assert VALUE.encode() not in index.read_bytes()
    assert stat.S_IMODE(index.stat().st_mode) == 0o600 and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.parent != index.parent and len(key.read_bytes()) == 32
    assert store.get("github") == VALUE and store.names() == ["github"] and store.where("github") == "file"


def test_the_file_alone_reads_nothing_and_a_tampered_entry_is_refused(places):
    home, key = places
    keyring.set_keyring(fail.Keyring())
    store = SecretStore()
    store.set("github", VALUE)
    store.set("other", "another-value")
    doc = orjson.loads((home / "secrets.json").read_bytes())
    # an entry moved under another name fails its check (the name is authenticated)
    doc["entries"]["other"] = doc["entries"]["github"]
    (home / "secrets.json").write_bytes(orjson.dumps(doc))
    with pytest.raises(SecretNotFound, match="does not match its key"):
        store.get("other")
    raw = bytearray(base64.b64decode(doc["entries"]["github"]["blob"]))
    raw[20] ^= 1
    doc["entries"]["github"]["blob"] = base64.b64encode(bytes(raw)).decode()
    (home / "secrets.json").write_bytes(orjson.dumps(doc))
    with pytest.raises(SecretNotFound):
        store.get("github")
    key.unlink()
    with pytest.raises(SecretNotFound, match="key file .* is missing"):
        store.get("github")


def test_a_keyring_that_answers_keeps_the_value_and_the_file_only_its_name(places):
    home, _key = places
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    store = SecretStore()
    assert store.set("github", VALUE) == "keyring"
    assert backend.items == {("ego-browser", "github"): VALUE}
    assert VALUE.encode() not in (home / "secrets.json").read_bytes()
    assert store.get("github") == VALUE
    assert store.remove("github") and backend.items == {} and store.names() == []
    keyring.set_keyring(fail.Keyring())
    store.set("github", VALUE)  # no keyring now: stored again, in the file
    keyring.set_keyring(backend)
    assert store.where("github") == "file" and store.get("github") == VALUE


def test_without_the_keyring_library_the_file_is_used(places, monkeypatch):
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring -> ImportError
    assert SecretStore().set("github", VALUE) == "file"
    assert SecretStore().get("github") == VALUE


def test_names_values_and_unknown_secrets_are_checked(places):
    keyring.set_keyring(fail.Keyring())
    store = SecretStore()
    for bad in ("", "a b", "../x", "-x", "x" * 65):
        with pytest.raises(InvalidArgument):
            store.set(bad, VALUE)
        with pytest.raises(InvalidArgument):
            secret(bad)
    with pytest.raises(InvalidArgument, match="at least 4"):
        store.set("short", "abc")
    with pytest.raises(SecretNotFound, match="secrets set nope"):
        store.get("nope")
    assert not store.remove("nope")


def test_the_marker_prints_its_name_and_travels_as_one_key():
    s = secret("github")
    assert isinstance(s, Secret) and s.name == "github"
    assert str(s) == repr(s) == f"{[s]}"[1:-1] == "[secret:github]"
    assert orjson.loads(orjson.dumps(s)) == {"$secret": "github"}
    assert marker_name({"$secret": "github"}) == "github"
    assert marker_name({"$secret": "github", "x": 1}) is None and marker_name("github") is None


def test_the_cli_reads_the_value_from_stdin_never_from_an_argument(places):
    home, key = places
    env = {**os.environ, "EGO_BROWSER_HOME": str(home), "EGO_BROWSER_SECRET_KEY_FILE": str(key),
           "EGO_BROWSER_SECRETS_BACKEND": "file", "PYTHONPATH": str(ROOT)}

    def cli(*args, stdin=None):
        return subprocess.run([sys.executable, "-m", "ego_browser", "secrets", *args], input=stdin, env=env,
                              capture_output=True, text=True, timeout=60)

    assert cli("set", "github", VALUE).returncode == 2  # argparse: no such argument
    done = cli("set", "github", stdin=VALUE + "\n")
    assert done.returncode == 0 and VALUE not in done.stdout + done.stderr
    listed = cli("list")
    assert listed.stdout.split() == ["github", "file"] and VALUE not in listed.stdout
    assert cli("rm", "github").returncode == 0 and cli("rm", "github").returncode == 1
    assert secret_key_path() == key


def test_the_book_masks_every_spelling_and_the_host_log(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_SECRET_KEY_FILE", str(tmp_path / "k"))
    monkeypatch.setenv("EGO_BROWSER_SECRETS_BACKEND", "file")
    SecretStore(tmp_path).set("github", VALUE)
    book = SecretBook(tmp_path)
    assert book.mask({"a": VALUE}) == {"a": VALUE}  # nothing known yet
    asyncio.run(book.load())
    got = book.mask({"url": "https://x/?p=pa55%2Fw%26rd-42", "html": "pa55/w&amp;rd-42", "list": [f"<{VALUE}>"],
                     VALUE: 1})
    assert got == {"url": "https://x/?p=[secret:github]", "html": "[secret:github]", "list": ["<[secret:github]>"],
                   "[secret:github]": 1}
    exc = InvalidArgument(f"bad {VALUE}", api="page.fill", option=VALUE, expected=None)
    book.mask_error(exc)
    assert VALUE not in str(exc) and exc.option == "[secret:github]"
    record = logging.LogRecord("ego_browser.host", logging.ERROR, __file__, 1, "failed with %s", (VALUE,), None)
    MaskingFilter(book).filter(record)
    assert record.getMessage() == "failed with [secret:github]"


def test_the_dashboards_event_list_masks_a_secret_a_page_echoed(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from ego_browser.dashboard.activity import Activity

    monkeypatch.setenv("EGO_BROWSER_SECRET_KEY_FILE", str(tmp_path / "k"))
    monkeypatch.setenv("EGO_BROWSER_SECRETS_BACKEND", "file")
    SecretStore(tmp_path).set("github", VALUE)
    book = SecretBook(tmp_path)
    asyncio.run(book.load())
    activity = Activity(SimpleNamespace(secrets=book))
    activity.log(1, "console", f"page says {VALUE}")
    activity.log(1, "dialog", "nothing secret")
    assert [e["text"] for e in activity.logs[1]] == ["page says [secret:github]", "nothing secret"]
