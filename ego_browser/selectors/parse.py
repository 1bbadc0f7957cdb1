"""Parse a selector string (API.md §9) into a structured query.

``parse_selector(s)`` returns a :class:`RefSelector` (``@21``, ``ref=21``, ``21``) or a
:class:`ParsedSelector`, or raises :class:`~ego_browser.errors.InvalidSelector` whose
``detail`` names the offending part. It never raises anything else (a hypothesis test holds it
to that). CSS validity proper is left to the browser: the engine reports a syntax error of a
compound as ``InvalidSelector`` at query time.

Forms (kinds): ``css`` (raw, ``css=``, ``loc=css:``; optional trailing ``:has-text()`` /
``:text-is()`` filters), ``text`` (``text=...``, ``text="..."``, a wholly quoted selector),
``xpath`` (``xpath=``, ``//``, ``(//``, ``..``), ``role`` (``loc=role:``), ``href``
(``loc=href:``); each optionally followed by one terminal ``>> nth=N`` (N >= 0 or -1).

Splitting on ``>>`` and telling an ``engine=`` prefix from CSS follow Playwright's
``parseSelectorString``, so ``[ref=21]`` and ``a[href=x]`` stay CSS.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal, Union

from ..errors import InvalidSelector
from .css import CssComplex, TextFilter, css_unescape_string
from .css import CssError as _CssError
from .css import parse_css as _parse_css
from .role_parse import parse_playwright_role
from .text import invalid_selector as _invalid
from .text import normalize_whitespace

__all__ = [
    "CssComplex",
    "ParsedSelector",
    "RefSelector",
    "Selector",
    "TextFilter",
    "css_unescape_string",
    "normalize_whitespace",
    "parse_selector",
]

Kind = Literal["css", "text", "xpath", "role", "href", "label", "chain", "nth", "visible", "filter"]


@dataclass(frozen=True)
class RefSelector:
    """A snapshot ref; the host resolves it through the page's ledger."""

    ref: int
    source: str

    kind: Literal["ref"] = "ref"


@dataclass(frozen=True)
class ParsedSelector:
    """A non-ref selector, ready for :mod:`ego_browser.selectors.engine`."""

    source: str
    kind: Kind
    css: tuple[CssComplex, ...] = ()
    text: str | None = None  # text=: the query (quotes removed); role: unused
    exact: bool = False  # text=: quoted (strict) form
    xpath: str | None = None
    role: str | None = None
    name: str | None = None
    name_op: str | None = None  # "=", "*=", "^=", "$=", "|=", "~=" (role=), "re" (a regex)
    name_exact: bool = True  # role: case-sensitive name comparison ([name="x" i] turns it off)
    name_flags: str = ""  # role: the flags of a /regex/ name
    states: tuple[tuple[str, Any], ...] = ()  # role=: (checked|pressed|selected|expanded|level|disabled|description, value)
    regex: tuple[str, str] | None = None  # text=/re/flags: (source, flags)
    href: str | None = None
    nth: int | None = None
    visible: bool | None = None  # visible=true|false (a chain step)
    steps: tuple["ParsedSelector", ...] = ()  # kind "chain": the '>>' parts before a terminal nth; "filter": has='s
    negate: bool = False  # kind "filter": has-not= / has-not-text= (keep the elements that do not)
    _spec: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def _replace_nth(self, nth: int | None) -> "ParsedSelector":
        return replace(self, nth=nth, _spec={}) if self.nth != nth else self

    def to_spec(self) -> dict[str, Any]:
        """The JSON-able query the in-page engine runs (not for ``role``)."""
        if self._spec:
            return self._spec
        spec: dict[str, Any]
        if self.kind == "css":
            spec = {"k": "css", "list": [cx.spec() for cx in self.css]}
        elif self.kind == "text":
            if self.regex is not None:
                spec = {"k": "text", "re": self.regex[0], "flags": self.regex[1]}
            else:
                spec = {"k": "text", "text": self.text, "strict": self.exact}
        elif self.kind == "label":
            spec = {"k": "label", "text": self.text, "exact": self.exact}
            if self.regex is not None:
                spec.update(re=self.regex[0], flags=self.regex[1])
        elif self.kind == "chain":
            spec = {"k": "chain", "steps": [st.to_spec() for st in self.steps]}
        elif self.kind == "nth":
            spec = {"k": "nth", "nth": self.nth}
        elif self.kind == "visible":
            spec = {"k": "visible", "v": self.visible}
        elif self.kind == "filter":
            spec = filter_spec(self, lambda step: step.to_spec())
        elif self.kind == "xpath":
            spec = {"k": "xpath", "xpath": self.xpath}
        elif self.kind == "href":
            spec = {"k": "href", "href": self.href}
        else:
            spec = {"k": "role", "role": self.role, "name": self.name, "op": self.name_op}
        self._spec.update(spec)
        return self._spec


