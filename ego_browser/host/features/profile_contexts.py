"""The browser context that backs the spaces of a non-default profile (the profile
operations are ``profile_ops.py``).

Chromium cannot open a second on-disk profile of a running headless browser (a second launch
on the same user-data directory exits with status 21, "Failed to create a ProcessSingleton"),
and CDP creates only in-memory contexts. So a profile made with ``profiles new`` is one
in-memory browser context of the host's browser, shared by its spaces; an imported profile,
whose bookmarks, history, saved logins and extensions load only from a browser's own profile
directory, runs in a Chromium of its own launched on that directory
(``browser/profile_provider.py``, an extra browser of the host's ``BrowserLink``), started by
its first space and stopped when its last space finishes or the host stops; its spaces use
that browser's default context. Either way the context is seeded from the profile's files
(cookies, local storage, permissions) when its first space opens, and what the spaces change
is written back: cookies and the local storage of the pages open when a space finishes, and
the cookies again when the host stops. ``default`` is the host browser's own persistent
context, as before. See docs/architecture.md "Profiles".
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ... import jsbundle
from ...errors import CdpError, EgoError, ProfileNotFound
from ...browser_profiles import chromium_dir
from ...browser_profiles import store as profile_store
from ..core.browser import BrowserLink
from ..core.store import Store

if TYPE_CHECKING:
    from ...driver.page import PageDriver

__all__ = ["ProfileContexts", "ProfileHost", "context_for", "release_idle_browser", "save_on_finish",
           "spaces_using"]

logger = logging.getLogger("ego_browser.host")

_SEED_TIMEOUT = 10.0


class _ProfileFeatures(Protocol):
    @property
    def profiles(self) -> ProfileContexts: ...


class ProfileHost(Protocol):
    """What the profiles' contexts need of the ``Host`` (``core`` is above them): its folders,
    store and browser, attaching to a tab (to read its local storage), background tasks, and
    the profiles' own state (``host.features.profiles``)."""

    home: Path
    run_dir: Path
    store: Store | None
    browser: BrowserLink

    @property
    def features(self) -> _ProfileFeatures: ...

    def background(self, task: asyncio.Task[Any]) -> None: ...

    async def driver(self, target_id: str, attach_timeout: float | None = None) -> PageDriver: ...


class ProfileContexts:
    """The browser context each profile in use lives in, and a lock per profile (one per host)."""

    def __init__(self, host: ProfileHost) -> None:
        self._host = host
        #: profile id -> browser context id (gone with the browser)
        self.contexts: dict[str, str] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        #: imported profile id -> instance of its own Chromium (an extra browser of the link)
        self.browsers: dict[str, str] = {}
        self._launcher: ThreadPoolExecutor | None = None
        host.browser.on_disconnect.append(self.contexts.clear)
        host.browser.on_member_lost.append(self._lost)

    def launcher(self) -> ThreadPoolExecutor:
        """The thread the profiles' browsers are launched from: alive until the host stops,
        as their parent-death signal follows it (browser/profile_provider.py)."""
        if self._launcher is None:
            self._launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ego-profile-browser")
        return self._launcher

    def _lost(self, instance: str, _gone: list[str]) -> None:
        for profile_id in [p for p, i in self.browsers.items() if i == instance]:
            del self.browsers[profile_id]  # its next space starts it again
            self.contexts.pop(profile_id, None)

    async def save(self) -> None:
        """The host stops: the profiles keep what their spaces changed (``save_all``)."""
        await save_all(self._host)

    def on_driver(self, driver: object) -> None:
        pass

    def stop(self) -> None:
        if self._launcher is not None:
            self._launcher.shutdown(wait=False)


def spaces_using(host: ProfileHost, profile_id: str) -> list[Any]:
    assert host.store is not None
    return [s for s in host.store.spaces() if s.profile_id == profile_id and not s.closed]


# -- the context of a profile ----------------------------------------------------------------


async def context_for(host: ProfileHost, profile_id: str) -> str | None:
    """The browser context a new space of ``profile_id`` opens in (None: the default one)."""
    if profile_id == profile_store.DEFAULT:
        return None
    profile = profile_store.get(profile_id, host.home)  # ProfileNotFound when it was removed
    state = host.features.profiles
    lock = state.locks.setdefault(profile_id, asyncio.Lock())
    async with lock:  # two spaces opening at once share one seeded context
        if chromium_dir.uses_own_browser(profile):
            return await _own_browser_context(host, profile)
        known = state.contexts.get(profile_id) or _surviving_context(host, profile_id)
        if known:
            state.contexts[profile_id] = known
            return known
        assert host.browser.conn is not None
        res = await host.browser.conn.send("Target.createBrowserContext", {"disposeOnDetach": False})
        context_id = str(res["browserContextId"])
        try:
            await _seed(host, profile, context_id)
        except BaseException:
            with contextlib.suppress(Exception):
                await host.browser.conn.send("Target.disposeBrowserContext", {"browserContextId": context_id})
            raise
        state.contexts[profile_id] = context_id
        return context_id


