"""The schema, the runtime surface, help(), the guide and docs/api.md agree (issue 6).

The schema (``ego_browser/schema``) declares the API.md surface. These tests fail, listing the
names, when the runtime lacks a declared member, has an undeclared public one, or differs in
parameters, kinds, defaults, call style or validation wiring; and when help, the guide or
docs/api.md leave a member out or are stale.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect

from ego_browser.schema import validate
from ego_browser.schema.render import DOCS_PATH, api_markdown, guide, help_text, overview
from ego_browser.schema.spec import CLASSES as SPEC_CLASSES
from ego_browser.schema.spec import FUNCTIONS as SPEC_FUNCTIONS
from ego_browser.schema.spec import OMIT, REQUIRED, members

#: runtime objects: schema owner -> (module, attribute); top-level functions: name -> module (one table)
CLASSES = {owner: (info.module, info.runtime) for owner, info in SPEC_CLASSES.items()}
FUNCTIONS = SPEC_FUNCTIONS
#: public on a runtime class but not API (documented here so the exception is visible)
INTERNAL = {"ActionReceipt.from_wire"}


def _runtime_class(owner: str):
    module, name = CLASSES[owner]
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def runtime_members() -> dict[str, object]:
    """Every public runtime member under its schema name (properties as ``property`` objects)."""
    found: dict[str, object] = {}
    for name, module in FUNCTIONS.items():
        obj = getattr(importlib.import_module(module), name, None)
        if obj is not None:
            found[name] = obj
    for owner in CLASSES:
        cls = _runtime_class(owner)
        if cls is None:
            continue
        found[owner] = cls
        fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
        for attr in dir(cls):
            if attr.startswith("_"):
                continue
            raw = inspect.getattr_static(cls, attr)
            found[f"{owner}.{attr}"] = property() if attr in fields else raw
        for attr in fields:
            found[f"{owner}.{attr}"] = property()
    return {k: v for k, v in found.items() if k not in INTERNAL}


def test_runtime_has_every_declared_member():
    runtime = runtime_members()
    missing = [name for name in members() if name not in runtime]
    assert not missing, f"declared in the schema but missing at runtime ({len(missing)}): {', '.join(missing)}"


def test_every_runtime_member_is_declared():
    declared = members()
    undeclared = [name for name in runtime_members() if name not in declared]
    assert not undeclared, f"public at runtime but not declared in the schema: {', '.join(undeclared)}"


def _unwrap(obj):
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    return obj


def test_signatures_and_call_styles_match():
    runtime = runtime_members()
    problems = []
    for name, m in members().items():
        obj = runtime.get(name)
        if obj is None or m.call == "class":
            continue
        if m.call == "property":
            if not isinstance(obj, property) and not callable(getattr(obj, "__get__", None)):
                problems.append(f"{name}: declared a property, runtime has {type(obj).__name__}")
            elif not isinstance(obj, property):
                problems.append(f"{name}: declared a property, runtime has {type(obj).__name__}")
            continue
        fn = _unwrap(obj)
        if isinstance(fn, property) or not callable(fn):
            problems.append(f"{name}: declared {m.call}, runtime has {type(fn).__name__}")
            continue
        inner = inspect.unwrap(fn)
        is_async = inspect.iscoroutinefunction(inner)
        if (m.call == "async") != is_async:
            problems.append(f"{name}: declared {m.call}, runtime is {'async' if is_async else 'sync'}")
        params = list(inspect.signature(fn).parameters.values())
        if m.owner and params and params[0].name == "self":
            params = params[1:]
        got = [(p.name, p.kind.name) for p in params]
        kinds = {"pos_only": "POSITIONAL_ONLY", "pos": "POSITIONAL_OR_KEYWORD", "kw": "KEYWORD_ONLY",
                 "var_kw": "VAR_KEYWORD"}
        want = [(p.name, kinds[p.kind]) for p in m.params]
        if got != want:
            problems.append(f"{name}: parameters {got} != declared {want}")
            continue
        for p, rp in zip(m.params, params):
            if p.kind == "var_kw":
                continue
            if p.default is REQUIRED:
                ok = rp.default is inspect.Parameter.empty
            elif p.default is OMIT:
                ok = type(rp.default) is object  # a private "not given" sentinel
            else:
                ok = rp.default is not inspect.Parameter.empty and rp.default == p.default and (
                    type(rp.default) is type(p.default))
            if not ok:
                problems.append(f"{name}: default of {p.name} is {rp.default!r}, declared {p.default!r}")
    assert not problems, "schema and runtime differ:\n" + "\n".join(problems)


def test_validation_is_wired_from_the_schema():
    """Each member with typed parameters checks them through ``@validated(<its name>)``."""
    runtime = runtime_members()
    unwired = []
    for name, m in members().items():
        obj = runtime.get(name)
        if obj is None or m.call in ("property", "class"):
            continue
        if not any(validate.type_check(p.type, "v")[0] for p in m.params if p.kind != "var_kw") and not m.rules:
            continue
        if getattr(_unwrap(obj), "__schema_name__", None) != name:
            unwired.append(name)
    assert not unwired, f"not validated through the schema (@validated): {', '.join(unwired)}"


def test_declared_defaults_pass_their_own_checks():
    bad = []
    for name, m in members().items():
        for p in m.params:
            if p.default in (REQUIRED, OMIT) or p.kind == "var_kw":
                continue
            expr, _ = validate.type_check(p.type, "v")
            if expr and not eval(expr, dict(validate._NS, v=p.default)):  # noqa: S307
                bad.append(f"{name}.{p.name}={p.default!r}")
    assert not bad, bad


def test_every_checker_compiles():
    from ego_browser.schema import checker

    for name, m in members().items():
        if m.call not in ("property", "class"):
            assert checker(name).__qualname__ == name


def test_help_names_every_member():
    text = overview()
    missing = [name for name, m in members().items() if m.owner is not None or m.call != "class"
               if name not in text]
    assert not missing, f"help() leaves out: {missing}"
    for name, m in members().items():
        body = help_text(name)
        assert not body.startswith("Unknown help topic"), name
        assert name in body.splitlines()[0], (name, body.splitlines()[0])
        if m.example:
            assert m.example.splitlines()[0].strip() in body, name


def test_guide_mentions_every_member():
    text = guide()
    missing = [name for name, m in members().items() if (m.owner is not None or m.call != "class") and name not in text]
    assert not missing, f"the guide leaves out: {missing}"


def test_docs_api_md_is_up_to_date():
    assert DOCS_PATH.read_text() == api_markdown(), (
        "docs/api.md is stale: run python -m ego_browser.schema.render docs")
    for name, m in members().items():
        assert f"### `{name}`" in DOCS_PATH.read_text() or (m.call == "class" and m.owner is None), name
