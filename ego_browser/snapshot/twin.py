"""Pure-Python twin of ``ego_browser/_snapshot.pyx``: compaction, rendering, ref assignment.

Both implementations take the same flat, preorder node table and must print the same bytes;
``tests/snapshot/test_snapshot_core.py`` proves it over random trees with hypothesis. The Cython module
is the one used at run time; this twin is the fallback when the extension is not built and the
readable specification of what the extension does.

Node table (parallel lists, one entry per node, preorder):

``depth``  int, 0 for the top ``root``; a child is exactly one deeper than its parent
``role``   str: ``root``, ``text``, ``container``, ``iframe`` or an ARIA role
``name``   str (text of a ``text`` node); collapsed and escaped here
``flags``  int: ``FLAG_REF`` (ref-bearing)
``key``    hashable identity of a ref-bearing node (frame, loader, backend id) or ``None``
``url``    str, a link's resolved href (a path when same-origin) or ``""``
``loc``    str, a stable locator or ``""``
``state``  str, the node's state marks (``[checked] [disabled]``), printed as they are, or ``""``
``value``  str, the node's value (one line, already cut), printed after ``": "``, or ``""``

Line: ``<indent>role "name" [state]... [ref=N, loc=..., url=...]: value``, one space of
indentation per level (``INDENT``).

Compaction (order kept, idempotent): drop blank text (whitespace, NBSP, zero-width only);
an unnamed, ref-less ``container`` left with no child is dropped, with one child is replaced
by that child, with several is kept; an unnamed, ref-less, stateless ``cell`` directly in a
``row`` (``listitem`` directly in a ``list``) with exactly one child is replaced by that child
(each cell still prints one line in its row, so columns stay aligned), and so is a ``paragraph``
with no ref, name, state or value of its own (a paragraph of one text prints that text's line);
every other node is kept.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FLAG_REF", "INDENT", "ZERO_WIDTH", "render_tree", "is_blank", "clean_name", "parse_snapshot"]

FLAG_REF = 1
#: spaces per level (docs/architecture.md "What is printed": 1 vs 2 measured)
INDENT = 1

#: characters that print nothing (zero-width and bidi formatting marks, soft hyphen)
ZERO_WIDTH = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def is_blank(text: str) -> bool:
    for ch in text:
        if not (ch.isspace() or ch in ZERO_WIDTH):
            return False
    return True


def clean_name(name: str) -> str:
    """Collapse whitespace runs to one space, trim, escape ``\\`` and ``"``."""
    name = " ".join(name.split())
    if "\\" in name:
        name = name.replace("\\", "\\\\")
    if '"' in name:
        name = name.replace('"', '\\"')
    return name


def _lone_item(i: int, r: str, parent: list[Any], role: list[Any], name: list[Any], flags: list[Any], state: list[Any],
               value: list[Any], transparent: list[bool]) -> bool:
    """A ``cell`` in a ``row`` / ``listitem`` in a ``list`` that says nothing of its own ("in":
    the printed parent, past containers that print their single child in their place)."""
    p = parent[i]
    while p != -1 and transparent[p]:
        p = parent[p]
    if p == -1 or role[p] != ("row" if r == "cell" else "list"):
        return False
    return not (flags[i] & FLAG_REF) and is_blank(name[i]) and not state[i] and not value[i]


def _bare(i: int, flags: list[Any], name: list[Any], state: list[Any], value: list[Any]) -> bool:
    """No ref, name, state or value of its own: a paragraph like that holding one node prints
    that node in its place (its text line)."""
    return not (flags[i] & FLAG_REF) and is_blank(name[i]) and not state[i] and not value[i]


def _children(i: int, first_child: list[int], next_sibling: list[int]) -> list[int]:
    out = []
    c = first_child[i]
    while c != -1:
        out.append(c)
        c = next_sibling[c]
    return out


