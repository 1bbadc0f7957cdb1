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
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import orjson

from ... import config
from ...driver.guard import GUARDED_SCHEMES, BrowserGuard, check_patterns, describe, rule_for
from ...errors import NavigationNotAllowed
from ..core.target_owner import space_of_target

__all__ = ["GuardBook", "DECISION_WAIT"]

#: seconds an action waits at most, once it ran, for the list's judgement of the documents it
#: started (a popup's first request may be paused after the action returned); a popup whose
#: server answers slower returns the action first, and its block is not the action's error
DECISION_WAIT = 5.0


def _reaches_a_host(url: str) -> bool:
    try:
        return urlsplit(url).scheme.lower() in GUARDED_SCHEMES
    except ValueError:
        return False


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
        #: (when, target id, space id) of the last popups opened in spaces, for ``after_action``
        self._popups: deque[tuple[float, str, int]] = deque(maxlen=64)
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
        self.host.browser.on_target_created.append(self._target_created)
        self.host.browser.on_target_destroyed.append(self._target_destroyed)
        await self.browser.sync()

    def stop(self) -> None:
        if self.browser is not None:
            self.browser.stop()
        for hooks, fn in ((self.host.browser.on_target_created, self._target_created),
                          (self.host.browser.on_target_destroyed, self._target_destroyed)):
            if fn in hooks:
                hooks.remove(fn)

    def _target_created(self, info: dict[str, Any]) -> None:
        opener = info.get("openerId")
        space_id = space_of_target(self.host, opener) if opener and self.browser and self.browser.enabled else None
        if space_id is not None and self.browser is not None:
            self._popups.append((time.monotonic(), info["targetId"], space_id))
            self.browser.poke()

    def _target_destroyed(self, _target_id: str) -> None:
        if self.browser is not None:
            self.browser.poke()  # a popup closed before its first request: nothing more to wait for

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

    def _attribute(self, frame_id: str) -> tuple[int, list[str] | None] | None:
        target = frame_id if frame_id in self.host.browser.targets else None
        if target is None:
            for tid, driver in self.host.drivers.items():
                if driver.frames.get(frame_id) is not None:
                    target = tid
                    break
        space_id = space_of_target(self.host, target) if target else None
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

    async def after_action(self, space: Any, since: float, *, budget: float = DECISION_WAIT,
                           navigations: bool = True) -> None:
        """After an action in a guarded space: wait (at most ``budget`` seconds from ``since``,
        and ``DECISION_WAIT``) until the list has judged every top-level document the action
        started there (the popups it opened; with ``navigations``, its tabs' own), woken by the
        guard's events, then raise if it stopped one."""
        browser = self.browser
        if browser is not None and browser.enabled and self.effective(space)[0]:
            remaining = min(DECISION_WAIT, budget - (time.monotonic() - since))
            if remaining > 0 and self._undecided(space.id, since, navigations):
                await browser.wait_until(lambda: not self._undecided(space.id, since, navigations), remaining)
        self.raise_if_blocked(space, since)

    def _undecided(self, space_id: int, since: float, navigations: bool) -> bool:
        """Whether a document the space started since ``since`` still waits for the list's
        judgement, or a window its pages asked for (with a URL that reaches a host) has not
        started its document yet."""
        assert self.browser is not None
        host = self.host
        targets = host.browser.targets
        judged: set[str] = set()
        for doc in self.browser.documents.values():
            if doc.started < since or doc.frame_id not in targets:
                continue  # older, or its tab closed: nothing more comes of it
            popup = bool(targets[doc.frame_id].get("openerId"))
            if not (popup or navigations) or space_of_target(host, doc.frame_id) != space_id:
                continue
            if doc.outcome is None:
                return True
            if popup:
                judged.add(doc.frame_id)
        # popups closed before their first request count as judged: none will come
        done = len(judged) + sum(1 for at, tid, sid in self._popups
                                 if at >= since and sid == space_id and tid not in targets and tid not in judged)
        asked = 0
        for row in host.store.pages(space_id) if host.store is not None else ():
            driver = host.drivers.get(row.target_id or "")
            if driver is not None:
                asked += sum(1 for at, url in driver.window_opens if at >= since and _reaches_a_host(url))
        return done < asked

    def raise_if_blocked(self, space: Any, since: float) -> None:
        """After an action: a navigation it started (a link, a redirect, a popup) that the list stopped."""
        b = self.browser.blocked_since(space.id, since) if self.browser is not None else None
        if b is not None:
            raise NavigationNotAllowed(
                f"a navigation to {b.url} was blocked: it is outside {b.rule}; the page stayed where it was",
                url=b.url, rule=b.rule)
