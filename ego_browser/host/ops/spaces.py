"""Task spaces: creation and reuse, listing, what a space looks like on the wire, and finish.

Who controls a space is ``space_control``; the pages and tabs of a space are ``space_pages``;
the spaces' part in the host's life (reconciling them at start, popups joining them) is
``space_keeping``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...errors import (
    InvalidArgument,
    PageBudgetReached,
    PageNotFound,
    StateStoreUnwritable,
    TaskSpaceNotFound,
    TaskSpaceUserInControl,
)
from ...states import OpenedBy, Ownership
from ..spaces import placement, windows
from ..core.dispatch import op
from ..core.store import CLOSED, OPEN, UNMANAGED, PageRow, SpaceRow, Store
from ..spaces.tabs import close_target as _close_target
from ..spaces.tabs import create_tab as _create_tab
from ..spaces.unlisted_tabs import first_tab, undo_first_tab

if TYPE_CHECKING:
    from ..core.host import Host

AGENT, DELEGATED, USER = Ownership.AGENT, Ownership.DELEGATED, Ownership.USER


# -- helpers --------------------------------------------------------------------------------


def store_of(host: Host) -> Store:
    assert host.store is not None
    return host.store


def fresh(host: Host, space_id: int) -> dict[str, Any]:
    """The space as an operation that just used (and changed) it leaves it."""
    row = store_of(host).space(space_id)
    assert row is not None, f"space {space_id} went away during its own operation"
    return space_dict(host, row)


def page_dict(row: PageRow) -> dict[str, Any]:
    return {"label": row.label, "target_id": row.target_id, "opened_by": row.opened_by}


def managed(host: Host, space: SpaceRow) -> list[PageRow]:
    return [r for r in store_of(host).pages(space.id) if r.state == OPEN and host.browser.is_live_page(r.target_id)]


def space_dict(host: Host, space: SpaceRow) -> dict[str, Any]:
    user_page = None
    if space.user_page:
        row = next((r for r in store_of(host).pages(space.id) if r.target_id == space.user_page), None)
        if row is not None and row.state == OPEN:
            user_page = {"label": row.label, "target_id": row.target_id, "opened_by": row.opened_by}
        elif host.browser.is_live_page(space.user_page):
            user_page = {"label": None, "target_id": space.user_page, "opened_by": OpenedBy.UNKNOWN}
    return {
        "id": space.id,
        "name": space.name,
        "ownership": space.ownership,
        "reason": space.reason,
        "isolated": space.isolated,
        "pages": [page_dict(r) for r in managed(host, space)],
        "user_page": user_page,
    }


def budget_error(host: Host, space: SpaceRow, count: int, limit: int) -> PageBudgetReached:
    pages = managed(host, space)
    listing = ", ".join(
        f'{r.label} "{(host.browser.targets.get(r.target_id or "") or {}).get("title", "")}"' for r in pages
    )
    return PageBudgetReached(
        f'Page budget reached ({count}/{limit}) in space "{space.name}"; pages: {listing}. '
        "Close a page you no longer need (await page.close()) or reuse one with page.goto(url).",
        space_id=space.id, count=count, limit=limit, pages=[r.label for r in pages],
    )


def active_tab(host: Host, space: SpaceRow) -> str | None:
    tid = host.active.get(space.id)
    if tid and host.browser.is_live_page(tid):
        return tid
    rows = [r for r in store_of(host).pages(space.id)
            if r.state in (OPEN, UNMANAGED) and host.browser.is_live_page(r.target_id)]
    return rows[-1].target_id if rows else None


# -- top-level functions --------------------------------------------------------------------


@op("task_space")
async def task_space(host: Host, at: dict[str, Any], *, name_or_id: str | int, profile_id: str | None,
                     isolated: bool) -> dict[str, Any]:
    store = store_of(host)
    key = name_or_id
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise InvalidArgument(
            f"task_space: name_or_id must be a str name or an int id (got {type(key).__name__})",
            api="task_space", option="name_or_id", expected="str or int",
        )
    if isinstance(key, int):
        space = store.space(key)
        if space is None:
            raise TaskSpaceNotFound(f"task space not found: {key}", space=key)
        if profile_id is not None:
            raise InvalidArgument(
                "task_space: profile_id can only be used with a new task-space name",
                api="task_space", option="profile_id", expected="a new task-space name",
            )
        if isolated and not space.isolated:
            raise InvalidArgument(
                f"task_space: space {key} is not isolated; isolated=True only applies when creating a space",
                api="task_space", option="isolated", expected="False for an existing non-isolated space",
            )
        return space_dict(host, space)
    name = key.strip()
    if not name:
        raise InvalidArgument(
            "task_space: name must not be empty", api="task_space", option="name_or_id", expected="non-empty str"
        )
    existing = store.space_by_name(name)
    agent_owned = [s for s in existing if s.ownership in (AGENT, DELEGATED)]
    if agent_owned:
        space = agent_owned[-1]
        if profile_id is not None:
            raise InvalidArgument(
                f'task_space: a task space named "{name}" already exists; profile_id is only for a new name',
                api="task_space", option="profile_id", expected="a new task-space name",
            )
        if isolated and not space.isolated:
            raise InvalidArgument(
                f'task_space: the space "{name}" already exists and is not isolated; pick a new name '
                "for an isolated space",
                api="task_space", option="isolated", expected="a new name",
            )
        return space_dict(host, space)
    held = [s for s in existing if (s.reason or "user_owned") != "user_owned"]
    if held:
        # the person took it over: a round may attach to read it and wait for it to come back
        # (wait_for_control); its actions raise TaskSpaceUserInControl until then
        return space_dict(host, held[-1])
    if existing:
        user = existing[-1]
        raise TaskSpaceUserInControl(
            f'task space "{name}" ({user.id}) belongs to the user; ask them before claim_task_space({user.id})',
            space_id=user.id, reason="user_owned",
        )
    profile = profile_id if profile_id is not None else "default"
    if not isinstance(profile, str):
        raise InvalidArgument(
            f"task_space: profile_id must be a profile id str (got {type(profile).__name__}); see profiles()",
            api="task_space", option="profile_id", expected="str",
        )
    if isolated and profile != "default":
        raise InvalidArgument(
            "task_space: an isolated space starts empty and is thrown away, so it takes no profile_id; "
            "drop isolated=True to use the profile, or drop profile_id for a throw-away space",
            api="task_space", option="isolated", expected="False with a profile_id",
        )
    assert host.browser.conn is not None
    token = host.browser.next_token()
    instance = await placement.place_new_space(host, profile, token)  # the browser it goes to (docs/scale-out.md)
    try:
        return await _open_space(host, name, profile, isolated)
    finally:
        host.browser.placed_done(instance, token)


async def _open_space(host: Host, name: str, profile: str, isolated: bool) -> dict[str, Any]:
    from ..features.profile_contexts import context_for

    store = store_of(host)
    assert host.browser.conn is not None
    context_id = await context_for(host, profile)  # ProfileNotFound for an unknown or removed profile
    if isolated:
        res = await host.browser.conn.send("Target.createBrowserContext", {"disposeOnDetach": False})
        context_id = res["browserContextId"]
    if context_id is None:
        await host.features.warm.wait_ready()  # a spare being prepared in the background is nearer than a new window
    target_id, was_spare = await first_tab(host, context_id, name)
    try:
        space_id, _row = store.create_space_with_page(
            name=name, isolated=isolated, context_id=context_id, profile_id=profile,
            browser_instance=host.browser.instance, target_id=target_id,
        )
    except StateStoreUnwritable:
        # a profile's context is shared by its spaces: only an isolated one goes with the space
        await undo_first_tab(host, target_id, was_spare, context_id if isolated else None)
        raise
    if was_spare:
        # a spare may wait in a background window: to the front, as a new window would be
        # (a hidden page throttles its timers)
        await host.activate(space_id, target_id)
    else:
        host.active[space_id] = target_id
    if context_id is None:
        host.features.warm.refill()  # the next new space starts in a tab prepared meanwhile
    return fresh(host, space_id)


@op("list_task_spaces")
async def list_task_spaces(host: Host, at: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for space in store_of(host).spaces():
        titles = []
        for row in store_of(host).pages(space.id):
            if row.state in (OPEN, UNMANAGED):
                info = host.browser.targets.get(row.target_id or "")
                if info is not None:
                    titles.append(info.get("title", ""))
        out.append({
            "id": space.id,
            "name": space.name,
            "task_id": space.task_id,
            "ownership": space.ownership,
            "created_by": space.created_by,
            "recent_tab_titles": titles[-5:],
            "isolated": space.isolated,
            "status": space.status,
            "reason": space.reason,
            "tabs": len(titles),
            "profile": space.profile_id,
            "browser": host.browser.where(space.browser_instance) if not space.closed else "",
        })
    return out


# -- TaskSpace members ------------------------------------------------------------------------


@op("task.info")
async def space_info(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    return space_dict(host, host.space_row(at.get("space")))


@op("TaskSpace.set_status")
async def set_status(host: Host, at: dict[str, Any], *, text: str) -> None:
    space = host.space_row(at.get("space"))
    if not isinstance(text, str) or len(text) > 500:
        raise InvalidArgument(
            f"TaskSpace.set_status: text must be a str of at most 500 characters (got "
            f"{len(text) if isinstance(text, str) else type(text).__name__})",
            api="TaskSpace.set_status", option="text", expected="str of at most 500 characters",
        )
    store_of(host).update_space(space.id, status=text or None)


@op("TaskSpace.finish")
async def finish(host: Host, at: dict[str, Any], *, keep: Any) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    host.gate(space)
    return await finish_space(host, space, keep)


async def finish_space(host: Host, space: SpaceRow, keep: Any) -> dict[str, Any]:
    """Close the space's pages but ``keep`` (the agent's finish; the person's ``spaces close``)."""
    store = store_of(host)
    pages = managed(host, space)
    labels = [r.label for r in pages]
    if keep == "all":
        kept = labels
    elif isinstance(keep, list) and all(isinstance(k, str) for k in keep):
        for k in keep:
            if k not in labels:
                raise PageNotFound(f"page label not found: {k}", label=k)
        kept = [label for label in labels if label in keep]
    else:
        raise InvalidArgument(
            'TaskSpace.finish: keep must be "all" or a list of page labels',
            api="TaskSpace.finish", option="keep", expected='"all" or list[str]',
        )
    closing = [r for r in pages if r.label not in kept]
    closing_ids = {r.target_id for r in closing}
    from ..features.profile_contexts import save_on_finish

    # its HAR recording is written while its pages (and their bodies) are still there
    await host.features.routes.space_finished(space.id)
    # the profile keeps what this space changed (a log-in, site data); finishing never deletes it
    await save_on_finish(host, space, [r.target_id for r in pages if r.target_id])
    if windows.headed(host) and closing_ids and host.spare_tab is None and not any(
        i.get("type") == "page" and t not in closing_ids for t, i in host.browser.targets.items()
    ):
        # these are the browser's last tabs, and a headful Chromium quits with its last window:
        # keep one blank tab, the spare the next space starts in. Headless Chromium lives on
        # without tabs, and the host makes the next spare once it is quiet (host/spaces/warm_tab.py):
        # making it here cost every finish ~55 ms (Target.createTarget of a new window)
        host.spare_tab = await _create_tab(host, None, context_id=None, new_window=True)
    await asyncio.gather(*(_close_target(host, r.target_id) for r in closing if r.target_id))  # all live
    for r in closing:
        store.retire_page(space.id, r.label, CLOSED)
    unmanaged = [
        r for r in store.pages(space.id) if r.state == UNMANAGED and host.browser.is_live_page(r.target_id)
    ]
    closed_space = not kept and not unmanaged
    if closed_space:
        store.close_space(space.id)
        host.active.pop(space.id, None)
        if not space.isolated and space.context_id is None:
            host.features.warm.soon()  # the next new space's tab, made while nothing else runs
        await placement.after_finish(host, space.browser_instance)  # an idle Grid session is given back
        if space.profile_id != "default":
            from ..features.profile_contexts import release_idle_browser

            await release_idle_browser(host, space.profile_id)  # an imported profile's own Chromium
    else:
        store.update_space(space.id, ownership=USER, reason="user_owned")
    if closed_space and space.id in host.guard.spaces:
        await host.guard.forget(space.id)  # its list goes with it (and the interception, if it was the last)
    return {
        "space_id": space.id,
        "closed_space": closed_space,
        "kept_labels": kept,
        "closed_labels": [r.label for r in closing],
        "preserved_unmanaged": len(unmanaged),
    }


@op("TaskSpace.cdp")
async def space_cdp(host: Host, at: dict[str, Any], *, method: str, params: dict[str, Any] | None,
                    timeout: float) -> Any:
    space = host.space_row(at.get("space"))
    host.gate(space)
    if not isinstance(method, str) or not method.startswith(("Target.", "Browser.")):
        raise InvalidArgument(
            f"TaskSpace.cdp only accepts Target.* and Browser.* methods (got {method!r}); use page.cdp for the rest",
            api="TaskSpace.cdp", option="method", expected="a Target.* or Browser.* method",
        )
    assert host.browser.conn is not None
    from ..features import cdp_scope

    # the browser session is the host's own: only what stays within this space goes through
    scope = cdp_scope.scope_of(host, space, cdp_scope.TASK)
    params = await cdp_scope.check(host, scope, method, params)
    result = await host.browser.conn.send(method, params, timeout=timeout / 1000)
    return cdp_scope.filter_result(host, scope, method, result)
