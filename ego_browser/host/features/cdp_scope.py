"""Raw CDP scope: what ``page.cdp`` and ``task.cdp`` may send, and with which ids.

The host's one browser connection serves every space, and raw CDP rides on it: without a
policy an agent could attach to another space's tab, close it, read every tab's URL, close
the browser or switch off the host's own target discovery. The rules (docs/architecture.md,
"Raw CDP scope"):

- ``page.cdp`` goes to the page's own session. Domains that act on that tab (DOM, Runtime,
  Page, Network, Input ...) are allowed, minus their methods that reach the whole browser
  or context; every other domain is refused unless listed (safe by default: a domain added
  to Chromium tomorrow is refused until someone decides it is page-scoped).
- ``task.cdp`` goes to the browser session, which is the host's own. Only the listed
  Target.*/Browser.* methods pass; everything else there is refused.
- Every ``targetId``, ``sessionId``, ``browserContextId`` and ``windowId`` argument must name
  the space's own tabs (and their frames), sessions, contexts and windows. In an isolated
  space an omitted ``browserContextId`` means the space's own context (Chromium would take
  the shared default one), for permissions and for the Storage cookie methods alike.
  Context-wide changes (download behaviour, clearing every cookie or the cache, clearing
  another origin's data or cookies, a permission grant for every origin) need a context the
  space owns, i.e. an isolated space; a plain space's page may clear its own origin's.
- Target listings (``Target.getTargets``, ``Target.getBrowserContexts``) are filtered to the
  space; a tab opened with ``Target.createTarget`` joins the space as an unmanaged tab.

A refusal is ``CdpMethodRefused`` (``EGO_CDP_METHOD_REFUSED``) raised before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ...errors import CdpMethodRefused
from ...states import OpenedBy
from ..core.store import OPEN, UNMANAGED, SpaceRow

__all__ = ["Scope", "scope_of", "check", "filter_result", "PAGE", "TASK", "BROWSER_SESSION"]

PAGE, TASK = "page.cdp", "task.cdp"

#: page.cdp: domains whose commands act on the session's own tab (its frames, renderer,
#: network, storage partition); allowed unless refused below
_PAGE_DOMAINS = frozenset({
    "Accessibility", "Animation", "Audits", "Autofill", "CacheStorage", "Console", "CSS", "Debugger",
    "DeviceOrientation", "DOM", "DOMDebugger", "DOMSnapshot", "DOMStorage", "Emulation", "EventBreakpoints",
    "Fetch", "FileSystem", "HeapProfiler", "IndexedDB", "Input", "Inspector", "IO", "LayerTree", "Log",
    "Media", "Network", "Overlay", "Page", "Performance", "PerformanceTimeline", "Preload", "Profiler",
    "Runtime", "Schema", "Security", "Storage", "WebAudio", "WebAuthn",
})

#: page.cdp: methods outside those domains that stay within the tab or its space
_PAGE_EXTRA = frozenset({
    "Target.getTargetInfo", "Browser.getVersion", "Browser.getWindowForTarget", "Browser.setPermission",
    "Browser.grantPermissions", "Browser.resetPermissions", "SystemInfo.getInfo", "SystemInfo.getFeatureState",
    "Memory.getDOMCounters", "Memory.getDOMCountersForLeakDetection", "Memory.prepareForLeakDetection",
})

#: task.cdp: the browser-session methods it allows (ids checked, listings filtered)
_TASK_ALLOWED = frozenset({
    "Target.getTargets", "Target.getTargetInfo", "Target.createTarget", "Target.closeTarget",
    "Target.activateTarget", "Target.getBrowserContexts",
    "Browser.getVersion", "Browser.getWindowForTarget", "Browser.getWindowBounds", "Browser.setWindowBounds",
    "Browser.setContentsSize", "Browser.setPermission", "Browser.grantPermissions", "Browser.resetPermissions",
})

#: methods that default to Chromium's default (shared) context when browserContextId is
#: omitted: an isolated space gets its own instead
_CONTEXT_DEFAULTED = frozenset({
    "Target.createTarget", "Browser.setPermission", "Browser.grantPermissions", "Browser.resetPermissions",
    # the cookie jar: omitted, Chromium reads and writes the shared default one (issue 31: an
    # isolated space's Storage.getCookies read the person's whole jar)
    "Storage.getCookies", "Storage.setCookies", "Storage.clearCookies",
})

#: page.cdp sends these on the browser session, with the context filled in: a page session
#: refuses browserContextId for them and, without it, reaches the shared default jar
BROWSER_SESSION = frozenset({"Storage.getCookies", "Storage.setCookies", "Storage.clearCookies"})

#: clear one origin's data: context-wide unless the origin is the page's own
_ORIGIN_SCOPED = frozenset({
    "Storage.clearDataForOrigin", "Storage.clearDataForStorageKey", "Network.deleteCookies",
})

#: grant for one origin, or for every origin of the context when none is given
_ORIGIN_GRANTS = frozenset({"Browser.grantPermissions", "Browser.setPermission"})

#: change what every tab of a context shares: only in a context the space owns (isolated)
_CONTEXT_WIDE = frozenset({
    "Browser.resetPermissions", "Storage.clearCookies", "Network.clearBrowserCookies", "Network.clearBrowserCache",
})

#: why a well-known escape is refused, and what to do instead (shown in the message)
_WHY = {
    "Browser.close": "it would close the browser of every task space; end your own work with task.finish()",
    "Browser.crash": "it would crash the browser of every task space",
    "Browser.crashGpuProcess": "it would crash the GPU process every task space shares",
    "Browser.executeBrowserCommand": "it runs a browser-wide command",
    "Browser.getBrowserCommandLine": "it reads the browser's own configuration",
    "Target.setDiscoverTargets": "target discovery belongs to the host (it adopts every space's popups)",
    "Target.setAutoAttach": "browser-level auto-attach would hand every space's targets to the caller",
    "Target.autoAttachRelated": "it attaches to targets outside the caller's reach",
    "Target.attachToTarget": "sessions are the host's; use page.cdp on a Page of your space",
    "Target.attachToBrowserTarget": "the browser session is the host's",
    "Target.detachFromTarget": "sessions are the host's",
    "Target.sendMessageToTarget": "it sends to sessions the host does not scope; use page.cdp",
    "Target.exposeDevToolsProtocol": "it gives a page the browser's whole protocol",
    "Target.createBrowserContext": "a space's context is made by task_space(name, isolated=True)",
    "Target.disposeBrowserContext": "it closes every tab of a context; use task.finish()",
    "Target.setRemoteLocations": "it changes where the browser discovers targets",
    "Target.openDevTools": "it opens a browser window outside any space",
    "SystemInfo.getProcessInfo": "it lists every process of the browser",
    "Tracing.start": "a trace records every tab of the browser",
    "Memory.simulatePressureNotification": "it reaches every process of the browser",
    "Extensions.loadUnpacked": "extensions run in every task space",
    "Storage.clearCookies": "it clears every cookie of a browser context shared with other spaces and the user",
    "Network.clearBrowserCookies": "it clears every cookie of a browser context shared with other spaces and the user",
    "Network.clearBrowserCache": "it clears the cache of a browser context shared with other spaces and the user",
    # download behaviour is per context, but its events flag is per CDP session: on the host's
    # session it would silence download events for every space (measured: B142 then timed out)
    "Browser.setDownloadBehavior": "the host handles downloads for every space; use page.wait_for_event('download')",
    "Page.setDownloadBehavior": "the host handles downloads for every space; use page.wait_for_event('download')",
    "Browser.cancelDownload": "the host handles downloads for every space; use Download.cancel()",
    "Browser.resetPermissions": "it resets permissions of a browser context shared with other spaces and the user",
}

#: the id arguments checked on every allowed method
_ID_ARGS = ("targetId", "sessionId", "browserContextId", "windowId")


@dataclass
class Scope:
    """What one space may name in raw CDP."""

    kind: str  # PAGE or TASK
    space: SpaceRow
    #: the space's tabs (managed and unmanaged) and their out-of-process frames
    targets: set[str] = field(default_factory=set)
    #: the CDP sessions the host holds on those tabs
    sessions: set[str] = field(default_factory=set)
    #: browser contexts the space's tabs live in (the shared default one for a plain space)
    contexts: set[str] = field(default_factory=set)
    #: the context the space owns alone (isolated spaces)
    own_context: str | None = None
    #: page.cdp: the page's own tab
    page_target: str | None = None


def scope_of(host: Any, space: SpaceRow, kind: str, page_target: str | None = None) -> Scope:
    """The scope of ``task.cdp`` on ``space``, or of ``page.cdp`` on its tab ``page_target``
    (that tab and its frames; contexts and windows are still the space's)."""
    assert host.store is not None
    scope = Scope(kind, space, own_context=space.context_id if space.isolated else None, page_target=page_target)
    for row in host.store.pages(space.id):
        if row.state not in (OPEN, UNMANAGED) or not row.target_id:
            continue
        info = host.browser.targets.get(row.target_id) or {}
        if info.get("browserContextId"):
            scope.contexts.add(info["browserContextId"])
        if page_target is not None and row.target_id != page_target:
            continue
        scope.targets.add(row.target_id)
        driver = host.drivers.get(row.target_id)
        if driver is not None:
            scope.targets.update(driver.child_targets.values())
            scope.sessions.update(driver.sessions)
    if scope.own_context:
        scope.contexts = {scope.own_context}
        if page_target is None:
            # everything else in its own context is its own too (frames, workers)
            scope.targets.update(
                tid for tid, info in host.browser.targets.items()
                if info.get("browserContextId") == scope.own_context
            )
    return scope


def _refuse(scope: Scope, method: str, argument: str | None, reason: str, why: str) -> CdpMethodRefused:
    where = f'task space {scope.space.id} ("{scope.space.name}")'
    subject = f"{method}" if argument is None else f"{method} with {argument}"
    return CdpMethodRefused(
        f"{scope.kind}: {subject} refused ({why}); raw CDP reaches only {where}'s own "
        f"{'page' if scope.kind == PAGE else 'tabs, frames and browser context'}. See help('{_help(scope.kind)}').",
        method=method, argument=argument, reason=reason,
    )


def _help(kind: str) -> str:
    return "Page.cdp" if kind == PAGE else "TaskSpace.cdp"


def _allowed(kind: str, method: str) -> bool:
    if kind == TASK:
        return method in _TASK_ALLOWED
    domain = method.partition(".")[0]
    return method in _PAGE_EXTRA or (domain in _PAGE_DOMAINS and method not in _WHY)


async def check(host: Any, scope: Scope, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
    """The params to send (ids checked, an isolated space's context filled in), or raise
    ``CdpMethodRefused``. Nothing has been sent when it raises."""
    if not _allowed(scope.kind, method):
        why = _WHY.get(method) or (
            "it is not one of the page-scoped methods" if scope.kind == PAGE
            else "only the listed Target.*/Browser.* methods are allowed"
        )
        raise _refuse(scope, method, None, "browser_wide" if method in _WHY else "not_allowed", why)
    params = dict(params or {})
    # a space of a non-default profile lives in its profile's context: an omitted one means that
    own = scope.own_context or scope.space.context_id
    if method in _CONTEXT_DEFAULTED and own and "browserContextId" not in params:
        params["browserContextId"] = own
    for name in _ID_ARGS:
        if name not in params:
            continue
        value = params[name]
        if name == "targetId" and value not in scope.targets:
            raise _refuse(scope, method, name, "other_space", f"target {value!r} is not a tab of this space")
        if name == "sessionId" and value not in scope.sessions:
            raise _refuse(scope, method, name, "other_space", f"session {value!r} is not one of this space's")
        if name == "browserContextId" and value not in scope.contexts:
            raise _refuse(scope, method, name, "other_space", f"browser context {value!r} is not this space's")
        if name == "windowId" and value not in await _windows(host, scope):
            raise _refuse(scope, method, name, "other_space", f"window {value!r} holds none of this space's tabs")
    if method in _CONTEXT_WIDE:
        context = params.get("browserContextId")
        if scope.own_context is None or (context is not None and context != scope.own_context):
            raise _refuse(scope, method, None, "shared_context", _WHY.get(method, "it changes a shared context"))
    if scope.own_context is None:
        _check_origin_reach(host, scope, method, params)
    if method == "Browser.getWindowForTarget" and "targetId" not in params and scope.kind == TASK:
        raise _refuse(scope, method, "targetId", "other_space", "name one of this space's tabs")
    return params or None


def _page_host(host: Any, scope: Scope) -> str | None:
    info = host.browser.targets.get(scope.page_target or "") or {}
    try:
        return urlsplit(str(info.get("url") or "")).hostname
    except ValueError:
        return None


def _host_of(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return urlsplit(value if "://" in value else "//" + value).hostname
    except ValueError:
        return None


def _check_origin_reach(host: Any, scope: Scope, method: str, params: dict[str, Any]) -> None:
    """In a context shared with other spaces and the person: clearing another origin's data or
    cookies, or granting a permission to every origin, is a context-wide change."""
    if method in _ORIGIN_GRANTS:
        if not params.get("origin"):
            raise _refuse(scope, method, "origin", "shared_context",
                          "without an origin it changes every site's permissions for every space and the user; "
                          "give the origin of your page")
        return
    if method not in _ORIGIN_SCOPED:
        return
    own = _page_host(host, scope) if scope.kind == PAGE else None
    if method == "Network.deleteCookies":
        named = _host_of(params.get("url")) or (_host_of(str(params.get("domain") or "").lstrip(".")))
    elif method == "Storage.clearDataForOrigin":
        named = _host_of(params.get("origin"))
    else:
        named = _host_of(params.get("storageKey"))
    if own is None or named is None or named != own:
        raise _refuse(scope, method, None, "shared_context",
                      f"it clears {named or 'another origin'}'s data in a browser context shared with other spaces "
                      "and the user; a page may clear its own origin's (or use an isolated space)")


async def _windows(host: Any, scope: Scope) -> set[int]:
    found: set[int] = set()
    assert host.browser.conn is not None
    for tid in scope.targets:
        info = host.browser.targets.get(tid) or {}
        if info.get("type") != "page":
            continue
        try:
            res = await host.browser.conn.send("Browser.getWindowForTarget", {"targetId": tid}, timeout=5.0)
        except Exception:  # noqa: BLE001 - a tab closing meanwhile has no window
            continue
        found.add(res.get("windowId"))
    return found


def filter_result(host: Any, scope: Scope, method: str, result: Any) -> Any:
    """Listings cut down to the space; a tab it created joins it (unmanaged)."""
    if not isinstance(result, dict):
        return result
    if method == "Target.getTargets":
        infos = result.get("targetInfos") or []
        return {**result, "targetInfos": [i for i in infos if _own_info(scope, i)]}
    if method == "Target.getBrowserContexts":
        ids = result.get("browserContextIds") or []
        return {**result, "browserContextIds": [c for c in ids if c == scope.own_context]}
    if method == "Target.createTarget" and isinstance(result.get("targetId"), str):
        tid = result["targetId"]
        host.browser.targets.setdefault(tid, {"targetId": tid, "type": "page", "url": "about:blank", "title": ""})
        store = host.store
        if store is not None and not store.pages_of_target(tid):
            store.add_page(scope.space.id, "#" + tid, tid, OpenedBy.AGENT, state=UNMANAGED)
    return result


def _own_info(scope: Scope, info: dict[str, Any]) -> bool:
    if info.get("targetId") in scope.targets:
        return True
    return scope.own_context is not None and info.get("browserContextId") == scope.own_context
