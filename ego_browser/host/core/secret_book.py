"""The host's side of secrets: the value swapped in at the moment of typing, and masked in
everything the host says.

A round sends ``{"$secret": "NAME"}`` (``secret_ref.Secret``) where a text goes; the handlers of
``page.fill``, ``keyboard.type`` and ``keyboard.insert_text`` call :meth:`SecretBook.resolve_args`
after the ownership gate, right before the driver types, so the value lives only in this process
and in the page. Whatever the host answers (results, errors, console events, its log, the
dashboard's event list) goes through :meth:`SecretBook.mask`, which replaces each known value
(and the spellings a page is likely to echo: URL-encoded, JSON-escaped, HTML-escaped) with
``[secret:NAME]``. The book knows the secrets typed since the host started and, from ``load``
at start, every stored one: a page that still shows a value typed before a restart is masked too.
"""

from __future__ import annotations

import asyncio
import html
import logging
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import orjson

from ...errors import EgoError
from ...secret_ref import marker_name

__all__ = ["SecretBook", "MaskingFilter"]

logger = logging.getLogger("ego_browser.host")

#: a stored secret that does not answer within this (a locked keyring) is left unloaded at start
LOAD_TIMEOUT = 5.0


def _spellings(value: str) -> set[str]:
    out = {value, quote(value, safe=""), quote_plus(value), html.escape(value),
           orjson.dumps(value).decode()[1:-1]}
    return {s for s in out if s}


class SecretBook:
    """Secret values this host knows (name -> value) and the patterns that mask them."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._values: dict[str, str] = {}
        #: (spelling, mask), longest spelling first so a value inside a longer one is masked whole
        self._patterns: list[tuple[str, str]] = []

    @property
    def active(self) -> bool:
        return bool(self._patterns)

    def _learn(self, name: str, value: str) -> None:
        if self._values.get(name) == value:
            return
        self._values[name] = value
        pats = {(s, f"[secret:{n}]") for n, v in self._values.items() for s in _spellings(v)}
        self._patterns = sorted(pats, key=lambda p: -len(p[0]))

    async def load(self) -> None:
        """Learn every stored secret (best effort: one that does not answer is learnt when typed)."""
        from .secret_store import SecretStore

        store = SecretStore(self.home)
        try:
            names = store.names()
        except Exception:  # noqa: BLE001 - an unreadable index is reported when a secret is typed
            return
        for name in names:
            try:
                value = await asyncio.wait_for(asyncio.to_thread(store.get, name), LOAD_TIMEOUT)
            except Exception:  # noqa: BLE001 - see above
                continue
            self._learn(name, value)

    async def value(self, name: str) -> str:
        """The value of secret ``name``, read from the store now (the person may have changed it)."""
        from .secret_store import SecretStore

        value = await asyncio.to_thread(SecretStore(self.home).get, name)
        self._learn(name, value)
        return value

    async def resolve_args(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` with each secret marker replaced by its value (a copy, only if there is one)."""
        out = kwargs
        for key, arg in kwargs.items():
            name = marker_name(arg)
            if name is not None:
                if out is kwargs:
                    out = dict(kwargs)
                out[key] = await self.value(name)
        return out

    # -- masking ------------------------------------------------------------------------------

    def mask_text(self, text: str) -> str:
        for spelling, mask in self._patterns:
            if spelling in text:
                text = text.replace(spelling, mask)
        return text

    def mask(self, value: Any) -> Any:
        """``value`` (a JSON-like tree) with every known secret masked; as is when none is known."""
        if not self._patterns:
            return value
        return self._walk(value)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.mask_text(value)
        if isinstance(value, dict):
            return {self._walk(k) if isinstance(k, str) else k: self._walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._walk(v) for v in value]
        return value

    def mask_error(self, exc: BaseException) -> None:
        """Mask the message and attributes of an error on its way to a round (in place)."""
        if not self._patterns:
            return
        if isinstance(exc, EgoError):
            exc.message = self.mask_text(exc.message)
            for name in exc.fields:
                current = getattr(exc, name, None)
                if current is not None:
                    setattr(exc, name, self._walk(current))
        exc.args = tuple(self._walk(a) for a in exc.args)


class MaskingFilter(logging.Filter):
    """Masks known secrets in the host log's records (a traceback's message included)."""

    def __init__(self, book: SecretBook) -> None:
        super().__init__()
        self.book = book

    def filter(self, record: logging.LogRecord) -> bool:
        if self.book.active:
            record.msg = self.book.mask_text(record.getMessage())
            record.args = None
            if record.exc_info and record.exc_info[1] is not None:
                self.book.mask_error(record.exc_info[1])
        return True
