"""Calling learned tools from a round (``await tools.add_book(page, title=...)``) and saving
them (``task.save_tool``, ``learnings make``): verified by a run in a fresh space first.

A run counts in the tool's pack: runs, successes, failures in a row (``STALE_AFTER`` of them
list it as stale), the last success and the last failure with its step and code.
"""

from __future__ import annotations

import inspect

import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._version import __version__
from ..errors import (
    EgoError,
    LearnedToolFailed,
    LearnedToolInvalid,
    LearnedToolOffOrigin,
    LearnNameTaken,
    LearnVerifyFailed,
    SiteToolNotFound,
)
from . import learned

__all__ = ["tools", "LearnedTools", "save_tool", "shipped_tool_names", "run_source"]


def _origin(url: str) -> str:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""


def _find(name: str, url: str, root: Path | None) -> dict[str, Any]:
    found, problems = learned.packs(root)
    with_tool = [p for p in found if name in p["tools"]]
    origin = _origin(url)
    here = [p for p in with_tool if p["origin"] == origin]
    if here:
        return here[0]
    if not with_tool:
        known = sorted({t for p in found for t in p["tools"]})
        raise SiteToolNotFound(
            f"no learned tool {name!r} (learned tools: {', '.join(known) or 'none'}"
            + (f"; broken packs: {'; '.join(problems)}" if problems else "") + ")", site_id=None, tool=name)
    if origin and urlsplit(url).scheme in ("http", "https"):
        raise LearnedToolOffOrigin(
            f"learned tool {name} runs only on {with_tool[0]['origin']}; the page is on {origin}. Open the site "
            "first, or call it on a blank page (it opens its own start page)", tool=name, step=None,
            expected={"origin": with_tool[0]["origin"]}, candidates=[])
    return with_tool[0]  # a blank page: the tool's first step opens its site


def _count(pack: dict[str, Any], name: str, error: BaseException | None, root: Path | None) -> None:
    try:
        fresh = learned.read_pack(pack["id"], root)
    except EgoError:
        return
    tool = fresh["tools"].get(name)
    if tool is None:
        return
    tool["runs"] = int(tool.get("runs") or 0) + 1
    if error is None:
        tool["successes"] = int(tool.get("successes") or 0) + 1
        tool["failures_in_row"] = 0
        tool["last_success"] = time.time()
    else:
        tool["failures_in_row"] = int(tool.get("failures_in_row") or 0) + 1
        tool["last_failure"] = {"at": time.time(), "code": getattr(error, "code", type(error).__name__),
                                "step": getattr(error, "step", None)}
    learned.write_pack(fresh, root)


async def _call(run: Any, page: Any, kwargs: dict[str, Any], name: str) -> dict[str, Any]:
    result = await run(page, **kwargs)
    if not isinstance(result, dict) or result.get("ok") is not True:
        raise LearnedToolFailed(f"learned tool {name} returned {result!r:.200} instead of its checked result "
                                "(end it with `return await s.done(...)`)", tool=name, step=None, expected=None,
                                candidates=[])
    return result


class LearnedTools:
    """``tools.NAME(page, **params)``: the learned tool NAME of the page's site."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)

        async def call(page: Any, /, **kwargs: Any) -> dict[str, Any]:
            pack = _find(name, await page.url(), self._root)
            run = learned.load_run(pack, name, self._root)
            error: BaseException | None = None
            try:
                return await _call(run, page, kwargs, name)
            except BaseException as exc:
                error = exc
                raise
            finally:
                _count(pack, name, error, self._root)

        call.__name__ = name
        return call

    def __dir__(self) -> list[str]:
        found, _ = learned.packs(self._root)
        return sorted({t for p in found for t in p["tools"]})


tools = LearnedTools()


def shipped_tool_names(origin: str) -> set[str]:
    """Tools of the packs shipped with ego_browser for the origin's host (a learned one may not shadow them)."""
    from .loader import bundled_learnings_dir, host_of, load_packs

    host = host_of(origin)
    packs, _ = load_packs(bundled_learnings_dir())
    names: set[str] = set()
    for pack in packs:
        if host is not None and pack.matches(host):
            names |= set(pack.manifest.node_tools) | set(pack.manifest.browser_tools)
    return names


