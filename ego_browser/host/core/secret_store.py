"""Where the person's secrets live: the OS keyring when one answers, else an encrypted file.

``ego-browser secrets set NAME`` stores a value the agent later types by name
(``secret("NAME")``) without ever seeing it. The index of names (``HOME/secrets.json``, 0600)
says where each value is:

- ``keyring``: the OS keyring (Secret Service, macOS Keychain, ...) through the optional
  ``keyring`` library (``pip install 'ego_browser[secrets]'``), service ``ego-browser``.
  Used only when it is installed *and* a real backend answers a write: a headless machine has
  none, and the library's "fail" backend raises on every call.
- ``file``: the value encrypted in the index itself with AES-128-CBC then HMAC-SHA256 over
  the name, IV and ciphertext (encrypt-then-MAC: a changed or moved entry is refused), under
  keys derived from 32 random bytes kept in *another* file (``secret_key_path()``: by default
  ``~/.config/ego-browser/secret.key``, 0600), never beside the values. Copying the data
  directory (a backup, a bug report) therefore copies no readable secret; a process running as
  the same Unix user can read both files, as it can read the browser profile (docs/security.md).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from pathlib import Path
from typing import Any

import orjson

from ... import config
from ...errors import InvalidArgument, SecretNotFound
from ...secret_ref import NAME_RE, check_name

__all__ = ["SecretStore", "secret_key_path", "NAME_RE", "MIN_LENGTH", "check_name"]

#: shorter values would be masked wherever they happen to occur in a page's text
MIN_LENGTH = 4
KEYRING_SERVICE = "ego-browser"


def secret_key_path() -> Path:
    """``EGO_BROWSER_SECRET_KEY_FILE``, else ``$XDG_CONFIG_HOME/ego-browser/secret.key``
    (``~/.config``): outside the data directory, so the two are not copied together."""
    raw = os.environ.get("EGO_BROWSER_SECRET_KEY_FILE")
    if raw:
        return Path(raw).expanduser().absolute()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "ego-browser" / "secret.key"


def _keyring() -> Any:
    """The ``keyring`` module when it is installed and a real backend answers, else None."""
    if os.environ.get("EGO_BROWSER_SECRETS_BACKEND") == "file":
        return None
    try:
        import keyring
        from keyring.backends import fail
    except Exception:  # not installed, or broken: the file is the store
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring):
        return None
    return keyring


class SecretStore:
    """The index of names and the file-kept values; one per call (nothing cached at module level)."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = home or config.home()
        self.index_path = self.home / "secrets.json"

    # -- the index ----------------------------------------------------------------------------

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            raw = self.index_path.read_bytes()
        except FileNotFoundError:
            return {}
        doc = orjson.loads(raw) if raw else {}
        entries = doc.get("entries") if isinstance(doc, dict) else None
        return entries if isinstance(entries, dict) else {}

    def _write(self, entries: dict[str, dict[str, str]]) -> None:
        config.ensure_home(self.home)
        tmp = self.index_path.with_name(f".secrets.{os.getpid()}.tmp")
        with config.open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "wb") as fh:
            fh.write(orjson.dumps({"version": 1, "entries": entries}, option=orjson.OPT_SORT_KEYS))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.index_path)  # atomic: a crash leaves the old index or the new one

    def names(self) -> list[str]:
        return sorted(self._read())

    def where(self, name: str) -> str | None:
        entry = self._read().get(name)
        return entry.get("where") if entry else None

    # -- values -------------------------------------------------------------------------------

    def set(self, name: str, value: str) -> str:
        """Store ``value`` under ``name``; returns where it went (``keyring`` or ``file``)."""
        check_name(name, "secrets set")
        if not isinstance(value, str) or len(value) < MIN_LENGTH or value != value.strip("\r\n"):
            raise InvalidArgument(
                f"secrets set: a value needs at least {MIN_LENGTH} characters and no line break at its ends",
                api="secrets set", option="value", expected=f"a str of at least {MIN_LENGTH} characters")
        entries = self._read()
        old = entries.get(name)
        kr = _keyring()
        entry: dict[str, str]
        if kr is not None:
            try:
                kr.set_password(KEYRING_SERVICE, name, value)
                entry = {"where": "keyring"}
            except Exception:  # the backend was listed but did not answer (locked, no D-Bus)
                kr = None
        if kr is None:
            key = _master_key(create=True)
            assert key is not None
            entry = {"where": "file", "blob": _seal(key, name, value)}
        entries[name] = entry
        self._write(entries)
        if old and old.get("where") == "keyring" and entry["where"] != "keyring":
            self._forget_keyring(name)
        return entry["where"]

    def get(self, name: str) -> str:
        entry = self._read().get(check_name(name))
        if entry is None:
            raise SecretNotFound(
                f"secret {name!r} is not stored; the person stores it with: ego-browser secrets set {name}",
                name=name)
        if entry.get("where") == "keyring":
            kr = _keyring()
            value = None
            if kr is not None:
                try:
                    value = kr.get_password(KEYRING_SERVICE, name)
                except Exception:
                    value = None
            if value is None:
                raise SecretNotFound(
                    f"secret {name!r} is kept in the OS keyring, which did not answer (locked, or another session); "
                    f"unlock it, or store the secret again: ego-browser secrets set {name}", name=name)
            return str(value)
        key = _master_key(create=False)
        if key is None:
            raise SecretNotFound(
                f"secret {name!r} cannot be read: its key file {secret_key_path()} is missing; store it again with "
                f"ego-browser secrets set {name}", name=name)
        value = _open(key, name, entry.get("blob", ""))
        if value is None:
            raise SecretNotFound(
                f"secret {name!r} does not match its key file {secret_key_path()} (changed, or another key); store it "
                f"again with ego-browser secrets set {name}", name=name)
        return value

    def remove(self, name: str) -> bool:
        entries = self._read()
        entry = entries.pop(check_name(name, "secrets rm"), None)
        if entry is None:
            return False
        self._write(entries)
        if entry.get("where") == "keyring":
            self._forget_keyring(name)
        return True

    def _forget_keyring(self, name: str) -> None:
        kr = _keyring()
        if kr is not None:
            try:
                kr.delete_password(KEYRING_SERVICE, name)
            except Exception:
                pass  # already gone


