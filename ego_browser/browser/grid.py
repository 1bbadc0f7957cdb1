"""Selenium Grid 4's HTTP side: new session, keep-alive, release, and where a session runs.

Only the W3C endpoints we need, over the standard library (no Selenium client): the host
asks for a Chromium session with our flags, then speaks CDP through the session's ``se:cdp``
websocket, which the Grid's router proxies to the node's browser. Every call has a deadline;
a Grid that does not answer raises ``BrowserUnavailable`` naming its URL.
"""

from __future__ import annotations

import asyncio
import base64
import io
import os
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import BrowserUnavailable

__all__ = ["GridClient", "GridSession", "free_slots"]

#: seconds for a new session: the Grid queues it, the node starts chromedriver and Chromium
NEW_SESSION_TIMEOUT = 90.0
#: seconds for every other Grid call
CALL_TIMEOUT = 10.0
#: seconds for one file sent to a node (uploads) or fetched from it (downloads)
UPLOAD_TIMEOUT = 60.0


@dataclass
class GridSession:
    session_id: str
    cdp_url: str
    node: str  # the node's URI as the hub reports it ("" when the hub did not say)
    browser_pid: int | None
    capabilities: dict[str, Any]

    @property
    def node_cdp_url(self) -> str:
        """The same CDP websocket on the node itself ("" when the hub did not name the node)."""
        if not self.node.startswith(("http://", "https://")):
            return ""
        path = urllib.parse.urlsplit(self.cdp_url).path
        return "ws" + self.node[len("http"):].rstrip("/") + path

    @property
    def managed_downloads(self) -> bool:
        """The node keeps this session's downloads and serves them (``/se/files``)."""
        return self.capabilities.get("se:downloadsEnabled") is True


class GridClient:
    def __init__(self, url: str) -> None:
        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            url = "http://" + url
        self.url = url

    # -- plain HTTP with a deadline ------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, *, timeout: float = CALL_TIMEOUT) -> Any:
        data = orjson.dumps(body) if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json; charset=utf-8")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the configured Grid
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = _grid_message(exc.read())
            raise BrowserUnavailable(
                f"the Selenium Grid at {self.url} refused {method} {path}: HTTP {exc.code} {detail}; "
                "check EGO_BROWSER_GRID_URL and the Grid's console (/ui)",
                endpoint=self.url,
            ) from exc
        except (OSError, ValueError) as exc:  # refused, reset, DNS, timeout (TimeoutError is an OSError)
            raise BrowserUnavailable(
                f"cannot reach the Selenium Grid at {self.url} ({method} {path}: {exc}); check that the Grid "
                "runs and EGO_BROWSER_GRID_URL names its hub (http://HOST:4444)",
                endpoint=self.url,
            ) from exc
        try:
            return orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError as exc:
            raise BrowserUnavailable(
                f"{self.url}{path} did not answer with JSON: is EGO_BROWSER_GRID_URL a Selenium Grid hub?",
                endpoint=self.url,
            ) from exc

    async def call(self, method: str, path: str, body: Any = None, *, timeout: float = CALL_TIMEOUT) -> Any:
        # urllib's timeout covers each socket operation; wait_for bounds the whole call
        return await asyncio.wait_for(
            asyncio.to_thread(self._call, method, path, body, timeout=timeout), timeout + 5.0
        )

    # -- sessions ----------------------------------------------------------------------------

    async def new_session(self, chrome_args: list[str]) -> GridSession:
        caps = {"capabilities": {
            "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"args": chrome_args},
                # our own code answers dialogs over CDP: chromedriver must leave them open
                "unhandledPromptBehavior": "ignore",
            },
            # a node with managed downloads first (it hands a download back over HTTP, so the
            # node needs no disk shared with us); any chrome node otherwise: asking only for
            # managed downloads would queue forever on a Grid whose nodes do not offer them
            "firstMatch": [{"se:downloadsEnabled": True}, {}],
        }}
        try:
            reply = await self.call("POST", "/session", caps, timeout=NEW_SESSION_TIMEOUT)
        except TimeoutError:
            raise BrowserUnavailable(
                f"the Selenium Grid at {self.url} gave no Chromium session within {NEW_SESSION_TIMEOUT:.0f}s "
                "(all nodes busy, or none offers chrome); see the Grid's console (/ui)",
                endpoint=self.url,
            ) from None
        value = (reply or {}).get("value") or {}
        session_id = value.get("sessionId")
        caps_out = value.get("capabilities") or {}
        cdp = caps_out.get("se:cdp")
        if not session_id or not cdp:
            if session_id:
                await self.release(str(session_id))
            raise BrowserUnavailable(
                f"the Selenium Grid at {self.url} gave a session without a CDP endpoint (se:cdp): its nodes "
                "must run Chromium or Chrome", endpoint=self.url,
            )
        pid = caps_out.get("goog:processID")
        return GridSession(
            session_id=str(session_id), cdp_url=self._local_cdp_url(str(cdp)),
            node=await self._node_of(str(session_id)),
            browser_pid=pid if isinstance(pid, int) else None, capabilities=caps_out,
        )

    def _local_cdp_url(self, cdp: str) -> str:
        """The session's ``se:cdp`` path on the hub we were given: the Grid builds the URL from
        its own idea of its address, which a hub behind NAT, a container or a proxy gets wrong."""
        path = urllib.parse.urlsplit(cdp).path
        base = urllib.parse.urlsplit(self.url)
        scheme = "wss" if base.scheme == "https" else "ws"
        return f"{scheme}://{base.netloc}{path}"

    async def _node_of(self, session_id: str) -> str:
        try:
            status = await self.call("GET", "/status")
        except (BrowserUnavailable, TimeoutError):
            return ""
        for node in ((status or {}).get("value") or {}).get("nodes") or []:
            for slot in node.get("slots") or []:
                if (slot.get("session") or {}).get("sessionId") == session_id:
                    return str(node.get("uri") or "").rstrip("/")
        return ""

    async def keepalive(self, session_id: str) -> None:
        """A cheap WebDriver command: the node's session timeout counts WebDriver traffic
        only (not the CDP proxied on the websocket), so a busy space needs these."""
        await self.call("GET", f"/session/{session_id}/timeouts")

    async def upload(self, session_id: str, path: str) -> str:
        """Copy one local file to the session's node (the Grid's file endpoint takes a zip
        of it, base64); returns the file's path on the node, for DOM.setFileInputFiles."""
        body = {"file": await asyncio.to_thread(_zipped, path)}
        reply = await self.call("POST", f"/session/{session_id}/se/file", body, timeout=UPLOAD_TIMEOUT)
        remote = (reply or {}).get("value")
        if not isinstance(remote, str) or not remote:
            raise BrowserUnavailable(
                f"the Selenium Grid at {self.url} took {os.path.basename(path)} but did not say where it put it",
                endpoint=self.url,
            )
        return remote

    async def download(self, session_id: str, name: str, dest: str) -> None:
        """Fetch one file of the session's managed downloads (the node answers with a zip of
        it, base64) into ``dest``, written whole or not at all."""
        reply = await self.call("POST", f"/session/{session_id}/se/files", {"name": name}, timeout=UPLOAD_TIMEOUT)
        value = (reply or {}).get("value") or {}
        contents = value.get("contents") if isinstance(value, dict) else None
        if not isinstance(contents, str):
            raise BrowserUnavailable(
                f"the Selenium Grid at {self.url} did not hand back the download {name!r} (no contents)",
                endpoint=self.url,
            )
        await asyncio.to_thread(_unzip_one, contents, dest)

    async def release(self, session_id: str) -> None:
        await self.call("DELETE", f"/session/{session_id}")

    async def status(self) -> dict[str, Any]:
        reply = await self.call("GET", "/status")
        return (reply or {}).get("value") or {}


