"""Compile a member's declaration into a fast, plain-Python argument checker.

For ``Page.click`` this generates (once, on first use) a function with the declared
signature whose body is one ``if`` per checked parameter::

    def click(self, selector, *, button=_d[0], click_count=_d[1], ...):
        if not (isinstance(selector, str) and selector): raise _fail('page.click', 'selector', ..., selector)
        if not (click_count.__class__ is int and click_count >= 1): raise _fail(...)

Unknown or missing arguments are Python's own ``TypeError`` (the function's qualified name is
the member's, so the message reads ``Page.click() got an unexpected keyword argument 'bogus'``).
A wrong type or range raises ``InvalidArgument`` "``<api>: <option> must be <expected> (got X)``".
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgument
from .spec import OMIT, REQUIRED, Member, Param, member, signature_parts

__all__ = ["compile_checker", "compile_binder", "type_check", "expected_text", "TYPES"]


def _fail(api: str, option: str, expected: str, value: Any) -> InvalidArgument:
    if isinstance(value, str):
        shown = repr(value if len(value) < 80 else value[:77] + "...")
    elif isinstance(value, (int, float, bool, type(None))):
        shown = repr(value)
    else:
        shown = type(value).__name__
    return InvalidArgument(f"{api}: {option} must be {expected} (got {shown})", api=api, option=option,
                           expected=expected)


# -- value predicates used by the generated code ---------------------------------------------


#: the largest timeout or delay in ms (about 24.8 days; JavaScript timers stop there too)
MAX_MS = 2**31 - 1
#: counts (click_count, limit, max_length, steps) stop here: a bigger one is a typo or a probe
MAX_COUNT = 2**31 - 1
#: bounds on what one action makes the browser do (issue 31: ``click_count=10**6`` sent two
#: million input events, grew Chromium to 5 GB and starved every other space): far past any
#: real use, small enough that the worst accepted call ends well inside its deadline
MAX_CLICKS = 10
#: a pause inside one action (press to release, between typed keys)
MAX_DELAY_MS = 10_000
#: interpolated segments of one mouse move
MAX_STEPS = 1_000
#: one wheel event's scroll, in CSS px
MAX_WHEEL = 100_000
#: characters typed one key event at a time (keyboard.type)
MAX_TYPED = 10_000
#: characters of one native insertion (fill, insert_text, paste): about a 1 MB paste
MAX_TEXT = 1_000_000
#: a key or chord name ("Control+Shift+A")
MAX_KEY = 100
#: a space's name (a name or an id: task_space(name_or_id))
MAX_NAME = 200
#: a viewport side in CSS px
MAX_VIEWPORT = 10_000


def _num(v: Any) -> bool:
    # an int past 64 bits has no JSON form: a number the host could never receive
    if isinstance(v, float):
        return math.isfinite(v)
    return isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63


def _point(v: Any) -> bool:
    # exactly x and y: a box ({x, y, width, height}) passed by mistake is refused, not half read
    return isinstance(v, dict) and len(v) == 2 and _num(v.get("x")) and _num(v.get("y"))


def _clip(v: Any) -> bool:
    if not (isinstance(v, dict) and all(_num(v.get(k)) for k in ("x", "y", "width", "height"))):
        return False
    if v["width"] <= 0 or v["height"] <= 0:
        return False
    return "scale" not in v or (_num(v["scale"]) and v["scale"] > 0)


def _path(v: Any) -> bool:
    return isinstance(v, (str, os.PathLike)) and bool(os.fspath(v))


def _abspath(v: Any) -> bool:
    return _path(v) and os.path.isabs(os.fspath(v))


def _files(v: Any) -> bool:
    if _path(v):
        return True
    return isinstance(v, (list, tuple)) and bool(v) and all(_path(f) for f in v)


def _headers(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())


def _text_or_re(v: Any) -> bool:
    return isinstance(v, (str, re.Pattern))


def _matcher(v: Any) -> bool:
    return isinstance(v, (str, re.Pattern)) or callable(v)


def _option(v: Any) -> bool:
    if isinstance(v, str):
        return True
    if isinstance(v, dict):
        return bool(v) and set(v) <= {"value", "label", "index"} and all(
            (isinstance(v[k], int) and not isinstance(v[k], bool) and 0 <= v[k] <= MAX_COUNT) if k == "index"
            else isinstance(v[k], str) for k in v
        )
    return False


def _select_value(v: Any) -> bool:
    if v is None or _option(v):
        return True
    return isinstance(v, (list, tuple)) and all(_option(x) for x in v)


def _paste(v: Any) -> bool:
    if isinstance(v, str):
        return len(v) <= MAX_TEXT
    return (isinstance(v, dict) and isinstance(v.get("text"), str) and set(v) <= {"text", "html"}
            and len(v["text"]) <= MAX_TEXT
            and (v.get("html") is None or (isinstance(v.get("html"), str) and len(v["html"]) <= MAX_TEXT)))


def _text_or_secret(v: Any) -> bool:
    # secret(NAME)'s wire form (secret_ref.Secret); the name itself is checked where it is read
    return isinstance(v, str) or (isinstance(v, dict) and len(v) == 1 and isinstance(v.get("$secret"), str)
                                  and bool(v["$secret"]))


def _keep(v: Any) -> bool:
    return v == "all" or (isinstance(v, (list, tuple)) and all(isinstance(x, str) and x for x in v))


def _unmanaged(v: Any) -> bool:
    from ..client.models import UnmanagedPage

    return isinstance(v, UnmanagedPage)


#: type name -> (check expression over ``{v}``, the expected text of the error, the rendered type)
TYPES: dict[str, tuple[str | None, str, str]] = {
    "any": (None, "any value", "Any"),
    "json": (None, "a JSON-serialisable value", "JSON value"),
    "str": ("isinstance({v}, str)", "a str", "str"),
    "str+": ("isinstance({v}, str) and {v}", "a non-empty str", "str"),
    "text500": ("isinstance({v}, str) and len({v}) <= 500", "a str of at most 500 characters", "str (≤ 500 chars)"),
    "selector": ("isinstance({v}, str) and {v}", "a non-empty selector str", "selector"),
    "ref": ("isinstance({v}, str) and {v}", "a snapshot ref", "ref"),
    "key": ("isinstance({v}, str) and {v}", "a non-empty key name", "key"),
    "clicks": ("isinstance({v}, int) and not isinstance({v}, bool) and 1 <= {v} <= %d" % MAX_CLICKS,
               "an int from 1 to %d" % MAX_CLICKS, "int 1..%d" % MAX_CLICKS),
    "steps": ("isinstance({v}, int) and not isinstance({v}, bool) and 1 <= {v} <= %d" % MAX_STEPS,
              "an int from 1 to %d" % MAX_STEPS, "int 1..%d" % MAX_STEPS),
    "delay": ("_num({v}) and 0 <= {v} <= %d" % MAX_DELAY_MS, "a number of milliseconds from 0 to %d" % MAX_DELAY_MS,
              "ms 0..%d" % MAX_DELAY_MS),
    "wheel": ("_num({v}) and -%d <= {v} <= %d" % (MAX_WHEEL, MAX_WHEEL),
              "a finite number of px from -%d to %d" % (MAX_WHEEL, MAX_WHEEL), "float (±%d px)" % MAX_WHEEL),
    "typed": ("isinstance({v}, str)", "a str", "str (≤ %d chars)" % MAX_TYPED),
    "text": ("isinstance({v}, str)", "a str", "str (≤ %d chars)" % MAX_TEXT),
    "px": ("isinstance({v}, int) and not isinstance({v}, bool) and {v} >= 1", "a positive integer",
           "int 1..%d" % MAX_VIEWPORT),
    "js": ("isinstance({v}, str) and {v}", "a non-empty JavaScript str", "JS str"),
    "bool": ("{v} is True or {v} is False", "True or False", "bool"),
    "int": ("isinstance({v}, int) and not isinstance({v}, bool)", "an int", "int"),
    "int>0": ("isinstance({v}, int) and not isinstance({v}, bool) and {v} >= 1", "a positive integer", "int ≥ 1"),
    "str|int": ("isinstance({v}, (str, int)) and not isinstance({v}, bool)", "a str name or an int id", "str | int"),
    "number": ("_num({v})", "a finite number", "float"),
    "ms>0": ("_num({v}) and {v} > 0", "a positive, finite number of milliseconds", "ms > 0"),
    "ms>=0": ("_num({v}) and {v} >= 0", "a finite number of milliseconds >= 0", "ms ≥ 0"),
    "point": ("_point({v})", "a point {'x': number, 'y': number}", "{x, y}"),
    "clip": ("_clip({v})", "{x, y, width>0, height>0, scale>0 (optional)}", "{x, y, width, height, scale?}"),
    "dict": ("isinstance({v}, dict)", "a dict", "dict"),
    "list": ("isinstance({v}, list)", "a list", "list"),
    "headers": ("_headers({v})", "a dict of str to str", "dict[str, str]"),
    "path": ("_path({v})", "a file path (str or os.PathLike)", "path"),
    "abspath": ("_abspath({v})", "an absolute file path", "absolute path"),
    "files": ("_files({v})", "a path or a non-empty list of paths", "path | list[path]"),
    "text|re": ("_text_or_re({v})", "a str or a compiled re.Pattern", "str | re.Pattern"),
    "matcher": ("_matcher({v})", "a str (exact URL or glob), a compiled re.Pattern or a callable",
                "str | glob | re.Pattern | Callable[[str], bool]"),
    "select_value": ("_select_value({v})", "a str, a dict {value?, label?, index?}, a list of these, or None",
                     "str | {value?, label?, index?} | list | None"),
    "paste": ("_paste({v})", "a str or {'text': str, 'html': str or None} of at most %d characters each" % MAX_TEXT,
              "str | {text, html?}"),
    "text|secret": ("_text_or_secret({v})", "a str or secret(NAME)", "str (≤ %d chars) | secret(NAME)" % MAX_TEXT),
    "typed|secret": ("_text_or_secret({v})", "a str or secret(NAME)", "str (≤ %d chars) | secret(NAME)" % MAX_TYPED),
    "keep": ("_keep({v})", "'all' or a list of page labels", "'all' | list[str]"),
    "unmanaged": ("_unmanaged({v})", "an UnmanagedPage from task.tabs()", "UnmanagedPage"),
    "Page": (None, "a Page", "Page"),
}

#: type name -> (a second check, run once the first passed, and its expected text): values of
#: the right type that no page or wire could take (ints past 64 bits, timeouts of centuries)
BOUNDS: dict[str, tuple[str, str]] = {
    "int": ("-(2**63) <= {v} < 2**63", "an int within 64 bits"),
    "str|int": ("len({v}) <= %d if {v}.__class__ is str else -(2**63) <= {v} < 2**63" % MAX_NAME,
                "a str name of at most %d characters or an int id within 64 bits" % MAX_NAME),
    "int>0": ("{v} <= %d" % MAX_COUNT, "a positive integer of at most %d" % MAX_COUNT),
    "ms>0": ("{v} <= %d" % MAX_MS, "at most %d milliseconds (about 24 days)" % MAX_MS),
    "ms>=0": ("{v} <= %d" % MAX_MS, "at most %d milliseconds (about 24 days)" % MAX_MS),
    "typed": ("len({v}) <= %d" % MAX_TYPED, "a str of at most %d characters (use insert_text or fill for more)"
              % MAX_TYPED),
    "text": ("len({v}) <= %d" % MAX_TEXT, "a str of at most %d characters" % MAX_TEXT),
    "text|secret": ("{v}.__class__ is not str or len({v}) <= %d" % MAX_TEXT,
                    "a str of at most %d characters, or secret(NAME)" % MAX_TEXT),
    "typed|secret": ("{v}.__class__ is not str or len({v}) <= %d" % MAX_TYPED,
                     "a str of at most %d characters (use insert_text or fill for more), or secret(NAME)" % MAX_TYPED),
    "key": ("len({v}) <= %d" % MAX_KEY, "a key name of at most %d characters" % MAX_KEY),
    "px": ("{v} <= %d" % MAX_VIEWPORT, "at most %d px" % MAX_VIEWPORT),
}

_NS = {
    "_fail": _fail, "_num": _num, "_point": _point, "_clip": _clip, "_path": _path, "_abspath": _abspath,
    "_files": _files, "_headers": _headers, "_matcher": _matcher, "_select_value": _select_value,
    "_paste": _paste, "_keep": _keep, "_unmanaged": _unmanaged, "InvalidArgument": InvalidArgument,
    "_text_or_re": _text_or_re, "_text_or_secret": _text_or_secret,
}


def _split(type_: Any) -> tuple[Any, bool]:
    if isinstance(type_, str) and type_.endswith("?"):
        return type_[:-1], True
    return type_, False


def type_check(type_: Any, var: str) -> tuple[str | None, str]:
    """(a Python boolean expression checking ``var``, the expected text) for a type spec."""
    base, optional = _split(type_)
    if isinstance(base, tuple):  # an enumeration of literal values
        expr: str | None = f"{var} in {base!r}"
        expected = "one of " + ", ".join(repr(c) for c in base)
    else:
        template, expected, _shown = TYPES[base]
        expr = template.format(v=var) if template else None
    if expr is not None and optional:
        expr = f"{var} is None or ({expr})"
    return expr, expected


def bound_check(type_: Any, var: str) -> tuple[str, str] | None:
    """(a Python expression bounding an already type-checked ``var``, its expected text), if any."""
    base, optional = _split(type_)
    bound = BOUNDS.get(base) if isinstance(base, str) else None
    if bound is None:
        return None
    expr = bound[0].format(v=var)
    return (f"{var} is None or ({expr})" if optional else expr), bound[1]


def expected_text(type_: Any) -> str:
    return type_check(type_, "v")[1]


def _signature_source(m: Member, *, keywords_only: bool = False) -> tuple[str, list[Any]]:
    """The compiled function's parameter list (defaults as ``_d[i]``) and the defaults."""
    defaults: list[Any] = []

    def text(p: Param) -> str:
        if p.kind == "var_kw" or p.default is REQUIRED:
            return p.name
        defaults.append(p.default)
        return f"{p.name}=_d[{len(defaults) - 1}]"

    params = tuple(p._replace(kind="kw") for p in m.params) if keywords_only else m.params
    parts = signature_parts(params, text)
    if m.owner and not keywords_only:
        parts.insert(0, "self")
    return ", ".join(parts), defaults


