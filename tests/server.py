"""The test suite's one web server: real HTTP (or HTTPS) on 127.0.0.1, port 0, routes set per test.

Routes map a path to a static body or a handler; a ``fallback`` handler answers the paths no
route names (a page built from the request, a folder of files). Helpers cover what the
behaviours need: delayed headers, slowly streamed bodies, redirects, downloads, cookies.
Requests are recorded so tests can count them.

The ``server`` fixture's routes live for the whole session: a site-wide path (``/favicon.ico``,
which every page load asks for) routed to something slow holds the browsers' connections to
this server in every later test; such a test takes a server of its own.
"""

from __future__ import annotations

import mimetypes
import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ego_browser.cli.demo_site import LocalHTTPServer

__all__ = ["TestServer", "Response"]


class Response:
    def __init__(self, body: bytes | str = b"", *, status: int = 200, content_type: str = "text/html; charset=utf-8",
                 headers: dict[str, str] | None = None, delay: float = 0.0, chunks: list[tuple[Any, bytes]] | None = None) -> None:
        self.body = body.encode() if isinstance(body, str) else body
        self.status = status
        self.headers = {"Content-Type": content_type, **(headers or {})}
        self.delay = delay  # seconds before the status line (headers delayed)
        # [(pause, bytes)] streamed after the headers; a pause may be a threading.Event that the
        # test sets when the chunk may go (an outcome, not a race against the clock)
        self.chunks = chunks


Handler = Callable[["_Request"], Response]


class _Request:
    def __init__(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        parts = urlsplit(handler.path)
        self.path = parts.path
        self.query = parts.query
        self.method = handler.command
        self.headers = {k.lower(): v for k, v in handler.headers.items()}
        self.body = body


class TestServer:
    __test__ = False  # not a pytest class

    def __init__(self, host: str = "127.0.0.1", *, tls: ssl.SSLContext | None = None,
                 fallback: Callable[[_Request], Response | None] | None = None) -> None:
        self.routes: dict[str, Response | Handler] = {}
        #: answers a path no route names (``None``: 404)
        self.fallback = fallback
        self.requests: list[tuple[str, str]] = []  # (method, path)
        self._lock = threading.Lock()
        server = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes: no wait for a delayed ACK between them

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                req = _Request(self, body)
                with server._lock:
                    server.requests.append((req.method, req.path + (("?" + req.query) if req.query else "")))
                route = server.routes.get(req.path)
                found = server.fallback(req) if route is None and server.fallback is not None else None
                if found is not None:
                    resp = found
                elif route is None:
                    resp = Response("not found", status=404, content_type="text/plain")
                elif callable(route):
                    resp = route(req)
                else:
                    resp = route
                if resp.delay:
                    time.sleep(resp.delay)
                try:
                    self.send_response(resp.status)
                    for k, v in resp.headers.items():
                        self.send_header(k, v)
                    if resp.chunks is None:
                        self.send_header("Content-Length", str(len(resp.body)))
                        self.end_headers()
                        if self.command != "HEAD":
                            self.wfile.write(resp.body)
                    else:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        for pause, data in [(0.0, resp.body)] + resp.chunks:
                            if isinstance(pause, threading.Event):
                                pause.wait(30.0)
                            elif pause:
                                time.sleep(pause)
                            if data:
                                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                                self.wfile.flush()
                        self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _serve

            def do_OPTIONS(self) -> None:
                self._serve()

        self.httpd = LocalHTTPServer((host, 0), H)
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https" if tls is not None else "http"
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="test-server", daemon=True)
        self._thread.start()

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def route(self, path: str, response: Response | Handler | str) -> str:
        self.routes[path] = Response(response) if isinstance(response, str) else response
        return self.url(path)

    def page(self, path: str, body: str, *, title: str = "Test") -> str:
        html = body if body.lstrip().lower().startswith("<!doctype") or "<html" in body[:200].lower() else (
            f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>{body}</body></html>"
        )
        return self.route(path, Response(html))

    def serve_files(self, root: Path) -> None:
        """Answer every path no route names with the file of that name under ``root``."""
        base = root.resolve()

        def from_folder(req: _Request) -> Response | None:
            rel = req.path.lstrip("/") or "index.html"
            path = (base / rel).resolve()
            if path.is_dir():
                path = path / "index.html"
            if not path.is_relative_to(base) or not path.is_file():
                return None
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
                kind += "; charset=utf-8"
            return Response(path.read_bytes(), content_type=kind)

        self.fallback = from_folder

    def hits(self) -> dict[str, int]:
        """Requests per path (query left out)."""
        counts: dict[str, int] = {}
        with self._lock:
            for _m, p in self.requests:
                key = p.split("?")[0]
                counts[key] = counts.get(key, 0) + 1
        return counts

    def count(self, path: str) -> int:
        with self._lock:
            return sum(1 for _m, p in self.requests if p.split("?")[0] == path)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
