"""The JSON-API lever of a draft (issue 28 §2): the page itself called a JSON API with the values
the agent typed, so the tool calls that API with ``page.fetch`` in the logged-in space instead of
replaying the form.

The journal keeps, per action, the requests it caused and a JSON body's shape
(``host/core/journal_json.py``: passwords and secrets masked). A submit step whose fetch/XHR request
carries *every* value typed into the form since the last ``goto`` (in its JSON body or its query)
becomes one ``fetch_json`` step: the form page's ``goto`` stays (the call runs from the site's
page, with its cookies and origin), the fills and the submit go, the values are the tool's
parameters in the body (a number the page sent as a number is sent as one). A click on a list's
choice (a settings menu's "Dark") whose name the call sends as a JSON value (``{"theme":
"Dark"}``) is a value chosen as well: a parameter named after that key. A body with a value
the tool cannot know (a masked token, a password it was not typed with) keeps the UI steps.
The post-condition is the answer: a 2xx status (the recorded one when the journal saw it); the
tool returns the answer's JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = ["api_calls", "api_lever", "render_fetch", "rename_fetch"]

_SUBMITS = ("click", "press", "key_press", "dblclick")
_FILLS = ("fill", "type", "select_option", "key_type", "key_insert_text")
#: the journal keeps a body's texts and lists this long at most (host/core/journal.py MAX_VALUE,
#: journal_json.py): a longer one is cut, so a call holding one is not replayed
_CUT = 2_000
_CUT_ITEMS = 100
#: roles of a list's choices: their accessible name is the value chosen
_CHOICES = ("menuitem", "menuitemradio", "menuitemcheckbox", "option", "listitem", "tab", "radio", "treeitem")
_MASKS = re.compile(r"\[(password|secret(:[^\]]+)?)\]")


def _same(leaf: Any, recorded: Any) -> bool:
    """A body leaf carries the recorded value: the same text, or the same number typed as text."""
    if isinstance(leaf, bool) or leaf is None or recorded is None:
        return False
    if isinstance(leaf, str):
        return isinstance(recorded, str) and leaf == recorded
    if isinstance(leaf, (int, float)) and isinstance(recorded, str):
        try:
            return float(recorded) == float(leaf)
        except ValueError:
            return False
    return False


def _template(tree: Any, recorded: dict[str, Any], used: set[str]) -> Any:
    """``tree`` with each leaf that carries a parameter's value as ``{"$param": name, "$type": ...}``;
    raises LookupError on a masked leaf no parameter stands for."""
    if isinstance(tree, dict):
        return {k: _template(v, recorded, used) for k, v in tree.items()}
    if isinstance(tree, list):
        if len(tree) >= _CUT_ITEMS:
            raise LookupError("list")  # the journal keeps the first items only
        return [_template(v, recorded, used) for v in tree]
    for pname, value in recorded.items():
        if _same(tree, value):
            used.add(pname)
            kind = "int" if isinstance(tree, int) else "float" if isinstance(tree, float) else "str"
            return {"$param": pname, "$type": kind}
    if isinstance(tree, str) and _MASKS.fullmatch(tree):
        raise LookupError(tree)
    if isinstance(tree, str):
        if len(tree) >= _CUT:
            raise LookupError(tree[:40])  # cut short by the journal: the rest is not known
        return _composed(tree, recorded, used)
    return tree


def _composed(leaf: str, recorded: dict[str, Any], used: set[str]) -> Any:
    """A text made of typed values and constants (a path ``data/notes.txt`` from a folder and a
    file typed apart) as ``{"$fmt": "{folder}/{file}"}``; ``leaf`` itself when it holds none.
    A value counts where it stands whole: 3 characters at least, no letter or digit beside it."""
    found: list[tuple[int, int, str]] = []
    for pname, value in sorted(recorded.items(), key=lambda kv: -len(str(kv[1] or ""))):
        if not isinstance(value, str) or len(value) < 3:
            continue
        for m in re.finditer(rf"(?<![0-9A-Za-z]){re.escape(value)}(?![0-9A-Za-z])", leaf):
            if all(m.end() <= a or m.start() >= b for a, b, _ in found):
                found.append((m.start(), m.end(), pname))
    if not found:
        return leaf
    out, at = [], 0
    for a, b, pname in sorted(found):
        out.append(leaf[at:a].replace("{", "{{").replace("}", "}}") + "{" + pname + "}")
        used.add(pname)
        at = b
    out.append(leaf[at:].replace("{", "{{").replace("}", "}}"))
    return {"$fmt": "".join(out)}


def _key_of(tree: Any, value: str, key: str | None = None) -> str | None:
    """The JSON key whose value is ``value`` somewhere in ``tree`` (the first one), else None."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            found = _key_of(v, value, str(k))
            if found:
                return found
    elif isinstance(tree, list):
        for v in tree:
            found = _key_of(v, value, key)
            if found:
                return found
    elif isinstance(tree, str) and tree == value:
        return key
    return None


