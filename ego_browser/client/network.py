"""``Request``: one request of a page's log (``page.requests()``, ``expect_response``...).

The fields are a copy taken when the request was listed (or matched); the bodies stay in
Chromium until asked for (``await r.body()``), and a large one arrives as a file the host
wrote, read here and removed.
"""

from __future__ import annotations

import base64
import contextlib
import json as _json
import os
from typing import Any

from ..schema import validated
from .ports import PageCalls

__all__ = ["Request"]


def _lower(headers: dict[str, Any] | None) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in (headers or {}).items()}


class Request:
    """A request the page made and, once it came, its response."""

    def __init__(self, page: PageCalls, info: dict[str, Any]) -> None:
        self._page = page
        self._info = info

    def __repr__(self) -> str:
        return f"<Request {self._info['id']} {self.method} {self.url} {self.status}>"

    @property
    def id(self) -> int:
        n: int = self._info["id"]
        return n

    @property
    def url(self) -> str:
        return str(self._info["url"])

    @property
    def method(self) -> str:
        return str(self._info["method"])

    @property
    def resource_type(self) -> str:
        return str(self._info["resource_type"])

    @property
    def status(self) -> int | None:
        status: int | None = self._info["status"]
        return status

    @property
    def status_text(self) -> str | None:
        text: str | None = self._info["status_text"]
        return text

    @property
    def ok(self) -> bool:
        status = self.status
        return status is not None and (status == 0 or 200 <= status < 300)

    @property
    def headers(self) -> dict[str, str]:
        return _lower(self._info["response_headers"])

    @property
    def request_headers(self) -> dict[str, str]:
        return _lower(self._info["request_headers"])

    @property
    def mime_type(self) -> str | None:
        mime: str | None = self._info["mime_type"]
        return mime

    @property
    def state(self) -> str:
        return str(self._info["state"])

    @property
    def failure(self) -> str | None:
        failure: str | None = self._info["failure"]
        return failure

    @property
    def from_cache(self) -> bool:
        return bool(self._info["from_cache"])

    @property
    def redirected_from(self) -> int | None:
        prev: int | None = self._info["redirected_from"]
        return prev

    @property
    def frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = self._info["frame"]
        return frame

    @property
    def action(self) -> dict[str, Any] | None:
        action: dict[str, Any] | None = self._info["action"]
        return action

    @property
    def timing(self) -> dict[str, Any]:
        timing: dict[str, Any] = self._info["timing"]
        return timing

    @property
    def sizes(self) -> dict[str, Any]:
        sizes: dict[str, Any] = self._info["sizes"]
        return sizes

    def to_dict(self) -> dict[str, Any]:
        return dict(self._info)

    @validated("Request.body")
    async def body(self, part: str = "response", *, timeout: float = 30000) -> bytes:
        res: dict[str, Any] = await self._page._call("page.request_body", id=self.id, part=part, timeout=timeout)
        path = res.get("path")
        if path:
            try:
                with open(path, "rb") as f:
                    return f.read()
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        if res.get("base64") is not None:
            return base64.b64decode(res["base64"])
        text = res.get("text")
        return b"" if text is None else str(text).encode()

    @validated("Request.text")
    async def text(self, part: str = "response", *, timeout: float = 30000) -> str:
        return (await self.body(part, timeout=timeout)).decode("utf-8", "replace")

    @validated("Request.json")
    async def json(self, part: str = "response", *, timeout: float = 30000) -> Any:
        return _json.loads(await self.body(part, timeout=timeout))
