"""Site learnings: per-site notes and tools that an agent loads for the URL it is on.

A pack is ``<learnings root>/<id>/`` with ``manifest.json``, ``notes/*.md``, ``tools/*.py``
and ``browser-tools/*.js`` (API.md §12). The root is :func:`learnings_root`. Packs are
re-read on every call. The four public coroutines::

    await site_skills(url)                    # [{id, name, domains, dir}]
    await learn_context(url)                  # {url, sites, knowledge, tools, problems}
    await run_site_tool(site_id, tool, **args)
    await run_site_browser_tool(site_id, tool, page=page, **args)

Wiring (the runner does this once per round)::

    from ego_browser import learning
    learning.configure(api={"task_space": task_space, ...}, current_url=resolver)

``api`` is the mapping of top-level functions a Python tool sees as ``ctx.<name>`` (names
missing from it fall back to ``ego_browser.<name>``). ``current_url`` is a callable, sync
or async, returning the URL to use when ``site_skills()``/``learn_context()`` get no URL
and no ``page``; without it they raise :class:`InvalidArgument`.

Importing this package does not import pydantic; the manifest models load on first read.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import InvalidArgument
from ..schema import validated
from .loader import (
    find_pack,
    host_matches,
    host_of,
    learn_context_for,
    learnings_root,
    load_pack,
    load_packs,
    site_skills_for,
)

__all__ = [
    "configure",
    "host_matches",
    "host_of",
    "learn_context",
    "learnings_root",
    "load_pack",
    "load_packs",
    "run_site_browser_tool",
    "run_site_tool",
    "site_skills",
    "validate_skills",
]

_api_functions: dict[str, Any] = {}
_current_url: Callable[[], Any] | None = None


def configure(
    *,
    api: Mapping[str, Any] | None = None,
    current_url: Callable[[], Any] | None = None,
) -> None:
    """Inject the API functions tools see on ``ctx`` and the current-page URL resolver.

    Each argument given replaces the previous value; ``configure()`` with no arguments keeps
    both. Pass ``api={}`` / ``current_url=None`` explicitly through :func:`reset` to clear.
    """
    global _api_functions, _current_url
    if api is not None:
        _api_functions = dict(api)
    if current_url is not None:
        _current_url = current_url


def reset() -> None:
    """Forget what :func:`configure` injected (tests)."""
    global _api_functions, _current_url
    _api_functions = {}
    _current_url = None


def _last_page() -> Any:
    """The page this process used last (``learn_context()`` with no URL reads it)."""
    import sys

    module = sys.modules.get("ego_browser.client.round")
    return module.last_page() if module is not None else None


async def _resolve_url(api: str, url: str | None, page: Any) -> str:
    if url is not None:
        if not isinstance(url, str):
            raise InvalidArgument(
                f"{api}: url must be a str (got {type(url).__name__})", api=api, option="url", expected="str"
            )
        return url
    source: Any
    if page is not None:
        source = getattr(page, "url", None)
        if source is None:
            raise InvalidArgument(
                f"{api}: page must be a Page (got {type(page).__name__})", api=api, option="page", expected="Page"
            )
    elif _current_url is not None:
        source = _current_url
    elif _last_page() is not None:
        source = _last_page().url
    else:
        raise InvalidArgument(
            f"{api}: pass a url (or page=) - there is no current page to take it from",
            api=api, option="url", expected="str",
        )
    value = source() if callable(source) else source
    if inspect.isawaitable(value):
        value = await value
    if not isinstance(value, str):
        raise InvalidArgument(
            f"{api}: the current page has no URL (got {value!r})", api=api, option="url", expected="str"
        )
    return value


@validated("site_skills")
async def site_skills(url: str | None = None, *, page: Any = None) -> list[dict[str, Any]]:
    """``[{id, name, domains, dir}]`` of every pack matching the URL's host, sorted by id.

    ``url=None`` uses ``page.url()`` when ``page`` is given, else the injected ``current_url``.
    """
    url = await _resolve_url("site_skills", url, page)
    return site_skills_for(url)


@validated("learn_context")
async def learn_context(url: str | None = None, *, page: Any = None) -> dict[str, Any]:
    """``{url, sites, knowledge, tools, problems}`` for the URL (see :func:`site_skills` for
    how ``url=None`` is resolved). Broken packs and bad note paths are listed in ``problems``."""
    url = await _resolve_url("learn_context", url, page)
    context = learn_context_for(url)
    from .learned import tools_for_url

    # the tools learned on this site (issue 28): called as ``await tools.NAME(page, ...)``
    for tool in tools_for_url(url):
        context["tools"].append({
            "site_id": tool["site_id"], "name": tool["name"], "kind": "learned", "description": tool["doc"],
            "args": tool["params"], "returns": "{ok, tool, url, read}", "example": tool["signature"],
            "stale": tool["stale"], "trusted": tool["trusted"], "verified": tool["verified"],
            "postcondition": tool["postcondition"], "version": tool["version"],
        })
    context["tools"].extend(await _webmcp_tools(url, page))
    return context


async def _webmcp_tools(url: str, page: Any) -> list[dict[str, Any]]:
    """The tools the page at ``url`` registers itself (WebMCP), when ``page`` (or the page this
    process used last) shows that URL: called as ``await page.call_webmcp_tool(name, args)``."""
    from ..errors import EgoError

    source = page if page is not None else _last_page()
    if source is None or not hasattr(source, "webmcp_tools"):
        return []
    try:
        shown = source.url()
        if inspect.isawaitable(shown):
            shown = await shown
        if shown != url:
            return []
        listed = await source.webmcp_tools()
    except EgoError:
        return []
    return [{"site_id": None, "name": t["name"], "kind": "webmcp", "description": t["description"],
             "args": t["input_schema"], "returns": "{tool, result, text, data}",
             "example": f"await page.call_webmcp_tool({t['name']!r}, {{...}})"}
            for t in listed]


@validated("run_site_tool")
async def run_site_tool(site_id: str, tool: str, /, **args: Any) -> Any:
    """Run the Python tool ``tool`` of pack ``site_id`` as ``callable(ctx, **args)``.

    ``page=`` is reserved: it becomes ``ctx.page`` (and is passed on as an argument only if the
    manifest declares an argument named ``page``).
    """
    from .tools import run_node_tool_in

    pack = find_pack(site_id, api="run_site_tool")
    page = args.get("page")
    spec = pack.manifest.node_tools.get(tool) if isinstance(tool, str) else None
    if "page" in args and not (spec is not None and "page" in spec.args):
        args.pop("page")
    return await run_node_tool_in(
        pack,
        tool,
        args=args,
        api_functions=_api_functions,
        page=page,
    )


@validated("run_site_browser_tool")
async def run_site_browser_tool(site_id: str, tool: str, /, *, page: Any, **args: Any) -> Any:
    """Run the browser tool ``tool`` of pack ``site_id`` in ``page``; returns its JSON result."""
    from .tools import run_browser_tool_in

    pack = find_pack(site_id, api="run_site_browser_tool")
    return await run_browser_tool_in(pack, tool, page=page, args=args)


def validate_skills(root: str | Path | None = None) -> list[str]:
    """``"<id>: <problem>"`` lines for every pack under ``root`` (default: the learnings root)."""
    from .validate import validate_skills as _validate

    return _validate(root)
