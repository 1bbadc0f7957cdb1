"""A small web application for the learning tests (issue 28): a sign-in form with a password,
a form that adds a book (POST, then a success message), and a GET search form whose result
URL carries what was typed, and a "quick add" form whose script submits it with ``fetch()`` as
JSON to ``/api/books`` (with the librarian's PIN from a password field; a wrong PIN is refused
with 403). ``drift = True`` changes the markup as a redesign would (renamed
ids, names and labels, a moved button) so a learned tool's steps no longer match.

Routes live under a prefix so several apps can share the session's test server.
"""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import parse_qs, quote_plus

from tests.server import Response, TestServer

__all__ = ["LibraryApp"]


def _page(title: str, body: str) -> Response:
    return Response(f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title></head>"
                    f"<body>{body}</body></html>")


class LibraryApp:
    def __init__(self, server: TestServer, prefix: str) -> None:
        self.server = server
        self.prefix = prefix.rstrip("/")
        self.books: list[dict[str, str]] = []
        self.drift = False
        self.signed_in: list[str] = []
        #: the JSON bodies /api/books received (what the page's script or a learned tool sent)
        self.api_calls: list[dict[str, Any]] = []
        self.pin = "4821-pin-secret"
        for path, handler in (("/", self.home), ("/new", self.new), ("/add", self.add), ("/search", self.search),
                              ("/login", self.login), ("/session", self.session), ("/quick", self.quick),
                              ("/api/books", self.api_books)):
            server.route(self.prefix + path, handler)

    def url(self, path: str = "/") -> str:
        return self.server.url(self.prefix + path)

    def home(self, _req: Any) -> Response:
        p = self.prefix
        return _page("Library", f"<h1>Library</h1><a href='{p}/new'>Add a book</a> <a href='{p}/login'>Sign in</a>"
                     f"<form method=get action='{p}/search'><label for=q>Search books</label>"
                     "<input id=q name=q><button>Search</button></form>")

    def login(self, _req: Any) -> Response:
        return _page("Sign in", f"<h1>Sign in</h1><form method=post action='{self.prefix}/session'>"
                     "<label for=user>User name</label><input id=user name=user>"
                     "<label for=pw>Password</label><input id=pw name=pw type=password>"
                     "<button type=submit>Sign in</button></form>")

    def session(self, req: Any) -> Response:
        form = parse_qs(req.body.decode())
        self.signed_in.append((form.get("user") or [""])[0])
        return _page("Welcome", f"<h1>Welcome</h1><p class=ok>Signed in as {html.escape(self.signed_in[-1])}</p>")

    def new(self, _req: Any) -> Response:
        if self.drift:  # a redesign: other ids, names and labels; the button moved above the fields
            return _page("New book", f"<h1>New book</h1><form method=post action='{self.prefix}/add'>"
                         "<button type=submit id=go>Create</button>"
                         "<label for=book-name>Book name</label><input id=book-name name=name>"
                         "<label for=writer>Writer</label><input id=writer name=writer>"
                         "</form>")
        return _page("New book", f"<h1>New book</h1><form method=post action='{self.prefix}/add'>"
                     "<label for=title>Title</label><input id=title name=title data-testid=book-title>"
                     "<label for=author>Author</label><input id=author name=author>"
                     "<label for=genre>Genre</label><select id=genre name=genre>"
                     "<option>Fiction</option><option>Poetry</option><option>History</option></select>"
                     "<button type=submit>Save book</button></form>")

    def add(self, req: Any) -> Response:
        form = {k: v[0] for k, v in parse_qs(req.body.decode()).items()}
        title = form.get("title") or form.get("name") or ""
        if not title:
            return _page("New book", "<h1>New book</h1><p class=error>A title is needed</p>")
        self.books.append({"title": title, "author": form.get("author") or form.get("writer") or "",
                           "genre": form.get("genre") or ""})
        return _page("Saved", f"<h1>Book saved</h1><p role=status>Added “{html.escape(title)}” to the library</p>"
                     f"<a href='{self.prefix}/'>Back</a>")

    def search(self, req: Any) -> Response:
        q = (parse_qs(req.query).get("q") or [""])[0]
        hits = [b for b in self.books if q.lower() in b["title"].lower()]
        rows = "".join(f"<li>{html.escape(b['title'])} — {html.escape(b['author'])}</li>" for b in hits)
        return _page(f"Search: {q}", f"<h1>Results for {html.escape(q)}</h1><p>{len(hits)} found</p><ul>{rows}</ul>"
                     f"<a href='{self.prefix}/search?q={quote_plus(q)}'>again</a>")

    def quick(self, _req: Any) -> Response:
        # the page's own script posts the form as JSON (no navigation) and shows the API's answer
        script = """
document.querySelector('form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const res = await fetch('%s/api/books', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({book: {title: f.title.value, author: f.author.value, pages: Number(f.pages.value)},
                          pin: f.pin.value, source: 'quick-add'})});
  const data = await res.json();
  document.getElementById('out').textContent = res.ok ? 'Saved book #' + data.id : 'Refused: ' + data.error;
});""" % self.prefix
        return _page("Quick add", "<h1>Quick add</h1><form>"
                     "<label for=qt>Title</label><input id=qt name=title>"
                     "<label for=qa>Author</label><input id=qa name=author>"
                     "<label for=qp>Pages</label><input id=qp name=pages type=number>"
                     "<label for=pin>Librarian PIN</label><input id=pin name=pin type=password>"
                     "<button type=submit>Add</button></form><p id=out role=status></p>"
                     f"<script>{script}</script>")

    def api_books(self, req: Any) -> Response:
        if req.method != "POST":
            return Response(json.dumps({"books": self.books}), content_type="application/json")
        data = json.loads(req.body.decode() or "{}")
        self.api_calls.append(data)
        if data.get("pin") != self.pin:
            return Response(json.dumps({"error": "wrong PIN"}), status=403, content_type="application/json")
        book = data.get("book") or {}
        if not book.get("title"):
            return Response(json.dumps({"error": "a title is needed"}), status=400, content_type="application/json")
        self.books.append({"title": book["title"], "author": book.get("author") or "", "genre": "",
                           "pages": book.get("pages")})
        return Response(json.dumps({"id": len(self.books), "title": book["title"]}), status=201,
                        content_type="application/json")