Selector = Union[RefSelector, ParsedSelector]


# ------------------------------------------------------------------------------------ helpers

def _playwright_unquote(s: str) -> str:
    """Playwright's cssUnquote for ``text="..."``: strip the quotes, ``\\x`` -> ``x``."""
    s = s[1:-1]
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            i += 1
        out.append(s[i])
        i += 1
    return "".join(out)


# ------------------------------------------------------------------------------------ splitting


def _split_parts(selector: str) -> list[str]:
    """Playwright's parseSelectorString split on ``>>`` outside quotes (parts trimmed)."""
    if ">>" not in selector:
        return [selector.strip()]
    parts: list[str] = []
    index = start = 0
    quote: str | None = None
    n = len(selector)

    def ignore_text_quote() -> bool:
        m = re.match(r"^\s*text\s*=(.*)$", selector[start:index], re.S)
        return bool(m and m.group(1))

    while index < n:
        c = selector[index]
        if c == "\\" and index + 1 < n:
            index += 2
        elif c == quote:
            quote = None
            index += 1
        elif quote is None and c in "\"'`" and not ignore_text_quote():
            quote = c
            index += 1
        elif quote is None and c == ">" and selector[index + 1 : index + 2] == ">":
            parts.append(selector[start:index].strip())
            index += 2
            start = index
        else:
            index += 1
    parts.append(selector[start:index].strip())
    return parts


_ENGINE = re.compile(r"^[a-zA-Z_0-9\-+:*]+$")
_XPATH = re.compile(r"^\(*//")
_REF_AT = re.compile(r"^@(\d+)$")
_REF_EQ = re.compile(r"^ref\s*=\s*(\d+)$")
_DIGITS = re.compile(r"^\d+$")
#: the largest ref number: a ledger issues them one by one from 1, so anything past this is a
#: typo or a probe, refused here before it can reach a page (or overflow a wire's integer)
MAX_REF = 2**31 - 1


def _engine_of(part: str) -> tuple[str, str]:
    """(engine name, body) following Playwright's rules; name ``css`` for plain CSS."""
    eq = part.find("=")
    if eq != -1 and _ENGINE.match(part[:eq].strip()):
        return part[:eq].strip(), part[eq + 1 :]
    if len(part) > 1 and part[0] == part[-1] and part[0] in "\"'":
        return "text", part
    if _XPATH.match(part) or part.startswith(".."):
        return "xpath", part
    return "css", part


# ------------------------------------------------------------------------------------ locators

_ATTRIBUTE_ENGINES = ("id", "data-testid", "data-test-id", "data-test")
#: the most '>>' parts one selector may chain
MAX_CHAIN = 16

_ROLE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:\[(.*)\])?\s*$", re.S)
_ROLE_ATTR = re.compile(r"^\s*([A-Za-z-]+)\s*(\*?=)\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*$", re.S)


