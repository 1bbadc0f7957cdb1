"""Who controls a task space: the agent claims or takes it over, hands it off; the person takes it
over, gives it back or opens a space of their own (the CLI and the dashboard)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import InvalidArgument, StateStoreUnwritable, TaskSpaceUserInControl
from ...states import CreatedBy, Ownership
from ..core.dispatch import op
from .spaces import active_tab, finish_space, fresh, store_of
from ..core.store import OPEN, UNMANAGED
from ..spaces.unlisted_tabs import first_tab, undo_first_tab

if TYPE_CHECKING:
    from ..core.host import Host

AGENT, DELEGATED, USER = Ownership.AGENT, Ownership.DELEGATED, Ownership.USER


@op("claim_task_space")
async def claim_task_space(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    store = store_of(host)
    if space.ownership == USER and (space.reason or "user_owned") != "user_owned":
        # the person took this space over: it is theirs until they give it back, approval or not
        raise TaskSpaceUserInControl(
            f"task space {space.id} (\"{space.name}\") was taken over by the user (reason: {space.reason}); it "
            f"cannot be claimed until they give it back (ego-browser spaces give-back {space.id})",
            space_id=space.id, reason=space.reason,
        )
    if space.ownership == USER or space.ownership == DELEGATED:
        # the tabs that existed before the claim stay unmanaged
        for row in store.pages(space.id):
            if row.state == OPEN and space.ownership == USER:
                store.update_page(space.id, row.label, state=UNMANAGED)
    store.update_space(space.id, ownership=AGENT, reason=None, user_page=active_tab(host, space))
    await host.handoffs.came_back(host, space.id, None)
    return fresh(host, space.id)


@op("take_over_task_space")
async def take_over_task_space(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    store = store_of(host)
    if space.ownership == USER:
        raise TaskSpaceUserInControl(
            f"task space {space.id} is user-owned; use claim_task_space({space.id}) after the user approves",
            space_id=space.id, reason=space.reason or "user_owned",
        )
    fields: dict[str, Any] = {"ownership": AGENT, "reason": None}
    if space.ownership == DELEGATED:
        fields["user_page"] = active_tab(host, space)
    store.update_space(space.id, **fields)
    await host.handoffs.came_back(host, space.id, None)
    return fresh(host, space.id)


# -- the person's side (CLI) ------------------------------------------------------------------


@op("spaces.take_over")
async def person_take_over(host: Host, at: dict[str, Any], *, reason: str | None) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    reason = reason or "manual_takeover"
    store_of(host).update_space(space.id, ownership=USER, reason=reason)
    # the agent's requests still running on this space stop now (their input is gated too)
    host.preempt(space, reason)
    from ..spaces.windows import focus_space

    await focus_space(host, space)  # headed: the person finds the space's window in front
    return fresh(host, space.id)


@op("spaces.create")
async def person_create(host: Host, at: dict[str, Any], *, name: Any) -> dict[str, Any]:
    """The person opens a space of their own (one blank tab, no labels); an agent may claim it."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgument("spaces new: NAME must be a non-empty name", api="spaces new", option="name",
                              expected="non-empty str")
    store = store_of(host)
    target_id, was_spare = await first_tab(host, None, name.strip())
    try:
        space_id, _row = store.create_space_with_page(
            name=name.strip(), isolated=False, context_id=None, profile_id="default",
            browser_instance=host.browser.instance, target_id=target_id, created_by=CreatedBy.USER,
            ownership=USER, reason="user_owned",
        )
    except StateStoreUnwritable:
        await undo_first_tab(host, target_id, was_spare, None)
        raise
    host.active[space_id] = target_id
    return fresh(host, space_id)


@op("spaces.give_back")
async def person_give_back(host: Host, at: dict[str, Any], *, note: str | None) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    note = note.strip() if isinstance(note, str) and note.strip() else None
    fields: dict[str, Any] = {"ownership": AGENT, "reason": None}
    if space.reason in ("needs_you", "needs_consent"):
        fields["status"] = None  # the question was answered
    store_of(host).update_space(space.id, **fields)
    # what the person did meanwhile (their console, dialogs, downloads) is not the agent's to read
    for row in host.store.pages(space.id) if host.store is not None else ():
        driver = host.drivers.get(row.target_id or "")
        if driver is not None:
            driver.take_events()
    from ..features.consent import answered

    answered(host, space.id, note)  # a "yes" lets the action that asked go through, once
    # a call waiting for the space (ask_human, wait_for_control) returns now with the note;
    # with none waiting, the note goes in the report of the next round that uses the space
    if not await host.handoffs.came_back(host, space.id, note) and note is not None:
        host.features.dashboard.notes[space.id] = note
    return fresh(host, space.id)


@op("spaces.close")
async def person_close(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    """The person closes a space (its tabs and its listing), whoever drives it: an agent's
    requests still running there stop first, as on a take-over."""
    space = host.space_row(at.get("space"))
    host.preempt(space, "closed_by_user")
    await finish_space(host, space, [])
    return {"id": space.id, "name": space.name, "closed": True}


# -- the agent hands a space to the person ----------------------------------------------------


@op("TaskSpace.hand_off")
async def hand_off(host: Host, at: dict[str, Any]) -> None:
    space = host.space_row(at.get("space"))
    host.gate(space)
    store_of(host).update_space(space.id, ownership=DELEGATED, reason="handed_off")
    host.preempt(space, "handed_off")  # the agent's other requests on it stop, as on a take-over


@op("task.control")
async def control(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    return {"ownership": space.ownership, "reason": space.reason}