# -- the file's encryption ----------------------------------------------------------------------


def _master_key(*, create: bool) -> bytes | None:
    path = secret_key_path()
    try:
        key = path.read_bytes()
        if len(key) == 32:
            return key
        if not create:
            return None
    except FileNotFoundError:
        if not create:
            return None
    config._make_private_dirs(path.parent)
    key = os.urandom(32)
    tmp = path.with_name(f".secret.key.{os.getpid()}.tmp")
    with config.open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "wb") as fh:
        fh.write(key)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return key


def _keys(master: bytes) -> tuple[bytes, bytes]:
    enc = hmac.new(master, b"ego-browser secrets: encryption", hashlib.sha256).digest()[:16]
    mac = hmac.new(master, b"ego-browser secrets: authentication", hashlib.sha256).digest()
    return enc, mac


def _seal(master: bytes, name: str, value: str) -> str:
    from ...browser_profiles.aes import cbc_encrypt

    enc, mac = _keys(master)
    iv = os.urandom(16)
    body = iv + cbc_encrypt(enc, iv, value.encode("utf-8"))
    tag = hmac.new(mac, name.encode() + b"\0" + body, hashlib.sha256).digest()
    return base64.b64encode(body + tag).decode("ascii")


def _open(master: bytes, name: str, blob: str) -> str | None:
    from ...browser_profiles.aes import PaddingError, cbc_decrypt

    try:
        raw = base64.b64decode(blob, validate=True)
    except ValueError:
        return None
    if len(raw) < 64:
        return None
    body, tag = raw[:-32], raw[-32:]
    enc, mac = _keys(master)
    if not hmac.compare_digest(tag, hmac.new(mac, name.encode() + b"\0" + body, hashlib.sha256).digest()):
        return None
    try:
        return cbc_decrypt(enc, body[:16], body[16:]).decode("utf-8")
    except (PaddingError, UnicodeDecodeError):
        return None
