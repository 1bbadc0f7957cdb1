"""``role=`` as Playwright spells it (its ``parseAttributeSelector`` and role engine's checks).

``role=button[name="Save"]``: the name exact and case-sensitive; ``[name="save" i]`` any case;
``[name*="x"]``, ``^=``, ``$=``, ``|=``, ``~=``; ``[name=/re/flags]``; the states ``checked``,
``pressed``, ``selected``, ``expanded``, ``level``, ``disabled`` on the roles Playwright allows
them for; ``description``. The result is the fields of a ``ParsedSelector`` of kind ``role``.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidSelector
from .text import invalid_selector as _invalid
from .text import normalize_whitespace

__all__ = ["parse_playwright_role", "py_flags"]


# Playwright's role= (roleSelectorEngine): [attr], [attr=value], quoted values with an i/s flag,
# /regex/flags for name and description; which states apply to which roles
_ARIA_CHECKED = ("checkbox", "menuitemcheckbox", "option", "radio", "switch", "menuitemradio", "treeitem")
_ARIA_STATE_ROLES: dict[str, tuple[str, ...]] = {
    "checked": _ARIA_CHECKED,
    "pressed": ("button",),
    "selected": ("gridcell", "option", "row", "tab", "rowheader", "columnheader", "treeitem"),
    "expanded": ("application", "button", "checkbox", "combobox", "gridcell", "link", "listbox", "menuitem", "row",
                 "rowheader", "tab", "treeitem", "columnheader", "menuitemcheckbox", "menuitemradio", "switch"),
    "level": ("heading", "listitem", "row", "treeitem"),
}
_ROLE_STATE_VALUES: dict[str, tuple[Any, ...]] = {
    "checked": (True, False, "mixed"), "pressed": (True, False, "mixed"), "selected": (True, False),
    "expanded": (True, False), "disabled": (True, False),
}


def _read_attribute_selector(selector: str, body: str) -> tuple[str, list[tuple[str, str, Any, bool]]]:
    """Playwright's parseAttributeSelector(allowUnquotedStrings=True): (name, [(attr, op, value,
    case_sensitive)]); op ``<truthy>`` for ``[attr]``; a regex value is ``("re", source, flags)``."""
    s = body
    n = len(s)
    i = 0

    def err(what: str) -> InvalidSelector:
        return _invalid(selector, f"role=: {what} at position {i} of {body!r}")

    def spaces() -> None:
        nonlocal i
        while i < n and s[i].isspace():
            i += 1

    def ident() -> str:
        nonlocal i
        spaces()
        start = i
        while i < n and (s[i].isalnum() or s[i] in "_-" or ord(s[i]) >= 0x80):
            i += 1
        return s[start:i]

    def quoted() -> str:
        nonlocal i
        quote = s[i]
        i += 1
        out = []
        while i < n and s[i] != quote:
            if s[i] == "\\":
                i += 1
                if i >= n:
                    break
            out.append(s[i])
            i += 1
        if i >= n:
            raise err("unterminated quoted string")
        i += 1
        return "".join(out)

    name = ident()
    attrs: list[tuple[str, str, Any, bool]] = []
    spaces()
    while i < n and s[i] == "[":
        i += 1
        spaces()
        attr = quoted() if i < n and s[i] in "\"'" else ident()
        if not attr:
            raise err("expected an attribute name")
        spaces()
        if i < n and s[i] == "]":
            i += 1
            attrs.append((attr, "<truthy>", None, False))
            spaces()
            continue
        op = s[i : i + 1]
        if op != "=":
            op = s[i : i + 2]
        if op not in ("=", "*=", "^=", "$=", "|=", "~="):
            raise err("expected an operator (=, *=, ^=, $=, |=, ~=)")
        i += len(op)
        spaces()
        case_sensitive = True
        value: Any
        if i < n and s[i] == "/":
            if op != "=":
                raise err(f"{op} cannot take a regular expression")
            i += 1
            src = []
            in_class = False
            while i < n:
                c = s[i]
                if c == "\\":
                    src.append(c)
                    i += 1
                    if i >= n:
                        raise err("unterminated regular expression")
                elif in_class and c == "]":
                    in_class = False
                elif not in_class and c == "[":
                    in_class = True
                elif not in_class and c == "/":
                    break
                src.append(s[i])
                i += 1
            if i >= n:
                raise err("unterminated regular expression")
            i += 1
            flags = ""
            while i < n and s[i] in "dgimsuvy":
                flags += s[i]
                i += 1
            value = ("re", "".join(src), flags)
        elif i < n and s[i] in "\"'":
            value = quoted()
            spaces()
            if i < n and s[i] in "iI":
                case_sensitive = False
                i += 1
            elif i < n and s[i] in "sS":
                i += 1
        else:
            start = i
            while i < n and (s[i].isalnum() or s[i] in "_-+." or ord(s[i]) >= 0x80):
                i += 1
            raw = s[start:i]
            value = True if raw == "true" else False if raw == "false" else raw
        spaces()
        if i >= n or s[i] != "]":
            raise err("expected ']'")
        i += 1
        if op != "=" and not isinstance(value, str):
            raise err(f"{op} needs a string value")
        attrs.append((attr, op, value, case_sensitive))
        spaces()
    if i < n:
        raise err(f"unexpected {s[i]!r}")
    return name, attrs


def _compile_name_regex(selector: str, source: str, flags: str) -> tuple[str, str]:
    try:
        re.compile(source, py_flags(flags))
    except re.error as exc:
        raise _invalid(selector, f"role=: the regular expression /{source}/ is not supported here ({exc})") from exc
    return source, flags


def py_flags(flags: str) -> int:
    out = 0
    if "i" in flags:
        out |= re.IGNORECASE
    if "s" in flags:
        out |= re.DOTALL
    if "m" in flags:
        out |= re.MULTILINE
    return out


def parse_playwright_role(selector: str, body: str) -> dict[str, Any]:
    """``role=button[name="Save"]`` exactly as Playwright reads it (roleSelectorEngine)."""
    name, attrs = _read_attribute_selector(selector, body)
    role = name.lower()
    if not role:
        raise _invalid(selector, "role= needs a role, as in role=button[name=\"Save\"]")
    fields: dict[str, Any] = {"kind": "role", "role": role}
    states: list[tuple[str, Any]] = []
    for attr, op, value, case_sensitive in attrs:
        if attr in ("name", "description"):
            if op == "<truthy>":
                raise _invalid(selector, f"role=: [{attr}] needs a value, as in [{attr}=\"Save\"]")
            if isinstance(value, tuple):
                src, flags = _compile_name_regex(selector, value[1], value[2])
                entry: Any = ("re", src, flags)
            elif isinstance(value, str):
                entry = (op, normalize_whitespace(value), case_sensitive)
            else:
                raise _invalid(selector, f"role=: [{attr}] must be a string or a regular expression")
            if attr == "name":
                if entry[0] == "re":
                    fields.update(name=entry[1], name_op="re", name_exact=True, name_flags=entry[2])
                else:
                    fields.update(name=entry[1], name_op=entry[0], name_exact=entry[2])
            else:
                states.append(("description", entry))
            continue
        if attr == "include-hidden":
            raise _invalid(selector, "role=: [include-hidden] is not supported: roles come from Chromium's "
                                     "accessibility tree, where hidden elements have none; use CSS or text= for them")
        if attr == "level":
            if op != "=":
                raise _invalid(selector, "role=: \"level\" attribute must be compared to a number")
            try:
                level = float(value) if isinstance(value, str) else float("nan")
            except ValueError:
                level = float("nan")
            if level != level:
                raise _invalid(selector, "role=: \"level\" attribute must be compared to a number")
            if role not in _ARIA_STATE_ROLES["level"]:
                raise _invalid(selector, f"role=: \"level\" is only supported for roles: {_role_list('level')}")
            states.append(("level", level))
            continue
        if attr not in _ROLE_STATE_VALUES:
            raise _invalid(selector, f"role=: unknown attribute \"{attr}\", must be one of \"checked\", \"description\", "
                                     "\"disabled\", \"expanded\", \"level\", \"name\", \"pressed\", \"selected\"")
        if attr in _ARIA_STATE_ROLES and role not in _ARIA_STATE_ROLES[attr]:
            raise _invalid(selector, f"role=: \"{attr}\" is only supported for roles: {_role_list(attr)}")
        if op not in ("<truthy>", "="):
            raise _invalid(selector, f"role=: \"{attr}\" does not support \"{op}\"")
        v = True if op == "<truthy>" else value
        if v not in _ROLE_STATE_VALUES[attr] or isinstance(v, (int, float)) and not isinstance(v, bool):
            allowed = ", ".join("true" if x is True else "false" if x is False else f'"{x}"' for x in _ROLE_STATE_VALUES[attr])
            raise _invalid(selector, f"role=: \"{attr}\" must be one of {allowed}")
        states.append((attr, v))
    fields["states"] = tuple(states)
    return fields


def _role_list(attr: str) -> str:
    return ", ".join(f'"{r}"' for r in sorted(set(_ARIA_STATE_ROLES[attr])))
