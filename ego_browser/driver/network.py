"""A page's recent requests: what it asked, what came back, which action caused it.

``driver.network`` (a :class:`NetworkLog`) follows the ``Network.*`` events the page driver
already receives on every session of the tab (``Network.enable`` is sent for the event buffer
and network idle anyway), so capture costs one small dict per request and a few field
writes per event; nothing is fetched from the browser until someone asks for a body.

Bounds: the newest ``REQUEST_CAP`` requests are kept, within about ``REQUEST_BYTES`` of URLs and
headers (the oldest go first: a long-lived tab must not grow the host, as the event buffer once
did, issue 9). Bodies stay in
Chromium (its own per-page buffer, ``Network.enable``'s defaults) and are read on demand with
``Network.getResponseBody`` / ``Network.getRequestPostData`` on the session that saw the
request; a body Chromium no longer holds (the page navigated to another process, the buffer
overflowed) is a ``BodyUnavailable``. A body over ``BODY_INLINE_MAX`` bytes is written to a
file instead of crossing the socket.

Actions: ``driver/receipts.run_action`` calls :meth:`NetworkLog.begin_action` /
:meth:`NetworkLog.end_action` around each action; a request started meanwhile (or redirected
from one) carries the action's id and name. :func:`requests_for_action` gives them back (the
journal's "requests the action caused").

Waiters (``expect_response``...) read :attr:`NetworkLog.seq` and wait on ``changed()`` of the
page: every record carries the sequence number of its last change.
"""

from __future__ import annotations

import base64
import itertools
import os
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from ..cdp import Session
from ..errors import BodyUnavailable, CdpError

__all__ = ["NetworkLog", "REQUEST_CAP", "REQUEST_BYTES", "BODY_INLINE_MAX", "requests_for_action", "public", "body_size"]

#: requests kept per page (the oldest go first)
REQUEST_CAP = 500
#: ...and about this many bytes of their URLs, headers and fields (an estimate, not a measure)
REQUEST_BYTES = 2 * 1024 * 1024
#: a body larger than this (bytes) goes to a file; the reply carries its path
BODY_INLINE_MAX = 1 << 20
_tmp_ids = itertools.count(1)


class _Page(Protocol):
    """What the log needs of its page driver (``driver/page.py`` builds on this module)."""

    session: Session
    sessions: dict[str, Session]
    frames: Any  # frames.FrameTree
    network: NetworkLog

    def _bump(self) -> None: ...