async def _own_browser_context(host: ProfileHost, profile: profile_store.Profile) -> str:
    """An imported profile's space: its own Chromium (started now if it is not running),
    made the request's browser; the context is that browser's default one."""
    from ...browser.profile_provider import ProfileProvider

    state = host.features.profiles
    profile_id = profile["id"]
    instance = state.browsers.get(profile_id)
    if instance is None or not host.browser.has(instance):
        state.contexts.pop(profile_id, None)
        member = await host.browser.open_extra(ProfileProvider(profile, host.run_dir, state.launcher()))
        instance = state.browsers[profile_id] = member.instance
        context_id = member.default_context
        launch_tabs = [t for t, owner in host.browser.target_owner.items()
                       if owner == instance and host.browser.is_live_page(t)]
        host.browser.use(instance)
        try:
            await _seed(host, profile, context_id)
        except BaseException:
            state.browsers.pop(profile_id, None)
            await host.browser.release_extra(instance)
            raise
        if not member.opened.headed:
            # its launch tab belongs to no space (a headless browser outlives its last tab)
            for tid in launch_tabs:
                with contextlib.suppress(EgoError):
                    await member.opened.conn.send("Target.closeTarget", {"targetId": tid}, timeout=5.0)
        state.contexts[profile_id] = context_id
    host.browser.use(instance)
    return state.contexts[profile_id]


async def release_idle_browser(host: ProfileHost, profile_id: str) -> None:
    """The profile's last space finished: its own Chromium stops (its directory stays)."""
    state = host.features.profiles
    instance = state.browsers.get(profile_id)
    if instance is None or spaces_using(host, profile_id):
        return
    lock = state.locks.setdefault(profile_id, asyncio.Lock())
    async with lock:  # not while a new space of it is being opened
        if spaces_using(host, profile_id) or state.browsers.get(profile_id) != instance:
            return
        with contextlib.suppress(EgoError, OSError):
            await save_cookies(host, profile_id)
        state.browsers.pop(profile_id, None)
        state.contexts.pop(profile_id, None)
        await host.browser.release_extra(instance)


def _surviving_context(host: ProfileHost, profile_id: str) -> str | None:
    """A restarted host on the same browser: the context its spaces still use."""
    assert host.store is not None
    for s in host.store.spaces():
        if (s.profile_id == profile_id and not s.isolated and s.context_id and not s.closed
                and s.browser_instance == host.browser.instance):
            return s.context_id
    return None


async def _seed(host: ProfileHost, profile: profile_store.Profile, context_id: str) -> None:
    conn = host.browser.conn
    assert conn is not None
    cookies = profile_store.read_json(profile.path / "cookies.json", [])
    if cookies:
        try:
            await conn.send("Storage.setCookies", {"cookies": cookies, "browserContextId": context_id},
                            timeout=_SEED_TIMEOUT)
        except CdpError:
            # one malformed cookie fails the batch: set them one by one and skip the bad ones
            for cookie in cookies:
                try:
                    await conn.send("Storage.setCookies", {"cookies": [cookie], "browserContextId": context_id})
                except CdpError as exc:
                    logger.warning("profile %s: cookie %s not restored: %s", profile["id"], cookie.get("name"), exc)
    for perm in profile_store.read_json(profile.path / "permissions.json", []):
        try:
            await conn.send("Browser.setPermission", {
                "permission": {"name": perm["name"]}, "setting": perm["setting"], "origin": perm["origin"],
                "browserContextId": context_id,
            })
        except (CdpError, KeyError, TypeError) as exc:
            logger.warning("profile %s: permission %s not restored: %s", profile["id"], perm, exc)
    storage = profile_store.read_json(profile.path / "local_storage.json", {})
    if isinstance(storage, dict) and storage:
        await _seed_local_storage(host, context_id, storage)


