"""The learned packs: tools distilled from the agent's own runs (issue 28), kept in the user's
home apart from the packs shipped with ego_browser.

Layout, under :func:`learned_root` (``$EGO_BROWSER_HOME/learned``, or
``EGO_BROWSER_LEARNED_DIR``)::

    trust.json                      {site_id: {tool: sha256 of its file}}: what may run
    <site_id>/pack.json             the pack: origin, tools, provenance, run counts
    <site_id>/tools/<name>.py       the current version of a tool
    <site_id>/tools/<name>.v<N>.py  earlier versions (kept when a tool is learned again)

A tool runs only when its file's hash is the one ``trust.json`` holds for it: a tool saved
here by ``task.save_tool`` is trusted as it is saved; a pack copied in (``learnings import``),
or a file edited by hand, does not run until the person approves it (``learnings trust``).
Every write is atomic (a temporary file renamed over the old one), so a failed save never
leaves a half-written tool or manifest, and never overwrites an existing tool.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import LearnedPackUntrusted, LearnedToolInvalid, SitePackInvalid, SiteToolNotFound

__all__ = ["FORMAT", "STALE_AFTER", "learned_root", "site_id_for", "read_pack", "write_pack", "packs",
           "tool_source_problem", "file_hash", "trusted", "trust", "tools_for_url", "header_line", "write_atomic"]

FORMAT = 1
#: failures in a row after which a tool is listed as stale
STALE_AFTER = 3
ENV_LEARNED_DIR = "EGO_BROWSER_LEARNED_DIR"
#: fields every tool entry of pack.json must have
TOOL_FIELDS = ("file", "version", "params", "path_prefix", "postcondition", "provenance")
PACK_FIELDS = ("format", "id", "origin", "tools")


def learned_root() -> Path:
    explicit = os.environ.get(ENV_LEARNED_DIR, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    from .. import config

    return config.home() / "learned"


#: what ``site_id_for`` makes: one folder name, never a path
_SITE_ID = re.compile(r"[a-z0-9][a-z0-9.-]{0,252}")


def site_id_for(origin: str) -> str:
    """``http://127.0.0.1:8123`` -> ``127.0.0.1-8123`` (a folder name)."""
    netloc = urlsplit(origin).netloc.lower() or origin.lower()
    return re.sub(r"[^a-z0-9.-]+", "-", netloc).strip("-.") or "site"


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with_suppressed_unlink(tmp)
        raise


def with_suppressed_unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pack_problems(data: Any) -> list[str]:
    """What is wrong with a decoded pack.json (empty: nothing)."""
    if not isinstance(data, dict):
        return ["pack.json: expected an object"]
    problems = [f"{f}: missing" for f in PACK_FIELDS if f not in data]
    pid = data.get("id")
    # the id names the pack's folder under the root: "../x" or "/x" would put (or replace) it elsewhere
    if "id" in data and (not isinstance(pid, str) or not _SITE_ID.fullmatch(pid) or ".." in pid):
        problems.append(f"id: {pid!r} is not a site folder name (lower-case letters, digits, dots and dashes, "
                        "as site_id_for makes them)")
    for name, tool in (data.get("tools") or {}).items() if isinstance(data.get("tools"), dict) else ():
        if not isinstance(tool, dict):
            problems.append(f"tools.{name}: expected an object")
            continue
        problems += [f"tools.{name}.{f}: missing" for f in TOOL_FIELDS if f not in tool]
    return problems


def read_pack(site_id: str, root: Path | None = None) -> dict[str, Any]:
    root = learned_root() if root is None else root
    path = root / site_id / "pack.json"
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise SitePackInvalid(f"learned pack {site_id!r}: no pack.json in {path.parent}", site_id=site_id,
                              problems=["pack.json: file not found"]) from None
    except (orjson.JSONDecodeError, OSError) as exc:
        raise SitePackInvalid(f"learned pack {site_id!r}: pack.json is unreadable ({exc})", site_id=site_id,
                              problems=[f"pack.json: {exc}"]) from exc
    problems = pack_problems(data)
    if problems:
        raise SitePackInvalid(f"learned pack {site_id!r} is invalid: " + "; ".join(problems) +
                              "; fix pack.json or remove the pack (learnings rm)", site_id=site_id, problems=problems)
    result: dict[str, Any] = data
    return result


def write_pack(pack: dict[str, Any], root: Path | None = None) -> None:
    root = learned_root() if root is None else root
    write_atomic(root / pack["id"] / "pack.json", orjson.dumps(pack, option=orjson.OPT_INDENT_2))


