"""The pages and tabs of a task space: labels checked on first use, the page budget, adopting
and releasing unmanaged tabs, and the end-of-round report of pages no round has touched."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from ... import config
from ...errors import InvalidArgument, StateStoreUnwritable
from ...states import OpenedBy, Ownership
from ..core.dispatch import op
from ..spaces.space_keeping import adopt_popup
from .spaces import active_tab, budget_error, managed, page_dict, store_of
from ..core.store import CLOSED, OPEN, RELEASED, UNMANAGED
from ..spaces.tabs import close_target as _close_target
from ..spaces.tabs import create_tab as _create_tab

if TYPE_CHECKING:
    from ..core.host import Host

AGENT = Ownership.AGENT


@op("TaskSpace.page")
async def space_page(host: Host, at: dict[str, Any], *, label: str) -> dict[str, Any]:
    """Check a label on first use; reading it also marks a background popup as handled."""
    space = host.space_row(at.get("space"))
    row = host.page_row(space, label)
    if not row.reported:
        with contextlib.suppress(StateStoreUnwritable):  # only the end-of-round report reads it
            store_of(host).update_page(space.id, row.label, reported=True)
    return page_dict(row)


@op("TaskSpace.pages")
async def space_pages(host: Host, at: dict[str, Any]) -> list[dict[str, Any]]:
    space = host.space_row(at.get("space"))
    return [page_dict(r) for r in managed(host, space)]


@op("TaskSpace.tabs")
async def space_tabs(host: Host, at: dict[str, Any]) -> list[dict[str, Any]]:
    space = host.space_row(at.get("space"))
    store = store_of(host)
    if space.ownership == AGENT:
        # tabs opened by managed pages that no event told us about (the host was down)
        for target in list(host.browser.targets.values()):
            if target.get("type") == "page" and target.get("openerId"):
                adopt_popup(host, target)
    active = active_tab(host, space)
    out = []
    for row in store.pages(space.id):
        if row.state not in (OPEN, UNMANAGED):
            continue
        info = host.browser.targets.get(row.target_id or "")
        if info is None or info.get("type") != "page":
            if row.state == OPEN:
                host._record_quietly(store.retire_page, space.id, row.label, CLOSED)
            else:
                host._record_quietly(store.delete_page_record, space.id, row.label)
            continue
        out.append({
            "target_id": row.target_id,
            "label": row.label if row.state == OPEN else None,
            "title": info.get("title", ""),
            "url": info.get("url", ""),
            "active": row.target_id == active,
            "opened_by": row.opened_by,
        })
    return out


@op("TaskSpace.new_page")
async def new_page(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    host.gate(space)
    limit = config.page_budget()
    count = len(managed(host, space))
    if count >= limit:
        raise budget_error(host, space, count, limit)
    target_id = await _create_tab(host, space, context_id=space.context_id, new_window=False)
    try:
        row = store_of(host).add_labelled_page(space.id, target_id, OpenedBy.AGENT, url="about:blank")
    except StateStoreUnwritable:
        await _close_target(host, target_id)  # no tab that no space lists
        raise
    host.active[space.id] = target_id
    return page_dict(row)


@op("TaskSpace.adopt")
async def adopt(host: Host, at: dict[str, Any], *, target_id: str, label: str | None) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    host.gate(space)
    store = store_of(host)
    rows = store.pages(space.id)
    row = next((r for r in rows if r.target_id == target_id and r.state in (UNMANAGED, RELEASED)), None)
    if row is None or not host.browser.is_live_page(target_id):
        raise InvalidArgument(
            "TaskSpace.adopt: that tab is not an unmanaged tab of this space (see task.tabs())",
            api="TaskSpace.adopt", option="unmanaged", expected="an UnmanagedPage from task.tabs()",
        )
    limit = config.page_budget()
    count = len(managed(host, space))
    if count >= limit:
        raise budget_error(host, space, count, limit)
    if label is None:
        label = store.take_label(space.id)
    else:
        if not isinstance(label, str) or not label.strip() or label.startswith("#"):
            raise InvalidArgument(
                "TaskSpace.adopt: label must be a non-empty str", api="TaskSpace.adopt", option="label",
                expected="non-empty str",
            )
        if any(r.label == label for r in rows):
            raise InvalidArgument(
                f"TaskSpace.adopt: label {label} is already in use in this space (labels are never reused)",
                api="TaskSpace.adopt", option="label", expected="an unused label",
            )
    if row.state == UNMANAGED:
        store.delete_page_record(space.id, row.label)
    opened_by = row.opened_by if row.opened_by != OpenedBy.AGENT or row.state == UNMANAGED else OpenedBy.AGENT
    new = store.add_page(space.id, label, target_id, opened_by, url=(host.browser.targets.get(target_id) or {}).get("url"))
    return page_dict(new)


@op("TaskSpace.release")
async def release(host: Host, at: dict[str, Any], *, label: str) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    host.gate(space)
    row = host.page_row(space, label)
    if row.opened_by == OpenedBy.AGENT:
        raise InvalidArgument(
            f"TaskSpace.release: page {row.label} was created by the agent; close it instead of releasing it",
            api="TaskSpace.release", option="label", expected="a page adopted from an unmanaged tab",
        )
    assert row.target_id is not None  # page_row gives live pages only
    store = store_of(host)
    store.retire_page(space.id, row.label, RELEASED)
    store.add_page(space.id, "#" + row.target_id, row.target_id, row.opened_by, state=UNMANAGED)
    return {"space_id": space.id, "target_id": row.target_id, "opened_by": row.opened_by}


@op("round.report")
async def round_report(host: Host, at: dict[str, Any], *, spaces: list[Any] | None,
                       touched: list[Any] | None) -> dict[str, Any]:
    """Background-adopted pages no round has touched yet (reported once, then marked), a
    notice the person must hear once (the state store was replaced), and the notes the person
    gave these spaces back with (the dashboard), each read once."""
    store = store_of(host)
    return {"pages": _unreported(host, store, spaces or [], touched or []), "notice": store.take_notice(),
            "person_notes": host.features.dashboard.take_notes(spaces or [])}


def _unreported(host: Host, store: Any, spaces: list[Any], touched_rows: list[Any]) -> list[dict[str, Any]]:
    touched = {(int(s), str(label)) for s, label in touched_rows}
    out = []
    for space_id in spaces:
        space = store.space(int(space_id))
        if space is None:
            continue
        for row in store.pages(space.id):
            if row.state != OPEN or row.reported:
                continue
            if (space.id, row.label) not in touched:
                info = host.browser.targets.get(row.target_id or "") or {}
                out.append({"space_id": space.id, "label": row.label, "opener": row.opener, "url": info.get("url", row.url)})
            with contextlib.suppress(StateStoreUnwritable):
                store.update_page(space.id, row.label, reported=True)
    return out
