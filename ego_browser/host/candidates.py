"""What an ambiguity error shows: up to 5 of the candidates, each with a ref to act on.

``SelectorAmbiguous`` used to say only "matched 3 elements"; the agent then needed a snapshot
to see which. Each candidate gets a ref from the page's ledger (the same numbers ``page.find``
and snapshots hand out), its role and name from Chromium's accessibility tree, and its frame
(None for the top document), so the next call can name the one it meant.
"""

from __future__ import annotations

from typing import Any

from ..errors import CdpChannelUnavailable, CdpError
from ..selectors.parse import normalize_whitespace

async def describe_candidate(host: Any, ctx: Any, frame: Any, object_id: str) -> dict[str, Any]:
    """``{ref, role, name, frame}`` of one candidate element (``None`` for what cannot be told)."""
    from ..snapshot import settle
    from .ledgers import ledger_for, save_ledger

    row: dict[str, Any] = {"ref": None, "role": None, "name": None,
                           "frame": None if getattr(frame, "is_main", False) else getattr(frame, "url", None)}
    session = frame.session
    try:
        node = (await session.send("DOM.describeNode", {"objectId": object_id}, timeout=5.0))["node"]
        backend = node.get("backendNodeId")
        loader = getattr(frame, "loader_id", None)
        if backend is not None and loader:
            ledger = ledger_for(host, ctx)
            await settle(ledger)  # numbers being bound must be bound before another is handed out
            row["ref"] = f"@{ledger.assign((frame.frame_id, loader, backend))}"
            save_ledger(host, ctx.driver)
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


def describer(host: Any, ctx: Any, frame: Any, object_id: str) -> Any:
    """A candidate's ``describe`` callable: run only when an ambiguity error lists it."""

    async def describe() -> dict[str, Any]:
        return await describe_candidate(host, ctx, frame, object_id)

    return describe
