"""Run a pack's tools: Python tools in this process, browser tools inside a page.

* A **Python tool** is ``callable(ctx, **args)`` in ``tools/<file>.py``. The module is compiled
  from its source on every call under a new name (no import cache, no bytecode cache, and
  its ``sys.modules`` entry lives only for the call), so an edit applies to the next call. Coroutines are awaited; the tool's own exceptions propagate.
* A **browser tool** is ``browser-tools/<file>.js``, the body of ``async (args) => { ... }``.
  It runs through ``await page.evaluate(source, args)``, so it follows the ``evaluate`` rules
  (JSON result; a thrown value raises whatever the page raises, ``PageScriptError``).

Arguments are checked against the manifest first: a missing required argument, an unknown
one, or a value of the wrong simple type raises :class:`InvalidArgument` naming the tool and
the argument. Defaults declared in the rich form (``{"type": "int", "default": 10}``) are
filled in.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import InvalidArgument, SiteToolNotFound
from .loader import Pack, find_pack, resolve_in_pack

__all__ = [
    "API_NAMES",
    "ToolContext",
    "browser_tool_source",
    "check_tool_args",
    "load_tool_module",
    "run_browser_tool_in",
    "run_node_tool_in",
]

#: top-level API functions a tool may reach as ``ctx.<name>`` when none were injected
API_NAMES = (
    "task_space",
    "list_task_spaces",
    "claim_task_space",
    "take_over_task_space",
    "profiles",
    "help",
    "learn_context",
    "site_skills",
    "run_site_tool",
    "run_site_browser_tool",
)

_module_ids = itertools.count(1)

_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, (list, tuple)),
    "dict": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}


class ToolContext:
    """What a Python tool receives as ``ctx``.

    Attributes: ``site_id``, ``pack_dir`` (a :class:`~pathlib.Path`), ``page`` (the Page passed
    as ``page=`` to ``run_site_tool``, else ``None``) and every top-level API function
    (``await ctx.task_space("name")``, ``ctx.learn_context``, ...). The functions come from the
    mapping injected by the runner; a name missing there falls back to ``ego_browser.<name>``.
    """

    def __init__(
        self,
        site_id: str,
        pack_dir: Path,
        *,
        api: Mapping[str, Any] | None = None,
        page: Any = None,
    ) -> None:
        self.site_id = site_id
        self.pack_dir = Path(pack_dir)
        self.page = page
        self._api = dict(api or {})

    def __getattr__(self, name: str) -> Any:
        # only called for names that are not ordinary attributes
        api = self.__dict__.get("_api", {})
        if name in api:
            return api[name]
        if name in API_NAMES:
            import ego_browser

            value = getattr(ego_browser, name, None)
            if value is not None:
                return value
        raise AttributeError(
            f"ctx has no attribute {name!r}; it has site_id, pack_dir, page, run_browser_tool and the "
            f"API functions ({', '.join(sorted(set(API_NAMES) | set(api)))})"
        )

    async def run_browser_tool(self, tool: str, /, *, page: Any = None, **args: Any) -> Any:
        """Run a browser tool of this same pack in ``page`` (default: ``ctx.page``)."""
        page = page if page is not None else self.page
        pack = find_pack(self.site_id, self.pack_dir.parent, api="ctx.run_browser_tool")
        return await run_browser_tool_in(pack, tool, page=page, args=args, api="ctx.run_browser_tool")

    def __repr__(self) -> str:
        return f"ToolContext(site_id={self.site_id!r}, pack_dir={str(self.pack_dir)!r})"


def check_tool_args(
    site_id: str, tool: str, spec: Mapping[str, dict[str, Any]], given: dict[str, Any], *, api: str
) -> dict[str, Any]:
    """``given`` checked against the normalized manifest ``spec``, with declared defaults filled."""
    label = f"{site_id}.{tool}"
    unknown = [name for name in given if name not in spec]
    if unknown:
        accepted = ", ".join(spec) or "no arguments"
        raise InvalidArgument(
            f"{api}: {label} got an unknown argument {unknown[0]!r} (it accepts {accepted})",
            api=api, option=unknown[0], expected=accepted,
        )
    out = dict(given)
    for name, arg in spec.items():
        if name not in given:
            if arg["required"]:
                raise InvalidArgument(
                    f"{api}: {label} is missing the required argument {name!r} ({arg['type']})",
                    api=api, option=name, expected=arg["type"],
                )
            if arg["default"] is not None:
                out[name] = arg["default"]
            continue
        value = given[name]
        if value is None and not arg["required"]:
            continue
        if not _CHECKS[arg["type"]](value):
            raise InvalidArgument(
                f"{api}: {label} argument {name!r} must be {arg['type']} (got {type(value).__name__} {value!r:.60})",
                api=api, option=name, expected=arg["type"],
            )
    return out


def load_tool_module(pack: Pack, path: Path) -> Any:
    """A fresh module object for ``path``, compiled from its source now.

    The module gets a name never used before and is registered in ``sys.modules`` under that
    name only while it runs (``dataclasses`` and ``pickle`` look modules up there); the caller
    removes it with :func:`forget_tool_module`. Nothing is ever served from an import cache.
    """
    name = f"ego_site_tool_{pack.id.replace('-', '_')}_{path.stem}_{next(_module_ids)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:  # pragma: no cover - a .py path always has a spec
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # compile from the text ourselves: SourceFileLoader would write and trust a .pyc keyed by
    # mtime in whole seconds, so two edits within one second could run stale code
    code = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the pack's tool is the point
    except BaseException:
        forget_tool_module(module)
        raise
    return module


def forget_tool_module(module: Any) -> None:
    name = module.__name__
    if sys.modules.get(name) is module:
        del sys.modules[name]


async def run_node_tool_in(
    pack: Pack,
    tool: str,
    *,
    args: dict[str, Any],
    api_functions: Mapping[str, Any] | None = None,
    page: Any = None,
    api: str = "run_site_tool",
) -> Any:
    """Check ``args``, load the tool's module fresh and return ``callable(ctx, **args)``."""
    spec = pack.manifest.node_tools.get(tool) if isinstance(tool, str) else None
    if spec is None:
        raise SiteToolNotFound(
            f"site {pack.id!r} has no Python tool {tool!r} (declared: "
            f"{', '.join(pack.manifest.node_tools) or 'none'}; browser tools run with run_site_browser_tool)",
            site_id=pack.id, tool=tool,
        )
    path = resolve_in_pack(pack, spec.file, what=f"node_tools.{tool}.file")
    call_args = check_tool_args(pack.id, tool, spec.normalized_args(), args, api=api)
    module = load_tool_module(pack, path)
    try:
        func = getattr(module, spec.callable, None)
        if not callable(func):
            raise SiteToolNotFound(
                f"site {pack.id!r} tool {tool!r}: {spec.file} defines no callable {spec.callable!r}",
                site_id=pack.id, tool=tool,
            )
        ctx = ToolContext(pack.id, pack.dir, api=api_functions, page=page)
        result = func(ctx, **call_args)
        if inspect.isawaitable(result):
            result = await result
        return result
    finally:
        forget_tool_module(module)


