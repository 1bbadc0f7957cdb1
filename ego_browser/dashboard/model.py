"""The state the dashboard shows, read from the host as it is now (nothing cached)."""

from __future__ import annotations

from typing import Any

from ..host.core.store import OPEN, UNMANAGED

__all__ = ["overview", "page_rows", "pending_chooser"]


def pending_chooser(host: Any, target_id: str) -> dict[str, Any] | None:
    """The newest file chooser of a tab that no agent waited for (the person may answer it)."""
    choosers = host.features.choosers.peek(target_id)
    newest: dict[str, Any] | None = choosers.newest_unarmed() if choosers is not None else None
    return newest


def page_rows(host: Any, space_id: int) -> list[dict[str, Any]]:
    """The space's tabs (managed and unmanaged) that are open in the browser."""
    assert host.store is not None
    out = []
    for row in host.store.pages(space_id):
        if row.state not in (OPEN, UNMANAGED):
            continue
        info = host.browser.targets.get(row.target_id or "")
        if info is None or info.get("type") != "page":
            continue
        driver = host.drivers.get(row.target_id)
        chooser = pending_chooser(host, row.target_id)
        out.append({
            "target_id": row.target_id,
            "label": row.label if row.state == OPEN else None,
            "title": info.get("title", ""),
            "url": info.get("url", ""),
            "dialog": driver.dialog if driver is not None and not driver.closed else None,
            "chooser": {"multiple": chooser["multiple"]} if chooser else None,
        })
    return out


def _permission(host: Any, space: Any) -> dict[str, Any] | None:
    """The permission prompt that handed the space to the person, while it waits for an answer."""
    prompt = host.features.permissions.waiting(space)
    if prompt is None:
        return None
    return {"name": prompt.name, "reason": prompt.reason, "origin": prompt.origin, "target_id": prompt.target_id}


def overview(host: Any, activity: Any) -> list[dict[str, Any]]:
    """Every open space: who holds it, what the agent says and does, its tabs."""
    if host.store is None:
        return []
    out = []
    for space in host.store.spaces():
        pages = page_rows(host, space.id)
        for page in pages:
            xy = activity.pointer.get(page["target_id"])
            page["pointer"] = list(xy) if xy else None
        out.append({
            "id": space.id,
            "name": space.name,
            "ownership": str(space.ownership),
            "reason": space.reason,
            "status": space.status,
            "isolated": bool(space.isolated),
            "current": activity.current.get(space.id),
            "last": activity.last.get(space.id),
            "active": host.active.get(space.id),
            "pages": pages,
            "permission": _permission(host, space),
        })
    return out
