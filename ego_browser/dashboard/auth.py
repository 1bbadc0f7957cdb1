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
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlsplit

__all__ = ["Guard", "LOOPBACK_NAMES"]

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
#: requests a page of another site (or another local port) makes; "none" is the person's own
#: typing or bookmark, "same-origin" the dashboard's own pages
_ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})


def _loopback(addr: str | None) -> bool:
    if not addr:
        return False
    try:
        return ipaddress.ip_address(addr).is_loopback
    except ValueError:
        return False


def host_is_loopback(host_header: str | None) -> bool:
    if not host_header:
        return False
    name = urlsplit("//" + host_header).hostname or ""
    return name in LOOPBACK_NAMES or _loopback(name)


class Guard:
    """The checks of one dashboard start (its token, its cookie)."""

    def __init__(self, port: int) -> None:
        self.token = secrets.token_urlsafe(32)
        # one cookie per dashboard port: two homes' dashboards on one machine do not clash
        self.cookie_name = f"ego_dashboard_{port}"

    def set_cookie(self) -> str:
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def _cookie_token(self, cookie_header: str | None) -> str | None:
        if not cookie_header:
            return None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie_header)
        except CookieError:
            return None
        morsel = jar.get(self.cookie_name)
        return morsel.value if morsel is not None else None

    def _matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self.token.encode())

    def url_token(self, path: str) -> str | None:
        values = parse_qs(urlsplit(path).query).get("token")
        return values[0] if values else None

    def refuse_http(self, remote: str | None, headers: dict[str, str], path: str) -> str | None:
        """Why a plain HTTP request is refused (None: let it through). ``headers`` has
        lower-case names."""
        if not _loopback(remote):
            return "not from this machine"
        if not host_is_loopback(headers.get("host")):
            return "Host is not a loopback address"
        site = headers.get("sec-fetch-site")
        if site is not None and site not in _ALLOWED_FETCH_SITES:
            return f"requested by another site ({site})"
        if self._matches(self.url_token(path)) or self._matches(self._cookie_token(headers.get("cookie"))):
            return None
        return "no valid token"

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
