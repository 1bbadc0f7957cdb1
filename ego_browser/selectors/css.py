"""The CSS part of the selector language: Playwright-compatible text filters on CSS.

Splits a selector list into complex selectors and their compounds, keeps native CSS for the
browser, and pulls out Playwright's own pseudo-classes of each compound (``:has-text()``,
``:text-is()``, ``:text()``, ``:text-matches()``, ``:visible``, and ``:has()``, which in
Playwright sees into shadow roots) with their arguments decoded as CSS strings. The layout
pseudos (``:near()`` ...), ``:nth-match()`` and ``:light`` are refused here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CssComplex", "TextFilter", "css_unescape_string", "parse_css", "CssError"]


@dataclass(frozen=True)
class TextFilter:
    """A Playwright pseudo-class on one compound, decoded.

    ``has`` (``:has-text()``), ``is`` (``:text-is()``), ``text`` (``:text()``), ``matches``
    (``:text-matches(re, flags)``, ``flags`` set), ``visible`` (``:visible``), ``sel``
    (``:has(<relative selector list>)``, ``inner`` set: Playwright's own ``:has``, which sees
    into shadow roots).
    """

    kind: Literal["has", "is", "text", "matches", "visible", "sel"]
    text: str = ""
    flags: str = ""
    inner: tuple["CssComplex", ...] = ()

    def spec(self) -> list[Any]:
        if self.kind == "sel":
            return ["sel", [cx.spec() for cx in self.inner]]
        if self.kind == "matches":
            return ["matches", self.text, self.flags]
        if self.kind == "visible":
            return ["visible"]
        return [self.kind, self.text]


@dataclass(frozen=True)
class CssComplex:
    """One complex selector: compounds joined by combinators, each with its pseudo filters.

    ``combinators[i]`` joins ``compounds[i]`` to ``compounds[i + 1]`` (one of ``' '``, ``'>'``,
    ``'+'``, ``'~'``); ``full`` is the native CSS of the whole complex (filters removed).
    ``compound_filters[i]`` are the filters of compound ``i`` (empty tuples when none);
    ``lead`` is the leading combinator of a relative selector (inside ``:has()``).
    """

    compounds: tuple[str, ...]
    combinators: tuple[str, ...]
    compound_filters: tuple[tuple[TextFilter, ...], ...] = ()
    lead: str | None = None

    @property
    def filters(self) -> tuple[TextFilter, ...]:
        """The last compound's filters."""
        return self.compound_filters[-1] if self.compound_filters else ()

    @property
    def general(self) -> bool:
        """Whether the browser cannot match the complex alone (a filter before the last
        compound, or a ``:has()`` anywhere)."""
        cf = self.compound_filters
        return any(cf[:-1]) or any(f.kind == "sel" for fs in cf for f in fs) or self.lead is not None

    @property
    def full(self) -> str:
        out = [self.compounds[0]]
        for comb, compound in zip(self.combinators, self.compounds[1:]):
            out.append(" " if comb == " " else f" {comb} ")
            out.append(compound)
        return "".join(out)

    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"full": self.full, "c": list(self.compounds), "k": list(self.combinators),
                     "f": [f.spec() for f in self.filters]}
        if self.general or any(self.compound_filters[:-1]):
            out["g"] = True
            out["cf"] = [[f.spec() for f in fs] for fs in self.compound_filters]
        if self.lead is not None:
            out["lead"] = self.lead
        return out


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


# ------------------------------------------------------------------------------------ CSS

_PLAYWRIGHT_ONLY = frozenset({"nth-match", "near", "above", "below", "left-of", "right-of", "light"})
#: Playwright's pseudo-classes we run ourselves, with one quoted argument
_TEXT_FILTERS: dict[str, Literal["has", "is", "text", "matches"]] = {
    "has-text": "has", "text-is": "is", "text": "text", "text-matches": "matches",
}
_COMBINATOR_CHARS = ">+~"
#: how deep :has() may nest inside :has()
_MAX_HAS_DEPTH = 8


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


