"""Who may talk to the dashboard: the person holding this start's token, from this machine,
from the dashboard's own pages.

The token is new at every start and only the host's owner can ask for it (the Unix socket is
0600). The first visit carries it in the URL; the answer sets it as an HttpOnly, SameSite=Strict
cookie and redirects to a URL without it, so it leaves the address bar and the history. Cookies
are not told apart by port, so a page of another local server (``127.0.0.1:8000``) is
"same-site" to the dashboard and its requests would carry the cookie: ``Sec-Fetch-Site`` (set by
the browser, not by the page) refuses them, and the websocket also requires ``Origin`` to be the
dashboard's own. The ``Host`` header must name a loopback address (no DNS rebinding); its port
may differ from ours, as it does behind an SSH port forward.

``Sec-Fetch-Site: none`` (an address typed, a bookmark, a tab the agent sent there with CDP) is
taken only with a secret in the request itself: the URL's token, a one-time code, or the
one-time "fresh" cookie the token's own answer sets for its redirect (issue 31). The cookie
alone is not enough then: a tab the agent drives in the same browser carries it too.

``dashboard --open`` hands the browser it starts a one-time code, never the token: a command
line is readable by every local user (``/proc/PID/cmdline``). A code works once, for
``CODE_TTL`` seconds, and its answer is the token's (the cookie, the redirect).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlsplit

__all__ = ["Guard", "LOOPBACK_NAMES", "MALFORMED_HOST", "CODE_TTL"]

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
#: requests a page of another site (or another local port) makes; "none" is the person's own
#: typing or bookmark, "same-origin" the dashboard's own pages
_ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})
#: seconds a one-time code (and the fresh cookie of a redirect) stays usable
CODE_TTL = 60.0
#: codes outstanding at most (an old one is dropped first)
_MAX_CODES = 32
#: the refusal the server answers with 400 rather than 403
MALFORMED_HOST = "malformed Host header"


def _loopback(addr: str | None) -> bool:
    if not addr:
        return False
    try:
        return ipaddress.ip_address(addr).is_loopback
    except ValueError:
        return False


def host_is_loopback(host_header: str | None) -> bool:
    """Whether the Host header names a loopback address; ValueError if it is no host at all."""
    if not host_header:
        return False
    parts = urlsplit("//" + host_header)  # ValueError: "[::1" and the like
    if parts.path or parts.query or parts.fragment or parts.username is not None:
        raise ValueError(host_header)
    parts.port  # noqa: B018 - ValueError on a port that is not a number
    name = parts.hostname or ""
    return name in LOOPBACK_NAMES or _loopback(name)


class Guard:
    """The checks of one dashboard start (its token, its cookie)."""

    def __init__(self, port: int) -> None:
        self.token = secrets.token_urlsafe(32)
        # one cookie per dashboard port: two homes' dashboards on one machine do not clash
        self.cookie_name = f"ego_dashboard_{port}"
        self.fresh_name = f"ego_dashboard_{port}_fresh"
        #: one-time code -> when it dies (time.monotonic)
        self._codes: dict[str, float] = {}

    def set_cookie(self) -> str:
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def set_fresh_cookie(self) -> str:
        """A one-time cookie for the redirect that follows a token or a code: the person's own
        navigation arrives with ``Sec-Fetch-Site: none`` and carries no token in the URL any more."""
        return (f"{self.fresh_name}={self.issue_code()}; Path=/; Max-Age={int(CODE_TTL)}; HttpOnly; "
                "SameSite=Strict")

    def issue_code(self) -> str:
        """A new one-time code: it opens the dashboard once, within ``CODE_TTL`` seconds."""
        now = time.monotonic()
        self._codes = {c: t for c, t in self._codes.items() if t > now}
        while len(self._codes) >= _MAX_CODES:
            self._codes.pop(next(iter(self._codes)))
        code = secrets.token_urlsafe(24)
        self._codes[code] = now + CODE_TTL
        return code

    def _take_code(self, candidate: str | None) -> bool:
        """Whether ``candidate`` is a live code; it dies here either way."""
        if not candidate:
            return False
        now, found = time.monotonic(), None
        for code in list(self._codes):
            if hmac.compare_digest(candidate.encode(), code.encode()):
                found = code
        if found is None:
            return False
        return self._codes.pop(found) > now

    def _cookie_token(self, cookie_header: str | None, name: str | None = None) -> str | None:
        if not cookie_header:
            return None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie_header)
        except CookieError:
            return None
        morsel = jar.get(name or self.cookie_name)
        return morsel.value if morsel is not None else None

    def _matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self.token.encode())

    def url_token(self, path: str, key: str = "token") -> str | None:
        values = parse_qs(urlsplit(path).query).get(key)
        return values[0] if values else None

    def url_code(self, path: str) -> str | None:
        return self.url_token(path, "code")

    def refuse_http(self, remote: str | None, headers: dict[str, str], path: str) -> str | None:
        """Why a plain HTTP request is refused (None: let it through). ``headers`` has
        lower-case names."""
        if not _loopback(remote):
            return "not from this machine"
        try:
            if not host_is_loopback(headers.get("host")):
                return "Host is not a loopback address"
        except ValueError:
            return MALFORMED_HOST
        site = headers.get("sec-fetch-site")
        if site is not None and site not in _ALLOWED_FETCH_SITES:
            return f"requested by another site ({site})"
        if self._matches(self.url_token(path)) or self._take_code(self.url_code(path)):
            return None
        if not self._matches(self._cookie_token(headers.get("cookie"))):
            return "no valid token"
        if site == "none" and not self._take_code(self._cookie_token(headers.get("cookie"), self.fresh_name)):
            # a navigation nobody's page started, with the cookie only: the agent's own tab can
            # do that in the browser that holds the cookie
            return "a navigation without the URL's token"
        return None

    def refuse_websocket(self, remote: str | None, headers: dict[str, str]) -> str | None:
        """Why a websocket handshake is refused: the HTTP checks, and Origin must be the
        dashboard page's own origin (scheme http, the Host the browser connected to)."""
        why = self.refuse_http(remote, headers, "/")
        if why is not None:
            return why
        origin = headers.get("origin")
        if origin != f"http://{headers.get('host')}":
            return f"Origin {origin!r} is not the dashboard's"
        return None
