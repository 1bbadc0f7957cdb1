"""What the journal learns about an action's target while the action runs.

The host's journal (``host/ops/journal_ops.py``) sets :data:`WITNESS` around an element action; the
action's first resolver is then wrapped so that the element it resolves to is described once,
in the page, before any input (``js/utility/journal_target.js``: role, name, the stable
locators and whether each is unique). Nothing runs when no journal listens, and a description
that fails never fails the action.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from .. import jsbundle
from ..errors import EgoError
from .handles import ElementHandle, Resolve

__all__ = ["WITNESS", "witnessed", "describe_target"]

#: ``(description) -> None``: set by the host's journal for the length of one action
WITNESS: contextvars.ContextVar[Callable[[dict[str, Any]], None] | None] = contextvars.ContextVar(
    "ego_action_witness", default=None)


async def describe_target(handle: ElementHandle) -> dict[str, Any] | None:
    """The journal's description of ``handle`` (None when the page would not say)."""
    try:
        res = await handle.session.send(
            "Runtime.callFunctionOn",
            {"objectId": handle.object_id, "returnByValue": True,
             "functionDeclaration": jsbundle.function("utility", "journal_target")},
            timeout=5.0,
        )
    except (EgoError, OSError):
        return None
    value = (res.get("result") or {}).get("value")
    return value if isinstance(value, dict) else None


def witnessed(resolve: Resolve) -> Resolve:
    """``resolve``, telling the witness about the first element it hands out (once)."""
    witness = WITNESS.get()
    if witness is None:
        return resolve
    told = False

    async def wrapped() -> list[ElementHandle]:
        nonlocal told
        handles = await resolve()
        if handles and not told:
            told = True
            info = await describe_target(handles[0])
            if info is not None:
                witness(info)
        return handles

    return wrapped