def render_tree(
    depth: list[Any],
    role: list[Any],
    name: list[Any],
    flags: list[Any],
    key: list[Any],
    url: list[Any],
    loc: list[Any],
    state: list[Any],
    value: list[Any],
    refs: dict[Any, Any],
    next_ref: int,
    marks: bool,
    locs: bool,
) -> tuple[str, int, list[Any]]:
    """Compact and print the node table.

    ``refs`` maps a node key to its number and gets the new numbers (from ``next_ref`` on, in
    printing order). Returns ``(text, next_ref, shown)`` where ``shown`` lists the numbers
    printed, in order. The text has one line per node and no trailing newline.
    """
    n = len(depth)
    if n == 0:
        return "", next_ref, []
    # tree links
    first_child = [-1] * n
    next_sibling = [-1] * n
    last_child = [-1] * n
    parent = [-1] * n
    stack: list[int] = []
    for i in range(n):
        d = depth[i]
        while len(stack) > d:
            stack.pop()
        if stack:
            p = stack[-1]
            parent[i] = p
            if last_child[p] == -1:
                first_child[p] = i
            else:
                next_sibling[last_child[p]] = i
            last_child[p] = i
        stack.append(i)
    # first pass: which containers print in their single child's place. The cell/listitem rule
    # never drops a node, so it does not change these counts; it needs them to see a cell's or
    # item's printed parent (and so a second rendering of the printed text changes nothing)
    eff = [-1] * n
    transparent = [False] * n
    for i in range(n - 1, -1, -1):
        r = role[i]
        if r == "text":
            eff[i] = -1 if is_blank(name[i]) else i
        elif r == "container" and not (flags[i] & FLAG_REF) and is_blank(name[i]):
            count = sum(1 for c in _children(i, first_child, next_sibling) if eff[c] != -1)
            eff[i] = -1 if count == 0 else i
            transparent[i] = count == 1
        elif r == "paragraph" and _bare(i, flags, name, state, value):
            eff[i] = i
            transparent[i] = sum(1 for c in _children(i, first_child, next_sibling) if eff[c] != -1) == 1
        else:
            eff[i] = i
    # effective node per index: itself (kept), a descendant (replaced container) or -1 (dropped)
    for i in range(n - 1, -1, -1):
        r = role[i]
        if r == "text":
            eff[i] = -1 if is_blank(name[i]) else i
        elif ((r == "cell" or r == "listitem") and _lone_item(i, r, parent, role, name, flags, state, value, transparent)) \
                or (r == "paragraph" and _bare(i, flags, name, state, value)):
            c = first_child[i]
            single = -1
            count = 0
            while c != -1:
                if eff[c] != -1:
                    count += 1
                    single = eff[c]
                c = next_sibling[c]
            eff[i] = single if count == 1 else i
        elif r == "container" and not (flags[i] & FLAG_REF) and is_blank(name[i]):
            count = 0
            single = -1
            c = first_child[i]
            while c != -1:
                if eff[c] != -1:
                    count += 1
                    single = eff[c]
                    if count > 1:
                        break
                c = next_sibling[c]
            if count == 0:
                eff[i] = -1
            elif count == 1:
                eff[i] = single
            else:
                eff[i] = i
        else:
            eff[i] = i
    # print: top-level nodes are those at depth 0 (and, defensively, stray roots)
    lines: list[str] = []
    shown: list[int] = []
    tops = [i for i in range(n) if depth[i] == 0]
    work: list[tuple[int, int]] = [(t, 0) for t in reversed(tops)]
    while work:
        i, d = work.pop()
        j = eff[i]
        if j == -1:
            continue
        nm = name[j]
        nm = clean_name(nm) if nm else nm
        # a quoted string alone is text: the role word would be 5 bytes on most lines of a page
        line = " " * (INDENT * d) + ('"' + nm + '"' if nm and role[j] == "text" else role[j])
        if nm and role[j] != "text":
            line += ' "' + nm + '"'
        if state[j]:
            line += " " + state[j]
        meta = []
        if marks and flags[j] & FLAG_REF:
            k = key[j]
            ref = refs.get(k)
            if ref is None:
                ref = next_ref
                next_ref += 1
                refs[k] = ref
            shown.append(ref)
            meta.append("ref=" + str(ref))
        if locs and loc[j]:
            meta.append("loc=" + loc[j])
        if url[j]:
            meta.append("url=" + url[j])
        if meta:
            line += " [" + ", ".join(meta) + "]"
        if value[j]:
            line += ": " + value[j]
        lines.append(line)
        kids = []
        c = first_child[j]
        while c != -1:
            kids.append(c)
            c = next_sibling[c]
        for c in reversed(kids):
            work.append((c, d + 1))
    return "\n".join(lines), next_ref, shown