def run_source(source: str, filename: str) -> Any:
    problem = learned.tool_source_problem(source, filename)
    if problem:
        raise LearnedToolInvalid(f"the tool source {filename}: {problem}", tool=None, reason="invalid_source")
    namespace: dict[str, Any] = {"__name__": "ego_learned_draft"}
    exec(compile(source, filename, "exec", dont_inherit=True), namespace)  # noqa: S102 - the agent's own draft
    return namespace["run"]


def source_params(run: Any) -> dict[str, Any]:
    """The parameters the tool's ``run`` declares after ``page`` (an edited source may add, rename
    or drop some of the draft's), each with its default (None: required; a default that is not
    plain data is listed as required too)."""
    out: dict[str, Any] = {}
    for i, p in enumerate(inspect.signature(run).parameters.values()):
        if i == 0 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        plain = isinstance(p.default, (str, int, float, bool, list, dict))
        out[p.name] = p.default if plain else None
    return out


async def verify(name: str, source: str, args: dict[str, Any], *, open_space: Any) -> dict[str, Any]:
    """Run the draft once in a fresh space (``await open_space(name)``: of the same profile);
    its checked result, or LearnVerifyFailed."""
    run = run_source(source, f"<draft {name}>")
    space = await open_space(f"verify-{name}-{time.time_ns()}")
    try:
        return await _call(run, space.page("p1"), args, name)
    except EgoError as exc:
        raise LearnVerifyFailed(
            f"task.save_tool: {name} did not pass its verifying run in a fresh space ({exc.code}: {exc.message}); "
            "nothing was saved. Edit the draft (source=) or pass other args=, then save again",
            tool=name, reason="verify_failed") from exc
    finally:
        try:
            await space.finish(keep=[])
        except EgoError:
            pass


def save_tool(draft: dict[str, Any], source: str, *, verified: bool, skip_reason: str | None,
              space_id: int | None, result: dict[str, Any] | None, root: Path | None = None) -> dict[str, Any]:
    """Write the tool into its learned pack (a new version when it exists: the old one kept)."""
    root = learned.learned_root() if root is None else root
    name, origin = draft["name"], draft["origin"]
    site_id = learned.site_id_for(origin)
    try:
        pack = learned.read_pack(site_id, root)
    except EgoError:
        if (root / site_id / "pack.json").exists():
            raise
        pack = {"format": learned.FORMAT, "id": site_id, "origin": origin, "tools": {}}
    old = pack["tools"].get(name)
    version = int(old["version"]) + 1 if old else 1
    folder = root / site_id / "tools"
    entry = {
        "file": f"tools/{name}.py", "version": version, "params": draft["params"],
        "doc": draft.get("doc") or f"learned from rounds {draft.get('rounds')} of space {space_id}",
        "path_prefix": draft.get("path_prefix") or "/", "postcondition": draft.get("postcondition") or {},
        "provenance": {"origin": origin, "path_prefix": draft.get("path_prefix") or "/", "space": space_id,
                       "rounds": draft.get("rounds"), "learned_at": time.time(), "ego_browser": __version__,
                       "verified": verified, "verify_skipped": skip_reason, "verify_result": result},
        "runs": 1 if verified else 0, "successes": 1 if verified else 0, "failures_in_row": 0,
        "last_success": time.time() if verified else None, "last_failure": None,
        "versions": list((old or {}).get("versions") or []),
    }
    if old:
        kept = folder / f"{name}.v{old['version']}.py"
        current = folder / f"{name}.py"
        if current.exists():
            learned.write_atomic(kept, current.read_bytes())
        entry["versions"].append({"version": old["version"], "file": f"tools/{kept.name}",
                                  "saved_at": old["provenance"].get("learned_at")})
    learned.write_atomic(folder / f"{name}.py", source.encode())
    pack["tools"][name] = entry
    learned.write_pack(pack, root)
    learned.trust(site_id, {name: learned.file_hash(folder / f"{name}.py")}, root)
    return {"name": name, "site_id": site_id, "version": version, "verified": verified,
            "file": str(folder / f"{name}.py"), "result": result, "verify_skipped": skip_reason}


def check_name(name: str, origin: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise LearnedToolInvalid(f"task.learn: {name!r} is not a usable tool name (a Python identifier such as "
                                 "add_book)", tool=str(name), reason="bad_name")
    if name in shipped_tool_names(origin):
        raise LearnNameTaken(f"task.learn: {name!r} is a tool shipped with ego_browser for this site; choose "
                             "another name (shipped tools are never shadowed)", tool=name, reason="name_taken")
