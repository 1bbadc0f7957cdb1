"""The CSS part of the selector language: Playwright-compatible text filters on CSS.

Splits a selector list into complex selectors and their compounds, keeps native CSS for the
browser, and pulls out the terminal ``:has-text("...")`` / ``:text-is("...")`` filters with
their arguments decoded as CSS strings. Playwright-only pseudos are refused here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CssComplex", "TextFilter", "css_unescape_string", "parse_css", "CssError"]


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


# the names the parser uses
parse_css = _parse_css
CssError = _CssError
