"""Domain allowlists per space and per profile (issue 32, point 2): where they are kept and who may
change them (``host.guard``); the operations are ``guard_ops.py``, the enforcement ``driver/guard.py``.

A space's list, else its profile's default, is in force for every request of its pages. The
agent may only narrow its space's list (``task.set_allowed_domains``): a script that meets
untrusted text first fences itself in, and no injected instruction can widen the fence. The
person sets, widens or lifts any list from the command line (``ego-browser allow``).
Lists are kept in ``HOME/guardrails.json`` (0600, written atomically; the host its only writer).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import orjson

from ... import config
from ...driver.guard import BrowserGuard, check_patterns, describe, rule_for
from ...errors import NavigationNotAllowed
from ..core.store import OPEN, UNMANAGED

__all__ = ["GuardBook"]


class GuardBook:
    """The lists (space id / profile id -> host patterns) and the browser's interception."""

    def __init__(self, host: Any) -> None:
        self.host = host
        self.path = host.home / "guardrails.json"
        self.spaces: dict[int, list[str]] = {}
        self.profiles: dict[str, list[str]] = {}
        self.browser: BrowserGuard | None = None
        #: confirmation rules: "space:ID" / "profile:ID" -> {"click": patterns of control names,
        #: "post": host patterns, "downloads": bool, "purchases": bool} (consent.py,
        #: consent_holds.py); set by the person only
        self.confirm: dict[str, dict[str, Any]] = {}
        #: space id -> (the answer a held request waits for, what it would do, when it was held)
        self.held: dict[int, tuple[asyncio.Future[bool], str, float]] = {}
        self._hold_events: dict[int, asyncio.Event] = {}
        #: space id -> the one action the person said yes to, (op, control name), used once
        self.approved: dict[int, tuple[str, str]] = {}
        #: space id -> the action waiting for the person's answer
        self.pending: dict[int, tuple[str, str]] = {}
        try:
            doc = orjson.loads(self.path.read_bytes())
            self.spaces = {int(k): list(v) for k, v in (doc.get("spaces") or {}).items()}
            self.profiles = {str(k): list(v) for k, v in (doc.get("profiles") or {}).items()}
            # a list is the click patterns of a file written before the other rules
            self.confirm = {str(k): dict(v) if isinstance(v, dict) else {"click": list(v)}
                            for k, v in (doc.get("confirm") or {}).items()}
        except (FileNotFoundError, ValueError, AttributeError):
            pass

    async def start(self, conn: Any) -> None:
        from . import consent_holds

        self.browser = BrowserGuard(conn, self._attribute, self._in_force, self._is_top,
                                    hold=lambda space_id, params: consent_holds.hold(self.host, space_id, params),
                                    holding=lambda: consent_holds.holding(self.host))
        await self.browser.sync()

    def stop(self) -> None:
        if self.browser is not None:
            self.browser.stop()

    def _save(self) -> None:
        tmp = self.path.with_name(f".guardrails.{os.getpid()}.tmp")
        with config.open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "wb") as fh:
            fh.write(orjson.dumps({"spaces": {str(k): v for k, v in self.spaces.items()}, "profiles": self.profiles,
                                   "confirm": self.confirm}))
        os.replace(tmp, self.path)

    def confirm_set(self, space: Any) -> dict[str, Any]:
        """The confirmation rules in force for ``space``: its own, else its profile's."""
        return self.confirm.get(f"space:{space.id}") or self.confirm.get(f"profile:{space.profile_id or 'default'}") or {}

    def confirm_rules(self, space: Any) -> list[str]:
        """The control-name patterns a click or press needs the person's yes for."""
        from .consent_holds import PURCHASE_NAMES

        rules = self.confirm_set(space)
        return [*(rules.get("click") or []), *([PURCHASE_NAMES] if rules.get("purchases") else [])]

    def hold_event(self, space_id: int) -> asyncio.Event:
        """Set while a request of the space is held for the person's answer."""
        return self._hold_events.setdefault(space_id, asyncio.Event())

    async def forget(self, space_id: int) -> None:
        self.spaces.pop(space_id, None)
        self.confirm.pop(f"space:{space_id}", None)
        from .consent_holds import answered

        answered(self.host, space_id, False)  # a request held for a closed space's person: refused
        await self.changed()

    async def changed(self) -> None:
        self._save()
        if self.browser is not None:
            await self.browser.sync()

    # -- what is in force ---------------------------------------------------------------------

    def effective(self, space: Any) -> tuple[list[str] | None, str | None]:
        """(the list in force for ``space``, "space" | "profile" | None)."""
        if space.id in self.spaces:
            return self.spaces[space.id], "space"
        profile = self.profiles.get(space.profile_id or "default")
        return (profile, "profile") if profile else (None, None)

    def _open_spaces(self) -> list[Any]:
        store = self.host.store
        return [s for s in store.spaces() if not s.closed] if store is not None else []

    def _in_force(self) -> list[list[str]]:
        return [p for p in (self.effective(s)[0] for s in self._open_spaces()) if p]

    def _space_of_target(self, target_id: str, depth: int = 0) -> int | None:
        store = self.host.store
        if store is None:
            return None
        for row in store.pages_of_target(target_id):
            if row.state in (OPEN, UNMANAGED):
                return int(row.space_id)
        info = self.host.browser.targets.get(target_id) or {}
        opener = info.get("openerId")
        if opener and depth < 5:  # a popup not adopted yet belongs to its opener's space
            return self._space_of_target(opener, depth + 1)
        return None

    def _attribute(self, frame_id: str) -> tuple[int, list[str] | None] | None:
        target = frame_id if frame_id in self.host.browser.targets else None
        if target is None:
            for tid, driver in self.host.drivers.items():
                if driver.frames.get(frame_id) is not None:
                    target = tid
                    break
        space_id = self._space_of_target(target) if target else None
        if space_id is None:
            return None
        space = self.host.store.space(space_id) if self.host.store is not None else None
        return (space_id, self.effective(space)[0] if space is not None else None)

    def _is_top(self, frame_id: str) -> bool:
        return (self.host.browser.targets.get(frame_id) or {}).get("type") == "page"

    # -- checks on the action path ------------------------------------------------------------

    def check_url(self, space: Any, url: str) -> None:
        patterns, _by = self.effective(space)
        if patterns and rule_for(url, patterns) is None:
            raise NavigationNotAllowed(
                f"{url} is outside {describe(space.id, patterns)}; stay on those domains, or ask the person to "
                f"widen the list (ego-browser allow --space {space.id} DOMAIN ...)",
                url=url, rule=describe(space.id, patterns))

    def raise_if_blocked(self, space: Any, since: float) -> None:
        """After an action: a navigation it started (a link, a redirect, a popup) that the list stopped."""
        b = self.browser.blocked_since(space.id, since) if self.browser is not None else None
        if b is not None:
            raise NavigationNotAllowed(
                f"a navigation to {b.url} was blocked: it is outside {b.rule}; the page stayed where it was",
                url=b.url, rule=b.rule)
