"""Headed mode: every task space in a browser window of its own, titled with the space's name.

With ``EGO_BROWSER_HEADLESS=0`` and a display the person sees the spaces as windows. CDP can
place a tab in a new window (``Target.createTarget`` ``newWindow``) but has no way to title
one, and a window's title otherwise follows its active tab. Chromium's own switch does:
``--window-name=NAME`` gives the window opened by a command line a user title ("Name
window..." in the tab strip's menu). A second ``chromium --user-data-dir=D --new-window
--window-name=NAME URL`` hands its command line to the running browser over the
process-singleton socket of ``D`` and exits (≈0.25 s), and the running browser opens that
window. The URL is a marker (``data:,ego-window-<nonce>``) by which the host finds the new
tab among the browser's targets; it then loads the page the space wants. See
docs/architecture.md "Headed mode" for the measurement and what the other ways cost.

Only the browser's persistent (default) context can be reached that way: a space in a
context made over CDP (an isolated space, a profile's in-memory context) gets a plain new
window, titled by its active tab.

Tabs follow their space's window: ``Target.createTarget`` without ``newWindow`` puts a tab in
the browser's last active window, so a space's new page activates one of the space's tabs
first, under one lock for the whole host. Taking a space over brings its window to the
front (``focus_space``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import BrowserUnavailable, EgoError
from ..core.browser import PERSON_SPACE, BrowserLink
from ..core.store import Store

if TYPE_CHECKING:
    from ..core.store import SpaceRow

__all__ = ["PERSON_SPACE", "focus_space", "headed", "new_tab_in_space", "open_window", "start"]

logger = logging.getLogger("ego_browser.host")

#: deadline for the hand-over process and for the window it asks for
_RELAY_TIMEOUT = 10.0
_MARKER = "data:,ego-window-"



class _WindowFeatures(Protocol):
    @property
    def windows(self) -> Windows: ...


class WindowHost(Protocol):
    """What the windows need of the ``Host`` (``core`` is above them): the browser and store,
    the spare tab, each space's active tab, activating a tab, and background tasks."""

    browser: BrowserLink
    store: Store | None
    spare_tab: str | None
    active: dict[int, str]

    @property
    def features(self) -> _WindowFeatures: ...

    def take_spare_tab(self) -> str | None: ...

    async def activate(self, space_id: int, target_id: str) -> None: ...

    def background(self, task: asyncio.Task[Any]) -> None: ...

    def _record_quietly(self, write: Any, *args: Any, **kwargs: Any) -> None: ...


class Windows:
    """Headed mode's windows (one per host): which tab or window is being made, and which the
    host made."""

    def __init__(self, host: WindowHost) -> None:
        self.host = host
        self.watching = False
        #: one tab or window made at a time: "the last active window" must stay the one we chose
        self.lock = asyncio.Lock()
        #: marker URL -> future of the target that shows it
        self.waiting: dict[str, asyncio.Future[str]] = {}
        #: default-context tabs the host made (added under the lock): not the person's
        self.made: set[str] = set()

    def mark(self, target_id: str) -> str:
        if len(self.made) > 4096:
            self.made.clear()  # only tabs being made right now matter here
        self.made.add(target_id)
        return target_id

    def watch(self) -> None:
        """Follow new tabs from the first headed use on (idempotent)."""
        if self.watching:
            return
        self.watching = True
        host = self.host
        # a relayed window's tab shows its marker when created, or once its URL is known
        host.browser.on_target_created.append(lambda info: _seen(host, info))
        host.browser.on_target_changed.append(lambda info: _seen(host, info))

    def on_driver(self, driver: object) -> None:
        pass

    def stop(self) -> None:
        pass


def _state(host: WindowHost) -> Windows:
    state = host.features.windows
    state.watch()
    return state


def headed(host: WindowHost) -> bool:
    """The host launched this browser with windows on a display (not reached by URL)."""
    return bool(host.browser.owned and host.browser.headed)


