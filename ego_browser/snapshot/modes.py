"""Snapshot modes on top of the full node table / printed text.

``interactive_table`` keeps what an agent acts on (ref-bearing nodes) with what locates them:
headings, frame roots, named ancestors (``form "Login"``, ``dialog "Cart"``, ``navigation
"Primary"``), the rows that hold a kept node and those rows' named cells (a table row is
located by its text). Texts, unnamed wrappers and the options of a ``<select>`` (its value is on
its own line) are left out; kept nodes move up to their nearest kept ancestor.

``diff_lines`` prints only what changed between two printed snapshots of a page (see its doc).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from .looks import line_parents
from .twin import FLAG_REF

__all__ = ["interactive_table", "diff_lines", "DIFF_MAX_LINES"]

#: the most text a nameless ref carries from its content (as long as a printed value)
_CARRY_MAX = 100

#: roles that locate the nodes under them even without a name
_FRAMING = frozenset({"root", "iframe", "dialog", "alertdialog", "row", "table", "grid", "treegrid", "form",
                      "navigation", "main", "banner", "contentinfo", "complementary", "search", "menu",
                      "menubar", "tablist", "toolbar", "listbox", "tree", "radiogroup"})


def interactive_table(depth: list[Any], role: list[Any], name: list[Any], flags: list[Any], key: list[Any], url: list[Any], loc: list[Any],
                      state: list[Any], value: list[Any]) -> tuple[list[Any], ...]:
    """The ``interactive=True`` node table (same columns as the input)."""
    n = len(depth)
    parent = [-1] * n
    stack: list[int] = []
    for i in range(n):
        d = depth[i]
        del stack[d:]
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
    keep = [False] * n
    # a node is kept when it is acted on or names a place; its ancestors then may frame it
    needed = [False] * n
    for i in range(n):
        r = role[i]
        if flags[i] & FLAG_REF or r == "heading" or (r == "root" and depth[i] == 0):
            keep[i] = True
            p = parent[i]
            while p != -1 and not needed[p]:
                needed[p] = True
                p = parent[p]
    for i in range(n):
        if keep[i] or not needed[i]:
            continue
        r = role[i]
        if r in _FRAMING or (name[i] and r not in ("text", "container", "cell", "listitem", "paragraph")):
            keep[i] = True
    # the named cells of a row that holds a kept node say which row it is
    for i in range(n):
        if role[i] in ("cell", "rowheader") and name[i] and not keep[i]:
            p = parent[i]
            if p != -1 and role[p] == "row" and needed[p]:
                keep[i] = True
    value = _carry_text(depth, role, name, flags, value, keep)
    out: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [], [])
    new_depth = [0] * n
    for i in range(n):
        if not keep[i]:
            continue
        p = parent[i]
        while p != -1 and not keep[p]:
            p = parent[p]
        d = 0 if p == -1 else new_depth[p] + 1
        new_depth[i] = d
        for col, src in zip(out, (new_depth, role, name, flags, key, url, loc, state, value)):
            col.append(src[i])
    return out


def _carry_text(depth: list[Any], role: list[Any], name: list[Any], flags: list[Any], value: list[Any],
                keep: list[bool]) -> list[Any]:
    """``value`` where a kept ref with no name and no value carries the text of the content this
    mode leaves out (``listitem [ref=7]: Open Enter``), not as a name: it is not the accessible name.

    Content of a kept descendant is left to that descendant's own line; an iframe's content is
    its frame's document, not a label."""
    out = value
    n = len(depth)
    for i in range(n):
        if not (keep[i] and flags[i] & FLAG_REF) or name[i] or value[i] or role[i] == "iframe":
            continue
        parts: list[str] = []
        d = depth[i]
        j = i + 1
        while j < n and depth[j] > d:
            if keep[j]:
                dj = depth[j]
                j += 1
                while j < n and depth[j] > dj:
                    j += 1
                continue
            if name[j] and role[j] != "option":
                parts.append(name[j])
            j += 1
        text = " ".join(" ".join(parts).split())
        if text:
            if out is value:
                out = list(value)
            out[i] = text if len(text) <= _CARRY_MAX else text[:_CARRY_MAX - 1] + "\u2026"
    return out


#: above this many differing lines (each side) the change is shown as a full snapshot
DIFF_MAX_LINES = 4000


def _identity(line: str) -> str:
    """What names a line's node across snapshots: its ref, else its indent, role and name."""
    at = line.find("[ref=")
    if at >= 0:
        end = line.find("]", at)
        comma = line.find(",", at)
        if comma != -1 and comma < end:
            end = comma
        return line[at:end]
    cut = len(line)
    for mark in (" [", ": "):
        k = line.find(mark)
        if k != -1:
            cut = min(cut, k)
    return line[:cut]


def diff_lines(old: list[str], new: list[str]) -> tuple[list[str], dict[str, int]] | None:
    """Lines of ``new`` that differ from ``old``, each after the ancestors that locate it.

    Every output line is a marker and a space, then the snapshot line as printed: ``+`` added,
    ``-`` removed (as it was), ``~`` the same node (same ref, or same place, role and name) with
    another state, value or metadata, and a blank marker for an unchanged ancestor shown as
    context. Returns ``(lines, counts)``, or ``None`` when too much changed to be worth a diff.
    """
    lo = 0
    top = min(len(old), len(new))
    while lo < top and old[lo] == new[lo]:
        lo += 1
    ho, hn = len(old), len(new)
    while ho > lo and hn > lo and old[ho - 1] == new[hn - 1]:
        ho -= 1
        hn -= 1
    counts = {"added": 0, "removed": 0, "changed": 0}
    if ho == lo and hn == lo:
        return [], counts
    if ho - lo > DIFF_MAX_LINES or hn - lo > DIFF_MAX_LINES:
        return None
    entries: list[tuple[str, int]] = []  # (marker, index); "-" indexes old, the others new
    sm = SequenceMatcher(None, old[lo:ho], new[lo:hn], autojunk=True)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        i1 += lo
        i2 += lo
        j1 += lo
        j2 += lo
        if op == "equal":
            continue
        if op == "delete":
            entries.extend(("-", i) for i in range(i1, i2))
            continue
        if op == "insert":
            entries.extend(("+", j) for j in range(j1, j2))
            continue
        free: dict[str, list[int]] = {}
        for i in range(i1, i2):
            free.setdefault(_identity(old[i]), []).append(i)
        paired = set()
        block = []
        for j in range(j1, j2):
            same = free.get(_identity(new[j]))
            if same:
                paired.add(same.pop(0))
                block.append(("~", j))
            else:
                block.append(("+", j))
        entries.extend(("-", i) for i in range(i1, i2) if i not in paired)
        entries.extend(block)
    po, pn = line_parents(old), line_parents(new)
    out: list[str] = []
    shown: list[str] = []  # the chain of lines printed above the current point
    for mark, i in entries:
        lines, parent = (old, po) if mark == "-" else (new, pn)
        chain = []
        p = parent[i]
        while p != -1:
            chain.append(lines[p])
            p = parent[p]
        chain.reverse()
        k = 0
        while k < len(chain) and k < len(shown) and chain[k] == shown[k]:
            k += 1
        for line in chain[k:]:
            out.append("  " + line)
        out.append(mark + " " + lines[i])
        shown = chain + [lines[i]]
        counts["added" if mark == "+" else "removed" if mark == "-" else "changed"] += 1
    return out, counts

