"""Snapshot engine: page -> compact text with refs (API.md §10, DESIGN.md "Snapshot engine").

Entry points for the host::

    from ego_browser.snapshot import RefLedger, take_snapshot, resolve_ref

    text = await take_snapshot(target, ledger, scope="only_within_viewport", root=None,
                               include_action_marks=True, include_stable_locator=True,
                               max_length=None, header="[p1 ...]")
    r = await resolve_ref(target, ledger, 12)   # -> ResolvedRef(session, frame_id, backend_node_id, ...)

``target`` is any object with ``main_session`` and ``frames()`` (see ``capture.SnapshotTarget``).
Imports are lazy so that ``import ego_browser`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "RefBinding",
    "RefLedger",
    "ResolvedRef",
    "SnapshotFrame",
    "SnapshotTarget",
    "CdpSnapshotTarget",
    "take_snapshot",
    "resolve_ref",
    "resolve_object",
    "settle",
]

_WHERE = {
    "RefBinding": "ledger",
    "RefLedger": "ledger",
    "ResolvedRef": "engine",
    "take_snapshot": "engine",
    "resolve_ref": "engine",
    "resolve_object": "engine",
    "settle": "engine",
    "SnapshotFrame": "capture",
    "SnapshotTarget": "capture",
    "CdpSnapshotTarget": "capture",
}

if TYPE_CHECKING:  # pragma: no cover
    from .capture import CdpSnapshotTarget, SnapshotFrame, SnapshotTarget
    from .engine import ResolvedRef, resolve_object, resolve_ref, settle, take_snapshot
    from .ledger import RefBinding, RefLedger


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'ego_browser.snapshot' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value
