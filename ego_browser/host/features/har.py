"""Recording a space's requests as a HAR 1.2 file (``task.record_har``), until stopped or the
space finishes.

The recorder listens to the request log of each page of the space (``driver/network.py``):
a request that ended becomes an entry (one that failed too: status -1 if nothing came back,
its failure in ``_failureText``, as Playwright writes it); with ``content="embed"`` its body is read from
Chromium then (``Network.getResponseBody``: the moment it is surely there) and put in the entry
(text, or base64); ``"attach"`` writes it to a file beside the HAR (``content._file``, as
Playwright's ``route_from_har`` reads it); ``"omit"`` reads no body. The file is written when the
recording stops (atomically: a temporary file renamed), so a recording that fails leaves the
previous file, never half of one. At most ``HAR_ENTRY_CAP`` entries are kept (the oldest go).
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import hashlib
import os
import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from ..._version import __version__
from ...driver.network import body_size
from ...errors import EgoError, HarUnwritable
from ..core.user_files import write_atomic

if TYPE_CHECKING:
    from ...driver.page import PageDriver

__all__ = ["HarRecorder", "HAR_ENTRY_CAP", "check_writable"]

HAR_ENTRY_CAP = 5000


def check_writable(api: str, path: str) -> None:
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK) or os.path.isdir(path) or (
            os.path.exists(path) and not os.access(path, os.W_OK)):
        raise HarUnwritable(f"{api}: cannot write a HAR file at {path} (its folder must exist and be writable); "
                            "pick a writable absolute path", api=api, path=path)


def _headers(h: dict[str, Any] | None) -> list[dict[str, str]]:
    out = []
    for k, v in (h or {}).items():
        for line in str(v).split("\n"):  # CDP joins repeated headers with newlines
            out.append({"name": str(k), "value": line})
    return out


def _iso(wall: float | None) -> str:
    when = datetime.datetime.fromtimestamp(wall or 0, tz=datetime.timezone.utc)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class HarRecorder:
    def __init__(self, path: str, content: str, url_regex: str | None, flags: int) -> None:
        self.path = path
        self.content = content
        self.rx = re.compile(url_regex, flags) if url_regex else None
        #: (page, request number) -> entry: a request ended twice (failed when its document went,
        #: then ended by Chromium after all) is listed once, as it ended last
        self.entries: OrderedDict[tuple[int, int], dict[str, Any]] = OrderedDict()
        self._pending: set[asyncio.Task[None]] = set()
        self._offs: list[Any] = []
        self._files = 0
        #: attached bodies that could not be written (a full disk), and why
        self.unwritten = 0
        self.reason = ""

    def watch(self, driver: PageDriver) -> None:
        def listener(rec: dict[str, Any], kind: str) -> None:
            if kind in ("finished", "failed") and (self.rx is None or self.rx.search(rec["url"])):
                task = asyncio.get_running_loop().create_task(self._entry(driver, dict(rec)))
                self._pending.add(task)
                task.add_done_callback(self._pending.discard)

        driver.network.listeners.append(listener)

        def off() -> None:
            if listener in driver.network.listeners:
                driver.network.listeners.remove(listener)

        self._offs.append(off)

    async def _body(self, driver: PageDriver, rec: dict[str, Any], part: str) -> bytes | None:
        try:
            got = await driver.network.body(rec["id"], part, "task.record_har")
        except EgoError:
            return None
        if got.get("path"):
            with open(got["path"], "rb") as f:
                raw = f.read()
            os.unlink(got["path"])
            return raw
        if got.get("base64") is not None:
            return base64.b64decode(got["base64"])
        text = got.get("text")
        return None if text is None else str(text).encode()

    async def _entry(self, driver: PageDriver, rec: dict[str, Any]) -> None:
        # a request that failed is listed too (as DevTools and Playwright list it): status -1
        # when nothing came back, and its failure in ``_failureText``; it has no body to read
        failed = rec["state"] == "failed" or rec["status"] is None
        body = None
        post = None
        if self.content != "omit" and not failed:
            if rec["has_post_data"]:
                post = await self._body(driver, rec, "request")
            if not (300 <= rec["status"] < 400):
                body = await self._body(driver, rec, "response")
        start, resp, end = rec["start_ts"], rec["response_ts"], rec["end_ts"]
        wait = max(0.0, ((resp or start or 0) - (start or 0)) * 1000)
        receive = max(0.0, ((end or resp or 0) - (resp or end or 0)) * 1000)
        mime = rec["mime_type"] or "x-unknown"
        content: dict[str, Any] = {"size": len(body) if body is not None else -1, "mimeType": mime}
        if body is not None:
            if self.content == "attach":
                name = hashlib.sha1(body).hexdigest() + _ext(mime)
                try:
                    write_atomic(os.path.join(os.path.dirname(self.path) or ".", name), body)
                    content["_file"] = name
                except OSError as exc:  # a full disk: the entry stays, without its body
                    self.unwritten += 1
                    self.reason = exc.strerror or str(exc)
                    content["comment"] = f"body not written ({self.reason})"
            else:
                try:
                    content["text"] = body.decode("utf-8")
                except UnicodeDecodeError:
                    content["text"] = base64.b64encode(body).decode()
                    content["encoding"] = "base64"
        url = rec["url"]
        resp_headers = rec["response_headers"] or {}
        request: dict[str, Any] = {
            "method": rec["method"], "url": url, "httpVersion": rec["protocol"] or "HTTP/1.1", "cookies": [],
            "headers": _headers(rec["request_headers"]),
            "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)],
            "headersSize": -1, "bodySize": len(post) if post is not None else 0,
        }
        if post is not None:
            ctype = next((str(v) for k, v in (rec["request_headers"] or {}).items() if k.lower() == "content-type"),
                         "application/octet-stream")
            request["postData"] = {"mimeType": ctype, "text": post.decode("utf-8", "replace"), "params": []}
        location = next((str(v) for k, v in resp_headers.items() if k.lower() == "location"), "")
        key = (id(driver), rec["id"])
        self.entries.pop(key, None)
        self.entries[key] = {
            "startedDateTime": _iso(rec["wall_time"]), "time": round(wait + receive, 3), "request": request,
            "response": {
                "status": -1 if rec["status"] is None else rec["status"], "statusText": rec["status_text"] or "",
                "httpVersion": rec["protocol"] or "HTTP/1.1", "cookies": [], "headers": _headers(resp_headers), "content": content,
                "redirectURL": location, "headersSize": -1,
                "bodySize": -1 if (size := body_size(rec)) is None else size,
            },
            "cache": {}, "timings": {"send": 0, "wait": round(wait, 3), "receive": round(receive, 3)},
            "_resourceType": rec["resource_type"], "serverIPAddress": rec["remote_address"] or "",
            **({"_failureText": rec["failure"] or "failed"} if failed else {}),
        }
        while len(self.entries) > HAR_ENTRY_CAP:
            self.entries.popitem(last=False)

    async def stop(self, api: str) -> str:
        """Write the file (after the bodies being read) and stop listening; returns its path."""
        for off in self._offs:
            off()
        self._offs.clear()
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=10.0)
        entries = sorted(self.entries.values(), key=lambda e: e["startedDateTime"])
        har = {"log": {"version": "1.2", "creator": {"name": "ego_browser", "version": __version__},
                       "pages": [], "entries": entries}}
        tmp = f"{self.path}.tmp-{os.getpid()}"
        try:
            with open(tmp, "wb") as f:
                f.write(orjson.dumps(har, option=orjson.OPT_INDENT_2))
            os.replace(tmp, self.path)
        except OSError as exc:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise HarUnwritable(f"{api}: writing {self.path} failed ({exc.strerror}); the previous file is "
                                "unchanged: free some space or record to another path", api=api, path=self.path) from exc
        if self.unwritten:
            raise HarUnwritable(f"{api}: {self.unwritten} response bodies could not be written beside {self.path} "
                                f"({self.reason}); the HAR is written, their entries without them: free some space "
                                "or record to another path", api=api, path=self.path)
        return self.path


def _ext(mime: str) -> str:
    return {"application/json": ".json", "text/html": ".html", "text/css": ".css", "text/plain": ".txt",
            "application/javascript": ".js", "text/javascript": ".js", "image/png": ".png", "image/jpeg": ".jpg",
            "image/svg+xml": ".svg", "text/csv": ".csv"}.get(mime.split(";")[0].strip(), ".dat")
