"""Leaner looks at a printed snapshot: link targets only where they say something, ``grep``,
and the delta of a new document against the page's previous one.

All of it works on the node table or on printed lines; nothing here captures or numbers.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidArgument

__all__ = ["lean_urls", "grep_lines", "document_delta", "summary", "line_parents", "LANDMARKS"]


#: targets that leave the site (a same-origin target prints as a path)
_FOREIGN = ("http:", "https:", "//", "mailto:", "tel:", "ftp:")


def lean_urls(role: list[Any], name: list[Any], url: list[Any]) -> list[Any]:
    """The ``url`` column with a link's target kept only where its name does not tell it.

    Kept: a link with no name and a name that other links on the page share with another
    target ("Edit", "Read more"), as printed; a target on another site shortens to its host
    (``url=docs.example``, ``url=mailto:``): the agent learns it leaves the site. Measured in
    docs/architecture.md ("Link targets")."""
    targets: dict[str, Any] = {}
    for i, u in enumerate(url):
        if u and role[i] == "link":
            nm = name[i]
            seen = targets.get(nm)
            if seen is None:
                targets[nm] = u
            elif seen != u:
                targets[nm] = False  # a name with two targets
    out = list(url)
    for i, u in enumerate(url):
        if not u or role[i] != "link":
            continue
        nm = name[i]
        if not nm or targets.get(nm) is False:
            continue
        out[i] = _host(u) if u.startswith(_FOREIGN) else ""
    return out


def _host(u: str) -> str:
    if u.startswith("//"):
        u = "http:" + u
    host = urlsplit(u).netloc
    return host or u.split(":", 1)[0] + ":"


def _pattern(grep: str) -> Any:
    """``/regex/`` (``/regex/i`` ignores case) or a case-insensitive substring."""
    if len(grep) >= 2 and grep.startswith("/") and (grep.endswith("/") or grep.endswith("/i")):
        body = grep[1:-1] if grep.endswith("/") else grep[1:-2]
        try:
            rx = re.compile(body, re.IGNORECASE if grep.endswith("/i") else 0)
        except re.error as exc:
            raise InvalidArgument(f"grep: {grep} is not a valid regular expression ({exc}); use /.../ with Python "
                                  "regex syntax, or plain text", api="page.snapshot", option="grep",
                                  expected="text or /regex/") from exc
        return rx.search
    low = grep.lower()
    return lambda line: low in line.lower()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def line_parents(lines: list[str]) -> list[int]:
    """The index of each printed line's parent line (by indentation), -1 for a top line: the one
    line parser of ``grep_lines``, ``document_delta`` and ``modes.diff_lines``."""
    parent = [-1] * len(lines)
    stack: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        ind = _indent(line)
        while stack and stack[-1][0] >= ind:
            stack.pop()
        if stack:
            parent[i] = stack[-1][1]
        stack.append((ind, i))
    return parent


def grep_lines(body: str, grep: str) -> str:
    """The lines of ``body`` that match ``grep``, each under the ancestors and the nearest
    heading above it that locate it (printed once), then a count line."""
    match = _pattern(grep)
    lines = body.split("\n") if body else []
    parent = line_parents(lines)
    keep = [False] * len(lines)
    hits = 0
    heading = -1
    for i, line in enumerate(lines):
        # a match in the search text only, never in the ref or locator of a line
        if line.lstrip(" ").startswith("heading "):
            heading = i
        if not match(_searchable(line)):
            continue
        hits += 1
        keep[i] = True
        p = parent[i]
        while p != -1 and not keep[p]:
            keep[p] = True
            p = parent[p]
        if heading != -1 and not keep[heading]:
            keep[heading] = True
            p = parent[heading]
            while p != -1 and not keep[p]:
                keep[p] = True
                p = parent[p]
    out = [line for i, line in enumerate(lines) if keep[i]]
    out.append(f"[grep {grep}: {hits} of {len(lines)} lines match]" if hits else
               f"[grep {grep}: no line matches; {len(lines)} lines searched]")
    return "\n".join(out)


_MARKS = re.compile(r" \[(?:ref|loc|url)=[^\n]*?\](?=$|: | \[)")


def _searchable(line: str) -> str:
    return _MARKS.sub("", line)


def summary(body: str) -> str:
    """``812 lines, 41 KB, 120 refs, 14 headings, 6 landmarks``: what a saved look holds."""
    lines = body.split("\n") if body else []
    refs = body.count("[ref=")
    heads = sum(1 for ln in lines if ln.lstrip(" ").startswith("heading "))
    marks = sum(1 for ln in lines if ln.lstrip(" ").split(" ", 1)[0] in LANDMARKS)
    size = len(body.encode())
    kb = f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} B"
    return f"{len(lines)} lines, {kb}, {refs} refs, {heads} headings, {marks} landmarks"


# -- deltas across documents --------------------------------------------------------------------

#: the parts of a page that stay put from page to page; each collapses to one line when unchanged
LANDMARKS = frozenset({"banner", "navigation", "contentinfo", "complementary", "search", "main", "form",
                       "region", "menubar", "toolbar", "tablist"})

_REF = re.compile(r"\[ref=(\d+)")
_REFS_ONLY = re.compile(r"(?<=\[)ref=\d+(?:, )?|, ref=\d+")


def _plain(line: str) -> str:
    """A line without its ref number: what stays the same when a landmark is reprinted
    with new refs after a navigation."""
    return _REFS_ONLY.sub("", line).replace(" []", "")


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of every landmark subtree not inside another landmark, in order."""
    out = []
    i = 0
    while i < len(lines):
        word = lines[i].lstrip(" ").split(" ", 1)[0]
        if word in LANDMARKS:
            ind = _indent(lines[i])
            j = i + 1
            while j < len(lines) and _indent(lines[j]) > ind:
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


