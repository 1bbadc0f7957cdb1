"""SPA task set: "Scratchpad", a component-based single-page code editor (issue 29's shapes).

One document (``/lab``) that boots like a large SPA: a splash, then "extension" chunks fetched
one after another and the file list fetched last, so the app is drawn 1-3 s after ``load``.
Every command is a ``fetch`` to the server with its own latency, after which the app redraws
with no navigation. The shapes issue 29 found in a real app, each on purpose:

- toolbars of custom elements with open shadow roots and slots, nested: ``<x-filebrowser>``'s
  shadow holds ``<x-toolbar>`` (a shadow with a ``<slot>``) whose slotted ``<x-button>`` each
  hold their ``<button title=...>`` in a shadow of their own; a ``<select>`` the same way;
- one context menu whose ``<li>`` nodes are re-used for every menu it shows (the node that said
  "Rename" says "New File" next time), labels in child elements, separators with no text;
- an editor shown as a placeholder and replaced once its model arrives from the server, and
  replaced again (with the document's toolbar) after every save and run: a re-render;
- syntax-highlighted code (tokens in spans), unnamed menu items (``<li>`` with a label child);
- a dirty document (edited, not saved) arms ``beforeunload``.

State lives on the server; ``check`` judges a run from it (the files, the runs, the theme, and
no command the task did not ask for). Latencies scale with ``SPA_DELAY_SCALE`` (default 1; the
integration test runs the traces faster).
"""

from __future__ import annotations

import ast
import json
import os
import time

from web import App, Request, Response, redirect

#: seconds the server takes per API path prefix (scaled by SPA_DELAY_SCALE)
LATENCY = {"/api/ext/": 0.25, "/api/contents/list": 0.35, "/api/contents/get": 0.7, "/api/contents/save": 0.45,
           "/api/contents/new": 0.4, "/api/contents/rename": 0.45, "/api/run": 0.8, "/api/settings": 0.5,
           "/api/contents/delete": 0.4, "/api/contents/duplicate": 0.4}
EXTENSIONS = 6  # chunks fetched one after another while the splash shows

START = {"draft.py": "total = 3\nprint(total * 7)\n", "analysis.py": "base = 10\nx = 5\nprint(base + x)\n",
         "README.md": "# Scratchpad\nNotes and small scripts.\n", "report-2025.txt": "Q4 figures pending.\n"}

TASKS = {
    "spa_run": {"code": "base = 40\nx = 2\nprint(base + x)", "output": "42",
                "prompt": "In Scratchpad, create a new file with the file browser's New File button, type this code, "
                          "save it, run it and report what it prints:\n{code}"},
    "spa_rename": {"old": "draft.py", "new": "report.py",
                   "prompt": "In Scratchpad, rename draft.py to report.py through the file's context menu (right-click)."},
    "spa_folder": {"folder": "data", "file": "notes.txt", "text": "hello from the agent",
                   "prompt": "In Scratchpad, create a folder named data and, inside it, a text file notes.txt that "
                             "contains 'hello from the agent'; save it."},
    "spa_edit": {"file": "analysis.py", "old": "base = 10", "new": "base = 100", "output": "105",
                 "prompt": "In Scratchpad, open analysis.py, change base = 10 to base = 100, save, run it and report "
                           "what it prints."},
    "spa_theme": {"theme": "Dark", "prompt": "In Scratchpad, switch the theme to Dark (Settings menu, Theme)."},
}
for _t in TASKS.values():
    _t["prompt"] = _t["prompt"].format(**_t)


