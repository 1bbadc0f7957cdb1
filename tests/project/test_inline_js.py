"""In-page code lives in ``ego_browser/js/`` and is reached through ``ego_browser.jsbundle`` only.

A JavaScript program written inside a Python string (longer than one line) is a defect: it is
not seen by anyone reading the JS, not shared between worlds, and not loaded the one way.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from ego_browser.pysource import parse
from ego_browser import jsbundle

PKG = Path(jsbundle.__file__).resolve().parent
ROOT = PKG.parent

# the start of a JS function or arrow function, possibly wrapped in "(" (an IIFE)
_JS_START = re.compile(r"^[\s(]*(?:async\s+)?(?:function\b|(?:\w+|\([^()]*\))\s*=>)")
_HOLE = "\x00"  # stands for an interpolated value in the text of a composed string


def _text(node: ast.AST) -> str | None:
    """The text of a string expression (holes for interpolated parts), or None if not one."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else _HOLE for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = _text(node.left)
        if isinstance(node.op, ast.Mod):
            return left
        right = _text(node.right)
        if left is None and right is None:
            return None
        return (left or _HOLE) + (right or _HOLE)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def inline_js_programs(source: str) -> list[tuple[int, str]]:
    """(line, start of text) of every multi-line JS program written as a Python string."""
    tree = parse(source)
    skip = _docstrings(tree)
    inner: set[int] = set()
    found = []
    for node in ast.walk(tree):
        if id(node) in inner or id(node) in skip:
            continue
        text = _text(node)
        if text is None:
            continue
        for child in ast.walk(node):  # judge a composed string once, as a whole
            if child is not node:
                inner.add(id(child))
        multi_line = node.end_lineno != node.lineno or "\n" in text.strip()
        if multi_line and _JS_START.match(text):
            found.append((node.lineno, text.strip()[:60]))
    return found


def test_detector_finds_the_shapes_we_used_to_write() -> None:
    # the shapes the package held before js/ (each spread over several Python lines)
    samples = [
        'X = """(async (o) => {\n  return o;\n})(%s)""" % y\n',
        'X = (\n    "function(name, ...args) { const A = 1;"\n    " return A; }"\n)\n',
        'X = ("(() => { const d = 1;"\n     " return d; })()")\n',
        'f(x, {"f": "function(...els) { return globalThis.a ? a(els) : "\n    + y + "; }"})\n',
        'X = f"""async (text) => {{\n  return {y};\n}}"""\n',
    ]
    for sample in samples:
        assert inline_js_programs(sample), sample
    # one-line snippets, messages, docstrings and the agents' examples are not programs
    allowed = [
        'X = "function() { return this.isConnected; }"\n',
        'X = f"__egoSel.count({spec})"\n',
        'X = ("a message: write "\n     "\\"(x) => ...\\" to receive it")\n',
        'def f():\n    """Run ``async (args) => {...}``.\n\n    More.\n    """\n',
        'EX = """\nawait page.evaluate("(() => { return 1; })()")\nprint(1)\n"""\n',
    ]
    for sample in allowed:
        assert not inline_js_programs(sample), sample


# wrappers whose only line of our own JS frames someone else's code (named by where and how)
_WRAPPERS = {
    # a pack's browser tool file is the body of this one-line async function (API.md §12)
    ("ego_browser/learning/tools.py", "async (args) => {\n" + _HOLE + "\n}"),
}


def test_no_inline_js_program_in_the_package() -> None:
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, start in inline_js_programs(path.read_text(encoding="utf-8")):
            if (rel, start) not in _WRAPPERS:
                offenders.append(f"{rel}:{line}: {start!r}")
    assert not offenders, (
        "JavaScript programs longer than one line belong in ego_browser/js/<world>/ (loaded with "
        "ego_browser.jsbundle):\n" + "\n".join(offenders)
    )


@pytest.mark.parametrize("world", jsbundle.WORLDS)
def test_every_file_of_a_world_loads(world: str) -> None:
    names = jsbundle.names(world)
    assert names, f"js/{world}/ is empty"
    for name in names:
        raw = (PKG / "js" / world / f"{name}.js").read_text(encoding="utf-8")
        if re.search(r"^(?:async\s+)?function\s", raw, re.M):
            source = jsbundle.function(world, name)
            assert jsbundle.call(world, name, "a\ud800", 1).endswith('("a\ufffd", 1)')
        else:
            source = jsbundle.program(world, name)
        assert "__EGO_" not in source, f"js/{world}/{name}.js: an include was not resolved"
        assert not source.startswith("//"), "the header comment is not sent to the page"


def test_shared_pieces_are_pasted_into_both_worlds_that_use_them() -> None:
    state = jsbundle._text("shared", "element_state").rstrip(";")
    assert state in jsbundle.program("utility", "selector_engine")
    assert state in jsbundle.program("snapshot", "snapshot_walker")


def test_bad_names_say_what_exists() -> None:
    with pytest.raises(ValueError, match="unknown JS world 'nope'"):
        jsbundle.function("nope", "x")
    with pytest.raises(ValueError, match="no JS 'nope' in world 'main'"):
        jsbundle.function("main", "nope")
    with pytest.raises(ValueError, match="is a function"):
        jsbundle.program("main", "page_fetch")
    with pytest.raises(ValueError, match="must hold one function named selector_engine"):
        jsbundle.function("utility", "selector_engine")


def test_every_js_file_ships_in_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["ego_browser"]
    files = {p.relative_to(PKG).as_posix() for p in (PKG / "js").rglob("*.js")}
    assert files
    shipped = {p.relative_to(PKG).as_posix() for g in globs for p in PKG.glob(g)}  # setuptools' glob rules
    missing = sorted(files - shipped)
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"
