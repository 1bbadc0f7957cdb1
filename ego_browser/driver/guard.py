"""Domain allowlists: which URLs a guarded space may reach, enforced in the browser.

One browser-wide ``Fetch.enable`` (the browser's own session, ``urlPattern: *``) pauses every
request of every target while any allowlist is in force: top-level navigations and their
redirects, meta refreshes, popups (``window.open``, ``target=_blank``, form targets), iframes,
``fetch``/XHR, images and scripts, dedicated workers and service workers (checked:
Chromium 156 reports a worker's requests under its page's frame id and a service worker's under
its own target id). Each paused request is attributed to a space (``attribute``: a frame of one
of its pages, a popup by its opener, a service worker by its scope's page) and continued only
if its URL is inside that space's list; one that cannot be attributed must pass every list in
force. Blocked requests fail with ``BlockedByClient`` (documents with ``Aborted``, which commits no
error page: the tab stays where it was) and are remembered, so an action that
started a blocked navigation fails with ``EGO_NAVIGATION_NOT_ALLOWED`` naming the rule.

WebSockets never reach the Fetch domain; for them every guarded document gets a
``Content-Security-Policy: connect-src`` of its list added to its response (fulfilled with its
own body: Chromium ignores a policy added by ``continueResponse``), which the page cannot lift:
CSP only ever adds restrictions, and an ``about:blank`` or ``srcdoc`` iframe inherits its
parent's. A dedicated worker's WebSocket follows its own script's policy (none added): a gap.

Confirmation rules that act on requests (a form post to a listed origin, a download, a payment
card number sent: ``host/features/consent_holds.py``) use the same interception: ``hold(space_id, params)``
is asked about every request the list lets through (and every document's response) and may
return an awaitable yes/no; the request stays paused until it resolves, then continues or fails
(a refused document with ``Aborted``: the tab stays where it was, nothing reached the server).

Kept in its own module (the integrator reconciles it with request routing, which uses the
Fetch domain per page): the guard's paused requests are answered here and nowhere else.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidArgument

__all__ = ["BrowserGuard", "Blocked", "check_patterns", "rule_for", "describe", "GUARDED_SCHEMES"]

logger = logging.getLogger("ego_browser.host")

#: schemes that reach the network; data:, blob:, about: ... carry nothing out
GUARDED_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})


def check_patterns(domains: Any, api: str) -> list[str]:
    """A list of host patterns: ``example.com`` (that host), ``*.example.com`` (it and its
    subdomains), either with ``:port`` to allow one port only."""
    if isinstance(domains, str) or not isinstance(domains, (list, tuple)) or not domains:
        raise InvalidArgument(f"{api}: domains must be a non-empty list of host patterns such as "
                              "['example.com', '*.example.com', '127.0.0.1:8080']", api=api, option="domains",
                              expected="a non-empty list of host patterns")
    out = []
    for d in domains:
        text = d.strip().lower() if isinstance(d, str) else ""
        host, _, port = text.rpartition(":") if ":" in text else (text, "", "")
        bare = host[2:] if host.startswith("*.") else host
        if not bare or any(c in text for c in "/ @?#") or "*" in bare or (":" in text and not port.isdigit()):
            raise InvalidArgument(f"{api}: {d!r} is not a host pattern (example.com, *.example.com, host:port)",
                                  api=api, option="domains", expected="host patterns")
        out.append(text)
    return out


def _matches(pattern: str, host: str, port: int | None) -> bool:
    pat_host, pat_port = pattern, None
    if ":" in pattern:
        pat_host, _, p = pattern.rpartition(":")
        pat_port = int(p)
    if pat_port is not None and pat_port != port:
        return False
    if pat_host.startswith("*."):
        bare = pat_host[2:]
        return host == bare or host.endswith("." + bare)
    return host == pat_host


def rule_for(url: str, patterns: list[str]) -> str | None:
    """The pattern that lets ``url`` through, ``"scheme"`` for a scheme that reaches no host,
    or None when the list refuses it."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in GUARDED_SCHEMES:
        return "scheme"
    host = (parts.hostname or "").lower()
    if port is None:
        port = {"http": 80, "ws": 80, "https": 443, "wss": 443, "ftp": 21}.get(scheme)
    for pattern in patterns:
        if _matches(pattern, host, port):
            return pattern
    return None