def _parse_role(selector: str, body: str) -> tuple[str, str | None, str | None]:
    m = _ROLE.match(body)
    if not m:
        raise _invalid(selector, f"loc=role: expects role or role[name=\"...\"] / role[name*=\"...\"], got {body!r}")
    role = m.group(1).lower()
    attr = m.group(2)
    if attr is None:
        return role, None, None
    a = _ROLE_ATTR.match(attr)
    if not a:
        raise _invalid(selector, f"loc=role: unsupported attribute [{attr}]; only [name=\"...\"] and [name*=\"...\"] are supported")
    if a.group(1).lower() != "name":
        raise _invalid(selector, f"loc=role: unsupported attribute {a.group(1)!r}; only name= and name*= are supported")
    return role, _playwright_unquote(a.group(3)), a.group(2)


def _parse_main(selector: str, part: str) -> dict[str, Any]:
    """Fields of ParsedSelector for the main (non-nth) part."""
    name, body = _engine_of(part)
    if name == "css":
        return _css_fields(selector, body)
    if name == "text":
        if body[:1] == "/" and body.rfind("/") > 0:
            # Playwright: a regex tested on the element's whole text (the browser judges its syntax)
            last = body.rfind("/")
            return {"kind": "text", "text": body, "regex": (body[1:last], body[last + 1 :])}
        if len(body) > 1 and body[0] == body[-1] and body[0] in "\"'":
            return {"kind": "text", "text": _playwright_unquote(body), "exact": True}
        if not normalize_whitespace(body):
            raise _invalid(selector, "text= needs some text")
        return {"kind": "text", "text": body, "exact": False}
    if name == "xpath":
        expr = body.strip()
        if not expr:
            raise _invalid(selector, "xpath= needs an expression")
        return {"kind": "xpath", "xpath": expr}
    if name == "loc":
        kind, sep, rest = body.strip().partition(":")
        if not sep:
            raise _invalid(selector, "loc= expects loc=css:<css>, loc=role:<role>[name=\"...\"] or loc=href:<url>")
        if kind == "css":
            return _css_fields(selector, rest)
        if kind == "role":
            role, name_value, op = _parse_role(selector, rest)
            # ours: name= exact, name*= a case-insensitive substring
            return {"kind": "role", "role": role, "name": name_value, "name_op": op, "name_exact": op != "*="}
        if kind == "href":
            href = rest.strip()
            if not href:
                raise _invalid(selector, "loc=href: needs a URL")
            return {"kind": "href", "href": href}
        raise _invalid(selector, f"unknown locator kind loc={kind}: (expected css, role or href)")
    if name == "role":

        return parse_playwright_role(selector, body)
    if name in _ATTRIBUTE_ENGINES:
        # Playwright's attribute engines: [attr="value"], through shadow roots
        value = body
        quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'
        return _css_fields(selector, f"[{name}={quoted}]")
    if name == "label":
        # ours (Playwright spells it internal:label): quoted = the whole label, exactly
        if body[:1] == "/" and body.rfind("/") > 0:
            last = body.rfind("/")
            return {"kind": "label", "text": body, "regex": (body[1:last], body[last + 1 :])}
        if len(body) > 1 and body[0] == body[-1] and body[0] in "\"'":
            return {"kind": "label", "text": _playwright_unquote(body), "exact": True}
        if not normalize_whitespace(body):
            raise _invalid(selector, "label= needs some text")
        return {"kind": "label", "text": body, "exact": False}
    if name == "visible":
        value = body.strip()
        if value not in ("true", "false"):
            raise _invalid(selector, f"visible= expects true or false, got {value!r}")
        return {"kind": "visible", "visible": value == "true"}
    if name in _FILTERS:
        return _filter_fields(selector, name, body)
    if name == "ref":
        raise _invalid(selector, f"a ref is ref=<digits>, got ref={body}")
    if name == "nth":
        raise _invalid(selector, "nth= must follow a selector, as in '.item >> nth=0'")
    raise _invalid(selector, f"unknown selector engine {name}= (supported: css=, text=, xpath=, role=, label=, id=, "
                             "data-testid=, visible=, has-text=, has-not-text=, has=, has-not=, and=, or=, chain=, nth=, loc=, "
                             "refs)")


