"""The profile operations: listing, creating and removing profiles.

What backs the spaces of a non-default profile (its browser context or its own Chromium,
seeded from its files and written back) is ``profile_contexts.py``. See docs/architecture.md
"Profiles".
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from ...browser_profiles import store as profile_store
from ...errors import EgoError, InvalidArgument, InvalidState
from ..core.dispatch import op
from ..features.profile_contexts import release_idle_browser, spaces_using

if TYPE_CHECKING:
    from ..core.host import Host


def list_public(host: Host) -> list[dict[str, Any]]:
    return [p.public() for p in profile_store.list_profiles(host.home)]


@op("profiles")
async def profiles(host: Host, at: dict[str, Any]) -> list[dict[str, Any]]:
    return list_public(host)


@op("profiles.create")
async def create(host: Host, at: dict[str, Any], *, name: Any) -> dict[str, Any]:
    return profile_store.create(name, host.home).public()


@op("profiles.remove")
async def remove(host: Host, at: dict[str, Any], *, id: Any) -> dict[str, Any]:  # noqa: A002
    profile_id = id
    if not isinstance(profile_id, str):
        raise InvalidArgument("profiles rm: ID must be a profile id (see profiles list)", api="profiles rm",
                              option="id", expected="str")
    if profile_id == profile_store.DEFAULT:
        profile_store.remove(profile_id, host.home)  # raises: the browser's own profile stays
    profile = profile_store.get(profile_id, host.home)
    using = spaces_using(host, profile_id)
    if using:
        listing = ", ".join(f'{s.id} "{s.name}"' for s in using)
        raise InvalidState(
            f"profiles rm: profile {profile_id} backs open task space(s) {listing}; finish them first "
            "(task.finish(), or `ego-browser spaces` to see them) and remove it again",
            api="profiles rm",
        )
    await release_idle_browser(host, profile_id)  # an imported profile's own Chromium
    context_id = host.features.profiles.contexts.pop(profile_id, None)
    if context_id and host.browser.conn is not None:
        with contextlib.suppress(EgoError):
            await host.browser.conn.send("Target.disposeBrowserContext", {"browserContextId": context_id}, timeout=5.0)
    profile_store.remove(profile_id, host.home)
    return profile.public()