class NetworkLog:
    """The page's recent requests, newest last, keyed by a per-page number."""

    def __init__(self, driver: _Page) -> None:
        self._driver = driver
        self.records: OrderedDict[int, dict[str, Any]] = OrderedDict()
        #: CDP request id -> our record's number (a redirect reuses the id: the newest hop)
        self._by_cdp: dict[str, int] = {}
        self._ids = itertools.count(1)
        #: bumped on every change of a record; each record keeps the number of its last change
        self.seq = 0
        self._bytes = 0
        self._action: tuple[int, str] | None = None
        self._action_ids = itertools.count(1)
        #: the id of the last action begun on this page (the journal reads it after run_action)
        self.last_action_id: int | None = None
        #: ``fn(record, kind)`` for kind in "request", "response", "finished", "failed" (HAR, waiters)
        self.listeners: list[Callable[[dict[str, Any], str], None]] = []

    # -- actions ----------------------------------------------------------------------------

    def begin_action(self, name: str) -> int:
        action_id = next(self._action_ids)
        self._action = (action_id, name)
        self.last_action_id = action_id
        return action_id

    def end_action(self, action_id: int) -> None:
        if self._action is not None and self._action[0] == action_id:
            self._action = None

    # -- events -----------------------------------------------------------------------------

    def subscribe(self, on: Callable[..., Callable[[], None]]) -> list[Callable[[], None]]:
        return [
            on("Network.requestWillBeSent", self._will_be_sent),
            on("Network.responseReceived", self._response),
            on("Network.dataReceived", self._data),
            on("Network.loadingFinished", self._finished),
            on("Network.loadingFailed", self._failed),
        ]

    def _touch(self, rec: dict[str, Any], kind: str) -> None:
        self.seq += 1
        rec["seq"] = self.seq
        # when it reached each stage: a wait counts only what reached its stage after it began
        rec["end_seq" if kind in ("finished", "failed") else f"{kind}_seq"] = self.seq
        for fn in list(self.listeners):
            fn(rec, kind)
        self._driver._bump()  # waits on the page (expect_response, a body's end) re-check

    def _will_be_sent(self, p: dict[str, Any], sid: str | None) -> None:
        req = p.get("request") or {}
        # with its fragment, as the page asked for it (DevTools, Chromium's own log and HAR
        # writers keep it; CDP sends it apart)
        url = req.get("url", "") + (req.get("urlFragment") or "")
        if url.startswith("data:") or _icon_guess(p, url):
            return  # the browser's own favicon fetch is not the page's (Playwright lists none either)
        cdp_id = p["requestId"]
        action = self._action
        prev_no = self._by_cdp.get(cdp_id)
        redirect = p.get("redirectResponse")
        prev = self.records.get(prev_no) if prev_no is not None else None
        if prev is not None and redirect is not None:
            self._fill_response(prev, redirect, p.get("timestamp"))
            self._touch(prev, "response")
            prev["state"] = "finished"
            prev["end_ts"] = p.get("timestamp")
            if prev["action"] is not None:
                action = prev["action"]
            self._touch(prev, "finished")
        no = next(self._ids)
        rec: dict[str, Any] = {
            "id": no, "cdp_id": cdp_id, "sid": sid or "", "url": url, "method": req.get("method", "GET"),
            "resource_type": (p.get("type") or "Other").lower(), "frame_id": p.get("frameId"),
            "loader_id": p.get("loaderId"),
            "request_headers": req.get("headers") or {}, "has_post_data": bool(req.get("hasPostData")),
            # the body Chromium sends inline (small ones): the journal reads a JSON body's shape
            "post_data": _inline_body(req),
            "action": action, "redirected_from": prev_no if redirect is not None else None,
            "wall_time": p.get("wallTime"), "start_ts": p.get("timestamp"), "response_ts": None, "end_ts": None,
            "status": None, "status_text": None, "mime_type": None, "response_headers": None, "from_cache": False,
            "remote_address": None, "protocol": None, "encoded_size": None, "headers_size": None, "decoded": None,
            "timing": None,
            "state": "pending", "failure": None, "seq": 0, "request_seq": 0, "response_seq": 0, "end_seq": 0,
        }
        self._by_cdp[cdp_id] = no
        self.records[no] = rec
        self._weigh(rec, 400 + len(url) + _headers_weight(rec["request_headers"]) + len(rec["post_data"] or ""))
        self._touch(rec, "request")

    def _weigh(self, rec: dict[str, Any], weight: int) -> None:
        rec["weight"] = rec.get("weight", 0) + weight
        self._bytes += weight
        records = self.records
        while len(records) > 1 and (len(records) > REQUEST_CAP or self._bytes > REQUEST_BYTES):
            _, old = records.popitem(last=False)
            self._bytes -= old["weight"]
            if self._by_cdp.get(old["cdp_id"]) == old["id"]:
                del self._by_cdp[old["cdp_id"]]

    def _record(self, p: dict[str, Any], sid: str | None) -> dict[str, Any] | None:
        no = self._by_cdp.get(p.get("requestId", ""))
        rec = self.records.get(no) if no is not None else None
        if rec is not None and sid:
            rec["sid"] = sid  # an out-of-process frame's document finishes on the frame's own session
        return rec

    @staticmethod
    def _fill_response(rec: dict[str, Any], resp: dict[str, Any], ts: Any) -> None:
        rec["status"] = resp.get("status")
        rec["status_text"] = resp.get("statusText")
        rec["mime_type"] = resp.get("mimeType")
        rec["response_headers"] = resp.get("headers") or {}
        rec["from_cache"] = bool(resp.get("fromDiskCache") or resp.get("fromPrefetchCache")
                                 or resp.get("fromServiceWorker"))
        rec["remote_address"] = resp.get("remoteIPAddress")
        rec["protocol"] = resp.get("protocol")
        rec["headers_size"] = resp.get("encodedDataLength")
        rec["timing"] = resp.get("timing")
        rec["response_ts"] = ts

    def _response(self, p: dict[str, Any], sid: str | None) -> None:
        rec = self._record(p, sid)
        if rec is not None:
            self._fill_response(rec, p.get("response") or {}, p.get("timestamp"))
            self._weigh(rec, 300 + _headers_weight(rec["response_headers"]))
            self._touch(rec, "response")

    def _data(self, p: dict[str, Any], sid: str | None) -> None:
        no = self._by_cdp.get(p.get("requestId", ""))
        rec = self.records.get(no) if no is not None else None
        if rec is not None:
            rec["decoded"] = (rec.get("decoded") or 0) + int(p.get("dataLength") or 0)

    def _finished(self, p: dict[str, Any], sid: str | None) -> None:
        rec = self._record(p, sid)
        if rec is not None:
            rec["state"] = "finished"
            rec["end_ts"] = p.get("timestamp")
            rec["encoded_size"] = p.get("encodedDataLength")
            self._touch(rec, "finished")

    def _failed(self, p: dict[str, Any], sid: str | None) -> None:
        rec = self._record(p, sid)
        if rec is not None:
            rec["state"] = "failed"
            rec["end_ts"] = p.get("timestamp")
            rec["failure"] = p.get("errorText") or ("canceled" if p.get("canceled") else "failed")
            if p.get("blockedReason"):
                rec["failure"] = f'{rec["failure"]} ({p["blockedReason"]})'
            self._touch(rec, "failed")

    def document_gone(self, frame_id: str, loader_id: str | None) -> int:
        """Frame ``frame_id`` committed document ``loader_id`` (None: the frame went away): the
        subresource requests of the documents it replaced that are still pending failed (as
        Chromium cancels them: ``net::ERR_ABORTED``), since no event will ever end them when the
        new document lives in another renderer. A document's own request is left to the browser,
        which ends it. Returns how many ended."""
        ended = 0
        for rec in list(self.records.values()):
            if rec["state"] != "pending" or rec["frame_id"] != frame_id:
                continue
            if loader_id is not None and (rec["resource_type"] == "document" or not rec["loader_id"]
                                          or rec["loader_id"] == loader_id):
                continue
            rec["state"] = "failed"
            rec["failure"] = "net::ERR_ABORTED"
            self._touch(rec, "failed")
            ended += 1
        return ended

    # -- reading ----------------------------------------------------------------------------

    def get(self, no: int) -> dict[str, Any] | None:
        return self.records.get(no)

    def after(self, seq: int) -> list[dict[str, Any]]:
        """Records changed after ``seq`` (in the order of their number)."""
        return [r for r in self.records.values() if r["seq"] > seq]

    async def body(self, no: int, part: str, api: str) -> dict[str, Any]:
        """The body of request ``no`` (``part``: "response" or "request") as the wire carries it:
        ``{text | base64 | path, size}``; over ``BODY_INLINE_MAX`` bytes it is written to a file."""
        rec = self.records.get(no)
        if rec is None:
            raise BodyUnavailable(f"{api}: request {no} is no longer in the page's log (the newest {REQUEST_CAP} "
                                  "are kept); call page.requests() again", api=api, reason="evicted")
        session = self._driver.sessions.get(rec["sid"]) or self._driver.session
        try:
            if part == "request":
                if not rec["has_post_data"]:
                    return {"text": None, "size": 0}
                res = await session.send("Network.getRequestPostData", {"requestId": rec["cdp_id"]}, timeout=10.0)
                data, is_b64 = res.get("postData", ""), bool(res.get("base64Encoded"))
            else:
                if rec["state"] == "pending":
                    raise BodyUnavailable(f"{api}: the response of {rec['url']} has not finished loading; wait for "
                                          "it (page.expect_response) and ask again", api=api, reason="pending")
                if rec["state"] == "failed":
                    raise BodyUnavailable(f"{api}: {rec['url']} failed ({rec['failure']}): it has no body", api=api,
                                          reason="failed")
                if _is_redirect(rec):
                    raise BodyUnavailable(f"{api}: {rec['url']} answered with a redirect ({rec['status']}): it has "
                                          "no body", api=api, reason="redirect")
                res = await session.send("Network.getResponseBody", {"requestId": rec["cdp_id"]}, timeout=10.0)
                data, is_b64 = res.get("body", ""), bool(res.get("base64Encoded"))
        except CdpError as exc:
            raise BodyUnavailable(
                f"{api}: Chromium no longer holds the body of {rec['url']} ({exc.message}); bodies stay only while "
                "the page keeps its document and its network buffer: read them soon after the request",
                api=api, reason="gone") from exc
        raw = base64.b64decode(data) if is_b64 else data.encode()
        if len(raw) > BODY_INLINE_MAX:
            return {"path": _spill(raw), "size": len(raw)}
        if is_b64:
            return {"base64": data, "size": len(raw)}
        return {"text": data, "size": len(raw)}


