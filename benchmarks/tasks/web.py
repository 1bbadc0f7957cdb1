"""A tiny Django-admin-like web framework for the task benchmark apps (stdlib only).

Each app is served by a threaded ``http.server`` on 127.0.0.1 (port 0) and keeps its state
in memory on the server: sessions behind a cookie, CSRF tokens in every form, flash messages
that survive one redirect, multipart uploads. Pages share one layout (header, breadcrumbs,
messages, a stylesheet and a little JS), so every tool sees pages of a realistic size.

Every page reports its own load time (Navigation Timing, sent by ``navigator.sendBeacon`` to
``/__timing`` after ``load``): the benchmark sums them per run as the floor no tool can beat.
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlencode, urlsplit
from ego_browser.cli.demo_site import LocalHTTPServer

esc = html.escape

CSS = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#333;background:#fff}
a{color:#447e9b;text-decoration:none} a:hover{color:#036;text-decoration:underline}
#header{display:flex;justify-content:space-between;align-items:center;background:#417690;color:#ffc;padding:10px 40px}
#header h1{margin:0;font-size:20px;font-weight:300} #header h1 a{color:#f5dd5d}
#user-tools{font-size:12px;text-transform:uppercase;letter-spacing:.5px} #user-tools a{color:#fff}
.breadcrumbs{background:#79aec8;color:#c4dce8;padding:10px 40px;font-size:13px} .breadcrumbs a{color:#fff}
#content{padding:20px 40px;display:flex;gap:24px;align-items:flex-start}
#content-main{flex:1;min-width:0} #changelist-filter{width:240px;background:#f8f8f8;border-left:1px solid #eee;padding:0 0 10px}
#changelist-filter h2{font-size:13px;text-transform:uppercase;background:#79aec8;color:#fff;margin:0;padding:6px 12px}
#changelist-filter h3{font-size:13px;margin:12px 12px 4px} #changelist-filter ul{list-style:none;margin:0;padding:0 12px}
#changelist-filter li{padding:2px 0} #changelist-filter li.selected a{color:#5b80b2;font-weight:bold}
.messagelist{list-style:none;margin:0 0 16px;padding:0} .messagelist li{padding:10px 12px;margin:0 0 6px;background:#dfd;border-radius:3px}
.messagelist li.error{background:#ffefef} .messagelist li.warning{background:#ffc}
.errornote{color:#ba2121;border:1px solid #ba2121;padding:8px 12px;margin:0 0 12px}
.errorlist{color:#ba2121;list-style:none;margin:4px 0;padding:0;font-size:13px}
table{border-collapse:collapse;width:100%} th,td{padding:6px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
thead th{background:#f6f6f6;font-size:12px;text-transform:uppercase;color:#666}
tr.selected td{background:#ffc}
.form-row{padding:10px 0;border-bottom:1px solid #eee;display:flex;gap:12px;align-items:flex-start}
.form-row>label,.form-row>.label{width:200px;font-weight:600;padding-top:4px} .required:after{content:" *";color:#ba2121}
.help{color:#999;font-size:12px;margin:2px 0}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=date],input[type=tel],select,textarea{padding:5px 6px;border:1px solid #ccc;border-radius:4px;font:inherit;min-width:260px}
fieldset{border:1px solid #eee;margin:0 0 16px;padding:0 12px} fieldset h2{font-size:14px;background:#79aec8;color:#fff;margin:0 -12px;padding:6px 12px}
fieldset.collapsed .fields{display:none}
.submit-row{background:#f8f8f8;border:1px solid #eee;padding:12px;text-align:right;display:flex;gap:8px;justify-content:flex-end}
.button,input[type=submit],button{background:#79aec8;color:#fff;border:0;border-radius:4px;padding:8px 14px;cursor:pointer;font:inherit}
.button.default,input[type=submit].default{background:#417690;font-weight:bold} a.deletelink{background:#ba2121;color:#fff;padding:8px 14px;border-radius:4px;margin-right:auto}
.actions{background:#f8f8f8;padding:8px;border:1px solid #eee;margin-bottom:8px} .actions select{min-width:200px}
.paginator{margin-top:10px;padding:8px 0;border-top:1px solid #eee} .paginator a,.paginator span{padding:2px 6px}
.paginator span.this-page{font-weight:bold;color:#666}
#toolbar{background:#f8f8f8;padding:8px;margin-bottom:10px;border:1px solid #eee}
.steps{display:flex;gap:6px;list-style:none;padding:0;margin:0 0 14px} .steps li{padding:4px 10px;background:#eee;border-radius:12px;font-size:12px}
.steps li.current{background:#417690;color:#fff}
.badge{display:inline-block;padding:1px 6px;border-radius:8px;font-size:12px;background:#eee}
.badge.shipped{background:#dfd} .badge.cancelled{background:#fdd} .badge.pending{background:#ffc} .badge.refunded{background:#def}
.ac-list{position:absolute;background:#fff;border:1px solid #ccc;list-style:none;margin:0;padding:0;min-width:260px;z-index:5}
.ac-list li{padding:4px 8px;cursor:pointer} .ac-list li:hover,.ac-list li.active{background:#79aec8;color:#fff}
#footer{color:#999;font-size:12px;padding:20px 40px;border-top:1px solid #eee;margin-top:30px}
"""