def free_slots(status: dict[str, Any]) -> dict[str, int]:
    """Node URI -> how many more Chromium sessions it takes now, from the hub's ``/status``
    (every node that is up, 0 for a full one): its free chrome slots, capped by its
    ``maxSessions`` less the sessions it runs (a node may offer more slots than it runs at once)."""
    out: dict[str, int] = {}
    for node in status.get("nodes") or []:
        uri = str(node.get("uri") or "").rstrip("/")
        if not uri or str(node.get("availability") or "UP").upper() != "UP":
            continue
        slots = node.get("slots") or []
        busy = sum(1 for slot in slots if slot.get("session"))
        free = sum(1 for slot in slots if not slot.get("session")
                   and str((slot.get("stereotype") or {}).get("browserName") or "").lower() == "chrome")
        most = node.get("maxSessions")
        if isinstance(most, int) and not isinstance(most, bool) and most > 0:
            free = min(free, max(0, most - busy))
        out[uri] = free
    return out


def _zipped(path: str) -> str:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(path, arcname=os.path.basename(path))
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _unzip_one(contents: str, dest: str) -> None:
    # the member's own name is never used as a path (a hostile zip cannot write elsewhere)
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(contents))) as zf:
        members = [m for m in zf.infolist() if not m.is_dir()]
        if len(members) != 1:
            raise BrowserUnavailable(f"the Grid's zip of a download holds {len(members)} files, not 1",
                                     endpoint="")
        tmp = dest + ".part"
        with zf.open(members[0]) as src, open(tmp, "wb") as out:
            while chunk := src.read(1 << 20):
                out.write(chunk)
    os.replace(tmp, dest)


def _grid_message(raw: bytes) -> str:
    try:
        value = orjson.loads(raw).get("value") or {}
        return str(value.get("message") or "")[:300]
    except (orjson.JSONDecodeError, AttributeError):
        return raw[:200].decode(errors="replace")
