"""One tab as the host drives it: its sessions, frames, events, dialog and network state.

``PageDriver`` attaches to a tab with a flat session, follows its out-of-process iframes
(and workers) through auto-attach, and keeps what must outlive a round: the buffered events
(bounded), the open JavaScript dialog, in-flight requests for network idle, and the ref
ledger. Waiting is event-driven: ``changed()`` hands out a future resolved on the next state
change, so waits re-check their condition only when something happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..cdp import Connection, Session
from ..errors import CdpChannelUnavailable, CdpError, EgoError, PageCrashed
from . import preload
from .choosers import FileChoosers
from .dialogs import Dialogs
from .downloads import PageDownloads
from .event_buffer import EVENT_BUFFER, EVENT_BUFFER_BYTES, EventBuffer
from .frames import Frame, FrameTree
from .locate import Locator
from .network import NetworkLog
from .router import Router

if TYPE_CHECKING:
    from ..snapshot.ledger import RefLedger
    from .keyboard import Keyboard
    from .mouse import Mouse

__all__ = ["PageDriver", "EVENT_BUFFER", "EVENT_BUFFER_BYTES"]

_BUFFERED = (
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Page.javascriptDialogOpening",
    "Page.javascriptDialogClosed",
    "Network.requestWillBeSent",
    "Network.responseReceived",
    "Network.loadingFinished",
    "Network.loadingFailed",
    "Page.frameNavigated",
    "Page.loadEventFired",
    "Page.domContentEventFired",
    "Page.fileChooserOpened",
    "Page.downloadWillBegin",
)

_IGNORED_REQUEST_TYPES = {"Other"}  # browser-internal fetches (favicons report "Other")


class NavState(Protocol):
    """The page's navigation tracker as the driver keeps it (``navigation.NavTracker``, which
    imports this module: the tracker names the driver, the driver only what it holds)."""

    @property
    def seq(self) -> int:
        """Navigations of the page started so far."""


class PageDriver:
    """The host-side state of one tab."""

    def __init__(self, conn: Connection, target_id: str, session_id: str) -> None:
        self.conn = conn
        self.target_id = target_id
        self.session = Session(conn, session_id)
        self.frames = FrameTree(self.session)
        self.frames.on_document.append(lambda frame, _old: self._document_gone(frame.frame_id, frame.loader_id))
        self.frames.on_detach.append(lambda frame: self._document_gone(frame.frame_id, None))
        self.sessions: dict[str, Session] = {session_id: self.session}
        #: child session id -> target id (out-of-process iframes)
        self.child_targets: dict[str, str] = {}
        #: the events kept for ``events()`` (``driver/event_buffer.py``)
        self.events = EventBuffer()
        #: the page's JavaScript dialogs: the open ones, the guard, answering (``driver/dialogs.py``)
        self.dialogs = Dialogs(self)
        #: main-frame URL changes (commits and same-document navigations): (version, url)
        self.url_version = 0
        self.url_log: deque[tuple[int, str]] = deque(maxlen=64)
        self.closed = False
        self.input_lock = asyncio.Lock()
        #: request id -> (session id, url, frame id, loader id) still in flight, for network
        #: idle. Keyed by request id alone: an out-of-process frame's document request starts on
        #: the parent's session and finishes on the frame's own. The loader id is the document
        #: that made a subresource request ("" for a document's own request, which the browser
        #: always ends): when that document goes, so does the request (``_document_gone``).
        self.inflight: dict[str, tuple[str, str, str, str]] = {}
        self.last_network_activity = time.monotonic()
        self.ledger: RefLedger | None = None  # the snapshot engine's, set by the host (host/core/ledgers.py)
        self.ledger_key: tuple[int, str] | None = None  # (space id, label) it is stored under
        # (options, text, main document's loader id) of the last snapshot printed, for
        # snapshot(changes=True); memory only
        self.snapshot_prev: tuple[Any, str, str | None] | None = None
        # (round token, page part, space part) of the last snapshot header printed (snapshot_ops)
        self.snapshot_header: tuple[Any, str, str] | None = None
        self._offs: list[Callable[[], None]] = []
        self._waiters: list[asyncio.Future[None]] = []
        #: the page's native file choosers (``driver/choosers.py``); the host may hand in one it
        #: made before the page was attached (a waiter armed first thing)
        self.choosers = FileChoosers()
        #: the page's download waiter (``driver/downloads.py``; the downloads are the host's)
        self.downloads: PageDownloads[Any] = PageDownloads()
        #: (monotonic time, URL) of the last windows the page asked to open (``Page.windowOpen``):
        #: an allowlist waits for their first documents to be judged (``host/features/guard_book.py``)
        self.window_opens: deque[tuple[float, str]] = deque(maxlen=16)
        #: hooks the host sets: popups, downloads
        self.on_close: list[Callable[[], Any]] = []
        #: bumped whenever every ref of the page must be considered stale
        self.epoch = 0
        #: set by the host: raises when the tab's space is no longer the agent's. Checked
        #: before every input dispatch (mouse, keyboard, text insertion, files, in-page edits)
        self.input_gate: Callable[[], None] | None = None
        #: ``fn(method, params)`` for each input command the agent sends (the dashboard draws
        #: the agent's pointer from them); empty unless the dashboard runs
        self.input_listeners: list[Callable[[str, dict[str, Any] | None], None]] = []
        #: the browser context of an isolated space (None: the default, shared one)
        self.context_id: str | None = None
        #: how often the slow paths ran (waits on a swapping frame, tab activations, ...):
        #: tests read them to prove an action took no deadline-bound path
        self.stats: Counter[str] = Counter()
        #: the renderer crashed and no document has committed since (reload/goto recover);
        #: ``crashes`` counts crashes, so a wait can tell one happened while it waited
        self.crashed = False
        self.crashes = 0
        #: the mouse and keyboard of each round process driving the page (driver/act.py),
        #: oldest first: one round's held buttons and keys are not another's
        self.input_states: OrderedDict[str, tuple[Mouse, Keyboard]] = OrderedDict()
        #: the page's navigation tracker (``navigation.tracker``), made when the host attaches it
        self.nav_tracker: NavState | None = None
        #: finding elements: refs and selectors to element handles (``driver/locate.py``)
        self.locate = Locator(self)
        #: the page's recent requests and their bodies (``driver/network.py``)
        self.network = NetworkLog(self)
        #: the page's routes and the one owner of its Fetch domain (``driver/router.py``)
        self.router = Router(self)

    # -- attaching ---------------------------------------------------------------------------

    @classmethod
    async def attach(cls, conn: Connection, target_id: str, *, timeout: float = 10.0) -> PageDriver:
        res = await conn.send("Target.attachToTarget", {"targetId": target_id, "flatten": True}, timeout=timeout)
        driver = cls(conn, target_id, res["sessionId"])
        driver._subscribe(driver.session)
        # sent by the tab's own session without any domain enabled; the browser-level
        # Target.targetCrashed reaches the host, which calls mark_crashed() as well
        driver._offs.append(driver.session.on("Inspector.targetCrashed", lambda _p, _s: driver.mark_crashed()))
        try:
            await driver._prepare(driver.session, timeout=timeout, main=True)
        except BaseException:
            # a tab that did not answer (a busy renderer): the next attempt attaches afresh, so
            # this session goes, or each attempt would leave one more behind on the tab
            driver.mark_closed()
            with contextlib.suppress(Exception):
                await conn.send("Target.detachFromTarget", {"sessionId": res["sessionId"]}, timeout=2.0)
            raise
        return driver

    async def _prepare(self, session: Session, *, timeout: float, main: bool, parent_frame: str | None = None) -> None:
        send = session.send
        # a main page's readyState is asked in the same stretch (after Runtime.enable: Chromium
        # answers a session's commands in order), not one round trip later: a popup still
        # loading took ~20 ms a round trip
        ready = (self._ready_state(),) if main else ()
        results = await asyncio.gather(
            send("Page.enable", timeout=timeout),
            send("Page.getFrameTree", timeout=timeout),
            send("Page.setLifecycleEventsEnabled", {"enabled": True}, timeout=timeout),
            send("Runtime.enable", timeout=timeout),
            send("Network.enable", {"maxPostDataSize": 0}, timeout=timeout),
            send("Page.setInterceptFileChooserDialog", {"enabled": True}, timeout=timeout),
            *(send("Page.addScriptToEvaluateOnNewDocument", {"source": source, "worldName": world}, timeout=timeout)
              for world, source in preload.scripts()),
            send(
                "Target.setAutoAttach",
                {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
                timeout=timeout,
            ),
            *ready,
            return_exceptions=True,
        )
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, CdpError):
                raise r
        tree = results[1]
        if isinstance(tree, dict):
            self.frames.load_tree(tree["frameTree"], session, parent_id=parent_frame, oopif=not main)
        if main:
            self._seed_lifecycle(results[-1])
        else:
            await self.router.session_added(session.session_id, session)  # before its first request
            try:
                await send("Runtime.runIfWaitingForDebugger", timeout=timeout)
            except CdpError:
                pass

    async def _ready_state(self) -> str | None:
        try:
            res = await self.session.send(
                "Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True}, timeout=2.0
            )
        except EgoError:  # no answer (a dialog, a busy page): lifecycle events will tell
            return None
        state = (res.get("result") or {}).get("value")
        return state if isinstance(state, str) else None

    def _seed_lifecycle(self, state: Any) -> None:
        """A tab attached mid-life gets no replay of past lifecycle events: its readyState
        (``_ready_state``, read while attaching) stands in for them."""
        main = self.frames.main
        if main is None:
            return
        if state in ("interactive", "complete"):
            main.lifecycle.add("DOMContentLoaded")
        if state == "complete":
            main.lifecycle.update(("load", "networkAlmostIdle", "networkIdle"))

    def _subscribe(self, session: Session) -> None:
        on = session.on
        frames = self.frames
        offs = self._offs
        # events of a session always carry its id; a session detached meanwhile is a KeyError,
        # reported by the connection like any subscriber's failure
        sessions = self.sessions
        offs.append(on("Page.frameAttached", lambda p, s: frames.frame_attached(p, sessions[s or ""])))
        offs.append(on("Page.frameNavigated", lambda p, s: self._frame_navigated(p, s)))
        offs.append(on("Page.navigatedWithinDocument", self._navigated_within_document))
        offs.append(on("Page.frameDetached", self._frame_detached))
        offs.append(on("Page.lifecycleEvent", self._lifecycle_event))
        offs.append(on("Runtime.executionContextCreated", lambda p, s: frames.context_created(p, sessions[s or ""])))
        offs.append(
            on("Runtime.executionContextDestroyed", lambda p, s: frames.context_destroyed(p, sessions[s or ""]))
        )
        offs.append(on("Runtime.executionContextsCleared", lambda p, s: frames.contexts_cleared(sessions[s or ""])))
        offs.append(on("Page.javascriptDialogOpening", self.dialogs.opening))
        offs.append(on("Page.javascriptDialogClosed", self.dialogs.closing))
        offs.append(on("Page.fileChooserOpened", self._file_chooser))
        offs.append(on("Page.windowOpen", self._window_open))
        offs.append(on("Network.requestWillBeSent", self._request_started))
        offs.append(on("Network.loadingFinished", self._request_ended))
        offs.append(on("Network.loadingFailed", self._request_ended))
        offs.extend(self.network.subscribe(on))
        offs.append(on("Fetch.requestPaused", self.router.paused))
        offs.append(on("Target.attachedToTarget", self._child_attached))
        offs.append(on("Target.detachedFromTarget", self._child_detached))
        for method in _BUFFERED:
            offs.append(on(method, self._buffer_event(method)))

    def _window_open(self, params: dict[str, Any], _sid: str | None) -> None:
        self.window_opens.append((time.monotonic(), str(params.get("url") or "")))

    def _buffer_event(self, method: str) -> Callable[[dict[str, Any], str | None], None]:
        def record(params: dict[str, Any], _session: str | None) -> None:
            self.buffer_event({"method": method, "params": params})

        return record

    def buffer_event(self, event: dict[str, Any]) -> None:
        """Keep ``event`` for ``events()`` (a closed page keeps nothing)."""
        if not self.closed:
            self.events.append(event)

    # -- child targets (out-of-process iframes, workers) ------------------------------------

    def _child_attached(self, params: dict[str, Any], parent_sid: str | None) -> Any:
        info = params["targetInfo"]
        sid = params["sessionId"]
        session = Session(self.conn, sid)
        if info["type"] == "iframe":
            self.sessions[sid] = session
            self.child_targets[sid] = info["targetId"]
            self._subscribe(session)
            parent = self.frames.get(info["targetId"])
            parent_frame = parent.parent_frame_id if parent else None
            return self._prepare_child(session, parent_frame)
        # workers and others: let them run; we don't drive them
        return self._run_child(session)

    async def _prepare_child(self, session: Session, parent_frame: str | None) -> None:
        try:
            await self._prepare(session, timeout=10.0, main=False, parent_frame=parent_frame)
        except (CdpChannelUnavailable, CdpError):
            return
        self._bump()

    async def _run_child(self, session: Session) -> None:
        try:
            await session.send("Runtime.runIfWaitingForDebugger", timeout=5.0)
        except (CdpChannelUnavailable, CdpError):
            pass

    def _child_detached(self, params: dict[str, Any], _parent: str | None) -> None:
        sid = params["sessionId"]
        session = self.sessions.pop(sid, None)
        self.child_targets.pop(sid, None)
        self.conn.reject_session(sid, "frame target detached")
        for key in [k for k, v in self.inflight.items() if v[0] == sid]:
            self.inflight.pop(key, None)
        if session is not None:
            self.frames.session_detached(session)
        self._bump()

    # -- events -----------------------------------------------------------------------------

    def _frame_navigated(self, params: dict[str, Any], sid: str | None) -> None:
        session = self.sessions.get(sid) if sid else None
        if session is None:
            return
        self.frames.frame_navigated(params, session)
        main = self.frames.main
        if main is not None and main.frame_id == params["frame"]["id"]:
            self._url_changed(main.url)
            if session is self.session:
                self.crashed = False  # a document committed in a new renderer
        self._bump()

    def _frame_detached(self, params: dict[str, Any], sid: str | None) -> None:
        self.frames.frame_detached(params, self.sessions[sid or ""])
        self._bump()

    def _lifecycle_event(self, params: dict[str, Any], _sid: str | None) -> None:
        self.frames.lifecycle_event(params)
        self._bump()

    def _navigated_within_document(self, params: dict[str, Any], _sid: str | None) -> None:
        self.frames.navigated_within_document(params)
        main = self.frames.main
        if main is not None and main.frame_id == params.get("frameId"):
            self._url_changed(main.url)
        self._bump()

    def _url_changed(self, url: str) -> None:
        self.url_version += 1
        self.url_log.append((self.url_version, url))

    @property
    def dialog(self) -> dict[str, Any] | None:
        """The dialog to handle first (the oldest open one), or None (``dialogs.current``)."""
        return self.dialogs.current

    def _file_chooser(self, params: dict[str, Any], _sid: str | None) -> None:
        self.choosers.opened(params)
        self._bump()

    def _request_started(self, params: dict[str, Any], sid: str | None) -> None:
        url = params.get("request", {}).get("url", "")
        key = params["requestId"]
        if params.get("redirectResponse") is not None and key not in self.inflight:
            return  # the redirect of a request we ignore (a favicon sent elsewhere)
        if params.get("type") in _IGNORED_REQUEST_TYPES and url.endswith("favicon.ico"):
            return
        if url.startswith("data:"):
            return
        # a redirect reuses the request id: still one request in flight
        loader = "" if params.get("type") == "Document" else str(params.get("loaderId") or "")
        frame = self.frames.get(str(params.get("frameId") or ""))
        if loader and frame is not None and frame.loader_id and loader != frame.loader_id:
            # a request of a document its frame has replaced already, reported late (the old
            # renderer's events can come after the new document's commit on another session):
            # _document_gone has swept that document's requests; this one would hold idle for ever
            return
        self.inflight[key] = (sid or "", url, str(params.get("frameId") or ""), loader)
        self.last_network_activity = time.monotonic()
        self._bump()

    def _request_ended(self, params: dict[str, Any], sid: str | None) -> None:
        if self.inflight.pop(params["requestId"], None) is not None:
            self.last_network_activity = time.monotonic()
            self._bump()

    def _document_gone(self, frame_id: str, loader_id: str | None) -> None:
        """Frame ``frame_id`` committed document ``loader_id`` (None: the frame went away): the
        requests the documents it replaced had in flight are over. Chromium cancels them but
        reports nothing when the new document commits in another renderer (a page that leaves
        for another site, or for an error page, before it has loaded): left in flight, they kept
        network idle from ever coming (benchmarks/bench_har.py's test_tags_deadline.html).
        Playwright forgets a frame's requests on a new document too."""
        gone = [k for k, (_s, _u, frame, loader) in self.inflight.items()
                if frame == frame_id and (loader_id is None or (loader and loader != loader_id))]
        for key in gone:
            del self.inflight[key]
        if self.network.document_gone(frame_id, loader_id) or gone:
            self.last_network_activity = time.monotonic()
            self._bump()

    # -- waiting ----------------------------------------------------------------------------

    def changed(self) -> asyncio.Future[None]:
        """A future resolved at the next state change of this page (events, frames, close)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        return fut

    def _bump(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_until(self, predicate: Callable[[], Any], *, timeout: float) -> Any:
        """Re-check ``predicate`` on every change until it is truthy; ``TimeoutError`` at the deadline.

        ``PageCrashed`` if the renderer crashes meanwhile (nothing would change any more)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        crashes = self.crashes
        while True:
            value = predicate()
            if value:
                return value
            if self.closed:
                raise CdpChannelUnavailable("the page was closed while waiting", method=None)
            if self.crashes != crashes:
                raise self.crash_error()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            fut = self.changed()
            try:
                await asyncio.wait_for(asyncio.shield(fut), remaining)
            except asyncio.TimeoutError:
                fut.cancel()
                raise TimeoutError from None

    # -- helpers ----------------------------------------------------------------------------

    def check_input(self) -> None:
        """Raise (the host's ``TaskSpaceUserInControl``) if input may not reach this tab now."""
        gate = self.input_gate
        if gate is not None:
            gate()

    @property
    def main_frame(self) -> Frame | None:
        return self.frames.main

    def sessions_target_ids(self) -> set[str]:
        """This tab's target id and those of its out-of-process frames (possible openers)."""
        return {self.target_id, *self.child_targets.values()}

    def take_events(self) -> list[dict[str, Any]]:
        return self.events.take()

    def mark_closed(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.detach_listeners()
        self.events.clear()  # nobody can read a closed page's events
        for sid in list(self.sessions):
            self.conn.reject_session(sid, "page closed")
        self.choosers.page_closed()
        for cb in self.on_close:
            cb()
        self._bump()

    def crash_error(self, api: str | None = None) -> PageCrashed:
        label = self.ledger_key[1] if self.ledger_key else None
        who = f"{api}: " if api else ""
        return PageCrashed(
            f"{who}the page's renderer crashed; call page.reload() or page.goto(url) to load it again",
            label=label,
        )

    def mark_crashed(self) -> None:
        """The renderer is gone: fail what waits on it now, and everything after until a
        document commits again (``Inspector.targetCrashed`` / ``Target.targetCrashed``)."""
        if self.crashed or self.closed:
            return
        self.crashed = True
        self.crashes += 1
        self.dialogs.clear()  # a dialog dies with its renderer
        self.inflight.clear()
        error = self.crash_error()
        for sid in list(self.sessions):
            self.conn.reject_session(sid, "the renderer crashed", error)
        self.stale_all_refs()
        self._bump()

    def detach_listeners(self) -> None:
        offs, self._offs = self._offs, []
        for off in offs:
            off()

    def stale_all_refs(self) -> None:
        self.epoch += 1
        if self.ledger is not None:
            self.ledger.stale_all()
