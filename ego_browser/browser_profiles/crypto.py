"""Chromium's encrypted cookie and password values on Linux.

A value starts with a version tag. ``v10``: AES-128-CBC under a key derived (PBKDF2-SHA1, one
iteration, salt ``saltysalt``) from the built-in password ``peanuts`` -- what Chromium writes
with ``--password-store=basic`` or without a desktop keyring, and what our own Chromium writes
(checked: Debian's Chromium 156 here stores ``v10``). ``v11``: the same scheme under a secret
kept in the desktop keyring (GNOME keyring / KWallet through libsecret). Since cookie database
version 24 the plaintext starts with SHA-256 of the cookie's host, which tells a right key
from a wrong one that happens to unpad.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess

from .aes import PaddingError, cbc_decrypt, cbc_encrypt

__all__ = ["Decryptor", "keyring_secret", "encrypt_v10", "derive_key"]

_IV = b" " * 16
#: the libsecret "application" attribute each browser stores its "Safe Storage" secret under
KEYRING_APPS = {"chrome": "chrome", "chromium": "chromium", "brave": "brave", "edge": "microsoft-edge"}


def derive_key(secret: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha1", secret, b"saltysalt", 1, 16)


_V10 = derive_key(b"peanuts")
#: Chromium used an empty secret for v11 when the keyring answered with nothing
_EMPTY = derive_key(b"")


def encrypt_v10(plaintext: bytes) -> bytes:
    """A value our Chromium (``--password-store=basic``) reads back."""
    return b"v10" + cbc_encrypt(_V10, _IV, plaintext)


def keyring_secret(browser: str, *, timeout: float = 5.0) -> bytes | None:
    """The browser's v11 secret from the desktop keyring, or None when there is no keyring,
    no ``secret-tool``, or no entry (the import then reports the v11 values as unreadable)."""
    tool = shutil.which("secret-tool")
    app = KEYRING_APPS.get(browser)
    if tool is None or app is None:
        return None
    try:
        out = subprocess.run([tool, "lookup", "application", app], capture_output=True, timeout=timeout,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    secret = out.stdout.strip()
    return secret if out.returncode == 0 and secret else None


class Decryptor:
    """Decrypts one source's values; ``v11_secret`` None means the keyring could not be read."""

    def __init__(self, v11_secret: bytes | None) -> None:
        self.v11_keys = [derive_key(v11_secret)] if v11_secret else []
        self.v11_keys.append(_EMPTY)

    def decrypt(self, blob: bytes, host_key: str | None = None) -> tuple[bytes | None, str]:
        """(plaintext, "") or (None, why). ``host_key`` (cookies of database version >= 24)
        checks and strips the SHA-256 prefix."""
        tag, body = blob[:3], blob[3:]
        if tag == b"v10":
            keys = [_V10]
        elif tag == b"v11":
            keys = self.v11_keys
        else:
            return None, f"unknown encryption {tag[:3]!r} (Windows/macOS profiles are not supported)"
        for key in keys:
            try:
                plain = cbc_decrypt(key, _IV, body)
            except PaddingError:
                continue
            if host_key is not None:
                digest = hashlib.sha256(host_key.encode()).digest()
                if plain[:32] != digest:
                    continue
                plain = plain[32:]
            return plain, ""
        if tag == b"v11":
            return None, "encrypted with the desktop keyring's secret (v11), which could not be read"
        return None, "does not decrypt with the built-in v10 key"
