"""The named sets of states: who drives a space, where a page is, who opened it.

Each is a ``StrEnum`` whose values are the strings agents read (``task.ownership``,
``page.opened_by``, ``task.tabs()``) and the host's store keeps, so a member compares equal
to its string and serialises as it: the names are for code, the wire does not change.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Ownership", "CreatedBy", "PageState", "OpenedBy"]


class Ownership(StrEnum):
    """Who drives a task space (docs/api.md, ``TaskSpace.ownership``)."""

    #: the agent drives it
    AGENT = "agent"
    #: the agent handed it to the person (``task.handoff()``) and may take it back
    DELEGATED = "agentDelegatedToUser"
    #: the person drives it (they took it, or it was theirs from the start)
    USER = "user"


class CreatedBy(StrEnum):
    """Who made a task space: the agent, or the person (a tab adopted as a space)."""

    AGENT = "agent"
    USER = "user"


class PageState(StrEnum):
    """Where a page of a space is (the store's ``pages.state``)."""

    OPEN = "open"
    CLOSED = "closed"
    #: handed to the person with ``page.release()``: theirs now, not the space's
    RELEASED = "released"
    #: a tab of the space the agent did not open (stored under the label ``#<target id>``)
    UNMANAGED = "unmanaged"


class OpenedBy(StrEnum):
    """Who opened a page (``page.opened_by``): the agent (or a page of the agent's), or not known."""

    AGENT = "agent"
    UNKNOWN = "unknown"
