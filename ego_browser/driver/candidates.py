"""What an ambiguity error shows: up to 5 of the candidates, each with a ref to act on.

``SelectorAmbiguous`` used to say only "matched 3 elements"; the agent then needed a snapshot
to see which. Each candidate gets a ref from the page's ledger (the same numbers ``page.find``
and snapshots hand out), its role and name from Chromium's accessibility tree, and its frame
(None for the top document), so the next call can name the one it meant.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import CdpChannelUnavailable, CdpError
from ..selectors.parse import normalize_whitespace

if TYPE_CHECKING:
    from .sites import RefBook

__all__ = ["describe_candidate", "describer"]

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
