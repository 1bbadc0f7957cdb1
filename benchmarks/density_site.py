"""The pages of bench_density.py: one origin per agent, every page naming its agent and round.

Each agent works on its own origin (``http://a7.localhost:PORT``: Chromium resolves every
``*.localhost`` name to 127.0.0.1), so nothing of one agent's site is shared with another's by
design, and every page, popup and download carries its agent's name and round. A round checks
what it reads against what it expects: any other agent's name in its snapshot, its popup or
its file — or a page whose storage was last written by another agent — is cross-talk.

Run in a process of its own (``python density_site.py`` prints the port), so that its CPU is
neither the round's nor the host's.
"""

from __future__ import annotations

import html
import re
import sys
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit
from ego_browser.cli.demo_site import LocalHTTPServer

__all__ = ["agent_origin", "check", "page"]

TAG = re.compile(r"\b(?:tag|popup) (a\d+)/(\d+)")


def check(text: str, who: str, rnd: int, what: str, problems: list[str]) -> None:
    """Every agent/round tag in ``text`` must be this round's (and there must be one); nothing
    may say CROSSTALK. A mismatch is recorded in ``problems``."""
    tags = set(TAG.findall(text))
    if "CROSSTALK" in text or tags - {(who, str(rnd))} or not tags:
        problems.append(f"{who} round {rnd} {what}: saw {sorted(tags)}{' CROSSTALK' if 'CROSSTALK' in text else ''}")


def agent_origin(port: int, agent: str) -> str:
    return f"http://{agent}.localhost:{port}"


def page(who: str, rnd: str) -> str:
    w, r = html.escape(who), html.escape(rnd)
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>Agent {w} round {r}</title></head><body>"
        f"<main><h1>Workspace of {w}</h1><p id=tag>tag {w}/{r}</p>"
        "<form onsubmit='return false'><label for=name>Name</label> <input id=name name=name>"
        " <button id=save type=button>Save</button></form>"
        "<p id=out>nothing saved</p>"
        f"<p><a id=pop href='/popup?who={w}&r={r}' target=_blank>Open details</a>"
        f" <a id=dl href='/file?who={w}&r={r}' download>Download report</a></p>"
        "<ul>" + "".join(f"<li>Item {i} <button type=button>Add {i}</button></li>" for i in range(30)) + "</ul>"
        "</main><script>"
        f"const WHO={who!r};"
        # storage of this origin was written by another agent: a space saw another space's state
        "const prev=localStorage.getItem('owner');"
        "if(prev&&prev!==WHO){document.getElementById('tag').textContent+=' CROSSTALK storage '+prev;}"
        "localStorage.setItem('owner',WHO);"
        "document.getElementById('save').addEventListener('click',()=>{"
        "const v=document.getElementById('name').value;"
        "document.getElementById('out').textContent='saved '+v+' by '+WHO;});"
        "</script></body></html>"
    )


def _popup(who: str, rnd: str) -> str:
    w, r = html.escape(who), html.escape(rnd)
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>Details {w}</title></head>"
            f"<body><h1>Details of {w}</h1><p id=tag>popup {w}/{r}</p></body></html>")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        url = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        who, rnd = q.get("who", "?"), q.get("r", "?")
        ctype, extra = "text/html; charset=utf-8", {}
        if url.path == "/agent":
            body = page(who, rnd).encode()
        elif url.path == "/popup":
            body = _popup(who, rnd).encode()
        elif url.path == "/file":
            body = f"report of {who} round {rnd}\n".encode() + b"x" * 20_000
            ctype = "text/plain"
            extra["Content-Disposition"] = f'attachment; filename="report-{who}-{rnd}.txt"'
        else:
            self.send_response(204 if url.path == "/favicon.ico" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in extra.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server API)
        pass


def main() -> None:
    server = LocalHTTPServer(("127.0.0.1", 0), _Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