def browser_tool_source(body: str) -> str:
    """The function ``page.evaluate`` receives for a browser tool's file ``body``."""
    return "async (args) => {\n" + body + "\n}"


async def run_browser_tool_in(
    pack: Pack, tool: str, *, page: Any, args: dict[str, Any], api: str = "run_site_browser_tool"
) -> Any:
    """Check ``args`` and run the tool's JS in ``page``; returns the page's JSON result."""
    spec = pack.manifest.browser_tools.get(tool) if isinstance(tool, str) else None
    if spec is None:
        raise SiteToolNotFound(
            f"site {pack.id!r} has no browser tool {tool!r} (declared: "
            f"{', '.join(pack.manifest.browser_tools) or 'none'}; Python tools run with run_site_tool)",
            site_id=pack.id, tool=tool,
        )
    if page is None or not callable(getattr(page, "evaluate", None)):
        raise InvalidArgument(
            f"{api}: page must be a Page to run {pack.id}.{tool} in (got {type(page).__name__})",
            api=api, option="page", expected="Page",
        )
    path = resolve_in_pack(pack, spec.file, what=f"browser_tools.{tool}.file")
    call_args = check_tool_args(pack.id, tool, spec.normalized_args(), args, api=api)
    body = path.read_text(encoding="utf-8")
    return await page.evaluate(browser_tool_source(body), call_args)
