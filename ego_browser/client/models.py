"""Plain values returned by the public API."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ActionReceipt", "UnmanagedPage"]


@dataclass(frozen=True)
class ActionReceipt:
    """What an action caused besides its own effect: adopted popups, an open JS dialog, and the
    navigation it started (waited for until committed unless ``no_wait_after=True``)."""

    popups: list[dict[str, Any]] = field(default_factory=list)
    dialog: dict[str, Any] | None = None
    navigation: dict[str, Any] | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any] | None) -> ActionReceipt:
        data = data or {}
        return cls(popups=list(data.get("popups") or []), dialog=data.get("dialog"),
                   navigation=data.get("navigation"))


@dataclass(frozen=True)
class UnmanagedPage:
    """A tab of the space that has no label; pass it to ``TaskSpace.adopt()``."""

    space_id: int
    target_id: str
    opened_by: str = "unknown"