def _refs(lines: list[str]) -> list[int]:
    return [int(m.group(1)) for ln in lines for m in _REF.finditer(ln)]


def _span(refs: list[int]) -> str:
    if not refs:
        return ""
    lo, hi = min(refs), max(refs)
    return f"@{lo}" if lo == hi else f"@{lo}-@{hi}"


def document_delta(old: str, new: str) -> tuple[str, int] | None:
    """``new`` (a later document of the page) with every landmark that ``old`` printed the same
    way collapsed to one line; ``(text, landmarks collapsed)``, or None when none is.

    A collapsed line is the landmark's own line with ``= unchanged``, the refs it holds now and,
    when they were renumbered, the refs the same lines had (the k-th ref of the range is the
    k-th of the old range, in print order). Everything else prints in full, and so does a
    landmark whose lines are shorter than that one line."""
    old_lines = old.split("\n") if old else []
    new_lines = new.split("\n") if new else []
    seen: dict[tuple[str, ...], list[int]] = {}
    for s, e in _blocks(old_lines):
        key = tuple(_plain(ln).lstrip(" ") for ln in old_lines[s:e])
        seen.setdefault(key, _refs(old_lines[s:e]))
    if not seen:
        return None
    out: list[str] = []
    collapsed = 0
    at = 0
    for s, e in _blocks(new_lines):
        block = new_lines[s:e]
        key = tuple(_plain(ln).lstrip(" ") for ln in block)
        was = seen.get(key)
        if was is None:
            continue
        now = _refs(block)
        head = _plain(block[0]) if now else block[0]
        note = f"{head} = unchanged ({e - s} lines"
        if now:
            note += f", {_span(now)}" + (f" were {_span(was)}" if now != was else "")
        note += ")"
        if len(note) >= sum(len(x) + 1 for x in block):
            continue  # a small landmark prints as it is: shorter than its summary
        out.extend(new_lines[at:s])
        out.append(note)
        collapsed += 1
        at = e
    if not collapsed:
        return None
    out.extend(new_lines[at:])
    return "\n".join(out), collapsed