def _check_lines(m: Member) -> list[str]:
    """One ``if`` per typed parameter (type, then bounds) and per rule, raising ``InvalidArgument``."""
    lines: list[str] = []
    for p in m.params:
        if p.kind == "var_kw":
            continue
        expr, expected = type_check(p.type, p.name)
        if expr is None:
            continue
        guard = f"{p.name} is not _OMIT and " if p.default is OMIT else ""
        lines.append(f"    if {guard}not ({expr}):")
        lines.append(f"        raise _fail({m.api!r}, {p.name!r}, {expected!r}, {p.name})")
        bound = bound_check(p.type, p.name)
        if bound is not None:
            lines.append(f"    if {guard}not ({bound[0]}):")
            lines.append(f"        raise _fail({m.api!r}, {p.name!r}, {bound[1]!r}, {p.name})")
    for condition, message, option, expected in m.rules:
        lines.append(f"    if {condition}:")
        lines.append(f"        raise InvalidArgument({message!r}, api={m.api!r}, option={option!r}, "
                     f"expected={expected!r})")
    return lines


def _compile(m: Member, source: str, defaults: list[Any], filename: str) -> Any:
    ns = dict(_NS, _d=defaults, _OMIT=OMIT)
    exec(compile(source + "\n", filename, "exec"), ns)  # noqa: S102 - our own declarations
    fn = ns[m.short]
    fn.__source__ = source
    return fn