#: an inline request body longer than this is not kept (the journal wants a form's JSON, not uploads)
POST_DATA_KEPT = 16_384


def _icon_guess(p: dict[str, Any], url: str) -> bool:
    """The browser's own guess at a tab's icon when its page names none: ``/favicon.ico`` at the
    root of the document's origin. An icon the page names (``<link rel=icon>``, anywhere, even
    one called favicon.ico in a theme's folder) is the page's request and is listed."""
    if p.get("type") != "Other" or not url.endswith("/favicon.ico"):
        return False
    doc = urlsplit(p.get("documentURL") or "")
    return url == f"{doc.scheme}://{doc.netloc}/favicon.ico"


def _inline_body(req: dict[str, Any]) -> str | None:
    data = req.get("postData")
    if isinstance(data, str) and len(data) <= POST_DATA_KEPT:
        return data
    entries = req.get("postDataEntries")  # newer Chromium: base64 parts instead of postData
    if isinstance(entries, list) and entries:
        try:
            raw = b"".join(base64.b64decode(e.get("bytes") or "") for e in entries if isinstance(e, dict))
        except (ValueError, TypeError):
            return None
        if len(raw) <= POST_DATA_KEPT:
            return raw.decode("utf-8", "replace")
    return None


def _headers_weight(headers: dict[str, Any]) -> int:
    return sum(len(k) + len(v) + 40 for k, v in headers.items() if isinstance(v, str))