def packs(root: Path | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Every valid learned pack, and one line per pack that is not."""
    root = learned_root() if root is None else root
    found: list[dict[str, Any]] = []
    problems: list[str] = []
    try:
        dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    for d in dirs:
        try:
            found.append(read_pack(d.name, root))
        except SitePackInvalid as exc:
            problems.append(f"{d.name}: {exc.message}")
    return found, problems


def tool_source_problem(source: str, filename: str = "<tool>") -> str | None:
    """Why ``source`` is not a usable learned tool (valid Python defining ``async def run(page, ...)``)."""
    import ast

    from ..pysource import parse

    try:
        tree = parse(source, filename)
    except SyntaxError as exc:
        return f"it is not valid Python: {exc.msg} (line {exc.lineno})"
    run = next((n for n in tree.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "run"), None)
    if run is None:
        return "it defines no `async def run(page, ...)`"
    if not run.args.args or run.args.args[0].arg != "page":
        return "its run() must take the page as its first parameter"
    return None


# -- trust ---------------------------------------------------------------------------------------


def _trust_path(root: Path) -> Path:
    return root / "trust.json"


def _trust_table(root: Path) -> dict[str, dict[str, str]]:
    try:
        data = orjson.loads(_trust_path(root).read_bytes())
    except (FileNotFoundError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def trust(site_id: str, tools: dict[str, str], root: Path | None = None, *, replace: bool = False) -> None:
    """Record ``{tool: sha256}`` as approved for ``site_id``."""
    root = learned_root() if root is None else root
    table = _trust_table(root)
    entry = {} if replace else dict(table.get(site_id) or {})
    entry.update(tools)
    table[site_id] = entry
    write_atomic(_trust_path(root), orjson.dumps(table, option=orjson.OPT_INDENT_2))


def untrust(site_id: str, root: Path | None = None) -> None:
    root = learned_root() if root is None else root
    table = _trust_table(root)
    if table.pop(site_id, None) is not None:
        write_atomic(_trust_path(root), orjson.dumps(table, option=orjson.OPT_INDENT_2))


def trusted(pack: dict[str, Any], name: str, root: Path | None = None) -> bool:
    root = learned_root() if root is None else root
    tool = pack["tools"].get(name)
    if tool is None:
        return False
    path = root / pack["id"] / tool["file"]
    try:
        digest = file_hash(path)
    except OSError:
        return False
    return (_trust_table(root).get(pack["id"]) or {}).get(name) == digest


def tool_path(pack: dict[str, Any], name: str, root: Path | None = None) -> Path:
    root = learned_root() if root is None else root
    tool = pack["tools"].get(name)
    if tool is None:
        raise SiteToolNotFound(f"learned pack {pack['id']!r} has no tool {name!r} (it has: "
                               f"{', '.join(pack['tools']) or 'none'})", site_id=pack["id"], tool=name)
    base = (root / pack["id"]).resolve()
    path: Path = (base / str(tool["file"])).resolve()
    if base not in path.parents:
        raise SitePackInvalid(f"learned pack {pack['id']!r}: tools.{name}.file leaves the pack", site_id=pack["id"],
                              problems=[f"tools.{name}.file: path leaves the pack"])
    return path


def load_run(pack: dict[str, Any], name: str, root: Path | None = None) -> Any:
    """The ``run`` function of a trusted tool, compiled from its file now."""
    path = tool_path(pack, name, root)
    if not trusted(pack, name, root):
        raise LearnedPackUntrusted(
            f"learned tool {pack['id']}/{name} is not approved to run: it was imported or its file changed since it "
            f"was saved. Read {path}, then approve it with: ego-browser learnings trust {pack['id']}",
            site_id=pack["id"])
    source = path.read_text(encoding="utf-8")
    problem = tool_source_problem(source, str(path))
    if problem:
        raise LearnedToolInvalid(f"learned tool {pack['id']}/{name} ({path}): {problem}; fix the file or learn it "
                                 "again", tool=name, reason="invalid_source")
    namespace: dict[str, Any] = {"__name__": f"ego_learned_{pack['id']}_{name}"}
    exec(compile(source, str(path), "exec", dont_inherit=True), namespace)  # noqa: S102 - an approved tool
    return namespace["run"]


# -- finding -------------------------------------------------------------------------------------


def _origin(url: str) -> str:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""


def tools_for_url(url: str, root: Path | None = None) -> list[dict[str, Any]]:
    """The learned tools of the URL's origin: ``[{site_id, name, params, doc, stale, trusted, ...}]``."""
    origin = _origin(url)
    if not origin:
        return []
    found, _ = packs(root)
    out = []
    for pack in found:
        if pack["origin"] != origin:
            continue
        for name, tool in sorted(pack["tools"].items()):
            out.append({
                "site_id": pack["id"], "name": name, "kind": "learned", "params": tool["params"],
                "doc": tool.get("doc") or "", "path_prefix": tool["path_prefix"],
                "postcondition": tool["postcondition"], "version": tool["version"],
                "stale": int(tool.get("failures_in_row") or 0) >= STALE_AFTER,
                "verified": bool(tool["provenance"].get("verified")),
                "trusted": trusted(pack, name, root),
                "signature": signature(name, tool["params"]),
                "runs": tool.get("runs", 0), "successes": tool.get("successes", 0),
            })
    return out


def signature(name: str, params: dict[str, Any]) -> str:
    args = ", ".join(p if v is None else f"{p}=…" for p, v in sorted(params.items(), key=lambda kv: kv[1] is not None))
    return f"await tools.{name}(page{', ' + args if args else ''})"


def header_line(url: str, root: Path | None = None) -> str:
    """The snapshot header's line for the page's site (names and parameters only), or ""."""
    try:
        listed = tools_for_url(url, root)
    except Exception:  # noqa: BLE001 - a broken pack never breaks a snapshot
        return ""
    if not listed:
        return ""
    parts = []
    for t in listed:
        mark = " [stale]" if t["stale"] else (" [untrusted]" if not t["trusted"] else "")
        parts.append(f"{t['name']}({', '.join(t['params'])}){mark}")
    return "[learned tools: " + ", ".join(parts) + " — await tools.NAME(page, ...); learn_context() for docs]"


def listing(root: Path | None = None) -> str:
    """Every site's learned tools, one header line a site (``[learned tools on ORIGIN: ...]``),
    for an agent's context before its first round (the MCP tool's description): "" when none."""
    try:
        found, _ = packs(root)
    except Exception:  # noqa: BLE001 - a broken pack never breaks what lists the others
        return ""
    lines = []
    for pack in found:
        line = header_line(pack["origin"] + "/", root) if pack.get("origin") else ""
        if line:
            lines.append(line.replace("[learned tools: ", f"[learned tools on {pack['origin']}: ", 1))
    return "\n".join(sorted(set(lines)))


def now() -> float:
    return time.time()