# The shared client-side bits: collapsible fieldsets, "select all" checkboxes, the action counter,
# and the load-time beacon every page sends once it has loaded.
JS = """
(function(){
  addEventListener('load', function(){ setTimeout(function(){
    var n = performance.getEntriesByType('navigation')[0];
    if (n && navigator.sendBeacon) navigator.sendBeacon('/__timing', JSON.stringify({
      url: location.pathname + location.search, ms: n.loadEventEnd - n.startTime, type: n.type}));
  }, 0); });
  document.addEventListener('click', function(e){
    var t = e.target.closest('fieldset.collapse .collapse-toggle');
    if (t) { e.preventDefault(); var fs = t.closest('fieldset');
      fs.classList.toggle('collapsed'); t.textContent = fs.classList.contains('collapsed') ? 'Show' : 'Hide'; }
  });
  function counter(){
    var boxes = document.querySelectorAll('input.action-select'); var n = 0;
    boxes.forEach(function(b){ if (b.checked) n++; b.closest('tr').classList.toggle('selected', b.checked); });
    var c = document.querySelector('.action-counter');
    if (c) c.textContent = n + ' of ' + boxes.length + ' selected';
  }
  document.addEventListener('change', function(e){
    if (e.target.id === 'action-toggle') {
      document.querySelectorAll('input.action-select').forEach(function(b){ b.checked = e.target.checked; });
    }
    if (e.target.matches('#action-toggle, input.action-select')) counter();
  });
  document.addEventListener('DOMContentLoaded', counter);
})();
"""


class Request:
    def __init__(self, handler: BaseHTTPRequestHandler, app: App) -> None:
        self.method = handler.command
        parts = urlsplit(handler.path)
        self.path = parts.path
        self.query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self.headers = handler.headers
        self.form: dict[str, list[str]] = {}
        self.files: dict[str, tuple[str, bytes]] = {}
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        self.body = body
        ctype = handler.headers.get("Content-Type", "")
        if ctype.startswith("application/x-www-form-urlencoded"):
            self.form = parse_qs(body.decode(), keep_blank_values=True)
        elif ctype.startswith("multipart/form-data"):
            msg = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                filename = part.get_filename()
                payload = part.get_payload(decode=True) or b""
                if filename is not None:
                    if filename:
                        self.files[name] = (filename, payload)
                else:
                    self.form.setdefault(name, []).append(payload.decode())
        cookies = {}
        for chunk in (handler.headers.get("Cookie") or "").split(";"):
            if "=" in chunk:
                k, v = chunk.strip().split("=", 1)
                cookies[k] = v
        self.session = app.sessions.get(cookies.get("sessionid", ""))
        self.new_cookie: str | None = None

    def get(self, name: str, default: str = "") -> str:
        values = self.form.get(name)
        return values[-1].strip() if values else default

    def getlist(self, name: str) -> list[str]:
        return self.form.get(name, [])


class Response:
    def __init__(self, body: str | bytes = "", status: int = 200, ctype: str = "text/html; charset=utf-8",
                 headers: dict[str, str] | None = None) -> None:
        self.body = body.encode() if isinstance(body, str) else body
        self.status = status
        self.headers = {"Content-Type": ctype, **(headers or {})}


def redirect(location: str) -> Response:
    return Response("", 302, headers={"Location": location})


Route = tuple[str, re.Pattern[str], Callable[..., Response]]