def _seen(host: WindowHost, info: dict[str, Any]) -> None:
    """A target appeared or changed: the window a relay asked for, when its marker shows."""
    url = str(info.get("url") or "")
    if not url.startswith(_MARKER):
        return
    fut = _state(host).waiting.get(url)
    if fut is not None and not fut.done():
        fut.set_result(info["targetId"])


async def _relay(host: WindowHost, name: str, marker: str) -> None:
    """Hand ``--new-window --window-name`` to the running browser through its singleton."""
    from ...browser.launcher import find_chromium

    process = host.browser.process
    assert process is not None
    args = [find_chromium(), f"--user-data-dir={process.user_data_dir}", "--no-sandbox", "--new-window",
            f"--window-name={name}", marker]
    proc = await asyncio.create_subprocess_exec(
        *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL, start_new_session=True,
    )
    try:
        code = await asyncio.wait_for(proc.wait(), _RELAY_TIMEOUT)
    except asyncio.TimeoutError:
        # no running browser answered on the singleton: this one would become a browser of
        # its own on our profile; it is ours (by pid, its own group), so it goes
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise BrowserUnavailable(
            f"the browser did not open a window for space \"{name}\" within {_RELAY_TIMEOUT:.0f}s; "
            "run `ego-browser doctor`", endpoint=host.browser.endpoint,
        ) from None
    if code != 0:
        raise BrowserUnavailable(
            f"the browser refused a window for space \"{name}\" (chromium exited with status {code}); "
            "run `ego-browser doctor`", endpoint=host.browser.endpoint,
        )


async def open_window(host: WindowHost, name: str, url: str = "about:blank") -> str:
    """A new window of the browser's default context titled ``name``; its tab's target id."""
    state = _state(host)
    marker = _MARKER + secrets.token_hex(8)
    fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    state.waiting[marker] = fut
    try:
        async with state.lock:
            await _relay(host, name, marker)
            for info in list(host.browser.targets.values()):
                _seen(host, info)
            try:
                tid = state.mark(await asyncio.wait_for(asyncio.shield(fut), _RELAY_TIMEOUT))
            except asyncio.TimeoutError:
                raise BrowserUnavailable(
                    f"the browser accepted a window for space \"{name}\" but no tab of it appeared within "
                    f"{_RELAY_TIMEOUT:.0f}s", endpoint=host.browser.endpoint,
                ) from None
    finally:
        state.waiting.pop(marker, None)
    await _load(host, tid, url)
    return tid


async def _load(host: WindowHost, target_id: str, url: str) -> None:
    """Leave the marker for the page the space wants, before anything attaches to the tab."""
    conn = host.browser.conn
    assert conn is not None
    sid = (await conn.send("Target.attachToTarget", {"targetId": target_id, "flatten": True}, timeout=10.0))["sessionId"]
    try:
        await conn.send("Page.navigate", {"url": url or "about:blank"}, session_id=sid, timeout=10.0)
    finally:
        with contextlib.suppress(EgoError):
            await conn.send("Target.detachFromTarget", {"sessionId": sid}, timeout=5.0)
    info = host.browser.targets.get(target_id)
    if info is not None:
        info["url"] = url or "about:blank"  # the marker is gone: nothing should read it later


def space_tab(host: WindowHost, space: SpaceRow) -> str | None:
    """The tab of ``space`` to bring forward: the one made active last, else any live one."""
    from ..core.store import OPEN, UNMANAGED

    tid = host.active.get(space.id)
    if tid and host.browser.is_live_page(tid):
        return tid
    assert host.store is not None
    rows = [r for r in host.store.pages(space.id)
            if r.state in (OPEN, UNMANAGED) and host.browser.is_live_page(r.target_id)]
    return rows[-1].target_id if rows else None


async def new_tab_in_space(host: WindowHost, space: SpaceRow | None, params: dict[str, Any]) -> str:
    """``Target.createTarget`` in the default context, recorded as the host's: without
    ``newWindow``, into the window of ``space`` (Chromium puts a new tab in its last active
    window, so one of the space's tabs is activated first)."""
    conn = host.browser.conn
    assert conn is not None
    state = _state(host)
    async with state.lock:
        tab = space_tab(host, space) if space is not None else None
        if tab is not None:
            await conn.send("Target.activateTarget", {"targetId": tab}, timeout=5.0)
        res = await conn.send("Target.createTarget", params, timeout=10.0)
        return state.mark(str(res["targetId"]))


