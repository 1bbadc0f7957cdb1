"""A small single-page app for the learning tests (issue 28 on issue 29's shapes): its controls
live in open shadow roots (an icon button named by its title, a list of options whose icon is
``aria-hidden``), a context menu opened with a right click whose ``<li>`` items hold their label
in child elements (no accessible name), every command a ``fetch`` after which the app redraws
late with no navigation (the note's editor is a read-only placeholder until its model arrives),
and a status line in a shadow root. ``drift = True``: pinning asks for a confirmation first (the
note is not pinned until it is confirmed).

Routes live under a prefix so several apps can share the session's test server.
"""

from __future__ import annotations

import json
from typing import Any

from tests.server import Response, TestServer

__all__ = ["NotesApp"]

_SCRIPT = r"""
const P = %(prefix)s;
const later = (ms) => new Promise((r) => setTimeout(r, ms));
async function api(path, body) {
  const res = await fetch(P + path, body === undefined ? {} : {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                               body: JSON.stringify(body)});
  const data = await res.json();
  await later(400);  // the app draws a while after its answer
  return data;
}
class XNotes extends HTMLElement {
  connectedCallback() {
    const s = this.attachShadow({mode: 'open'});
    s.innerHTML = '<div role="toolbar" aria-label="Notes toolbar"><button type="button" title="New note">' +
      '<span aria-hidden="true">+</span></button></div><ul role="listbox" aria-label="Notes"></ul>' +
      '<p role="status"></p>';
    s.querySelector('button').addEventListener('click', () => ask());
    s.querySelector('ul').addEventListener('contextmenu', (e) => {
      e.preventDefault();
      const li = e.target.closest('li');
      if (li) showMenu(li.dataset.title, e.clientX, e.clientY);
    });
  }
  render(notes, status) {
    this.shadowRoot.querySelector('ul').innerHTML = notes.map((n) =>
      '<li role="option" aria-selected="false" data-title="' + n.title + '"><span aria-hidden="true">[n] </span>' +
      n.title + '</li>').join('');
    this.shadowRoot.querySelector('[role=status]').textContent = status || '';
  }
}
customElements.define('x-notes', XNotes);
const notes = () => document.querySelector('x-notes');
async function refresh(status) { notes().render((await api('/api/list')).notes, status); }
function ask() {
  const d = document.createElement('div');
  d.setAttribute('role', 'dialog'); d.setAttribute('aria-label', 'New note');
  d.innerHTML = '<label>Title <input type="text"></label> <button type="button">Create</button>';
  document.body.appendChild(d);
  d.querySelector('button').addEventListener('click', async () => {
    const title = d.querySelector('input').value;
    d.remove();
    const ed = document.getElementById('editor');
    ed.innerHTML = '<textarea aria-label="Body" readonly>Loading…</textarea>';
    await api('/api/new', {title});
    await refresh();
    ed.innerHTML = '<textarea aria-label="Body"></textarea> <button type="button">Save</button>';
    ed.querySelector('button').addEventListener('click', async () => {
      await api('/api/save', {title, body: ed.querySelector('textarea').value});
      await refresh('Saved');
    });
  });
}
const menu = document.getElementById('menu');
function showMenu(title, x, y) {
  menu.innerHTML = '<ul><li><div class="label">Open</div><div class="key">O</div></li>' +
    '<li data-cmd="pin"><div class="label">Pin</div><div class="key">P</div></li></ul>';
  menu.hidden = false; menu.style.left = x + 'px'; menu.style.top = y + 'px';
  menu.querySelector('[data-cmd=pin]').addEventListener('click', async () => {
    menu.hidden = true;
    if (%(drift)s) { document.getElementById('editor').innerHTML = '<p>Pin “' + title + '”? <button>Yes, pin it</button></p>'; return; }
    // the call carries every value typed (as a JSON-API lever would want) but the note was made
    // and saved by the calls before it: one call to /api/pin would do less than the run did
    const ta = document.querySelector('#editor textarea');
    await api('/api/pin', {title, body: ta ? ta.value : ''});
    await refresh('Pinned “' + title + '”');
  });
}
refresh();
"""


class NotesApp:
    def __init__(self, server: TestServer, prefix: str) -> None:
        self.server = server
        self.prefix = prefix.rstrip("/")
        self.drift = False
        #: title -> {"body", "pinned"}
        self.notes: dict[str, dict[str, Any]] = {}
        server.route(self.prefix + "/", self.page)
        for name in ("list", "new", "save", "pin"):
            server.route(f"{self.prefix}/api/{name}", getattr(self, f"api_{name}"))

    def url(self, path: str = "/") -> str:
        return self.server.url(self.prefix + path)

    def page(self, _req: Any) -> Response:
        script = _SCRIPT % {"prefix": json.dumps(self.prefix), "drift": "true" if self.drift else "false"}
        return Response("<!doctype html><html><head><meta charset=utf-8><title>Notes</title></head><body>"
                        "<x-notes></x-notes><div id=editor></div>"
                        "<div id=menu role=menu aria-label='Note menu' hidden style='position:fixed'></div>"
                        f"<script>{script}</script></body></html>")

    def _json(self, obj: Any) -> Response:
        return Response(json.dumps(obj), content_type="application/json")

    def _body(self, req: Any) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(req.body.decode() or "{}")
        return data

    def api_list(self, _req: Any) -> Response:
        return self._json({"notes": [{"title": t} for t in sorted(self.notes)]})

    def api_new(self, req: Any) -> Response:
        title = self._body(req)["title"]
        if title in self.notes:
            return Response(json.dumps({"error": f"a note {title!r} exists"}), status=409,
                            content_type="application/json")
        self.notes[title] = {"body": "", "pinned": False}
        return self._json({"ok": True})

    def api_save(self, req: Any) -> Response:
        b = self._body(req)
        self.notes[b["title"]]["body"] = b["body"]
        return self._json({"ok": True})

    def api_pin(self, req: Any) -> Response:
        self.notes[self._body(req)["title"]]["pinned"] = True
        return self._json({"ok": True})
