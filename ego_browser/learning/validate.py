"""``ego-browser validate-skills [ROOT]``: check every pack without running any of it.

Checks, each reported as ``<id>: <problem>`` (``<id>`` is the pack's folder name):

* ``manifest.json`` exists, is JSON and validates (unknown keys such as ``nodeTools`` are
  errors, domains have no scheme, path or port, argument types are known);
* ``id`` equals the folder name;
* every listed note and tool file is a relative path that stays inside the pack after
  resolving symlinks, and exists;
* every Python tool's ``callable`` is defined at the top level of its module, takes ``ctx``
  first and accepts the declared arguments. The module is parsed with :mod:`ast`, never
  imported, so no tool code runs.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Any

from .. import pysource
from ..errors import SitePackInvalid
from .loader import iter_pack_dirs, learnings_root, path_problem, read_manifest_json

__all__ = ["main", "validate_pack", "validate_skills"]


def validate_skills(root: str | os.PathLike[str] | None = None) -> list[str]:
    """Problems of every pack under ``root`` (default: :func:`learnings_root`), in folder order."""
    root = learnings_root() if root is None else Path(root)
    if not root.is_dir():
        return [f"{root}: learnings folder not found (expected a folder of <id>/manifest.json packs)"]
    problems: list[str] = []
    for pack_dir in iter_pack_dirs(root):
        problems.extend(f"{pack_dir.name}: {p}" for p in validate_pack(pack_dir))
    return problems


def validate_pack(pack_dir: Path) -> list[str]:
    """Problems of one pack, without the ``<id>: `` prefix."""
    from .models import ManifestError, parse_manifest

    try:
        data = read_manifest_json(pack_dir)
    except SitePackInvalid as exc:
        return list(exc.problems or [exc.message])
    problems: list[str] = []
    try:
        parse_manifest(data)
    except ManifestError as exc:
        problems.extend(exc.problems)
    if not isinstance(data, dict):
        return problems
    # the checks below read the raw JSON, so one run reports schema and file problems together
    site_id = data.get("id")
    if isinstance(site_id, str) and site_id != pack_dir.name:
        problems.append(f"id: expected the folder name {pack_dir.name!r} (got {site_id!r})")
    notes = data.get("notes")
    if isinstance(notes, list):
        for i, rel in enumerate(notes):
            if isinstance(rel, str):
                _add(problems, f"notes[{i}]", path_problem(pack_dir, rel))
    for table_name in ("node_tools", "browser_tools"):
        table = data.get(table_name)
        if not isinstance(table, dict):
            continue
        for name, tool in table.items():
            if not isinstance(tool, dict) or not isinstance(tool.get("file"), str):
                continue
            where = f"{table_name}.{name}.file"
            problem = path_problem(pack_dir, tool["file"])
            _add(problems, where, problem)
            if problem is None and table_name == "node_tools" and isinstance(tool.get("callable"), str):
                path = (pack_dir / tool["file"]).resolve()
                raw_args = tool.get("args")
                args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
                for p in check_callable(path, tool["callable"], list(args)):
                    problems.append(f"node_tools.{name}.callable: {p}")
    return problems


def _add(problems: list[str], where: str, problem: str | None) -> None:
    if problem:
        problems.append(f"{where}: {problem}")


def check_callable(path: Path, name: str, arg_names: list[str]) -> list[str]:
    """Read ``path`` with :mod:`ast` and check that ``name`` is defined at its top level."""
    try:
        source = path.read_bytes()
        tree = pysource.parse(source, str(path))
    except SyntaxError as exc:
        return [f"{path.name} does not parse: {exc.msg} (line {exc.lineno})"]
    except (OSError, ValueError) as exc:
        return [f"cannot read {path.name}: {exc}"]
    found = _top_level_definition(tree.body, name)
    if found is None:
        return [f"{name!r} is not defined at the top level of {path.name}"]
    if not isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []  # assigned or imported: the shape cannot be known without running it
    return _signature_problems(found, name, arg_names)


def _top_level_definition(body: list[ast.stmt], name: str) -> ast.AST | None:
    """The last top-level statement binding ``name`` (``if``/``try`` blocks included)."""
    found: ast.AST | None = None
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            found = node
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                found = node
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            if isinstance(node.target, ast.Name) and node.target.id == name and (
                    not isinstance(node, ast.AnnAssign) or node.value is not None):
                found = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound == name:
                    found = node
        elif isinstance(node, (ast.If, ast.Try, ast.With)) or type(node).__name__ == "TryStar":
            for block in ("body", "orelse", "finalbody"):
                inner = _top_level_definition(getattr(node, block, []) or [], name)
                if inner is not None:
                    found = inner
            for handler in getattr(node, "handlers", []) or []:
                inner = _top_level_definition(handler.body, name)
                if inner is not None:
                    found = inner
    return found


def _signature_problems(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, arg_names: list[str]) -> list[str]:
    a = func.args
    positional = [*a.posonlyargs, *a.args]
    if not positional and a.vararg is None:
        return [f"{name}() must take ctx as its first parameter, as in def {name}(ctx, **args)"]
    if a.kwarg is not None:
        return []
    keyword_capable = a.args if a.posonlyargs else a.args[1:]  # ctx is the first positional
    accepted = {p.arg for p in [*keyword_capable, *a.kwonlyargs]}
    missing = [n for n in arg_names if n not in accepted]
    if missing:
        return [
            f"{name}() does not accept the declared argument(s) {', '.join(missing)}; "
            f"add them as keyword parameters or **kwargs"
        ]
    return []


def main(argv: list[str] | None = None) -> int:
    """CLI entry: ``validate-skills [ROOT]``; prints problems and a total; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print("usage: ego-browser validate-skills [ROOT]\n\n"
              "Check every site-learning pack under ROOT (default: the learnings root).")
        return 0
    if len(argv) > 1 or any(a.startswith("-") for a in argv):
        print("usage: ego-browser validate-skills [ROOT]", file=sys.stderr)
        return 2
    root = Path(argv[0]) if argv else learnings_root()
    problems = validate_skills(root)
    for line in problems:
        print(line)
    packs = len(iter_pack_dirs(root))
    if problems:
        print(f"validate-skills: {len(problems)} problem(s) in {root} ({packs} pack(s) checked)")
        return 1
    print(f"validate-skills: {packs} pack(s) OK in {root}")
    return 0


if __name__ == "__main__":  # python -m ego_browser.learning.validate [ROOT]
    raise SystemExit(main())
