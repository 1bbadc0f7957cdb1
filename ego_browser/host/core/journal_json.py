"""A JSON request body as the journal keeps it (issue 28 §1): its shape with the values an agent
typed, never a password or a secret.

``task.learn`` matches the typed values against these bodies to call the site's own JSON API
(``learning/distill_api.py``); so the body is kept whole (its keys, its constants, the values
typed) with three kinds of leaf masked before anything is stored:

* a value equal to one typed into a password field in this space -> ``[password]`` (the same
  placeholder the typed action has, so the draft maps it to the same parameter);
* a known secret's value (``host.secrets``) -> ``[secret:NAME]``, as a typed secret is kept;
* any value under a key that names a credential (``password``, ``token``, ``pin``, ``csrf`` ...)
  -> ``[secret]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from .journal import MAX_VALUE, PASSWORD

__all__ = ["SECRET", "json_body", "sensitive_key"]

SECRET = "[secret]"
_SENSITIVE = {"password", "passwd", "pass", "pwd", "passphrase", "secret", "token", "pin", "otp", "cvv", "cvc",
              "csrf", "xsrf", "auth", "authorization", "credential", "credentials", "apikey", "cookie", "session"}
#: keys and items kept of one body (a form's JSON is small; a bulk upload is not learned from)
_MAX_ITEMS = 100


def sensitive_key(key: str) -> bool:
    """Whether a body key names a credential: ``userPassword``, ``api_key``, ``csrf-token`` do,
    ``author`` and ``pinned`` do not (whole words only)."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", key)]
    joined = "".join(words)
    return any(w in _SENSITIVE for w in words) or joined in ("apikey", "accesskey", "secretkey", "privatekey")


def _is_json(headers: dict[str, Any], text: str) -> bool:
    kind = next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    if "json" in kind.lower():
        return True
    return text.lstrip()[:1] in ("{", "[") and not kind.lower().startswith(("multipart/", "application/x-www"))


def json_body(headers: dict[str, Any], text: str | None, passwords: set[str],
              mask_text: Callable[[str], str]) -> Any:
    """The masked JSON tree of a request body, or None when it is none (or not JSON)."""
    if not text or not _is_json(headers, text):
        return None
    try:
        tree = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(tree, (dict, list)):
        return None

    def walk(value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {str(k): walk(v, str(k)) for k, v in list(value.items())[:_MAX_ITEMS]}
        if isinstance(value, list):
            return [walk(v, key) for v in value[:_MAX_ITEMS]]
        if value is None or isinstance(value, bool):
            return value
        if (value if isinstance(value, str) else str(value)) in passwords:
            return PASSWORD  # what was typed into a password field: the draft's password parameter
        if isinstance(value, str):
            masked = mask_text(value)
            if masked != value:  # a whole secret stays named (the draft passes it on by name)
                return masked if re.fullmatch(r"\[secret:[^\]]+\]", masked) else SECRET
        if key is not None and sensitive_key(key):
            return SECRET
        if isinstance(value, str):
            if any(len(p) >= 4 and p in value for p in passwords):
                return SECRET  # a password inside a longer value ("user:pass")
            return value[:MAX_VALUE]
        return value

    return walk(tree, None)
