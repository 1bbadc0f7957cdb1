"""The host: one per user, holding spaces, pages, ledgers and the browser connection.

Rounds talk to it one request per public call (``handle(op, args)``); the same object runs
in the background daemon (``host/core/server.py``) and in-process (``ego_browser.embedded()``).
It enforces ownership on every browser-affecting request, serialises input per page (not
globally), and puts a deadline on every request so one stuck page never wedges the rest.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
import time
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import config
from ...driver import dispatch
from ...driver.page import PageDriver
from ...errors import (
    BrowserLost,
    CdpChannelUnavailable,
    CdpError,
    EgoError,
    EgoTimeout,
    InvalidArgument,
    PageClosed,
    PageCrashed,
    PageNotFound,
    PageReleased,
    StateStoreUnwritable,
    TaskSpaceNotFound,
    TaskSpaceUserInControl,
)
from ...states import Ownership
from .admission import Admission
from .browser import BrowserLink
from ..spaces.idle_freeze import IdleFreezer
from .dispatch import SYNC_OPS, resolve
from ..features.guard_book import GuardBook
from . import page_setup, page_text
from ..features.handoffs import HandOffs
from .page_ctx import PageCtx
from .secret_book import SecretBook
from .store import CLOSED, OPEN, RELEASED, UNMANAGED, PageRow, SpaceRow, Store
from ..features.trace_pictures import Pictures

if TYPE_CHECKING:
    from collections.abc import Callable

    from .features import Features

__all__ = ["Host", "PageCtx"]

logger = logging.getLogger("ego_browser.host")

#: how long after an action a new tab still counts as "opened by it" (receipts)
POPUP_WINDOW = 0.05
#: what a host-deadline timeout says about input (``EgoTimeout.input_dispatched``)
_INPUT_NOTE: dict[bool | None, str] = {
    True: "; input had already been sent to the page, so its effects may still land: check the page "
          "(snapshot) before repeating the action",
    False: "; no input had been sent to the page",
}

#: the op the current request runs (each request is its own task, with its own value)
_CURRENT_OP: contextvars.ContextVar[str] = contextvars.ContextVar("ego_op", default="")

#: ops that work on a page whose renderer crashed: the ones that load a new document, and
#: those that need nothing from the renderer. Every other op fails at once with PageCrashed.
CRASH_SAFE_OPS = frozenset({
    "page.goto", "page.reload", "page.url", "page.close", "page.accept_dialog", "page.dismiss_dialog",
    "page.wait_popup", "page.wait_download", "page.wait_file_chooser",
})


#: ops that only read a page: allowed on a space the person holds (a round attached to wait for
#: it may look), without activating its tab; every other op on such a space is refused
READ_OPS = frozenset({
    "page.url", "page.title", "page.info", "page.snapshot", "page.find", "page.text_content", "page.inner_text",
    "page.input_value", "page.get_attribute",
})


#: operations whose answers carry page content (page_text.py marks what imitates the runtime)
_PAGE_OPS = ("page.", "keyboard.", "mouse.", "receipt.", "file_chooser.", "download.")


class _Request:
    """One agent request in flight: the spaces whose gate it passed, and how to stop it.

    A take-over stops the space's requests through their own deadline (rescheduled to now):
    ``asyncio.timeout`` delivers the cancellation inside the request and turns it back into
    an exception on the way out, so the caller's task is never left with a stray cancel.
    """

    __slots__ = ("timeout", "spaces", "preempted", "done")

    def __init__(self) -> None:
        self.timeout: asyncio.Timeout | None = None
        self.spaces: set[int] = set()
        self.preempted: tuple[int, str, str] | None = None  # (space id, name, reason)
        self.done = False


#: the request the running code serves (tasks it starts inherit it)
_REQUEST: ContextVar[_Request | None] = ContextVar("ego_request", default=None)


def _attach_timeout() -> float:
    """Seconds a tab may take to answer its attach: 10, or what is left of the request's deadline
    if more (a renderer answers when it is free)."""
    req = _REQUEST.get()
    when = req.timeout.when() if req is not None and req.timeout is not None else None
    return max(10.0, when - asyncio.get_running_loop().time()) if when is not None else 10.0


class Host:
    def __init__(self, *, features: Callable[[Host], Features], home: Path | None = None,
                 embedded: bool = False) -> None:
        self.home = home or config.home()
        self.run_dir = self.home / "run"
        self.store: Store | None = None
        self.browser = BrowserLink(self.home, self.run_dir, embedded=embedded)
        self.drivers: dict[str, PageDriver] = {}
        #: the trace's pictures (``host/features/trace_pictures.py``): one after each journaled action
        self.pictures = Pictures(self.home / "traces", admission=lambda: self.admission)
        self._attaching: dict[str, asyncio.Future[PageDriver]] = {}
        self.active: dict[int, str] = {}  # space id -> target id made active last
        self.started_at = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        #: requests being served now (``last_request`` is when the last one began or ended)
        self.busy = 0
        self._popup_listeners: list[Any] = []
        self.stopping = asyncio.Event()
        self._background: set[asyncio.Task[Any]] = set()
        #: (space id, label) -> (store generation, space row, page row) for page_ctx
        self._ctx_rows: dict[tuple[Any, Any], tuple[int, SpaceRow, PageRow]] = {}
        #: the host's features (downloads, choosers, popups ...), built by ``start``
        self._build_features = features
        self._features: Features | None = None
        #: space id -> agent requests in flight that passed its gate (a take-over stops them)
        self._inflight: dict[int, set[_Request]] = {}
        #: target id -> store generation at which input to it was last allowed
        self._input_ok: dict[str, int] = {}
        #: Chromium's launch tab while no space uses it (the first space takes it over)
        self.spare_tab: str | None = None
        #: ``fn(op, args, phase, error)`` around each request, phase "start" or "end" (the
        #: dashboard's record of what the agent does); empty unless the dashboard runs
        self.request_listeners: list[Any] = []
        #: space id -> its pages being reopened on another browser (its own went away)
        self.lost_spaces: dict[int, asyncio.Future[None]] = {}
        #: the person's secrets typed through this host, masked in all it answers (secret_book.py)
        self.secrets = SecretBook(self.home)
        #: what the agent asked the person, and the calls waiting for a space to come back
        self.handoffs = HandOffs()
        #: the domain allowlists of spaces and profiles, and their enforcement (guard_book.py)
        self.guard = GuardBook(self)
        #: how many agent calls run at once, who goes next, when one is refused (admission.py)
        self.admission = Admission()
        #: idle spaces' tabs frozen, woken by their next call (idle_freeze.py)
        self.idle = IdleFreezer(self)

    @property
    def features(self) -> Features:
        """Downloads, choosers, popups ... of this host (there once ``start`` has run)."""
        if self._features is None:
            raise RuntimeError("the host has not started: its features are built by Host.start")
        return self._features

    def take_spare_tab(self) -> str | None:
        """The unused tab no space lists (``spare_tab``), handed to the caller once; ``None`` if
        there is none or it is no longer a blank page."""
        tid, self.spare_tab = self.spare_tab, None
        info = self.browser.targets.get(tid or "")
        if tid is None or info is None or info.get("type") != "page" or info.get("url") not in ("about:blank", ""):
            return None
        return tid

    # -- life cycle -------------------------------------------------------------------------

    async def start(self) -> None:
        config.ensure_home(self.home)
        config.ensure_private_dir(self.run_dir)
        self.store = Store(self.home / "state.sqlite3")
        await self.secrets.load()  # a page may still show a value typed before a restart
        await self.browser.start()
        self.browser.on_target_created.append(self._target_created)
        self.browser.on_target_destroyed.append(self._target_destroyed)
        assert self.browser.conn is not None
        self.browser.conn.on("Target.targetCrashed", self._target_crashed)
        await self.guard.start(self.browser.conn)  # before any page loads: lists kept from before apply
        self._features = self._build_features(self)
        # the stored spaces meet this browser (spaces.SpaceKeeping: injected, not imported)
        await self._features.spaces.start()
        self.idle.start()

    async def stop(self, *, kill_browser: bool = True) -> None:
        self.idle.stop()
        if self.browser.conn is not None and self.store is not None and self._features is not None:
            try:
                await asyncio.wait_for(self._features.profiles.save(), 15.0)  # profiles keep what their spaces changed
            except Exception:  # noqa: BLE001 - stopping goes on regardless
                logger.exception("profiles not saved")
        # features first: what they reject fails as "the host stopped" (HostDisconnected), not
        # as the "page closed" that marking the pages closed would report
        for feature in self._features.all() if self._features is not None else ():
            try:
                feature.stop()  # reject what is pending, drop listeners
            except Exception:  # noqa: BLE001 - stopping goes on regardless
                logger.exception("stopping %s failed", type(feature).__name__)
        self.guard.stop()
        for driver in list(self.drivers.values()):
            driver.mark_closed()  # a wait on a page fails now rather than at its deadline
        for driver in list(self.drivers.values()):
            driver.detach_listeners()
        self.drivers.clear()
        await self.browser.stop(kill_browser=kill_browser)
        if self.store is not None:
            self.store.close()
            self.store = None
        self.stopping.set()

    # -- dispatch ---------------------------------------------------------------------------

    async def handle(self, op: str, args: dict[str, Any]) -> Any:
        """Serve one request: bind its arguments against the operation's declaration once
        (``OpSpec.bind``), then run the handler under the request's deadline."""
        spec = resolve(op, args=args if isinstance(args, dict) else None)
        if spec is None:
            raise InvalidArgument(f"unknown host operation: {op}", api=op, option=None, expected=None)
        at, kwargs = spec.bind(args)
        op = spec.name
        self.last_request = time.monotonic()
        self.requests += 1
        self.busy += 1
        deadline = spec.deadline(kwargs)
        called = at.get("space") if isinstance(at.get("space"), int) else None
        self.idle.call_started(called)  # not idle while the call waits for its turn
        req = _Request()
        req_token = _REQUEST.set(req)
        _CURRENT_OP.set(op)
        self.browser.use(None)  # set again by the space the request works on (space_row)
        progress, token = dispatch.begin()
        listeners = self.request_listeners
        if listeners:
            self._tell(listeners, op, args, "start", None)
        try:
            async with asyncio.timeout(deadline) as req.timeout, self.admission.turn(op, deadline, req.timeout, called):
                result = await spec.fn(self, at, **kwargs)
            if op.startswith(_PAGE_OPS):
                result = page_text.mark(result)
            return self.secrets.mask(result)
        except TimeoutError as exc:
            if isinstance(exc, EgoError):
                if isinstance(exc, EgoTimeout) and type(exc) is EgoTimeout and exc.input_dispatched is None:
                    exc.input_dispatched = progress.input_dispatched  # e.g. an input command's own deadline
                raise
            if req.preempted is not None:
                space_id, name, reason = req.preempted
                raise TaskSpaceUserInControl(
                    f"{op} was stopped: the user took control of task space {space_id} (\"{name}\", reason: "
                    f"{reason}) while it ran; wait with task.wait_for_control() or ask the user to hand it back",
                    space_id=space_id, reason=reason,
                ) from exc
            raise EgoTimeout(
                f"{op} did not finish within the host's {deadline:.0f}s request deadline"
                + _INPUT_NOTE.get(progress.input_dispatched, ""),
                api=op, timeout_ms=round(deadline * 1000), input_dispatched=progress.input_dispatched,
            ) from exc
        except CdpError as exc:
            from .agent_errors import in_agent_words

            better = in_agent_words(op, exc)
            if better is None:
                raise
            raise better from exc
        except CdpChannelUnavailable:
            # the browser of one of the request's spaces went away while it ran
            for space_id in req.spaces:
                lost = self.lost_error(space_id, op)
                if lost is not None:
                    raise lost from None
            raise
        finally:
            failure = sys.exc_info()[1]  # what the request raises, if anything
            if failure is not None:
                if op.startswith(_PAGE_OPS):
                    page_text.mark_error(failure)
                self.secrets.mask_error(failure)
            if listeners:
                self._tell(listeners, op, args, "end",
                           None if failure is None else getattr(failure, "code", None) or type(failure).__name__)
            req.done = True
            self.busy -= 1
            self.last_request = time.monotonic()
            _REQUEST.reset(req_token)
            for space_id in req.spaces:
                live = self._inflight.get(space_id)
                if live is not None:
                    live.discard(req)
                    if not live:
                        del self._inflight[space_id]
            self.idle.call_ended(called, req.spaces)
            dispatch.end(token)

    @staticmethod
    def _tell(listeners: list[Any], op: str, args: dict[str, Any], phase: str, error: str | None) -> None:
        for fn in list(listeners):
            try:
                fn(op, args, phase, error)
            except Exception:  # noqa: BLE001 - an observer never fails the agent's request
                logger.exception("request listener failed")

    def handle_sync(self, op: str, args: dict[str, Any]) -> Any:
        """The synchronous members (``page.events()``, waiter arming) answered without awaiting."""
        spec = resolve(op, SYNC_OPS)
        if spec is None or spec.sync is None:
            raise InvalidArgument(f"{op} has no synchronous form", api=op, option=None, expected=None)
        at, kwargs = spec.bind(args)
        return self.secrets.mask(page_text.mark(spec.sync(self, at, **kwargs)))

    # -- spaces and pages -------------------------------------------------------------------

    def space_row(self, space_id: Any) -> SpaceRow:
        assert self.store is not None
        row = self.store.space(int(space_id)) if isinstance(space_id, int) else None
        if row is None:
            raise TaskSpaceNotFound(f"task space not found: {space_id}", space=space_id)
        if self.lost_spaces:
            lost = self.lost_error(row.id, _CURRENT_OP.get())
            if lost is not None:
                raise lost
        self.browser.use(row.browser_instance)
        return row

    def lost_error(self, space_id: int, op: str) -> EgoError | None:
        """The error of a call on a space whose browser went away (``placement`` reopens it)."""
        fut = self.lost_spaces.get(space_id)
        if fut is None:
            return None
        if fut.done() and fut.exception() is not None:
            exc = fut.exception()
            return BrowserLost(
                f"{op or 'the call'}: the browser of task space {space_id} went away and its pages could not be "
                f"reopened on another browser ({exc}); check the Grid (EGO_BROWSER_GRID_URL) and start a new space",
                space_id=space_id, where=None,
            )
        return BrowserLost(
            f"{op or 'the call'}: the browser of task space {space_id} went away; its pages are being reopened "
            "at their last URLs on another browser (labels kept, refs unknown): take a new snapshot and repeat "
            "the call", space_id=space_id, where=None,
        )

    def busy_spaces(self) -> dict[int, set[_Request]]:
        """The spaces with agent requests in flight (an idle sweep leaves them alone)."""
        return self._inflight

    def gate(self, space: SpaceRow) -> None:
        """Refuse an agent request on a space the person controls; otherwise remember the
        request as in flight on that space, so that a take-over can stop it."""
        if space.ownership != Ownership.AGENT:
            reason = space.reason or ("handed_off" if space.ownership == Ownership.DELEGATED else "user_owned")
            raise TaskSpaceUserInControl(
                f"the user controls task space {space.id} (\"{space.name}\", reason: {reason}); "
                "wait with task.wait_for_control() or ask the user to hand it back",
                space_id=space.id, reason=reason,
            )
        self.idle.touch(space.id)
        req = _REQUEST.get()
        if req is not None and not req.done and space.id not in req.spaces:
            req.spaces.add(space.id)
            self._inflight.setdefault(space.id, set()).add(req)

    def preempt(self, space: SpaceRow, reason: str) -> int:
        """Stop the agent requests in flight on ``space`` (not the calling one): each fails
        with ``TaskSpaceUserInControl``. Returns how many were stopped."""
        current = _REQUEST.get()
        loop = asyncio.get_running_loop()
        stopped = 0
        for req in list(self._inflight.get(space.id, ())):
            if req is current or req.done or req.preempted is not None or req.timeout is None:
                continue
            req.preempted = (space.id, space.name, reason)
            try:
                req.timeout.reschedule(loop.time())
            except RuntimeError:
                continue  # its deadline already passed: it is failing anyway
            stopped += 1
        return stopped

    def check_input(self, target_id: str) -> None:
        """The gate again, right before input reaches a tab: a take-over that lands while an
        action waits (for its element, a lock, a scroll) stops that action's input."""
        store = self.store
        if store is None or self._input_ok.get(target_id) == store.gen:
            return
        for row in store.pages_of_target(target_id):
            if row.state == OPEN:
                space = store.space(row.space_id)
                if space is not None and space.ownership != Ownership.AGENT:
                    self.gate(space)
        if len(self._input_ok) > 256:
            self._input_ok.clear()
        self._input_ok[target_id] = store.gen

    def page_row(self, space: SpaceRow, label: str) -> PageRow:
        assert self.store is not None
        for row in self.store.pages(space.id):
            if row.label == label:
                if row.state == CLOSED:
                    raise PageClosed(f"page {label} was closed", label=label)
                if row.state == RELEASED:
                    raise PageReleased(f"page {label} was released", label=label)
                if row.state != OPEN:
                    break
                if not self.browser.is_live_page(row.target_id):
                    self._record_quietly(self.store.retire_page, space.id, label, CLOSED)
                    self._forget_driver(row.target_id)
                    raise PageClosed(f"page {label} was closed", label=label)
                return row
        raise PageNotFound(f"page label not found: {label}", label=label)

    async def page_ctx(self, at: dict[str, Any], *, gated: bool = True, activate: bool = False,
                       attach_timeout: float | None = None) -> PageCtx:
        assert self.store is not None
        key = (at.get("space"), at.get("label"))
        cached = self._ctx_rows.get(key)
        if cached is not None and cached[0] == self.store.gen and self.browser.is_live_page(cached[2].target_id):
            # nothing was written since the last request on this page: skip the queries
            _gen, space, page = cached
            self.browser.use(space.browser_instance)
            if gated and not self._reads_held(space):
                self.gate(space)
        else:
            space = self.space_row(at.get("space"))
            if gated and not self._reads_held(space):
                self.gate(space)
            page = self.page_row(space, str(at.get("label")))
            if len(self._ctx_rows) > 256:
                self._ctx_rows.clear()
            self._ctx_rows[key] = (self.store.gen, space, page)
        target_id = page.target_id
        assert target_id is not None  # page_row and the cache hand out live pages only
        driver = await self.driver(target_id, attach_timeout)
        if driver.crashed:
            op = _CURRENT_OP.get()
            if op not in CRASH_SAFE_OPS:
                raise PageCrashed(
                    f"{op or 'page'}: the page's renderer crashed; call page.reload() or page.goto(url) "
                    "to load it again", label=page.label,
                )
        if activate and space.ownership == Ownership.AGENT and self.active.get(space.id) != target_id:
            await self.activate(space.id, target_id)
        return PageCtx(space, page, driver)

    @staticmethod
    def _reads_held(space: SpaceRow) -> bool:
        """A read (``READ_OPS``) of a space the person holds: allowed, and never gated."""
        return space.ownership != Ownership.AGENT and _CURRENT_OP.get() in READ_OPS

    async def activate(self, space_id: int, target_id: str) -> None:
        assert self.browser.conn is not None
        await self.browser.conn.send("Target.activateTarget", {"targetId": target_id}, timeout=5.0)
        self.active[space_id] = target_id
        driver = self.drivers.get(target_id)
        if driver is not None:
            driver.stats["activations"] += 1

    async def driver(self, target_id: str, attach_timeout: float | None = None) -> PageDriver:
        driver = self.drivers.get(target_id)
        if driver is not None and not driver.closed:
            if target_id in self.idle.frozen:  # whoever uses a frozen tab (a call, the person) wakes it
                await self.idle.wake(driver)
            return driver
        pending = self._attaching.get(target_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[PageDriver] = asyncio.get_running_loop().create_future()
        self._attaching[target_id] = fut
        try:
            assert self.browser.conn is not None
            limit = attach_timeout or _attach_timeout()
            try:
                driver = await PageDriver.attach(self.browser.conn_for_target(target_id), target_id, timeout=limit)
            except EgoTimeout as exc:
                from .agent_errors import tab_not_answering

                rows = self.store.pages_of_target(target_id) if self.store is not None else []
                raise tab_not_answering(_CURRENT_OP.get(), rows[0].label if rows else "", limit) from exc
            driver.input_gate = lambda tid=target_id: self.check_input(tid)
            # the space's own context (isolated, or its profile's), for the host's context-level calls
            driver.context_id = next(
                (s.context_id for s in (self.store.space(r.space_id) for r in self.store.pages_of_target(target_id))
                 if s is not None and s.context_id), None,
            ) if self.store is not None else None
            driver.frames.on_navigated.append(lambda frame: self._navigated(driver, frame))
            self.drivers[target_id] = driver
            await page_setup.set_up(self.features.all(), driver)
            fut.set_result(driver)
            return driver
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # mark retrieved
            raise
        finally:
            self._attaching.pop(target_id, None)

    def _navigated(self, driver: PageDriver, frame: Any) -> None:
        """Remember each page's URL: a restarted browser reopens the page there."""
        if frame.is_main and self.store is not None:
            for row in self.store.pages_of_target(driver.target_id):
                if row.state == OPEN:
                    self._record_quietly(self.store.update_page, row.space_id, row.label, url=frame.url)

    @staticmethod
    def _record_quietly(write: Any, *args: Any, **kwargs: Any) -> None:
        """A bookkeeping write made on the way (an event, a read): a store that refuses it is
        logged, and the request or event goes on; the state is recomputed on the next look."""
        try:
            write(*args, **kwargs)
        except StateStoreUnwritable as exc:
            logger.warning("state store write skipped: %s", exc.message)

    def _forget_driver(self, target_id: str | None) -> None:
        driver = self.drivers.pop(target_id or "", None)
        if driver is not None:
            driver.mark_closed()

    # -- browser targets --------------------------------------------------------------------

    def _target_destroyed(self, target_id: str) -> None:
        self._forget_driver(target_id)
        self.idle.forget(target_id)
        if self.spare_tab == target_id:
            self.spare_tab = None
        if self.store is None:
            return
        for row in self.store.pages_of_target(target_id):
            if row.state == OPEN:
                self._record_quietly(self.store.retire_page, row.space_id, row.label, CLOSED)
            elif row.state == UNMANAGED:
                self._record_quietly(self.store.delete_page_record, row.space_id, row.label)
        for space_id in [s for s, tid in self.active.items() if tid == target_id]:
            self.active.pop(space_id, None)

    def _target_crashed(self, params: dict[str, Any], _sid: str | None) -> None:
        driver = self.drivers.get(params.get("targetId") or "")
        if driver is not None:
            driver.mark_crashed()

    def _target_created(self, info: dict[str, Any]) -> None:
        if info.get("type") != "page" or not info.get("openerId") or self.store is None:
            return
        if self._features is not None:  # before start is done, reconciling adopts it
            self._features.spaces.target_created(info)
            page_setup.attach_early(self, info["targetId"])  # the agent's next call is on it
        # the browser brings a popup to the front of its window, so the opener's tab is hidden
        # now: hidden tabs run no animation frames and Chromium holds pointer input for one
        # until its ~5 s timeout. The space's next action must activate its tab again.
        for row in self.store.pages_of_target(info["targetId"]):
            self.active.pop(row.space_id, None)
        for listener in list(self._popup_listeners):
            listener(info)

    def background(self, task: asyncio.Task[Any]) -> None:
        """Keep a task the request no longer waits for (a command blocked by a dialog)."""
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            return
        # an EgoError is the command's own answer, which nobody waits for any more (a dialog's
        # business); anything else is a bug or a broken store that must not go unsaid
        if isinstance(exc, StateStoreUnwritable):
            logger.warning("background %s: state store write failed: %s", task.get_name(), exc.message)
        elif isinstance(exc, EgoError):
            logger.debug("background %s ended: %s", task.get_name(), exc)
        else:
            logger.error("background %s failed", task.get_name(), exc_info=exc)

    def labels_for_targets(self, space_id: int, target_ids: list[str]) -> list[tuple[str, str]]:
        assert self.store is not None
        rows = {r.target_id: r.label for r in self.store.pages(space_id) if r.state == OPEN}
        return [(tid, rows[tid]) for tid in target_ids if tid in rows]

    def watch_popups(self, listener: Any) -> Any:
        self._popup_listeners.append(listener)
        return lambda: self._popup_listeners.remove(listener) if listener in self._popup_listeners else None
