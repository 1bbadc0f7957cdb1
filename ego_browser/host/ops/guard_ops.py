"""The operations of domain allowlists (issue 32, point 2); the lists are ``guard_book.py``, the
enforcement ``driver/guard.py``."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ...driver.guard import check_patterns, describe
from ...errors import InvalidArgument, InvalidState, NavigationNotAllowed
from ..core.dispatch import op

if TYPE_CHECKING:
    from ..core.host import Host

__all__: list[str] = []


def _split(pattern: str) -> tuple[str, str | None]:
    host, _, port = pattern.rpartition(":") if ":" in pattern else (pattern, "", "")
    return host, port or None


def _covered(pattern: str, patterns: list[str]) -> bool:
    """Whether ``pattern`` allows nothing that ``patterns`` does not (the agent may only narrow)."""
    host, port = _split(pattern)
    for old in patterns:
        old_host, old_port = _split(old)
        if old_port is not None and old_port != port:
            continue
        if old_host.startswith("*."):
            base, bare = old_host[2:], host[2:] if host.startswith("*.") else host
            if bare == base or bare.endswith("." + base):
                return True
        elif not host.startswith("*.") and host == old_host:
            return True
    return False


def _enforceable(host: Host, space: Any, api: str) -> None:
    """Lists are enforced in the host's own browser; a space on another (an imported profile's own
    Chromium, a Grid node, a remote endpoint) would be fenced in name only: refuse it."""
    if space.browser_instance != host.browser.instance:
        raise InvalidState(
            f"{api}: task space {space.id} runs in another browser ({host.browser.where(space.browser_instance)}), "
            "where allowlists are not enforced; use a space of the default profile in the host's own browser",
            api=api)


@op("TaskSpace.set_allowed_domains")
async def set_allowed_domains(host: Host, at: dict[str, Any], *, domains: Any) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    host.gate(space)
    patterns = check_patterns(domains, "task.set_allowed_domains")
    _enforceable(host, space, "task.set_allowed_domains")
    current, _by = host.guard.effective(space)
    if current:
        wider = [p for p in patterns if not _covered(p, current)]
        if wider:
            raise NavigationNotAllowed(
                f"task.set_allowed_domains: {', '.join(wider)} would widen {describe(space.id, current)}; an agent "
                f"may only narrow it (the person widens it: ego-browser allow --space {space.id} ...)",
                url=None, rule=describe(space.id, current))
    host.guard.spaces[space.id] = patterns
    await host.guard.changed()
    return {"domains": patterns, "set_by": "space"}


@op("TaskSpace.allowed_domains")
async def allowed_domains(host: Host, at: dict[str, Any]) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    patterns, by = host.guard.effective(space)
    return {"domains": patterns, "set_by": by}


@op("guard.confirm")
async def person_confirm(host: Host, at: dict[str, Any], *, space_id: int | None, profile_id: str | None,
                         click: Any, post: Any, downloads: bool, purchases: bool) -> dict[str, Any]:
    """The person's CLI: what needs their yes (consent.py, consent_holds.py): clicks on controls
    whose name matches one of ``click``, requests that send a form to a host ``post`` names, any
    download, purchases. Replaces the space's (or profile's) rules; nothing given lifts them."""
    if click is not None and (not click or not all(isinstance(c, str) and c.strip() for c in click)):
        raise InvalidArgument("confirm: --click takes non-empty patterns (regular expressions, case-insensitive)",
                              api="confirm", option="click", expected="non-empty patterns")
    posts = None if post is None else check_patterns(post, "confirm --post")
    key = f"space:{host.space_row(space_id).id}" if space_id is not None else f"profile:{profile_id or 'default'}"
    rules: dict[str, Any] = {}
    if click is not None:
        rules["click"] = [c.strip() for c in click]
    if posts:
        rules["post"] = posts
    if downloads:
        rules["downloads"] = True
    if purchases:
        rules["purchases"] = True
    if not rules:
        host.guard.confirm.pop(key, None)
    else:
        host.guard.confirm[key] = rules
    await host.guard.changed()
    return {"confirm": host.guard.confirm}


@op("guard.allow")
async def person_allow(host: Host, at: dict[str, Any], *, space_id: int | None, profile_id: str | None,
                       domains: Any) -> dict[str, Any]:
    """The person's CLI: set, widen or lift (domains None) a space's list or a profile's default."""
    patterns = None if domains is None else check_patterns(domains, "allow")
    if space_id is not None:
        space = host.space_row(space_id)
        if patterns is not None:
            _enforceable(host, space, "allow")
        if patterns is None:
            host.guard.spaces.pop(space_id, None)
        else:
            host.guard.spaces[space_id] = patterns
    elif profile_id is not None:
        if patterns is not None and profile_id != "default":
            raise InvalidState("allow: an imported profile's spaces run in a Chromium of their own, where allowlists "
                               "are not enforced; only the default profile takes a default list", api="allow")
        if patterns is None:
            host.guard.profiles.pop(profile_id, None)
        else:
            host.guard.profiles[profile_id] = patterns
    await host.guard.changed()
    return {"spaces": {str(k): v for k, v in host.guard.spaces.items()}, "profiles": host.guard.profiles,
            "at": time.time()}