class App:
    """Base of every benchmark app: routing, sessions, CSRF, messages, layout, state checks."""

    title = "Administration"
    users: dict[str, str] = {}  # username -> password; an app with users requires sign-in
    login_required = False

    def __init__(self) -> None:
        self.sessions: dict[str, dict] = {}
        self.routes: list[Route] = []
        self.lock = threading.RLock()
        self.timings: list[dict] = []
        self.log: list[tuple[str, str, str]] = []  # (method, path+query, user)
        self.setup()

    # -- to override --------------------------------------------------------------------------
    def setup(self) -> None:
        raise NotImplementedError

    # -- routing ------------------------------------------------------------------------------
    def route(self, methods: str, pattern: str, fn: Callable[..., Response]) -> None:
        self.routes.append((methods, re.compile("^" + pattern + "$"), fn))

    def dispatch(self, req: Request) -> Response:
        if req.path == "/static/admin.css":
            return Response(CSS, ctype="text/css; charset=utf-8", headers={"Cache-Control": "max-age=3600"})
        if req.path == "/static/admin.js":
            return Response(JS, ctype="text/javascript; charset=utf-8", headers={"Cache-Control": "max-age=3600"})
        if req.path == "/__timing":
            try:
                with self.lock:
                    self.timings.append(json.loads(req.body or b"{}"))
            except ValueError:
                pass
            return Response("", 204)
        if req.path == "/favicon.ico":
            return Response("", 204)
        for methods, rx, fn in self.routes:
            m = rx.match(req.path)
            if m and req.method in methods.split(","):
                with self.lock:
                    user = (req.session or {}).get("user", "")
                    self.log.append((req.method, req.path + ("?" + urlencode(req.query) if req.query else ""), user))
                    if self.login_required and not user and not getattr(fn, "public", False):
                        return redirect("/login/?" + urlencode({"next": req.path}))
                    if req.method == "POST" and not getattr(fn, "public_post", False):
                        if not req.session or req.get("csrfmiddlewaretoken") != req.session.get("csrf"):
                            return Response(self.page("Forbidden", "<h1>Forbidden (403)</h1><p>CSRF verification failed. "
                                                      "Request aborted.</p>", req), 403)
                    return fn(req, **m.groupdict())
        return Response(self.page("Page not found", "<h1>Page not found (404)</h1>", req), 404)

    # -- sessions, CSRF, messages ---------------------------------------------------------------
    def ensure_session(self, req: Request) -> dict:
        if req.session is None:
            sid = secrets.token_hex(16)
            req.session = self.sessions[sid] = {"csrf": secrets.token_hex(16), "messages": []}
            req.new_cookie = sid
        return req.session

    def csrf(self, req: Request) -> str:
        return f'<input type="hidden" name="csrfmiddlewaretoken" value="{self.ensure_session(req)["csrf"]}">'

    def message(self, req: Request, text: str, level: str = "success") -> None:
        self.ensure_session(req)["messages"].append((level, text))

    # -- layout ---------------------------------------------------------------------------------
    def page(self, title: str, body: str, req: Request, *, crumbs: list[tuple[str, str]] | None = None,
             sidebar: str = "", head: str = "", popup: bool = False) -> str:
        session = self.ensure_session(req)
        msgs = session.pop("messages", [])
        session["messages"] = []
        user = session.get("user")
        tools = (f'Welcome, <strong>{esc(user)}</strong>. <a href="/">View site</a> / '
                 f'<a href="/password_change/">Change password</a> / '
                 f'<form id="logout-form" method="post" action="/logout/" style="display:inline">{self.csrf(req)}'
                 f'<button type="submit" style="background:none;padding:0;color:#fff;text-transform:uppercase;font-size:12px">Log out</button></form>'
                 if user else "")
        crumb_html = ""
        if crumbs is not None:
            crumb_html = '<div class="breadcrumbs"><a href="/">Home</a>' + "".join(
                f" › <a href=\"{esc(href)}\">{esc(text)}</a>" if href else f" › {esc(text)}" for text, href in crumbs
            ) + "</div>"
        msg_html = ""
        if msgs:
            msg_html = '<ul class="messagelist">' + "".join(
                f'<li class="{esc(level)}">{esc(text)}</li>' for level, text in msgs) + "</ul>"
        header = "" if popup else (f'<div id="header"><h1 id="site-name"><a href="/">{esc(self.title)}</a></h1>'
                                   f'<div id="user-tools">{tools}</div></div>{crumb_html}')
        footer = "" if popup else ('<div id="footer">Powered by the ego_browser task benchmark · '
                                   '<a href="/help/">Help</a> · <a href="/privacy/">Privacy</a></div>')
        side = f'<div id="changelist-filter">{sidebar}</div>' if sidebar else ""
        return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{esc(title)} | {esc(self.title)}</title>"
                "<link rel=\"stylesheet\" href=\"/static/admin.css\"><script src=\"/static/admin.js\"></script>"
                f"{head}</head><body>{header}<div id=\"content\"><div id=\"content-main\">{msg_html}{body}</div>"
                f"{side}</div>{footer}</body></html>")

    # -- sign-in (apps with users) -----------------------------------------------------------------
    def add_login(self) -> None:
        def login(req: Request) -> Response:
            error = ""
            nxt = req.query.get("next") or req.get("next") or "/"
            if req.method == "POST":
                user, pw = req.get("username"), req.get("password")
                if self.users.get(user) == pw and pw:
                    self.ensure_session(req)["user"] = user
                    return redirect(nxt if nxt.startswith("/") else "/")
                error = ('<p class="errornote">Please enter the correct username and password for a staff '
                         'account. Note that both fields may be case-sensitive.</p>')
            body = (f'<h1>Log in</h1>{error}<form method="post" action="/login/" id="login-form">{self.csrf(req)}'
                    f'<div class="form-row"><label for="id_username" class="required">Username:</label>'
                    f'<input type="text" name="username" id="id_username" autocomplete="username" autofocus required></div>'
                    f'<div class="form-row"><label for="id_password" class="required">Password:</label>'
                    f'<input type="password" name="password" id="id_password" autocomplete="current-password" required></div>'
                    f'<input type="hidden" name="next" value="{esc(nxt)}">'
                    f'<div class="submit-row"><input type="submit" value="Log in"></div></form>'
                    f'<p><a href="/password_reset/">Forgotten your password or username?</a></p>')
            return Response(self.page("Log in", body, req))

        def logout(req: Request) -> Response:
            (req.session or {}).pop("user", None)
            return redirect("/login/")

        login.public = True  # type: ignore[attr-defined]
        self.route("GET,POST", "/login/", login)
        self.route("POST", "/logout/", logout)

    # -- serving --------------------------------------------------------------------------------
    def serve(self) -> Server:
        return Server(self)

    def visited(self, prefix: str) -> list[tuple[str, str, str]]:
        with self.lock:
            return [entry for entry in self.log if entry[1].startswith(prefix)]

    def load_times(self) -> list[float]:
        """Seconds each document took to load (Navigation Timing), in arrival order."""
        with self.lock:
            return [t["ms"] / 1000.0 for t in self.timings if isinstance(t.get("ms"), (int, float)) and t["ms"] > 0]