def _chosen(step: dict[str, Any], name_for: Callable[[str], str]) -> dict[str, Any] | None:
    """A click on a list's choice (a menu item, an option, a tab ...) whose name the call it caused
    sends as a JSON value (a settings menu's "Dark" as ``{"theme": "Dark"}``): the choice is the
    tool's parameter, named after that key. The click's step is marked with it (in place)."""
    expect = step.get("expect") or {}
    name = expect.get("name")
    if step["op"] != "click" or expect.get("role") not in _CHOICES or not isinstance(name, str) or not name.strip():
        return None
    for req in step.get("requests") or ():
        key = _key_of(req.get("json_body"), name) if "json_body" in req else None
        if key:
            pname = name_for(key)
            step["param"], step["recorded"] = pname, name
            return {pname: name}
    return None


def _fetch_step(req: dict[str, Any], recorded: dict[str, Any], used: set[str], origin: str,
                url_after: str | None) -> dict[str, Any]:
    """The ``fetch_json`` step that makes the journaled call ``req`` again, its values templated
    with the parameters (``used`` gains those it carries); LookupError on a masked or cut value."""
    parts = urlsplit(req["url"])
    body = _template(req["json_body"], recorded, used) if "json_body" in req else None
    query = [(k, _template(v, recorded, used)) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    status = req.get("status") if isinstance(req.get("status"), int) and 200 <= req["status"] < 300 else None
    return {"op": "fetch_json", "method": str(req.get("method") or "GET").upper(), "base": f"{origin}{parts.path}",
            "query": query, "body": body, "status": status, "url_after": url_after}


def _unmark(steps: list[dict[str, Any]]) -> None:
    """Clicks ``_chosen`` made parameters whose call was not replayed: they stay clicks."""
    for step in steps:
        step.pop("param", None)
        step["recorded"] = None


def _has_secret(recorded: dict[str, Any]) -> bool:
    # a secret is resolved for a typed field only, never inside a JSON body: keep the form
    return any(isinstance(v, str) and v.startswith("[secret:") for v in recorded.values())


def api_lever(steps: list[dict[str, Any]], origin: str,
              name_for: Callable[[str], str] | None = None) -> tuple[str, dict[str, Any]] | None:
    """Turn the form a JSON API call stands for into one ``fetch_json`` step (in place): the
    lever's description and the parameters it added (a chosen item's), or None when the journal
    shows no such call. ``name_for`` names a parameter after a JSON key (none: no chosen items)."""
    for i, step in enumerate(steps):
        if step["op"] not in _SUBMITS or step.get("wait_url") or any(
                s["op"] not in ("wait_for_selector",) for s in steps[i + 1:]):
            continue
        start = max((j for j in range(i) if steps[j]["op"] == "goto"), default=-1) + 1
        span = steps[start:i]
        fills = [s for s in span if "param" in s]
        if any(s["op"] not in (*_FILLS, *_SUBMITS, "set_checked", "check", "uncheck") for s in span):
            continue
        if any(s.get("requests") for s in span):
            # a click before the submit called the server too (a single-page app's "new file", then
            # "save", then "run"): one call would do less than the run did
            continue
        added = {} if fills or name_for is None else (_chosen(step, name_for) or {})
        if not fills and not added:
            continue
        recorded = {s["param"]: s.get("recorded") for s in fills} or added
        if _has_secret(recorded):
            continue
        for req in step.get("requests") or ():
            if req.get("resource_type") not in ("fetch", "xhr") or not str(req.get("url") or "").startswith(origin):
                continue
            used: set[str] = set()
            try:
                made = _fetch_step(req, recorded, used, origin, step.get("url_after"))
            except LookupError:
                continue
            if used != set(recorded) or any(s["op"] in ("set_checked", "check", "uncheck") for s in span):
                continue  # the call does not carry all the form says: replaying the form is safer
            steps[start:] = [made]
            return f"JSON API: {made['method']} {urlsplit(made['base']).path}", added
        if added:  # the choice was not the call's: the click stays a click
            _unmark([step])
    return api_calls(steps, origin, name_for) if name_for is not None else None


def _changes(step: dict[str, Any], origin: str) -> list[dict[str, Any]]:
    """The calls of ``step`` that change something on the site: fetch/XHR to its origin, not a
    GET or HEAD (reads the app made to draw itself are not replayed)."""
    return [r for r in step.get("requests") or () if r.get("resource_type") in ("fetch", "xhr")
            and str(r.get("url") or "").startswith(origin + "/")
            and str(r.get("method") or "GET").upper() not in ("GET", "HEAD")]


def api_calls(steps: list[dict[str, Any]], origin: str,
              name_for: Callable[[str], str]) -> tuple[str, dict[str, Any]] | None:
    """A run on one page of a single-page app whose commands each called its JSON API (new, save,
    run): the calls in their order, each a ``fetch_json`` step (in place), when together they
    carry every value typed and each body is JSON the tool can write (no masked value). The page's
    reads (GET) and the clicks that only opened menus and dialogs go. Each call must answer 2xx
    before the next is made (``Steps.fetch_json``); the last one's answer is the post-condition."""
    start = max((j for j, s in enumerate(steps) if s["op"] == "goto"), default=-1) + 1
    span = steps[start:]
    if not span or any(s["op"] not in (*_FILLS, *_SUBMITS, "wait_for_selector") or s.get("wait_url") for s in span):
        return None
    marked: list[dict[str, Any]] = []
    added: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    for step in span:
        changes = _changes(step, origin)
        if changes and "param" not in step:
            picked = _chosen(step, name_for)
            if picked:
                marked.append(step)
                added.update(picked)
        calls.extend(changes)

    recorded = {s["param"]: s.get("recorded") for s in span if "param" in s}
    used: set[str] = set()
    try:
        if len(calls) < 2 or not recorded or _has_secret(recorded) \
                or any(s["op"] in ("set_checked", "check", "uncheck") for s in span) \
                or any("json_body" not in r for r in calls):  # a body the journal did not keep: no replay
            raise LookupError("not replayable")
        made = [_fetch_step(req, recorded, used, origin, span[-1].get("url_after")) for req in calls]
        if used != set(recorded):
            raise LookupError("a typed value no call carries: the UI steps do what the calls would not")
    except LookupError:
        _unmark(marked)
        return None
    steps[start:] = made
    named = ", ".join(f"{c['method']} {urlsplit(c['base']).path}" for c in made)
    return f"JSON API: {len(made)} calls ({named})", added


def rename_fetch(step: dict[str, Any], rename: dict[str, str]) -> None:
    """Apply the agent's parameter renames to a ``fetch_json`` step's templates."""
    def walk(tree: Any) -> Any:
        if isinstance(tree, dict) and "$param" in tree:
            return {**tree, "$param": rename.get(tree["$param"], tree["$param"])}
        if isinstance(tree, dict) and "$fmt" in tree:
            return {"$fmt": re.sub(r"(?<!\{)\{(\w+)\}(?!\})", lambda m: "{" + rename.get(m.group(1), m.group(1)) + "}",
                                   tree["$fmt"])}
        if isinstance(tree, dict):
            return {k: walk(v) for k, v in tree.items()}
        if isinstance(tree, list):
            return [walk(v) for v in tree]
        return tree
    step["body"] = walk(step["body"])
    step["query"] = [(k, walk(v)) for k, v in step["query"]]


def _py(tree: Any) -> str:
    """Python source for a template: parameters as expressions, constants as literals."""
    if isinstance(tree, dict) and "$param" in tree:
        kind = tree.get("$type")
        return f"{kind}({tree['$param']})" if kind in ("int", "float") else str(tree["$param"])
    if isinstance(tree, dict) and "$fmt" in tree:
        return "f" + repr(tree["$fmt"])
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_py(v)}" for k, v in tree.items()) + "}"
    if isinstance(tree, list):
        return "[" + ", ".join(_py(v) for v in tree) + "]"
    return repr(tree)


def render_fetch(n: int, step: dict[str, Any]) -> str:
    query = "[" + ", ".join(f"({k!r}, {_py(v)})" for k, v in step["query"]) + "]"
    body = "None" if step["body"] is None else _py(step["body"])
    return f"    await s.fetch_json({n}, {step['method']!r}, {step['base']!r}, query={query}, body={body})"
