"""The declarations: every public function, method and property of ego_browser, once.

Plain Python data (no imports beyond the standard library): a :class:`Member` per name such
as ``"Page.click"``, ``"Page.keyboard.press"``, ``"TaskSpace.finish"`` or ``"task_space"``,
with its parameters (name, type spec, default, doc), call style, return shape, errors, doc
and example. Type specs are the names in ``validate.TYPES`` (``"ms>0"``, ``"selector"``,
``"str?"`` for optional, a tuple for an enumeration). Prose topics (``"selectors"``, ...) are
in ``topics.py``. Examples run against the demo shop (``https://shop.example`` is replaced by
the served ``demo/site``) with ``task`` (a TaskSpace) and ``page`` (its ``p1``, on the home
page) defined; ``tests/integration/test_docs_examples.py`` runs every one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["Member", "Param", "REQUIRED", "OMIT", "add_keyword", "member", "members", "lookup", "CLASSES", "FUNCTIONS",
           "ClassInfo", "signature_parts"]


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: no default: the argument is required
REQUIRED: Any = _Marker("REQUIRED")
#: optional, and "not given" differs from None (the runtime uses a private sentinel); shown as None
OMIT: Any = _Marker("OMIT")


class Param(NamedTuple):
    name: str
    type: Any
    default: Any
    doc: str
    kind: str  # "pos_only" | "pos" | "kw" | "var_kw"


class Member(NamedTuple):
    name: str  # "Page.click"
    call: str  # "async" | "sync" | "asynccm" (sync call returning an async context manager) | "property" | "class"
    params: tuple[Param, ...]
    returns: str
    doc: str
    example: str
    errors: tuple[str, ...]
    rules: tuple[tuple[str, str, str, str], ...]  # (condition, message, option, expected)
    details: str
    api: str  # the name used in error messages: "page.click"
    owner: str | None  # "Page", "TaskSpace", "Page.mouse", ... or None for top-level functions
    short: str  # "click"


class ClassInfo(NamedTuple):
    prefix: str  # the API prefix used in messages and wire names ("page")
    runtime: str  # the runtime class ("Mouse" for Page.mouse)
    module: str  # the module that defines it
    title: str  # its group's title in the overview


_GEN = "ego_browser.client._generated"
_MODELS = "ego_browser.client.models"

#: The public names, in one place: every declared class and where each public name lives.
#: ``__init__``'s lazy names and the runner's globals are generated from it
#: (``schema/gen_client.py``), the overview's groups and the agreement tests read it.
CLASSES: dict[str, ClassInfo] = {
    "TaskSpace": ClassInfo("task", "TaskSpace", _GEN, "TaskSpace (task = await task_space(name))"),
    "Page": ClassInfo("page", "Page", _GEN, 'Page (page = task.page("p1"))'),
    "Page.mouse": ClassInfo("mouse", "Mouse", _GEN, "Page.mouse"),
    "Page.keyboard": ClassInfo("keyboard", "Keyboard", _GEN, "Page.keyboard"),
    "FileChooser": ClassInfo("file_chooser", "FileChooser", _GEN, "FileChooser (from page.wait_for_file_chooser())"),
    "Download": ClassInfo("download", "Download", _GEN, 'Download (from page.wait_for_event("download"))'),
    "ActionReceipt": ClassInfo("receipt", "ActionReceipt", _MODELS, "ActionReceipt"),
    "UnmanagedPage": ClassInfo("unmanaged_page", "UnmanagedPage", _MODELS, "UnmanagedPage"),
    "Route": ClassInfo("route", "Route", "ego_browser.client.routes", "Route (page.route(url, handler))"),
    "Request": ClassInfo("request", "Request", "ego_browser.client.network",
                         "Request (from page.requests(), page.expect_response())"),
}
#: top-level functions -> the module that defines each (all are ``ego_browser.<name>``)
FUNCTIONS: dict[str, str] = {
    **dict.fromkeys(("task_space", "list_task_spaces", "claim_task_space", "take_over_task_space", "profiles"),
                    "ego_browser.client.api"),
    "embedded": "ego_browser.host.embedded",  # it builds a Host: the client package never imports host/
    "help": "ego_browser.helptext",
    "secret": "ego_browser.secret_ref",
    "expect": "ego_browser.client.expect",
    **dict.fromkeys(("site_skills", "learn_context", "run_site_tool", "run_site_browser_tool"), "ego_browser.learning"),
}
#: top-level functions a round does not find preloaded (it runs a host of its own)
NOT_IN_ROUNDS = ("embedded",)
#: what a round finds preloaded besides the top-level functions
ROUND_EXTRAS = ("ego_browser", "EgoError", "asyncio", "json", "re", "tools")
#: public names that are objects, not declared functions -> the module that defines each
OBJECTS: dict[str, str] = {"tools": "ego_browser.learning.learned_run"}

_MEMBERS: dict[str, Member] = {}


def P(name: str, type_: Any, default: Any = REQUIRED, doc: str = "") -> Param:  # noqa: N802
    return Param(name, type_, default, doc, "pos")


def _params(sig: list[Any]) -> tuple[Param, ...]:
    out: list[Param] = []
    kw = False
    for item in sig:
        if item == "*":
            kw = True
        elif item == "/":
            out = [p._replace(kind="pos_only") for p in out]
        elif isinstance(item, str) and item.startswith("**"):
            out.append(Param(item[2:], "any", REQUIRED, "further keyword arguments", "var_kw"))
        else:
            out.append(item._replace(kind="kw") if kw else item)
    return tuple(out)


def M(name: str, sig: list[Any], returns: str, doc: str, example: str = "", *, call: str = "async",  # noqa: N802
      errors: tuple[str, ...] = (), rules: tuple[tuple[str, str, str, str], ...] = (), details: str = "") -> None:
    owner, _, short = name.rpartition(".")
    prefix = CLASSES[owner].prefix if owner in CLASSES else owner.lower()
    api = f"{prefix}.{short}" if owner else short
    _MEMBERS[name] = Member(name, call, _params(sig), returns, doc, example.strip("\n"), tuple(errors),
                            tuple(rules), details, api, owner or None, short)


def add_keyword(names: tuple[str, ...], param: Param) -> None:
    """Append one keyword-only parameter to members declared already (one shared option)."""
    for name in names:
        m = _MEMBERS[name]
        _MEMBERS[name] = m._replace(params=m.params + (param._replace(kind="kw"),))


def prop(name: str, returns: str, doc: str, example: str = "") -> None:
    M(name, [], returns, doc, example, call="property")


def cls(name: str, doc: str, example: str = "", details: str = "") -> None:
    M(name, [], CLASSES[name].runtime, doc, example, call="class",
      details=details)


def signature_parts(params: tuple[Param, ...], text: Callable[[Param], str]) -> list[str]:
    """A parameter list as Python spells it: ``text(p)`` for each, ``*`` before the first
    keyword-only one, ``/`` after the last positional-only one, ``**name`` for the rest."""
    parts: list[str] = []
    star = False
    for i, p in enumerate(params):
        if p.kind == "var_kw":
            parts.append(f"**{text(p)}")
            continue
        if p.kind == "kw" and not star:
            parts.append("*")
            star = True
        parts.append(text(p))
        if p.kind == "pos_only" and (i + 1 == len(params) or params[i + 1].kind != "pos_only"):
            parts.append("/")
    return parts


def member(name: str) -> Member:
    """One declaration; loads only the part of the schema that declares it (cheap at run time)."""
    found = _MEMBERS.get(name)
    if found is None:
        _load(_part(name))
        found = _MEMBERS[name]
    return found


def _part(name: str) -> str:
    head = name.split(".", 1)[0]
    if head == "Page" and not name.startswith(("Page.mouse", "Page.keyboard")):
        return "spec_page"
    if head == "TaskSpace" or "." not in name:
        return "spec_space"
    if head in ("Request", "Route"):
        return "spec_network"
    return "spec_more"


def members() -> dict[str, Member]:
    """Every declaration, in declaration order (top-level functions, TaskSpace, Page, ...)."""
    _load()
    return _MEMBERS


def lookup(name: str) -> Member | None:
    """Case-insensitive lookup (``"page.click"`` finds ``"Page.click"``)."""
    _load()
    return _MEMBERS.get(name) or next((m for k, m in _MEMBERS.items() if k.lower() == name.lower()), None)


_PARTS = ("spec_space", "spec_page", "spec_more", "spec_network")  # declaration order: top-level, TaskSpace, Page, the rest
_loaded: set[str] = set()


def _load(part: str | None = None) -> None:
    """Import the declaration modules (they call M()/prop()/cls() on import); all of them by default."""
    import importlib

    for name in (part,) if part else _PARTS:
        if name not in _loaded:
            _loaded.add(name)
            importlib.import_module(f"{__package__}.{name}")
    if part is None and list(_MEMBERS) != sorted(_MEMBERS, key=lambda n: _PARTS.index(_part(n))):
        ordered = sorted(_MEMBERS.items(), key=lambda kv: _PARTS.index(_part(kv[0])))  # stable: keeps file order
        _MEMBERS.clear()
        _MEMBERS.update(ordered)
