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

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, Union

from ..errors import InvalidSelector
from .css import CssComplex, TextFilter, css_unescape_string
from .css import CssError as _CssError
from .css import parse_css as _parse_css

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

Kind = Literal["css", "text", "xpath", "role", "href"]


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
    name_op: Literal["=", "*="] | None = None
    href: str | None = None
    nth: int | None = None
    _spec: dict = field(default_factory=dict, compare=False, repr=False)

    def to_spec(self) -> dict[str, Any]:
        """The JSON-able query the in-page engine runs (not for ``role``)."""
        if self._spec:
            return self._spec
        spec: dict[str, Any]
        if self.kind == "css":
            spec = {
                "k": "css",
                "list": [
                    {
                        "full": cx.full,
                        "c": list(cx.compounds),
                        "k": list(cx.combinators),
                        "f": [[f.kind, f.text] for f in cx.filters],
                    }
                    for cx in self.css
                ],
            }
        elif self.kind == "text":
            spec = {"k": "text", "text": self.text, "strict": self.exact}
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

# JavaScript's \s (what the in-page normalisation uses), spelled out for Python.
_JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS_RUN = re.compile(f"[{_JS_WS}]+")
_ZW = re.compile("[\u200b\u00ad]")


def normalize_whitespace(text: str) -> str:
    """The engine's normalisation: drop U+200B/U+00AD, trim, collapse whitespace runs."""
    return _WS_RUN.sub(" ", _ZW.sub("", text)).strip(" ")


def _invalid(selector: str, detail: str) -> InvalidSelector:
    return InvalidSelector(f"Invalid selector {selector!r}: {detail}", selector=selector, detail=detail)


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
            raise _invalid(selector, "regular expressions (text=/re/) are not supported; use text=<substring>")
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
            return {"kind": "role", "role": role, "name": name_value, "name_op": op}
        if kind == "href":
            href = rest.strip()
            if not href:
                raise _invalid(selector, "loc=href: needs a URL")
            return {"kind": "href", "href": href}
        raise _invalid(selector, f"unknown locator kind loc={kind}: (expected css, role or href)")
    if name == "ref":
        raise _invalid(selector, f"a ref is ref=<digits>, got ref={body}")
    if name == "nth":
        raise _invalid(selector, "nth= must follow a selector, as in '.item >> nth=0'")
    raise _invalid(selector, f"unknown selector engine {name}= (supported: css=, text=, xpath=, loc=, refs)")


def _css_fields(selector: str, css: str) -> dict[str, Any]:
    if not css.strip():
        raise _invalid(selector, "empty CSS selector")
    try:
        complexes = _parse_css(css.strip())
    except _CssError as exc:
        raise _invalid(selector, f"{exc} in CSS {css.strip()!r}") from None
    return {"kind": "css", "css": complexes}


def _parse_nth(selector: str, part: str) -> int:
    name, body = _engine_of(part)
    if name != "nth":
        raise _invalid(
            selector,
            f"'>> {part}': only one terminal '>> nth=N' step is supported after a selector; chains are not",
        )
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
    if len(parts) > 2:
        raise _invalid(selector, "only one terminal '>> nth=N' step is supported; '>>' chains are not")
    nth = None
    if len(parts) == 2:
        main = parts[0]
        nth = _parse_nth(selector, parts[1])
        if not main:
            raise _invalid(selector, "'>> nth=N' needs a selector before it")
        if _REF_AT.match(main) or _REF_EQ.match(main) or _DIGITS.match(main) or main.startswith("@"):
            raise _invalid(selector, "'>> nth=N' cannot follow a ref")
    else:
        main = parts[0]
    fields = _parse_main(selector, main)
    return ParsedSelector(source=selector, nth=nth, **fields)


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