def parse_snapshot(text: str) -> tuple[
    list[Any], list[Any], list[Any], list[Any], list[Any], list[Any], list[Any], list[Any], list[Any], dict[Any, Any]
]:
    """Parse printed snapshot lines (no header) back into a node table.

    Refs come back as keys ``("ref", N)`` with a ``refs`` dict mapping them to ``N``, so that
    printing the table again reproduces the numbers. Used to check idempotence.
    """
    depth: list[Any] = []
    role: list[Any] = []
    name: list[Any] = []
    flags: list[Any] = []
    key: list[Any] = []
    url: list[Any] = []
    loc: list[Any] = []
    state: list[Any] = []
    value: list[Any] = []
    refs: dict[Any, Any] = {}
    for line in text.split("\n"):
        if not line:
            continue
        stripped = line.lstrip(" ")
        d = (len(line) - len(stripped)) // INDENT
        sp = stripped.find(" ")
        r = stripped if sp < 0 else stripped[:sp]
        rest = "" if sp < 0 else stripped[sp + 1 :]
        if stripped.startswith('"'):  # a text line prints its string alone
            r, rest = "text", stripped
        if r.endswith(":"):  # a value right after the role: 'textbox: typed'
            r = r[:-1]
            rest = ": " + rest
        nm = ""
        if rest.startswith('"'):
            i = 1
            buf = []
            while i < len(rest):
                ch = rest[i]
                if ch == "\\" and i + 1 < len(rest):
                    buf.append(rest[i + 1])
                    i += 2
                    continue
                if ch == '"':
                    break
                buf.append(ch)
                i += 1
            nm = "".join(buf)
            rest = rest[i + 1 :].lstrip(" ")
        f = 0
        k = None
        u = ""
        lc = ""
        st = []
        # state marks: "[word]" or "[word=value]" without spaces, before the metadata bracket
        while rest.startswith("[") and not rest.startswith(("[ref=", "[loc=", "[url=")):
            end = rest.find("]")
            st.append(rest[: end + 1])
            rest = rest[end + 1 :].lstrip(" ")
        val = ""
        if rest.startswith("["):
            # the metadata bracket ends at the last "]" before an optional ": value"
            end = rest.find("]: ")
            end = len(rest) - 1 if end < 0 else end
            val = rest[end + 3 :] if end < len(rest) - 1 else ""
            meta = rest[1:end]
            # url= is last and may contain ", "; loc= may too: split on the known prefixes
            ref_s = None
            if meta.startswith("ref="):
                end = meta.find(", ")
                ref_s = meta[4:] if end < 0 else meta[4:end]
                meta = "" if end < 0 else meta[end + 2 :]
            if meta.startswith("loc="):
                end = meta.find(", url=")
                lc = meta[4:] if end < 0 else meta[4:end]
                meta = "" if end < 0 else meta[end + 2 :]
            if meta.startswith("url="):
                u = meta[4:]
            if ref_s is not None:
                f = FLAG_REF
                k = ("ref", int(ref_s))
                refs[k] = int(ref_s)
        elif rest.startswith(": "):
            val = rest[2:]
        depth.append(d)
        role.append(r)
        name.append(nm)
        flags.append(f)
        key.append(k)
        url.append(u)
        loc.append(lc)
        state.append(" ".join(st))
        value.append(val)
    return depth, role, name, flags, key, url, loc, state, value, refs