def describe(space_id: int | None, patterns: list[str]) -> str:
    who = f"task space {space_id}" if space_id is not None else "every guarded space"
    return f"the allowlist of {who} ({', '.join(patterns)})"


def _csp(patterns: list[str]) -> str:
    sources = []
    for p in patterns:
        host = p if ":" in p else p + ":*"  # the list's "example.com" is any port; CSP's, the default one
        sources += [f"{scheme}://{host}" for scheme in ("http", "https", "ws", "wss")]
    return "connect-src " + " ".join(sources) + " data: blob:"


class Blocked:
    __slots__ = ("space_id", "url", "rule", "frame_id", "top", "at")

    def __init__(self, space_id: int | None, url: str, rule: str, frame_id: str, top: bool) -> None:
        self.space_id, self.url, self.rule, self.frame_id, self.top = space_id, url, rule, frame_id, top
        self.at = time.monotonic()


#: attribute(frame_id) -> (space id, its patterns) | None when the request is no space's
Attribution = Callable[[str], "tuple[int, list[str] | None] | None"]
#: hold(space id | None, paused params) -> an awaitable of the person's yes (True) / no, or None
Hold = Callable[["int | None", dict[str, Any]], "Awaitable[bool] | None"]


class BrowserGuard:
    """The browser-wide interception of one browser connection while any allowlist is in force."""

    def __init__(self, conn: Any, attribute: Attribution, in_force: Callable[[], list[list[str]]],
                 is_top: Callable[[str], bool], hold: Hold | None = None,
                 holding: Callable[[], bool] = lambda: False) -> None:
        self.conn = conn
        self.hold = hold
        #: whether some confirmation rule needs requests paused (with no list in force)
        self.holding = holding
        self.is_top = is_top
        self.attribute = attribute
        self.in_force = in_force
        self.enabled = False
        self.blocked: deque[Blocked] = deque(maxlen=200)
        self._off: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()

    async def sync(self) -> None:
        """Intercept while some list is in force, and only then (a paused request costs a round trip)."""
        want = bool(self.in_force()) or self.holding()
        if want == self.enabled:
            return
        if want:
            self._off = self.conn.on("Fetch.requestPaused", self._paused)
            await self.conn.send("Fetch.enable", {"patterns": [
                {"urlPattern": "*", "requestStage": "Request"},
                {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"},
            ]}, timeout=10.0)
            self.enabled = True
        else:
            self.enabled = False
            await self.conn.send("Fetch.disable", {}, timeout=10.0)
            if self._off is not None:
                self._off()
                self._off = None

    def stop(self) -> None:
        if self._off is not None:
            self._off()
            self._off = None
        for task in self._tasks:
            task.cancel()

    def _patterns_for(self, frame_id: str) -> tuple[int | None, list[list[str]]]:
        owner = self.attribute(frame_id) if frame_id else None
        if owner is not None:
            space_id, patterns = owner
            return space_id, [patterns] if patterns else []
        return None, self.in_force()  # no space's: it must pass every list in force

    def _paused(self, params: dict[str, Any], _sid: str | None) -> None:
        request_id = params["requestId"]
        url = params.get("request", {}).get("url", "")
        frame_id = params.get("frameId") or ""
        space_id, lists = self._patterns_for(frame_id)
        if "responseStatusCode" in params or "responseErrorReason" in params:
            status = params.get("responseStatusCode") or 0
            asked = None if "responseErrorReason" in params or 300 <= status < 400 else self._ask(space_id, params)
            if asked is not None:  # a download the person wants to be asked about
                self._spawn(self._after(asked, request_id, params, lists))
            elif not lists or "responseErrorReason" in params or 300 <= status < 400:
                # nothing to add (a redirect is paused again at its next request)
                self._send("Fetch.continueRequest", {"requestId": request_id})
            else:
                self._spawn(self._with_csp(request_id, params, lists))
            return
        for patterns in lists:
            if rule_for(url, patterns) is None:
                top = params.get("resourceType") == "Document" and self.is_top(frame_id)
                self.blocked.append(Blocked(space_id, url, describe(space_id, patterns), frame_id, top))
                logger.info("guard: blocked %s (%s)", url, describe(space_id, patterns))
                # a document aborted commits no error page: the tab stays on the page it showed
                reason = "Aborted" if params.get("resourceType") == "Document" else "BlockedByClient"
                self._send("Fetch.failRequest", {"requestId": request_id, "errorReason": reason})
                return
        asked = self._ask(space_id, params)
        if asked is not None:  # a request the person wants to be asked about: paused until they answer
            self._spawn(self._after(asked, request_id, params, None))
            return
        self._send("Fetch.continueRequest", {"requestId": request_id})

    def _ask(self, space_id: int | None, params: dict[str, Any]) -> Awaitable[bool] | None:
        if self.hold is None:
            return None
        try:
            return self.hold(space_id, params)
        except Exception:  # noqa: BLE001 - a rule that cannot be judged does not hold the page
            logger.exception("guard: confirmation rule failed on %s", params.get("request", {}).get("url"))
            return None

    async def _after(self, asked: Awaitable[bool], request_id: str, params: dict[str, Any],
                     lists: list[list[str]] | None) -> None:
        """The person's answer: a no fails the request (nothing leaves, or a download is cancelled)."""
        try:
            yes = await asked
        except Exception:  # noqa: BLE001 - no answer is a no
            yes = False
        document = params.get("resourceType") == "Document"
        if not yes:
            reason = "Aborted" if document else "BlockedByClient"
            with contextlib.suppress(Exception):
                await self.conn.send("Fetch.failRequest", {"requestId": request_id, "errorReason": reason}, timeout=10.0)
        elif lists:  # a document's response: its CSP still goes on
            await self._with_csp(request_id, params, lists)
        else:
            with contextlib.suppress(Exception):
                await self.conn.send("Fetch.continueRequest", {"requestId": request_id}, timeout=10.0)

    async def _with_csp(self, request_id: str, params: dict[str, Any], lists: list[list[str]]) -> None:
        """Answer the document with its own body and headers plus a ``connect-src`` per list
        (Chromium ignores a policy added by ``continueResponse``; one in a fulfilled response holds)."""
        send = self.conn.send
        try:
            body = await send("Fetch.getResponseBody", {"requestId": request_id}, timeout=30.0)
            data = body.get("body", "")
            if not body.get("base64Encoded"):
                data = base64.b64encode(data.encode("utf-8")).decode("ascii")
            headers = list(params.get("responseHeaders") or [])
            for patterns in lists:  # WebSockets: the page's connections stay inside its list
                headers.append({"name": "Content-Security-Policy", "value": _csp(patterns)})
            out = {"requestId": request_id, "responseCode": params["responseStatusCode"],
                   "responseHeaders": headers, "body": data}
            if params.get("responseStatusText"):
                out["responsePhrase"] = params["responseStatusText"]
            await send("Fetch.fulfillRequest", out, timeout=30.0)
        except Exception:  # noqa: BLE001 - gone meanwhile; or a body we cannot read: let it through
            with contextlib.suppress(Exception):
                await send("Fetch.continueRequest", {"requestId": request_id}, timeout=10.0)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _send(self, method: str, params: dict[str, Any]) -> None:
        async def go() -> None:
            try:
                await self.conn.send(method, params, timeout=10.0)
            except Exception:  # noqa: BLE001 - the request went away (tab closed, navigation)
                pass

        self._spawn(go())

    def blocked_since(self, space_id: int, since: float) -> Blocked | None:
        """The last top-level navigation (a tab's, a popup's) of the space blocked since ``since``."""
        for b in reversed(self.blocked):
            if b.at < since:
                return None
            if b.top and b.space_id == space_id:
                return b
        return None