class Server:
    """``with app.serve() as srv: srv.url("/")`` — the app on 127.0.0.1, an OS-chosen port."""

    def __init__(self, app: App) -> None:
        self.app = app

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body are two writes: with Nagle's algorithm on, the body waited for the
            # browser's delayed ACK of the headers on a kept-alive connection (~40 ms on half the
            # page loads); production servers (nginx, gunicorn) set TCP_NODELAY too
            disable_nagle_algorithm = True

            def do_GET(self) -> None:  # noqa: N802
                self._serve()

            do_POST = do_GET  # noqa: N815

            def _serve(self) -> None:
                req = Request(self, app)
                try:
                    resp = app.dispatch(req)
                except Exception as exc:  # noqa: BLE001 (a broken app page is a 500, like a real server)
                    resp = Response(f"<h1>Server Error (500)</h1><pre>{esc(repr(exc))}</pre>", 500)
                self.send_response(resp.status)
                for k, v in resp.headers.items():
                    self.send_header(k, v)
                if req.new_cookie:
                    self.send_header("Set-Cookie", f"sessionid={req.new_cookie}; Path=/; HttpOnly; SameSite=Lax")
                if "Cache-Control" not in resp.headers:
                    self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                try:
                    self.wfile.write(resp.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the browser moved on (a closed tab, a superseded navigation)

            def log_message(self, *args: object) -> None:
                pass

        class Quiet(LocalHTTPServer):
            def handle_error(self, request, client_address) -> None:  # noqa: ANN001
                pass  # a dropped connection is the browser's business, not a benchmark error

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def now() -> float:
    return time.time()