def compile_checker(name: str) -> Callable[..., None]:
    """Compile member ``name``'s checker: its signature, one check per typed parameter."""
    m = member(name)
    if m.call == "property":
        raise ValueError(f"{name} is a property; it takes no arguments")
    signature, defaults = _signature_source(m)
    source = "\n".join([f"def {m.short}({signature}):", *_check_lines(m), "    return None"])
    fn = _compile(m, source, defaults, f"<schema {name}>")
    fn.__qualname__ = name
    check: Callable[..., None] = fn  # made by exec from the declaration: untyped to mypy
    return check


def compile_binder(m: Member) -> Callable[..., dict[str, Any]]:
    """Compile the host's binder for the wire form ``m`` of an operation.

    The same checks as :func:`compile_checker` (the host distrusts rounds), but every
    parameter is keyword-only (wire arguments are a dict) and the function returns the
    arguments with the declared defaults filled in; an ``OMIT`` parameter not given is left
    out, so the handler's own default says what "not given" means.
    """
    if any(p.kind == "var_kw" for p in m.params):
        raise ValueError(f"{m.name}: a ** parameter cannot be bound from the wire")
    signature, defaults = _signature_source(m, keywords_only=True)
    fields = ", ".join(f"{p.name!r}: {p.name}" for p in m.params)
    lines = [f"def {m.short}({signature}):", *_check_lines(m), f"    _r = {{{fields}}}"]
    for p in m.params:
        if p.default is OMIT:
            lines += [f"    if {p.name} is _OMIT:", f"        del _r[{p.name!r}]"]
    lines.append("    return _r")
    fn = _compile(m, "\n".join(lines), defaults, f"<wire {m.name}>")
    fn.__qualname__ = m.api
    bind: Callable[..., dict[str, Any]] = fn  # made by exec from the declaration: untyped to mypy
    return bind
