"""What an ambiguity error shows: up to 5 of the candidates, each with a ref to act on.

``SelectorAmbiguous`` used to say only "matched 3 elements"; the agent then needed a snapshot
to see which. Each candidate gets a ref from the page's ledger (the same numbers ``page.find``
and snapshots hand out), its role and name from Chromium's accessibility tree, and its frame
(None for the top document), so the next call can name the one it meant.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import CdpChannelUnavailable, CdpError, SelectorAmbiguous
from ..selectors.parse import normalize_whitespace
from .handles import ActionContext, ElementHandle

if TYPE_CHECKING:
    from .sites import RefBook

__all__ = ["describe_candidate", "describer", "ambiguity", "candidate_listing", "SHOWN_CANDIDATES"]

Described = Callable[[], Awaitable[dict[str, Any]]]


async def describe_candidate(refs: RefBook, frame: Any, object_id: str) -> dict[str, Any]:
    """``{ref, role, name, frame}`` of one candidate element (``None`` for what cannot be told).

    ``frame``: the candidate's frame as the selector engine sees it."""
    from ..snapshot import settle

    row: dict[str, Any] = {"ref": None, "role": None, "name": None,
                           "frame": None if getattr(frame, "is_main", False) else getattr(frame, "url", None)}
    session = frame.session
    try:
        node = (await session.send("DOM.describeNode", {"objectId": object_id}, timeout=5.0))["node"]
        backend = node.get("backendNodeId")
        loader = getattr(frame, "loader_id", None)
        if backend is not None and loader:
            ledger = refs.ledger()
            await settle(ledger)  # numbers being bound must be bound before another is handed out
            row["ref"] = f"@{ledger.assign((frame.frame_id, loader, backend))}"
            refs.save()
        if backend is not None:
            ax = await session.send("Accessibility.getPartialAXTree",
                                    {"backendNodeId": backend, "fetchRelatives": False}, timeout=5.0)
            for n in ax.get("nodes", ()):
                if n.get("backendDOMNodeId") == backend:
                    row["role"] = (n.get("role") or {}).get("value")
                    row["name"] = normalize_whitespace(str((n.get("name") or {}).get("value") or ""))
                    break
    except (CdpError, CdpChannelUnavailable, KeyError):
        pass
    return row


def describer(refs: RefBook, frame: Any, object_id: str) -> Described:
    """A candidate's ``describe`` callable: run only when an ambiguity error lists it."""

    async def describe() -> dict[str, Any]:
        return await describe_candidate(refs, frame, object_id)

    return describe


# -- the error ------------------------------------------------------------------------------


#: candidates an ambiguity error lists
SHOWN_CANDIDATES = 5


def candidate_listing(rows: list[dict[str, Any]], total: int) -> str:
    """``@12 button 'Save'; @13 button 'Save' (frame https://...)`` and how many more."""
    parts = []
    for r in rows:
        text = f"{r.get('ref') or '(no ref)'} {r.get('role') or '?'}"
        if r.get("name"):
            text += f" {r['name']!r}"
        if r.get("frame"):
            text += f" (frame {r['frame']})"
        parts.append(text)
    more = total - len(rows)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


async def ambiguity(api: str, selector: str, total: int,
                    describers: list[Callable[[], Awaitable[dict[str, Any]]]],
                    hint: str = "use a more specific selector or one of these refs",
                    found: str | None = None) -> SelectorAmbiguous:
    """The one ``SelectorAmbiguous`` every strict path raises: ``total`` matches, up to 5 of
    them listed (ref, role, name, frame) from ``describers`` (the host's: each numbers its
    element in the page's ledger), so the next call can name the one it meant. ``found``
    says what was found when it is not the selector's own matches (a wrapper's inputs)."""
    rows = [await describe() for describe in describers[:SHOWN_CANDIDATES]]
    where = f": {candidate_listing(rows, total)}" if rows else ""
    return SelectorAmbiguous(
        f"{api}: selector {selector} {found or f'matched {total} elements'}{where}; {hint}",
        selector=selector, count=total, candidates=rows,
    )


#: object group of the fields an ambiguity error about a wrapper lists
_LISTED_GROUP = "ego-fill-listed"


async def fill_targets_ambiguous(ctx: ActionContext, h: ElementHandle, n: int) -> SelectorAmbiguous:
    """The element wraps ``n`` fillable fields: list up to 5 of them as every ambiguity error does."""
    describers = []
    if h.describe_object is not None:
        for i in range(min(n, SHOWN_CANDIDATES)):
            try:
                r = await h.session.send("Runtime.callFunctionOn", {
                    "objectId": h.object_id, "objectGroup": _LISTED_GROUP, "arguments": [{"value": i}],
                    "functionDeclaration": "function(i) { return globalThis.__egoActions.fillTargets(this)[i]; }",
                })
            except (CdpError, CdpChannelUnavailable):
                break
            oid = r.get("result", {}).get("objectId")
            if not oid:
                break
            describers.append(h.describe_object(oid))
    try:
        return await ambiguity(ctx.api, ctx.selector, n, describers,
                               hint="use a selector for one field, or one of these refs",
                               found=f"holds multiple fillable fields ({n})")
    finally:
        try:
            await h.session.send("Runtime.releaseObjectGroup", {"objectGroup": _LISTED_GROUP})
        except (CdpError, CdpChannelUnavailable):
            pass


async def ambiguous_candidates(ctx: ActionContext, passing: list[ElementHandle]) -> SelectorAmbiguous:
    """The error for two or more passing candidates (the resolver gives each a ``describe``)."""
    return await ambiguity(ctx.api, ctx.selector, len(passing),
                           [h.describe for h in passing if h.describe is not None])