async def focus_space(host: WindowHost, space: SpaceRow) -> int | None:
    """Bring the window of ``space`` to the front (restored if minimised) with its active tab
    showing; the window's id, or None when the space has no live tab (or no windows)."""
    if not headed(host):
        return None
    tab = space_tab(host, space)
    if tab is None:
        return None
    conn = host.browser.conn
    assert conn is not None
    win = await conn.send("Browser.getWindowForTarget", {"targetId": tab}, timeout=5.0)
    window_id = int(win["windowId"])
    if (win.get("bounds") or {}).get("windowState") == "minimized":
        await conn.send("Browser.setWindowBounds", {"windowId": window_id, "bounds": {"windowState": "normal"}},
                        timeout=5.0)
    await host.activate(space.id, tab)
    return window_id


def person_tab_created(host: WindowHost, info: dict[str, Any]) -> None:
    """A tab the person opened from the browser's own UI (no opener, not one the host made)
    joins, as an unmanaged tab, the space whose window it opened in, else the person's space."""
    if info.get("type") != "page" or info.get("openerId") or str(info.get("url") or "").startswith(_MARKER):
        return
    task = asyncio.get_running_loop().create_task(_adopt_person_tab(host, info["targetId"]))
    host.background(task)


async def _adopt_person_tab(host: WindowHost, target_id: str) -> None:
    from ...states import OpenedBy, Ownership
    from ..core.store import UNMANAGED

    state = _state(host)
    # the host makes its default-context tabs under the lock and marks them before letting go
    async with state.lock:
        pass
    store = host.store
    conn = host.browser.conn
    if store is None or conn is None or target_id in state.made or store.pages_of_target(target_id) \
            or host.spare_tab == target_id or not host.browser.is_live_page(target_id):
        return
    if host.browser.targets[target_id].get("browserContextId") != host.browser.default_context:
        return  # a CDP-made context: an isolated space's or a profile's, whose tabs the host makes
    try:
        window = (await conn.send("Browser.getWindowForTarget", {"targetId": target_id}, timeout=5.0))["windowId"]
    except EgoError:
        return
    owner = None
    person = None
    for space in store.spaces():
        if space.closed:
            continue
        if space.name == PERSON_SPACE and space.ownership == Ownership.USER:
            person = space
        tab = space_tab(host, space)
        if tab is None or tab == target_id or owner is not None:
            continue
        with contextlib.suppress(EgoError):
            got = await conn.send("Browser.getWindowForTarget", {"targetId": tab}, timeout=5.0)
            if got["windowId"] == window:
                owner = space
    owner = owner or person
    if owner is None or store.pages_of_target(target_id):
        return
    host._record_quietly(store.add_page, owner.id, "#" + target_id, target_id, OpenedBy.UNKNOWN, state=UNMANAGED)


async def start(host: WindowHost) -> None:
    """Headed: the person's own browsing has a space of theirs, in the launch window (titled
    by ``--window-name`` at launch) or a new titled window; tabs they open join a space."""
    _state(host)
    host.browser.on_target_created.append(lambda info: person_tab_created(host, info))
    from ...states import CreatedBy, Ownership
    from ..core.store import UNMANAGED
    store = host.store
    assert store is not None
    if any(s.name == PERSON_SPACE and s.ownership == Ownership.USER and not s.closed for s in store.spaces()):
        return
    tid = host.take_spare_tab() or await open_window(host, PERSON_SPACE)
    space_id, _row = store.create_space_with_page(
        name=PERSON_SPACE, isolated=False, context_id=None, profile_id="default",
        browser_instance=host.browser.instance, target_id=tid, created_by=CreatedBy.USER,
        ownership=Ownership.USER, reason="user_owned",
    )
    assert _row.state == UNMANAGED
    host.active[space_id] = tid
