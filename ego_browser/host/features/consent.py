"""Confirmation rules (issue 32, point 2): actions the person marked as needing their yes.

The person lists patterns of control names (``ego-browser confirm --space ID --click
"place order|buy|pay"``; a profile's list is the default of its spaces; ``--purchases`` adds
``consent_holds.PURCHASE_NAMES``). Rules on requests (``--post``, ``--downloads``, the card
numbers of ``--purchases``) are ``consent_holds.py``. A click, double click or
press on an element whose accessible name (or text) matches one is not performed: the space goes
to the person (``agentDelegatedToUser``, reason ``needs_consent``, the question as its status,
"needs you" in ``spaces`` and the dashboard) and the action fails with ``EGO_CONSENT_REQUIRED``.
The agent waits for the answer with ``task.wait_for_control()``; the person gives the space back
with the note ``yes`` (the dashboard's note field, or ``spaces give-back ID --note yes``) and the
agent's next identical action on that control goes through, once. Any other note is a no. The
wait is the agent's next call, not the action's: an action's deadline is seconds, a person's
answer may take minutes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...errors import ConsentRequired
from ...selectors.parse import parse_selector
from ...states import Ownership
from .handoffs import Ask, where
from ..core.page_site import PageSite

if TYPE_CHECKING:
    from ..core.host import Host, PageCtx

__all__ = ["check", "CONSENT_OPS", "NEEDS_CONSENT", "answered"]

NEEDS_CONSENT = "needs_consent"
#: the element actions a click rule covers
CONSENT_OPS = ("page.click", "page.dblclick", "page.press")


def _rule_hit(rules: list[str], name: str) -> str | None:
    for rule in rules:
        try:
            if re.search(rule, name, re.IGNORECASE):
                return rule
        except re.error:
            if rule.lower() in name.lower():
                return rule
    return None


async def check(host: Host, ctx: PageCtx, op: str, selector: str) -> None:
    """Refuse (and hand the space to the person) an action on a control a rule names, unless the
    person said yes to exactly this one."""
    rules = host.guard.confirm_rules(ctx.space)
    if not rules or op not in CONSENT_OPS:
        return
    found = await ctx.driver.locate.find(PageSite(host, ctx), parse_selector(selector), 2)
    if not found:
        return  # nothing to act on: the action reports that itself
    name = str(found[0].get("name") or found[0].get("text") or "").strip()
    rule = _rule_hit(rules, name)
    if rule is None:
        return
    approved = host.guard.approved.pop(ctx.space.id, None)
    if approved == (op, name):
        return  # the person said yes to this one
    url, title = await where(host, ctx.space.id)
    question = f"Allow the agent to {op.split('.')[1]} \"{name}\" on {url}? Give back with the note yes, or no."
    host.handoffs.asks[ctx.space.id] = Ask(question, url, title)
    host.guard.pending[ctx.space.id] = (op, name)
    assert host.store is not None
    host.store.update_space(ctx.space.id, ownership=Ownership.DELEGATED, reason=NEEDS_CONSENT, status=question)
    raise ConsentRequired(
        f"{op} on \"{name}\" needs the person's consent (rule {rule!r}); the space is theirs until they answer: "
        "await task.wait_for_control() returns their note; if it is yes, repeat the same action once",
        action=f"{op} \"{name}\"", rule=rule)


def answered(host: Any, space_id: int, note: str | None) -> None:
    """The person gave the space back: a yes approves the pending action once, and lets a held
    request go on (``consent_holds.py``); anything else refuses it."""
    from . import consent_holds

    yes = (note or "").strip().lower().rstrip(".!") in ("yes", "y", "ok", "allow")
    pending = host.guard.pending.pop(space_id, None)
    if pending is not None and yes:
        host.guard.approved[space_id] = pending
    consent_holds.answered(host, space_id, yes)
