"""What a ref names: the role, name and target of its node and where the node sits.

The ledger keeps one :data:`Ident` per ref (``RefLedger.idents``) so that a ref never acts on a
node that became something else (issue 29 finding 2), can follow a node that a single-page app
replaced by an identical one at the same place (finding 3), and can carry over to the same node
of the next document (issue 30 point 2). Idents are read from the walker's rows of one frame
(``frame_idents``), never across frames, so that a capture of one frame at resolution time
computes exactly what the snapshot computed.

``Ident = (role, name, target, landmarks, parents)``:

- ``role``, ``name``: as the walker wrote them on the node's line (whitespace collapsed);
- ``target``: a link's href as printed (a path when same-origin), else ``""``;
- ``landmarks``: ``(role, name)`` of the landmark ancestors (banner, navigation, main, ...),
  outermost first;
- ``parents``: ``(role, name)`` of every ancestor that prints a line of its own (unnamed
  wrappers and the document root left out), outermost first.

Both paths are ``None`` when the snapshot did not see the node's ancestors (a subtree
snapshot): such a ref is checked, never followed nor carried.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Ident", "LANDMARKS", "frame_idents", "same_node", "describe", "carry_key"]

#: (role, name, target, landmarks, parents)
Ident = tuple[str, str, str, "tuple[tuple[str, str], ...] | None", "tuple[tuple[str, str], ...] | None"]

#: roles that make a landmark path (ARIA landmark roles; the walker gives region/form as it finds them)
LANDMARKS = frozenset({"banner", "complementary", "contentinfo", "form", "main", "navigation", "region", "search"})

_STRIDE = 9  # capture.STRIDE (not imported: capture imports the CDP layer)


def _norm(name: str) -> str:
    return " ".join(name.split()) if name else ""


def frame_idents(rows: list[Any], *, paths: bool = True) -> dict[int, Ident]:
    """Row number -> ident of every ref-bearing row of one frame's walker rows (stride 9).

    ``paths=False`` (the rows start below the document: a subtree) leaves both paths ``None``.
    One pass; a place's paths are built once, when it opens (a few ms on 5,000 rows)."""
    out: dict[int, Ident] = {}
    depth = rows[0::_STRIDE]
    role = rows[1::_STRIDE]
    name = rows[2::_STRIDE]
    flags = rows[3::_STRIDE]
    url = rows[5::_STRIDE]
    empty: tuple[tuple[str, str], ...] = ()
    # the open places: depth, parents including the place, landmarks including the place
    sd: list[int] = [-1]
    sp: list[tuple[tuple[str, str], ...]] = [empty]
    sl: list[tuple[tuple[str, str], ...]] = [empty]
    landmarks = LANDMARKS
    for i, r in enumerate(role):
        if r == "text" or r == "root":
            continue
        f = flags[i] & 1
        nm = name[i]
        if not f and not nm and r == "container":
            continue  # an unnamed wrapper: neither a ref nor a place
        d = depth[i]
        while sd[-1] >= d:
            sd.pop()
            sp.pop()
            sl.pop()
        if nm and ("  " in nm or nm[0] == " " or nm[-1] == " " or "\n" in nm or "\t" in nm):
            nm = " ".join(nm.split())
        pp = sp[-1]
        lp = sl[-1]
        if f:
            out[i] = (r, nm, url[i] or "", lp, pp) if paths else (r, nm, url[i] or "", None, None)
        me = ((r, nm),)
        sd.append(d)
        sp.append(pp + me)
        sl.append(lp + me if r in landmarks else lp)
    return out


def same_node(a: Ident, b: Ident) -> bool:
    """Whether two idents name the same thing: role, name and target equal."""
    return a[0] == b[0] and a[1] == b[1] and a[2] == b[2]


def carry_key(ident: Ident) -> tuple[Any, ...] | None:
    """What a node must share with a node of the previous document to keep its ref: landmark
    path, role, name and target (the frame is the ledger's key); None when the path is unknown."""
    if ident[3] is None:
        return None
    return (ident[3], ident[0], ident[1], ident[2])


def describe(ident: Ident) -> str:
    """``button "Save"``, ``link "Docs" (/docs)``: a node as the snapshot prints it."""
    out = ident[0]
    if ident[1]:
        nm = ident[1] if len(ident[1]) <= 80 else ident[1][:79] + "…"
        out += f' "{nm}"'
    if ident[2]:
        out += f" ({ident[2]})"
    return out
