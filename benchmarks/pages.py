"""The standard benchmark pages, served on 127.0.0.1 (port 0) by a threaded HTTP server.

- ``/large``: a 500-row table, each row a link, a text cell, a button and an input
  (about 3,500 elements; the "large page" of PEERS.md).
- ``/login``: a small login form (user, password, remember-me, submit).
- ``/blank``: an almost empty page for round-trip benchmarks.
- ``/actions``: a small page with a button, a hover target, a text input and a select
  (element-action benchmarks).

Usage::

    with serve() as site:
        url = site.url("/large")

Every bench module uses these so that all peers see the same bytes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from ego_browser.cli.demo_site import LocalHTTPServer

__all__ = ["LARGE_ROWS", "PAGES", "Site", "actions_page", "large_page", "login_page", "serve"]

LARGE_ROWS = 500


def large_page(rows: int = LARGE_ROWS) -> str:
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Large table</title>",
        "<style>body{font-family:sans-serif} td{padding:2px 6px}</style></head><body>",
        "<h1>Inventory</h1>",
        "<table id=inventory><thead><tr><th>Item</th><th>Description</th><th>Action</th>"
        "<th>Quantity</th></tr></thead><tbody>",
    ]
    append = out.append
    for i in range(rows):
        append(
            f"<tr id=row-{i}><td><a href=\"/item/{i}\">Item {i}</a></td>"
            f"<td>Description of item number {i}, in stock</td>"
            f"<td><button type=button data-row={i}>Add {i}</button></td>"
            f"<td><input type=text name=qty-{i} aria-label=\"Quantity {i}\" value=\"\"></td></tr>"
        )
    out.append("</tbody></table>")
    out.append(
        "<script>document.getElementById('inventory').addEventListener('click',e=>{"
        "const b=e.target.closest('button');if(b)b.textContent='Added '+b.dataset.row;});</script>"
    )
    out.append("</body></html>")
    return "".join(out)


def login_page() -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Sign in</title></head><body>"
        "<main><h1>Sign in</h1>"
        "<form id=login action=/welcome method=get>"
        "<label for=user>Email</label> <input id=user name=user type=email autocomplete=username><br>"
        "<label for=pw>Password</label> <input id=pw name=pw type=password autocomplete=current-password><br>"
        "<label><input type=checkbox name=remember> Remember me</label><br>"
        "<button type=submit>Sign in</button> <a href=/forgot>Forgot password?</a>"
        "</form></main></body></html>"
    )


def actions_page() -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Actions</title>"
        "<style>#hov{display:inline-block;padding:8px;background:#eee} #hov:hover{background:#cde}</style>"
        "</head><body><main><h1>Actions</h1>"
        "<p><button id=btn type=button>Press me</button> <span id=clicks>0</span></p>"
        "<p><span id=hov>Hover target</span> <span id=hovers>0</span></p>"
        "<p><label for=name>Name</label> <input id=name name=name type=text></p>"
        "<p><label for=color>Color</label> <select id=color name=color>"
        "<option value=red>Red</option><option value=green>Green</option><option value=blue>Blue</option>"
        "</select></p></main>"
        "<script>let c=0,h=0;"
        "document.getElementById('btn').addEventListener('click',()=>{"
        "document.getElementById('clicks').textContent=++c;});"
        "document.getElementById('hov').addEventListener('mouseenter',()=>{"
        "document.getElementById('hovers').textContent=++h;});</script>"
        "</body></html>"
    )


def _simple(title: str, body: str = "") -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body>{body}</body></html>"
    )


#: path -> HTML (bytes are built once; every request of a run gets identical content)
PAGES: dict[str, bytes] = {
    "/large": large_page().encode(),
    "/login": login_page().encode(),
    "/blank": _simple("Blank", "<p>blank</p>").encode(),
    "/actions": actions_page().encode(),
    "/welcome": _simple("Welcome", "<h1>Welcome</h1>").encode(),
    "/forgot": _simple("Forgot", "<h1>Reset your password</h1>").encode(),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no wait for a delayed ACK between them

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        path = self.path.split("?", 1)[0]
        body = PAGES.get(path)
        if body is None and path.startswith("/item/"):
            body = _simple("Item", f"<h1>{path[6:]}</h1>").encode()
        if body is None:
            if path == "/favicon.ico":
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = b"not found"
            self.send_response(404)
        else:
            self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server API)
        pass


class Site:
    """A running page server; ``url("/large")`` gives an absolute URL."""

    def __init__(self, server: LocalHTTPServer) -> None:
        self.server = server
        self.port = server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.base + path


@contextlib.contextmanager
def serve() -> Iterator[Site]:
    server = LocalHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, name="bench-pages", daemon=True)
    thread.start()
    try:
        yield Site(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


if __name__ == "__main__":  # serve by hand: python benchmarks/pages.py
    import time

    with serve() as site:
        for path in PAGES:
            print(site.url(path))
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