#: the filters of Playwright's Locator.filter() (they keep or drop each element found so far),
#: of its and_() / or_() (the elements also / else matched from the query's root), and chain=
#: (locator.locator(a Locator): the inner locator run from each element, its nth= per element)
_FILTERS = ("has-text", "has-not-text", "has", "has-not", "and", "or", "chain")


_MODES = ("and", "or", "chain")


def _filter_fields(selector: str, name: str, body: str) -> dict[str, Any]:
    """``has-text=`` / ``has-not-text=`` (Playwright's ``internal:has-text``: ``"text"i`` a
    substring in any case, ``"text"`` the whole text, ``/re/flags``, or bare text as ``"..."i``)
    and ``has=`` / ``has-not=`` (a JSON-quoted inner selector, run inside each element), ``and=``
    / ``or=`` (the elements it finds from the document: also, or else, in document order)."""
    value = body.strip()
    negate = "-not" in name
    if name in ("has", "has-not", "and", "or", "chain"):
        try:
            inner_source = json.loads(value)
        except ValueError:
            inner_source = None
        if not isinstance(inner_source, str):
            raise _invalid(selector, f'{name}= expects a JSON-quoted selector, as in {name}="role=button"')
        inner = _parse_cached(inner_source)
        if isinstance(inner, RefSelector):
            raise _invalid(selector, f"{name}= takes a selector, not a ref")
        steps = inner.steps if inner.kind == "chain" else (inner._replace_nth(None),)
        if inner.nth is not None:
            steps = (*steps, ParsedSelector(source=f"nth={inner.nth}", kind="nth", nth=inner.nth))
        return {"kind": "filter", "steps": steps, "negate": negate, "text": name if name in _MODES else None}
    if value[:1] == "/" and value.rfind("/") > 0:
        last = value.rfind("/")
        return {"kind": "filter", "text": value, "regex": (value[1:last], value[last + 1 :]), "negate": negate}
    exact = False
    if len(value) > 2 and value[0] == '"' and value[-1] in "is" and value[-2] == '"':
        exact = value[-1] == "s"
        value = value[:-1]
    elif len(value) > 1 and value[0] == value[-1] == '"':
        exact = True
    if len(value) > 1 and value[0] == value[-1] == '"':
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise _invalid(selector, f"{name}= has a badly quoted string: {body.strip()!r}") from exc
    return {"kind": "filter", "text": value, "exact": exact, "negate": negate}


def filter_spec(step: "ParsedSelector", inner: Any) -> dict[str, Any]:
    """The engine's ``filter`` step; ``inner(step)`` gives the spec of each step of a has=."""
    if step.steps:
        spec = {"k": "filter", "not": step.negate, "steps": [inner(s) for s in step.steps]}
        if step.text in _MODES:  # not a filter of each element: see _FILTERS
            spec["mode"] = step.text
        return spec
    if step.regex is not None:
        return {"k": "filter", "not": step.negate, "re": step.regex[0], "flags": step.regex[1]}
    return {"k": "filter", "not": step.negate, "text": step.text, "strict": step.exact}


def _css_fields(selector: str, css: str) -> dict[str, Any]:
    if not css.strip():
        raise _invalid(selector, "empty CSS selector")
    try:
        complexes = _parse_css(css.strip())
    except _CssError as exc:
        raise _invalid(selector, f"{exc} in CSS {css.strip()!r}") from exc
    return {"kind": "css", "css": complexes}