def _parse_string_args(s: str, i: int, name: str, most: int) -> tuple[list[str], int]:
    """Parse ``("...", ...)`` at ``s[i] == '('``: 1..``most`` quoted strings, decoded."""
    n = len(s)
    args: list[str] = []
    j = i + 1
    while True:
        while j < n and s[j] in _CSS_WS:
            j += 1
        if j >= n or s[j] not in "\"'":
            raise _CssError(f":{name}() takes a quoted string, as in :{name}(\"Save\")")
        end = _skip_string(s, j)
        args.append(css_unescape_string(s[j + 1 : end - 1]))
        k = end
        while k < n and s[k] in _CSS_WS:
            k += 1
        if k < n and s[k] == "," and len(args) < most:
            j = k + 1
            continue
        if k >= n or s[k] != ")":
            raise _CssError(f":{name}() takes exactly one quoted string" if most == 1
                            else f":{name}() takes a quoted pattern and optional quoted flags")
        return args, k + 1


def _matching_paren(s: str, i: int) -> int:
    """``s[i] == '('``: the index of its ``')'`` (strings, escapes, brackets skipped)."""
    n = len(s)
    depth = 0
    j = i
    while j < n:
        c = s[j]
        if c == "\\":
            j = _skip_escape(s, j)
            continue
        if c in "\"'":
            j = _skip_string(s, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise _CssError("unbalanced '('")


def _parse_css(css: str, *, relative: bool = False, has_depth: int = 0) -> tuple[CssComplex, ...]:
    """Split CSS into complex selectors and compounds; pull out Playwright's pseudo-classes.

    ``relative``: the argument of ``:has()``, where a complex may start with a combinator.
    """
    s = css
    n = len(s)
    complexes: list[CssComplex] = []
    compounds: list[str] = []
    combinators: list[str] = []
    cfilters: list[tuple[TextFilter, ...]] = []
    current: list[TextFilter] = []  # filters of the compound being read
    buf: list[str] = []  # native text of the current compound
    pending: str | None = None  # combinator seen since the last compound
    lead: str | None = None
    depth = 0  # parentheses
    i = 0

    def end_compound() -> None:
        nonlocal pending, lead
        text = "".join(buf).strip()
        buf.clear()
        if not text:
            if current:
                text = "*"
            else:
                raise _CssError("a combinator or comma has no selector on one side")
        if compounds:
            combinators.append(pending or " ")
        elif pending:
            if not relative:
                raise _CssError(f"selector starts with the combinator {pending!r}")
            lead = pending
        pending = None
        compounds.append(text)
        cfilters.append(tuple(current))
        current.clear()

    def end_complex() -> None:
        nonlocal pending, lead
        if "".join(buf).strip() or current:
            end_compound()
        if pending is not None:
            raise _CssError(f"selector ends with the combinator {pending!r}")
        if not compounds:
            raise _CssError("empty selector")
        filters = tuple(cfilters) if any(cfilters) else ()  # () when no compound has any
        complexes.append(CssComplex(tuple(compounds), tuple(combinators), filters, lead))
        compounds.clear()
        combinators.clear()
        cfilters.clear()
        lead = None

    while i < n:
        c = s[i]
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
            if name in _TEXT_FILTERS or name == "visible" or (name == "has" and depth == 0):
                if depth != 0:
                    raise _CssError(f":{name}() cannot be nested inside another pseudo-class")
                if name == "visible":
                    if j < n and s[j] == "(":
                        raise _CssError(":visible takes no argument")
                    current.append(TextFilter("visible"))
                    i = j
                    continue
                if j >= n or s[j] != "(":
                    raise _CssError(f":{name} needs a quoted argument, as in :{name}(\"Save\")" if name != "has"
                                    else ":has needs a selector, as in :has(a)")
                if name == "has":
                    if has_depth >= _MAX_HAS_DEPTH:
                        raise _CssError(":has() nested too deeply")
                    close = _matching_paren(s, j)
                    inner = s[j + 1 : close]
                    if not inner.strip():
                        raise _CssError(":has() needs a selector, as in :has(a)")
                    current.append(TextFilter("sel", inner=_parse_css(inner, relative=True, has_depth=has_depth + 1)))
                    i = close + 1
                    continue
                kind = _TEXT_FILTERS[name]
                args, k = _parse_string_args(s, j, name, 2 if kind == "matches" else 1)
                current.append(TextFilter(kind, args[0], args[1] if len(args) > 1 else ""))
                i = k
                continue
            if name in _PLAYWRIGHT_ONLY:
                raise _CssError(f"the Playwright-only pseudo-class :{name} is not supported")
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
            if not "".join(buf).strip() and not current:
                if compounds or comb != " " and not relative or pending is not None:
                    raise _CssError(f"combinator {comb!r} has no selector before it")
                if comb != " ":
                    pending = comb  # the lead of a relative selector
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
    return tuple(complexes)


# the names the parser uses
parse_css = _parse_css
CssError = _CssError