def run_code(code: str) -> str:
    """The app's "kernel": assignments of integer arithmetic and print() calls, nothing else
    (the page's code is never executed by Python)."""
    env: dict[str, int] = {}
    out: list[str] = []

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise NameError(f"name '{node.id}' is not defined")
            return env[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = value(node.left), value(node.right)
            return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
        raise SyntaxError("only integer arithmetic is supported")

    try:
        for stmt in ast.parse(code).body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                env[stmt.targets[0].id] = value(stmt.value)
            elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                  and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print"):
                out.append(" ".join(str(value(a)) for a in stmt.value.args))
            else:
                raise SyntaxError("unsupported statement")
    except (SyntaxError, NameError, RecursionError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return "\n".join(out)


class SpaApp(App):
    title = "Scratchpad"
    #: issue 28 §7's drift run: a redesign renamed ids and classes, moved the toolbars' buttons
    #: (Run before Save, New File before New Folder) and asks for a confirmation before a save and
    #: a theme change (nothing is saved or changed until it is confirmed)
    drift = False

    def setup(self) -> None:
        self.scale = float(os.environ.get("SPA_DELAY_SCALE", "1"))
        self.files: dict[str, dict] = {p: {"type": "file", "content": c} for p, c in START.items()}
        self.settings = {"theme": "Light"}
        self.runs: list[dict] = []
        self.commands: list[str] = []
        self.route("GET", "/", lambda req: redirect("/lab"))
        self.route("GET", "/lab", self.lab)
        self.route("GET", r"/api/ext/(?P<n>\d+)", lambda req, n: Response(f"/* extension {n} */", ctype="text/javascript"))
        self.route("GET", "/api/contents/list", self.api_list)
        self.route("GET", "/api/contents/get", self.api_get)
        for name in ("save", "new", "rename", "delete", "duplicate"):
            self.route("POST", f"/api/contents/{name}", self.public(getattr(self, f"api_{name}")))
        self.route("POST", "/api/run", self.public(self.api_run))
        self.route("POST", "/api/settings", self.public(self.api_settings))

    @staticmethod
    def public(fn):  # noqa: ANN001, ANN205  (JSON API: no CSRF form field)
        def wrapped(req: Request) -> Response:
            return fn(req)
        wrapped.public_post = True  # type: ignore[attr-defined]
        return wrapped

    def dispatch(self, req: Request) -> Response:
        # the latency is outside the app's lock: requests overlap as on a real server
        delay = next((s for p, s in LATENCY.items() if req.path.startswith(p)), 0.0)
        if delay:
            time.sleep(delay * self.scale)
        return super().dispatch(req)

    # -- checks -------------------------------------------------------------------------------
    def check_task(self, key: str, answer: object) -> tuple[bool, str]:
        t, problems = TASKS[key], []
        f = self.files
        if key == "spa_run":
            new = [p for p in f if p not in START and f[p]["type"] == "file"]
            if not any(_code(f[p]["content"]) == _code(t["code"]) for p in new):
                problems.append(f"no new file saved with the code (new files: {[(p, f[p]['content']) for p in new]})")
            if not any(r["output"] == t["output"] and _code(r["code"]) == _code(t["code"]) for r in self.runs):
                problems.append(f"the code was not run (runs: {self.runs})")
        elif key == "spa_rename":
            if t["old"] in f or f.get(t["new"], {}).get("content") != START[t["old"]]:
                problems.append(f"files now: {sorted(f)}")
        elif key == "spa_folder":
            path = f"{t['folder']}/{t['file']}"
            if f.get(t["folder"], {}).get("type") != "folder":
                problems.append(f"no folder {t['folder']} (files: {sorted(f)})")
            if (f.get(path, {}).get("content") or "").strip() != t["text"]:
                problems.append(f"{path}: {f.get(path)}")
        elif key == "spa_edit":
            want = START[t["file"]].replace(t["old"], t["new"])
            if _code(f[t["file"]]["content"]) != _code(want):
                problems.append(f"{t['file']} saved as {f[t['file']]['content']!r}")
            if not any(r["output"] == t["output"] for r in self.runs):
                problems.append(f"not run with the change (runs: {self.runs})")
        elif key == "spa_theme":
            if self.settings["theme"] != t["theme"]:
                problems.append(f"theme {self.settings['theme']}")
        if "output" in t and str(answer or "").strip() != t["output"]:
            problems.append(f"answer {answer!r} (want {t['output']!r})")
        wanted = {"spa_run": {"new", "save", "run"}, "spa_rename": {"rename"}, "spa_folder": {"new", "save"},
                  "spa_edit": {"save", "run"}, "spa_theme": {"settings"}}[key]
        extra = [c for c in self.commands if c.split(" ", 1)[0] not in wanted]
        if extra:  # a ref that landed on another menu item runs a command nobody asked for
            problems.append(f"commands the task did not ask for: {extra}")
        untouched = [p for p in START if p in f and f[p]["content"] != START[p]
                     and not (key == "spa_edit" and p == t["file"])]
        if untouched:
            problems.append(f"other files changed: {untouched}")
        return not problems, "; ".join(problems) or "ok"

    # -- API ------------------------------------------------------------------------------------
    def _json(self, obj: object, status: int = 200) -> Response:
        return Response(json.dumps(obj), status, ctype="application/json")

    def api_list(self, req: Request) -> Response:
        d = req.query.get("path", "").strip("/")
        items = [{"name": p.rsplit("/", 1)[-1], "path": p, "type": v["type"]} for p, v in sorted(self.files.items())
                 if (p.rsplit("/", 1)[0] if "/" in p else "") == d]
        items.sort(key=lambda it: (it["type"] != "folder", it["name"].lower()))
        return self._json({"path": d, "items": items})

    def api_get(self, req: Request) -> Response:
        p = req.query.get("path", "")
        if p not in self.files:
            return self._json({"error": "not found"}, 404)
        return self._json({"path": p, "content": self.files[p]["content"]})

    def _body(self, req: Request) -> dict:
        try:
            return json.loads(req.body or b"{}")
        except ValueError:
            return {}

    def api_new(self, req: Request) -> Response:
        b = self._body(req)
        d, kind = (b.get("dir") or "").strip("/"), b.get("type", "file")
        name = (b.get("name") or "").strip() or ("Untitled Folder" if kind == "folder" else "untitled.py")
        path = f"{d}/{name}" if d else name
        if "/" in name or path in self.files:
            return self._json({"error": f"{name} already exists"}, 409)
        self.files[path] = {"type": kind, "content": ""}
        self.commands.append(f"new {path}")
        return self._json({"path": path, "type": kind})

    def api_save(self, req: Request) -> Response:
        b = self._body(req)
        if b.get("path") not in self.files:
            return self._json({"error": "not found"}, 404)
        self.files[b["path"]]["content"] = b.get("content", "")
        self.commands.append(f"save {b['path']}")
        return self._json({"path": b["path"], "saved": True})

    def api_rename(self, req: Request) -> Response:
        b = self._body(req)
        old, new = b.get("path", ""), (b.get("name") or "").strip()
        d = old.rsplit("/", 1)[0] + "/" if "/" in old else ""
        if old not in self.files or not new or "/" in new or d + new in self.files:
            return self._json({"error": "cannot rename"}, 409)
        self.files[d + new] = self.files.pop(old)
        self.commands.append(f"rename {old} {d + new}")
        return self._json({"path": d + new})

    def api_delete(self, req: Request) -> Response:
        p = self._body(req).get("path", "")
        self.files.pop(p, None)
        self.commands.append(f"delete {p}")
        return self._json({"deleted": p})

    def api_duplicate(self, req: Request) -> Response:
        p = self._body(req).get("path", "")
        if p in self.files:
            self.files[p + ".copy"] = dict(self.files[p])
        self.commands.append(f"duplicate {p}")
        return self._json({"path": p + ".copy"})

    def api_run(self, req: Request) -> Response:
        b = self._body(req)
        code = b.get("content", "")
        out = run_code(code)
        self.runs.append({"path": b.get("path"), "code": code, "output": out})
        self.commands.append(f"run {b.get('path')}")
        return self._json({"output": out})

    def api_settings(self, req: Request) -> Response:
        theme = self._body(req).get("theme")
        if theme not in ("Light", "Dark", "High Contrast"):
            return self._json({"error": "unknown theme"}, 400)
        self.settings["theme"] = theme
        self.commands.append(f"settings theme={theme}")
        return self._json(self.settings)

    def lab(self, req: Request) -> Response:
        from app_spa_js import CSS, JS

        return Response(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Scratchpad</title>'
            f'<style>{CSS}</style></head><body class="theme-light">'
            '<div id="splash" role="status">Loading Scratchpad…</div><div id="app" hidden></div>'
            f'<script>window.SPA = {json.dumps({"extensions": EXTENSIONS, "theme": self.settings["theme"], "drift": self.drift})};</script><script>{JS}</script></body></html>')


def _code(text: str) -> str:
    """Code as the checks compare it: lines stripped of trailing blanks, blank lines dropped
    (a contenteditable's text has line breaks of its own)."""
    return "\n".join(ln.rstrip() for ln in (text or "").replace("\u00a0", " ").splitlines() if ln.strip())


def make(key: str) -> type[SpaApp]:
    """An app class whose ``check(answer)`` judges task ``key`` (the runner builds one per run)."""
    return type(f"SpaApp_{key}", (SpaApp,), {"check": lambda self, answer=None: self.check_task(key, answer)})

