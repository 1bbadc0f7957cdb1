"""No import loops in ego_browser (issue 10, point 2).

Walks every module's imports with ``ast`` — at module level *and* inside functions, because a
late import only hides a loop, it does not remove it — and fails on any strongly connected
group of modules. A module importing one of its own parent packages does not count (Python has
always started those first).

Imports under ``if TYPE_CHECKING:`` never run, but they are arrows all the same: a base class
that names the generated class deriving from it, a feature module that names the ``Host`` that
builds it, are layers that know the layer above them. ``test_no_cycles_even_for_type_checking``
counts them and allows no loop either: what a lower module needs of a higher one it names as a
Protocol of its own (``host/core/features.FeatureHost``, ``client/ports.py``, ``driver/sites.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ego_browser.pysource import parse

ROOT = Path(__file__).resolve().parent.parent.parent / "ego_browser"

#: loops still present, each with the engineer who owns breaking it (none left)
ALLOWED: list[frozenset[str]] = []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, type_checking: bool = False) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)  # the body runs only for type checkers
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def import_graph(type_checking: bool = False) -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        for node in _imports(parse(path.read_text(encoding="utf-8"), str(path)), type_checking):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                names = [prefix] + [f"{prefix}.{a.name}" for a in node.names]
            for name in names:
                parts = name.split(".")
                for i in range(1, len(parts) + 1):  # importing a.b.c runs a, a.b and a.b.c
                    target = ".".join(parts[:i])
                    if target in files and target != mod and not mod.startswith(target + "."):
                        graph[mod].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def test_the_walker_sees_late_and_relative_imports():
    graph = import_graph()
    # a function-level relative import (the person's take-over brings the space's window to the front)
    assert "ego_browser.host.spaces.windows" in graph["ego_browser.host.ops.space_control"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]


def test_no_import_cycles():
    found = [c for c in cycles(import_graph()) if c not in ALLOWED]
    assert not found, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in found)


def test_the_walker_counts_type_only_imports_when_asked():
    tree = ast.parse("import typing\nif typing.TYPE_CHECKING:\n    from .core import Host\nimport os\n")
    assert [type(n).__name__ for n in _imports(tree)] == ["Import", "Import"]
    assert "core" in [n.module for n in _imports(tree, type_checking=True) if isinstance(n, ast.ImportFrom)]


def test_no_cycles_even_for_type_checking():
    found = cycles(import_graph(type_checking=True))
    assert not found, "import cycles (counting TYPE_CHECKING imports): " + "; ".join(
        " <-> ".join(sorted(c)) for c in found)