def _parse_nth(selector: str, part: str) -> int:
    _name, body = _engine_of(part)
    value = body.strip()
    if not re.fullmatch(r"-?\d+", value):
        raise _invalid(selector, f"nth= expects an integer >= 0 or -1, got {value!r}")
    if len(value.lstrip("-")) > 10 or int(value) > MAX_REF:
        raise _invalid(selector, f"nth= goes up to {MAX_REF}, got {value[:20]!r}")
    nth = int(value)
    if nth < -1:
        raise _invalid(selector, f"nth= expects an integer >= 0 or -1 (last), got {nth}")
    return nth


@lru_cache(maxsize=512)
def _parse_cached(selector: str) -> Selector:
    stripped = selector.strip()
    if not stripped:
        raise _invalid(selector, "empty selector")
    m = _REF_AT.match(stripped) or _REF_EQ.match(stripped) or _DIGITS.match(stripped)
    if m:
        digits = m.group(1) if m.groups() else m.group(0)
        if len(digits) > 10 or int(digits) > MAX_REF:
            raise _invalid(selector, f"ref numbers go up to {MAX_REF}; take a snapshot and use a ref it shows")
        return RefSelector(int(digits), selector)
    if stripped.startswith("@"):
        raise _invalid(selector, "a ref is @<digits>, as in @21")
    parts = _split_parts(selector)
    if len(parts) > MAX_CHAIN:
        raise _invalid(selector, f"at most {MAX_CHAIN} '>>' parts in one selector")
    nth = None
    if len(parts) > 1 and _engine_of(parts[-1])[0] == "nth":
        nth = _parse_nth(selector, parts[-1])
        parts = parts[:-1]
    for part in parts:
        if not part:
            raise _invalid(selector, "an empty part around '>>'")
        if _REF_AT.match(part) or _REF_EQ.match(part) or _DIGITS.match(part) or part.startswith("@"):
            raise _invalid(selector, "a ref stands alone: it cannot be chained with '>>'"
                           if len(parts) > 1 or nth is None else "'>> nth=N' cannot follow a ref")
    steps = []
    for i, part in enumerate(parts):
        if _engine_of(part)[0] == "nth":
            if i == 0:
                raise _invalid(selector, "nth= must follow a selector, as in '.item >> nth=0'")
            steps.append(ParsedSelector(source=part, kind="nth", nth=_parse_nth(selector, part)))
        else:
            steps.append(ParsedSelector(source=part, **_parse_main(selector, part)))
    if steps[0].kind in ("visible", "filter"):
        name = _engine_of(parts[0])[0]
        raise _invalid(selector, f"{name}= must follow a selector, as in 'button >> {name}=...'")
    if len(steps) == 1:
        only = steps[0]
        return ParsedSelector(source=selector, nth=nth, **{
            f: getattr(only, f) for f in ("kind", "css", "text", "exact", "xpath", "role", "name", "name_op",
                                          "name_exact", "name_flags", "states", "regex", "href", "visible")})
    return ParsedSelector(source=selector, kind="chain", steps=tuple(steps), nth=nth)


def parse_selector(selector: Any) -> Selector:
    """Parse ``selector``; :class:`InvalidSelector` for anything unsupported.

    Args:
        selector: the selector string (a non-string is an ``InvalidSelector`` too).

    Returns:
        A :class:`RefSelector` or :class:`ParsedSelector` (immutable; cached by string).

    Raises:
        InvalidSelector: with ``selector`` and ``detail`` naming the offending part.
    """
    if isinstance(selector, (ParsedSelector, RefSelector)):
        return selector
    if not isinstance(selector, str):
        raise InvalidSelector(
            f"Invalid selector {selector!r}: a selector must be a string",
            selector=repr(selector),
            detail="a selector must be a string",
        )
    try:
        return _parse_cached(selector)
    except InvalidSelector:
        raise
    except RecursionError:  # pragma: no cover - defensive
        raise _invalid(selector, "selector too deeply nested") from None
