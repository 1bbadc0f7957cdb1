"""Selector strings for ``page.get_by_role/get_by_text/get_by_label/get_by_placeholder/get_by_test_id``.

Playwright's ``get_by_*`` build ``internal:`` selectors; ours build public selector strings
that find the same elements (the differential oracle compares each with Playwright's own
``get_by_*``), so an agent can print them, chain them with ``>>`` and pass them to any action:

- ``get_by_role("button", name="Save")`` -> ``role=button[name*="Save" i]`` (Playwright's
  non-exact name: a case-insensitive substring); ``exact=True`` -> ``[name="Save" s]``.
- ``get_by_text("Save")`` -> ``text=Save`` (the smallest elements containing it, any case);
  ``exact=True`` -> a regex on the element's whole text, as Playwright's exact text.
- ``get_by_label("Email")`` -> ``label=Email``; exact -> ``label="Email"``.
- ``get_by_placeholder("you@")`` -> ``[placeholder*="you@" i]``; exact -> ``[placeholder="you@"]``.
- ``get_by_test_id("save")`` -> ``[data-testid="save"]``.
- ``get_by_title("Close")`` / ``get_by_alt_text("Logo")`` -> ``[title*="Close" i]`` /
  ``[alt*="Logo" i]``, as the placeholder.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["by_alt_text", "by_label", "by_placeholder", "by_role", "by_test_id", "by_text", "by_title"]


def _quote(text: str) -> str:
    """A double-quoted string for role= attributes and label= (backslash escapes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _css_quote(text: str) -> str:
    """A CSS string (attribute values)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ").replace("\r", "\\d ") + '"'


def _flags(pattern: re.Pattern[str]) -> str:
    out = ""
    if pattern.flags & re.IGNORECASE:
        out += "i"
    if pattern.flags & re.DOTALL:
        out += "s"
    if pattern.flags & re.MULTILINE:
        out += "m"
    return out


def _regex(pattern: re.Pattern[str]) -> str:
    """``/source/flags``; a bare ``/`` in the source is escaped (it would end the literal)."""
    source = str(pattern.pattern)
    out = []
    escaped = False
    for c in source:
        if c == "/" and not escaped:
            out.append("\\/")
        else:
            out.append(c)
        escaped = c == "\\" and not escaped
    return "/" + "".join(out) + "/" + _flags(pattern)


def _words_regex(text: str, *, whole: bool) -> str:
    """Text as a regex that tolerates any whitespace between words (the engines normalise)."""
    words = [re.escape(w) for w in text.split()]
    body = r"\s+".join(words)
    body = body.replace("/", "\\/").replace(">", "\\>")  # no bare ">>": it would split the selector
    return rf"/^\s*{body}\s*$/" if whole else f"/{body}/i"


def _plain_ok(text: str) -> bool:
    """Whether ``engine=<text>`` reads back as exactly this text, as a substring query."""
    t = text.strip()
    return bool(t) and ">>" not in text and not (len(t) > 1 and t[0] == t[-1] and t[0] in "\"'") and not t.startswith("/")


def by_role(role: str, *, name: Any = None, exact: bool = False, checked: bool | None = None,
            disabled: bool | None = None, expanded: bool | None = None, level: int | None = None,
            pressed: bool | None = None, selected: bool | None = None) -> str:
    out = "role=" + role.strip().lower()
    for attr, value in (("checked", checked), ("disabled", disabled), ("expanded", expanded),
                        ("pressed", pressed), ("selected", selected)):
        if value is not None:
            out += f"[{attr}={'true' if value else 'false'}]"
    if level is not None:
        out += f"[level={int(level)}]"
    if isinstance(name, re.Pattern):
        out += f"[name={_regex(name)}]"
    elif name is not None:
        out += f"[name={_quote(name)} s]" if exact else f"[name*={_quote(name)} i]"
    return out


def by_text(text: str | re.Pattern[str], *, exact: bool = False) -> str:
    if isinstance(text, re.Pattern):
        return "text=" + _regex(text)
    if exact:
        return "text=" + _words_regex(text, whole=True)
    if _plain_ok(text):
        return "text=" + text
    return "text=" + _words_regex(text, whole=False)


def by_label(text: str | re.Pattern[str], *, exact: bool = False) -> str:
    if isinstance(text, re.Pattern):
        return "label=" + _regex(text)
    if exact:
        return "label=" + _quote(text)
    if _plain_ok(text):
        return "label=" + text
    return "label=" + _words_regex(text, whole=False)


def _by_attr(attr: str, text: str, exact: bool) -> str:
    if exact:
        return f"[{attr}={_css_quote(text)}]"
    if not text:
        return f"[{attr}]"
    return f"[{attr}*={_css_quote(text)} i]"


def by_placeholder(text: str, *, exact: bool = False) -> str:
    return _by_attr("placeholder", text, exact)


def by_title(text: str, *, exact: bool = False) -> str:
    return _by_attr("title", text, exact)


def by_alt_text(text: str, *, exact: bool = False) -> str:
    return _by_attr("alt", text, exact)


def by_test_id(test_id: str) -> str:
    return f"[data-testid={_css_quote(test_id)}]"
