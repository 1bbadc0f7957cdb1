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
class TextFilter:
    """``:has-text("...")`` (kind ``has``) or ``:text-is("...")`` (kind ``is``), decoded."""

    kind: Literal["has", "is"]
    text: str


@dataclass(frozen=True)
class CssComplex:
    """One complex selector: compounds joined by combinators, plus trailing text filters.

    ``combinators[i]`` joins ``compounds[i]`` to ``compounds[i + 1]`` (one of ``' '``, ``'>'``,
    ``'+'``, ``'~'``); ``full`` is the native CSS of the whole complex (filters removed).
    """

    compounds: tuple[str, ...]
    combinators: tuple[str, ...]
    filters: tuple[TextFilter, ...] = ()

    @property
    def full(self) -> str:
        out = [self.compounds[0]]
        for comb, compound in zip(self.combinators, self.compounds[1:]):
            out.append(" " if comb == " " else f" {comb} ")
            out.append(compound)
        return "".join(out)


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


_HEX = frozenset("0123456789abcdefABCDEF")
_CSS_WS = " \t\n\r\f"


def css_unescape_string(body: str) -> str:
    """Decode the escapes of a CSS string body (CSS Syntax §4.3.7): ``\\41 B`` -> ``AB``."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= n:
            break  # a lone backslash at the end is dropped
        c = body[i]
        if c == "\n" or c == "\f":
            i += 1  # line continuation
        elif c == "\r":
            i += 2 if body[i + 1 : i + 2] == "\n" else 1
        elif c in _HEX:
            j = i
            while j < n and j - i < 6 and body[j] in _HEX:
                j += 1
            cp = int(body[i:j], 16)
            if cp == 0 or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
                cp = 0xFFFD
            out.append(chr(cp))
            i = j
            if i < n and body[i] in _CSS_WS:
                i += 2 if body[i : i + 2] == "\r\n" else 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


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


# ------------------------------------------------------------------------------------ CSS

_PLAYWRIGHT_ONLY = frozenset(
    {"visible", "text", "text-matches", "nth-match", "near", "above", "below", "left-of", "right-of", "light"}
)
_TEXT_FILTERS = {"has-text": "has", "text-is": "is"}
_COMBINATOR_CHARS = ">+~"


class _CssError(Exception):
    pass


def _ident_at(s: str, i: int) -> int:
    """End index of a (simplified) CSS identifier starting at ``i``."""
    n = len(s)
    while i < n:
        c = s[i]
        if c.isalnum() or c in "-_" or ord(c) >= 0x80:
            i += 1
        elif c == "\\" and i + 1 < n:
            i += 2
        else:
            break
    return i


def _skip_escape(s: str, i: int) -> int:
    """``s[i]`` is a backslash; index after the escape (hex escapes eat one whitespace)."""
    n = len(s)
    i += 1
    if i >= n:
        return i
    if s[i] in _HEX:
        j = i
        while j < n and j - i < 6 and s[j] in _HEX:
            j += 1
        if j < n and s[j] in _CSS_WS:
            j += 1
        return j
    return i + 1


def _skip_string(s: str, i: int) -> int:
    """``s[i]`` is a quote; index after the closing quote. Raises on a bad string."""
    quote = s[i]
    n = len(s)
    i += 1
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2 if i + 1 < n else 1
        elif c == quote:
            return i + 1
        elif c == "\n":
            raise _CssError("unterminated string (newline inside quotes)")
        else:
            i += 1
    raise _CssError("unterminated string")


def _parse_filter_arg(s: str, i: int, name: str) -> tuple[str, int]:
    """Parse ``("...")`` at ``s[i] == '('``; returns (decoded text, index after ')')."""
    n = len(s)
    j = i + 1
    while j < n and s[j] in _CSS_WS:
        j += 1
    if j >= n or s[j] not in "\"'":
        raise _CssError(f":{name}() takes a quoted string, as in :{name}(\"Save\")")
    end = _skip_string(s, j)
    text = css_unescape_string(s[j + 1 : end - 1])
    k = end
    while k < n and s[k] in _CSS_WS:
        k += 1
    if k >= n or s[k] != ")":
        raise _CssError(f":{name}() takes exactly one quoted string")
    return text, k + 1


def _parse_css(css: str) -> tuple[CssComplex, ...]:
    """Split CSS into complex selectors and compounds; pull out trailing text filters."""
    s = css
    n = len(s)
    complexes: list[CssComplex] = []
    compounds: list[str] = []
    combinators: list[str] = []
    filters: list[TextFilter] = []
    filter_pos: list[int] = []  # index in compounds of the compound holding filters
    buf: list[str] = []  # text of the current compound
    pending: str | None = None  # combinator seen since the last compound
    depth = 0  # parentheses
    i = 0

    def end_compound() -> None:
        nonlocal pending
        text = "".join(buf).strip()
        buf.clear()
        has_filter = bool(filter_pos) and filter_pos[-1] == len(compounds)
        if not text:
            if has_filter:
                text = "*"
            else:
                raise _CssError("a combinator or comma has no selector on one side")
        if compounds:
            combinators.append(pending or " ")
        elif pending:
            raise _CssError(f"selector starts with the combinator {pending!r}")
        pending = None
        compounds.append(text)

    def end_complex() -> None:
        nonlocal pending
        if buf and "".join(buf).strip() or (filter_pos and filter_pos[-1] == len(compounds)):
            end_compound()
        if pending is not None:
            raise _CssError(f"selector ends with the combinator {pending!r}")
        if not compounds:
            raise _CssError("empty selector")
        for pos in filter_pos:
            if pos != len(compounds) - 1:
                raise _CssError(":has-text() and :text-is() may only end the last compound")
        complexes.append(CssComplex(tuple(compounds), tuple(combinators), tuple(filters)))
        compounds.clear()
        combinators.clear()
        filters.clear()
        filter_pos.clear()

    def in_filter_tail() -> bool:
        return bool(filter_pos) and filter_pos[-1] == len(compounds)

    while i < n:
        c = s[i]
        if depth == 0 and in_filter_tail() and c not in _CSS_WS + _COMBINATOR_CHARS + ",:":
            raise _CssError(":has-text() and :text-is() must come last in their compound")
        if c == "\\":
            j = _skip_escape(s, i)
            buf.append(s[i:j])
            i = j
        elif c in "\"'":
            j = _skip_string(s, i)
            buf.append(s[i:j])
            i = j
        elif c == "[":
            # attribute selector: copy verbatim to the matching ']'
            j = i + 1
            while j < n and s[j] != "]":
                if s[j] == "\\":
                    j = _skip_escape(s, j)
                elif s[j] in "\"'":
                    j = _skip_string(s, j)
                else:
                    j += 1
            if j >= n:
                raise _CssError("unclosed '['")
            buf.append(s[i : j + 1])
            i = j + 1
        elif c == "]":
            raise _CssError("unexpected ']'")
        elif c == "(":
            depth += 1
            buf.append(c)
            i += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise _CssError("unexpected ')'")
            buf.append(c)
            i += 1
        elif c == "#" and depth >= 0:
            j = i + 1
            if j < n and (s[j].isdigit() or (s[j] == "-" and j + 1 < n and s[j + 1].isdigit())):
                k = _ident_at(s, j + (1 if s[j] == "-" else 0))
                ident = s[j:k]
                raise _CssError(f"'#{ident}' is not a valid id selector (an id may not start with a digit); write [id=\"{ident}\"]")
            buf.append(c)
            i += 1
        elif c == ":":
            if s[i + 1 : i + 2] == ":":
                buf.append("::")
                i += 2
                continue
            j = _ident_at(s, i + 1)
            name = s[i + 1 : j].lower()
            if name in _TEXT_FILTERS:
                if depth != 0:
                    raise _CssError(f":{name}() cannot be nested inside another pseudo-class")
                if j >= n or s[j] != "(":
                    raise _CssError(f":{name} needs a quoted argument, as in :{name}(\"Save\")")
                text, k = _parse_filter_arg(s, j, name)
                filter_pos.append(len(compounds))
                filters.append(TextFilter(_TEXT_FILTERS[name], text))
                i = k
                continue
            if name in _PLAYWRIGHT_ONLY:
                raise _CssError(f"the Playwright-only pseudo-class :{name} is not supported")
            if in_filter_tail():
                raise _CssError(":has-text() and :text-is() must come last in their compound")
            if name == "scope" and depth == 0 and (j >= n or s[j] != "("):
                buf.append(":root")  # Playwright: :scope of a document query is its root element
            else:
                buf.append(s[i:j])
            i = j
        elif depth == 0 and (c in _CSS_WS or c in _COMBINATOR_CHARS):
            # combinator: whitespace, optionally one of > + ~ surrounded by whitespace
            j = i
            comb = " "
            while j < n and s[j] in _CSS_WS:
                j += 1
            if j < n and s[j] in _COMBINATOR_CHARS:
                comb = s[j]
                j += 1
                while j < n and s[j] in _CSS_WS:
                    j += 1
            if j >= n or s[j] == ",":
                if comb != " ":
                    raise _CssError(f"selector ends with the combinator {comb!r}")
                i = j
                continue
            if not "".join(buf).strip() and not in_filter_tail():
                if compounds or comb != " " or filters:
                    raise _CssError(f"combinator {comb!r} has no selector before it")
                i = j  # leading whitespace
                continue
            end_compound()
            pending = comb
            i = j
        elif depth == 0 and c == ",":
            end_complex()
            i += 1
        elif c in "{};@":
            raise _CssError(f"unsupported character {c!r}")
        else:
            buf.append(c)
            i += 1
    if depth != 0:
        raise _CssError("unbalanced '('")
    end_complex()
    if len(complexes) > 1 and any(cx.filters for cx in complexes):
        raise _CssError(":has-text() and :text-is() cannot be used in a selector list")
    return tuple(complexes)


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
        return RefSelector(int(m.group(1) if m.groups() else m.group(0)), selector)
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