async def _seed_local_storage(host: ProfileHost, context_id: str, storage: dict[str, dict[str, str]]) -> None:
    """localStorage can only be written from a document of its origin: a helper tab of the
    context visits each origin with the request answered by an empty page (Fetch), never the
    network, and sets the items there."""
    conn = host.browser.conn
    assert conn is not None
    tid = (await conn.send("Target.createTarget", {"url": "about:blank", "browserContextId": context_id}))["targetId"]
    try:
        sid = (await conn.send("Target.attachToTarget", {"targetId": tid, "flatten": True}))["sessionId"]
        loop = asyncio.get_running_loop()
        committed: dict[str, asyncio.Future[None]] = {}

        def paused(params: dict[str, Any], _sid: str | None) -> None:
            # a task of the host's: the routed connection (one of several browsers) spawns none
            host.background(loop.create_task(conn.send("Fetch.fulfillRequest", {
                "requestId": params["requestId"], "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": "text/html"}],
                "body": base64.b64encode(b"<!doctype html><title></title>").decode(),
            }, session_id=sid)))

        def navigated(params: dict[str, Any], _sid: str | None) -> None:
            frame = params.get("frame") or {}
            fut = committed.get(str(frame.get("securityOrigin") or ""))
            if not frame.get("parentId") and fut is not None and not fut.done():
                fut.set_result(None)

        offs = [conn.on("Fetch.requestPaused", paused, session_id=sid),
                conn.on("Page.frameNavigated", navigated, session_id=sid)]
        try:
            await conn.send("Page.enable", session_id=sid)
            await conn.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, session_id=sid)
            for origin, items in storage.items():
                if not isinstance(items, dict) or not origin.startswith(("http://", "https://")):
                    continue
                committed[origin] = loop.create_future()
                await conn.send("Page.navigate", {"url": origin + "/"}, session_id=sid, timeout=_SEED_TIMEOUT)
                try:
                    await asyncio.wait_for(committed[origin], _SEED_TIMEOUT)
                except asyncio.TimeoutError:
                    logger.warning("local storage of %s not restored: the origin did not load", origin)
                    continue
                script = jsbundle.call("main", "local_storage_seed", origin, items)
                res = await conn.send("Runtime.evaluate", {"expression": script, "returnByValue": True},
                                      session_id=sid, timeout=_SEED_TIMEOUT)
                if (res.get("result") or {}).get("value") is not True:
                    logger.warning("local storage of %s not restored: %s", origin, res)
        finally:
            for off in offs:
                off()
    finally:
        with contextlib.suppress(EgoError):
            await conn.send("Target.closeTarget", {"targetId": tid}, timeout=5.0)


# -- writing back -----------------------------------------------------------------------------


def _cookie_param(c: dict[str, Any]) -> dict[str, Any]:
    domain = c.get("domain") or ""
    out: dict[str, Any] = {"name": c["name"], "value": c["value"], "path": c.get("path") or "/",
                           "secure": bool(c.get("secure")), "httpOnly": bool(c.get("httpOnly"))}
    if domain.startswith("."):
        out["domain"] = domain
    else:  # host-only: given as a url, as CDP keeps it host-only then
        out["url"] = f"{'https' if c.get('secure') else 'http'}://{domain}{out['path']}"
        if isinstance(c.get("sourcePort"), int) and c["sourcePort"] > 0:
            out["sourcePort"] = c["sourcePort"]
    if not c.get("session") and isinstance(c.get("expires"), (int, float)) and c["expires"] > 0:
        out["expires"] = c["expires"]
    if c.get("sameSite"):
        out["sameSite"] = c["sameSite"]
    if isinstance(c.get("partitionKey"), dict):
        out["partitionKey"] = c["partitionKey"]
    return out


async def save_cookies(host: ProfileHost, profile_id: str) -> None:
    context_id = host.features.profiles.contexts.get(profile_id)
    if not context_id or host.browser.conn is None:
        return
    try:
        profile = profile_store.get(profile_id, host.home)
    except ProfileNotFound:
        logger.warning("profile %s was removed while its context lived: its cookies are not saved", profile_id)
        return
    res = await host.browser.conn.send("Storage.getCookies", {"browserContextId": context_id}, timeout=10.0)
    profile_store.write_json(profile.path / "cookies.json", [_cookie_param(c) for c in res.get("cookies") or []])


async def save_local_storage(host: ProfileHost, profile_id: str, target_ids: list[str]) -> None:
    """The localStorage of these pages, merged into the profile by origin."""
    try:
        profile = profile_store.get(profile_id, host.home)
    except ProfileNotFound:
        return
    found: dict[str, dict[str, str]] = {}
    for tid in target_ids:
        with contextlib.suppress(EgoError, asyncio.TimeoutError):
            driver = await host.driver(tid)
            res = await driver.session.send("Runtime.evaluate", {
                "expression": jsbundle.call("main", "local_storage_read"),
                "returnByValue": True,
            }, timeout=5.0)
            value = (res.get("result") or {}).get("value")
            if isinstance(value, list) and len(value) == 2 and str(value[0]).startswith(("http://", "https://")):
                found[value[0]] = {str(k): str(v) for k, v in (value[1] or {}).items()}
    if found:
        path = profile.path / "local_storage.json"
        current = profile_store.read_json(path, {})
        current = current if isinstance(current, dict) else {}
        current.update(found)
        profile_store.write_json(path, current)


async def save_on_finish(host: ProfileHost, space: Any, targets: list[str]) -> None:
    """A finishing space of a non-default profile leaves its data in the profile: the local
    storage of its pages (closing or kept) and the context's cookies."""
    if space.isolated or space.profile_id == profile_store.DEFAULT:
        return
    try:
        await save_local_storage(host, space.profile_id, targets)
        await save_cookies(host, space.profile_id)
    except (EgoError, OSError) as exc:
        logger.warning("profile %s: data of space %s not saved: %s", space.profile_id, space.id, exc)


async def save_all(host: ProfileHost) -> None:
    """The host stops: every live profile context's cookies go back to their profile."""
    for profile_id in list(host.features.profiles.contexts):
        with contextlib.suppress(EgoError, OSError):
            await save_cookies(host, profile_id)