def _is_redirect(rec: dict[str, Any]) -> bool:
    return isinstance(rec.get("status"), int) and 300 <= rec["status"] < 400 and bool(
        (rec.get("response_headers") or {}).get("location") or (rec.get("response_headers") or {}).get("Location"))


def _spill(raw: bytes) -> str:
    folder = os.path.join(tempfile.gettempdir(), f"ego-browser-bodies-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f"body-{os.getpid()}-{next(_tmp_ids)}-{time.time_ns()}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(raw)
    return path


def _frame_url(driver: _Page, frame_id: str | None) -> str | None:
    frame = driver.frames.get(frame_id) if frame_id else None
    return frame.url if frame is not None else None


def body_size(rec: dict[str, Any]) -> int | None:
    """The response body's bytes as sent (before content decoding), None if unknown.

    ``loadingFinished`` counts the headers and the body, except for some loads it counts the body
    alone (an image answered 404: its total equals the decoded bytes ``dataReceived`` brought,
    found against Chromium's NetLog, benchmarks/bench_har.py); a total smaller than its headers
    cannot include them either. Nothing came back (a failed request): None, though Chromium
    counts the error page it shows for a failed navigation."""
    encoded, headers = rec["encoded_size"], rec["headers_size"]
    if rec["status"] is None or not isinstance(encoded, (int, float)):
        return None
    if encoded == rec.get("decoded") or not isinstance(headers, (int, float)) or encoded < headers:
        return int(encoded)
    return int(encoded - headers)


def public(driver: _Page, rec: dict[str, Any]) -> dict[str, Any]:
    """A record as ``page.requests()`` returns it (no CDP ids, times in ms)."""
    start, resp, end = rec["start_ts"], rec["response_ts"], rec["end_ts"]
    main = driver.frames.main
    action = rec["action"]
    encoded, headers_size = rec["encoded_size"], rec["headers_size"]
    return {
        "id": rec["id"], "url": rec["url"], "method": rec["method"], "resource_type": rec["resource_type"],
        "status": rec["status"], "status_text": rec["status_text"], "mime_type": rec["mime_type"],
        "request_headers": rec["request_headers"], "response_headers": rec["response_headers"],
        "has_post_data": rec["has_post_data"], "from_cache": rec["from_cache"], "state": rec["state"],
        "failure": rec["failure"], "redirected_from": rec["redirected_from"],
        "frame": {"id": rec["frame_id"], "url": _frame_url(driver, rec["frame_id"]),
                  "main": bool(main is not None and main.frame_id == rec["frame_id"])},
        "action": {"id": action[0], "name": action[1]} if action is not None else None,
        "timing": {
            "started": rec["wall_time"],
            "response_ms": round((resp - start) * 1000, 3) if resp is not None and start is not None else None,
            "duration_ms": round((end - start) * 1000, 3) if end is not None and start is not None else None,
        },
        "sizes": {
            "transfer": encoded,
            "body": body_size(rec),
            "headers": headers_size,
        },
    }


def requests_for_action(driver: _Page, action_id: int) -> list[dict[str, Any]]:
    """The requests of ``driver``'s page that action ``action_id`` started (``NetworkLog.last_action_id``
    after ``run_action`` names it), as ``page.requests()`` shows them."""
    return [public(driver, r) for r in driver.network.records.values()
            if r["action"] is not None and r["action"][0] == action_id]
