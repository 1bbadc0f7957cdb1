"""Live views: one ``Page.startScreencast`` per watched page, only while someone watches.

Each screencast runs on a CDP session of its own (attached for it, detached when the last viewer
leaves), so the agent's session of the page never sees its frames or its acks.

What a frame costs, and where (measured: docs/architecture.md, "Live views"): Chromium's viz
capturer copies and converts *every* compositor frame of a cast page, up to 100 a second, in
its GPU process (about 9 ms of CPU a frame with software compositing), whatever the acks say;
the ack only decides whether the browser then encodes it as JPEG (about 2-7 ms more). An agent
clicking through a page makes a frame or two per action, so watching at the page's own rate
cost the agent's actions most of that CPU. Two limits therefore:

- **a burst pauses the cast**: a frame that follows the previous one sooner than the cast's
  interval stops the screencast, and it starts again when the interval has passed. A new
  screencast captures the page as it is then, so the last state is never lost; a page that
  does not change costs nothing either way. The interval follows who watches: 1/25 s while the
  person holds the space (they act in the view), 1/10 s while they watch an agent, the
  thumbnail interval when the page is only a thumbnail on the list.
- **a frame is acked once a viewer has taken it** (sent it on its websocket), so the browser
  does not encode frames no viewer has room for; the first frame after a pause that shows
  what the viewers already show is acked and dropped.

A cast's frames are as large as its largest view shows them (``frame_size``: the dashboard
reports its live view's width and its thumbnails' size in device pixels), never larger than
``MAX_EDGE``: a frame captured larger than shown cost the agent's browser its scaling and
encoding, and every view its decoding and scaling down (docs/architecture.md, "What watching
costs"). A cast whose size changes starts again at the new size.

Every frame also goes to the trace's pictures (``host/features/trace_pictures.py``, ``cast_frame``): the
picture after an agent's action on a watched page is a frame the cast drew anyway.

A frame's message is serialized once for all its viewers; each viewer keeps only the newest
frame per page (``Viewer.offer_frame``): a slow viewer skips frames, it never queues them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

import orjson

from ..errors import EgoError

__all__ = ["Screencasts", "Frame", "FRAME_FORMAT", "HELD_INTERVAL", "WATCH_INTERVAL", "MULTI_WATCH_INTERVAL", "MAX_EDGE",
           "frame_size"]

logger = logging.getLogger("ego_browser.dashboard")

#: a frame's longest edge at most (a 1280x720 page: 1024x576, 64% of the pixels to encode, send and
#: decode), however large the view: what a frame costs grows with its pixels
MAX_EDGE = 1024
#: ... and at least (a view not laid out yet reports 0: it gets MAX_EDGE)
_MIN_EDGE = 64
#: JPEG quality 60: 20-40 kB a frame at 1024 px, text still readable; the size is the view's
FRAME_FORMAT = {"format": "jpeg", "quality": 60, "maxWidth": MAX_EDGE, "maxHeight": MAX_EDGE, "everyNthFrame": 1}


def frame_size(width: Any, height: Any) -> tuple[int, int]:
    """The frame size (device pixels) a view of ``width`` x ``height`` needs, within
    ``_MIN_EDGE`` .. ``MAX_EDGE``; a side that is not a positive number: ``MAX_EDGE``. Exactly the
    view's, not rounded up: a frame drawn at its own size is copied, one a few pixels larger is
    resampled (about a fifth more of the view's CPU per frame, measured)."""
    def side(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            return MAX_EDGE
        return min(MAX_EDGE, max(_MIN_EDGE, int(v)))
    return side(width), side(height)


#: seconds between two frames of a cast at most often: the person holds the space (acts in it)
HELD_INTERVAL = 1 / 25
#: ... the person watches an agent in one live view
WATCH_INTERVAL = 1 / 10
#: ... in two or more: each view decodes and paints every frame (about 10 ms of CPU a frame each,
#: the capture about 20 more), so four views cost twice one; at 0.15 s the latency (p50) measured
#: about 100 ms on the loaded bench machine, against 60 at 0.1 (issue 14's target: 150)
MULTI_WATCH_INTERVAL = 0.15


#: a screencast that sent no frame this long after it (re)started or resumed is started again, at most
#: ``_NO_FRAME_RETRIES`` times in a row (a missed document: ``Screencasts.navigated``)
_NO_FRAME_AFTER = 1.0
_NO_FRAME_RETRIES = 5


class FrameSink(Protocol):
    def offer_frame(self, target_id: str, frame: Frame) -> None: ...


class Frame:
    """One captured frame, as every viewer sends it (serialized once), and its ack."""

    __slots__ = ("message", "width", "height", "_ack")

    def __init__(self, message: bytes, width: Any, height: Any, ack: Callable[[], None] | None) -> None:
        self.message = message
        self.width = width
        self.height = height
        self._ack = ack

    def taken(self) -> None:
        """A viewer sent it: the browser may encode the next one."""
        ack, self._ack = self._ack, None
        if ack is not None:
            ack()


class _Cast:
    def __init__(self, target_id: str) -> None:
        self.target_id = target_id
        self.viewers: set[FrameSink] = set()
        self.session_id: str | None = None
        self.offs: list[Any] = []
        self.last: Frame | None = None
        self.frames = 0
        self.received = 0  # frames the browser sent, also those dropped as unchanged
        self.pauses = 0
        self.starting: asyncio.Task[None] | None = None
        self.interval = WATCH_INTERVAL
        self.frame_at = -1e9
        self.resume: asyncio.TimerHandle | None = None
        self.resumed = False  # the next frame is the first after a pause
        self.last_data: str | None = None
        self.live = True  # False once it is stopped for good
        self.size = (MAX_EDGE, MAX_EDGE)  # what its viewers show now
        self.cast_size = self.size  # what the running screencast was started with
        self.restarting = False
        self.url: str | None = None  # the page's address when the cast last heard of it
        self.starts = 0  # screencasts (re)started: only the newest one's check counts
        self.checks = 0  # restarts in a row that brought no frame

    def format(self) -> dict[str, Any]:
        self.cast_size = self.size
        return {**FRAME_FORMAT, "maxWidth": self.size[0], "maxHeight": self.size[1]}


class Screencasts:
    def __init__(self, host: Any) -> None:
        self.host = host
        self.casts: dict[str, _Cast] = {}

    def watch(self, target_id: str, viewer: FrameSink) -> None:
        cast = self.casts.get(target_id)
        if cast is None:
            cast = self.casts[target_id] = _Cast(target_id)
            cast.url = (self.host.browser.targets.get(target_id) or {}).get("url")
            cast.starting = asyncio.ensure_future(self._start(cast))
        elif cast.last is not None:
            viewer.offer_frame(target_id, cast.last)  # the page may not change for a while
        cast.viewers.add(viewer)

    def set_need(self, target_id: str, seconds: float, size: tuple[int, int]) -> None:
        """What the cast's viewers need now: the shortest time between two frames, and the
        frame size (``frame_size``) of the largest view."""
        cast = self.casts.get(target_id)
        if cast is None:
            return
        cast.interval = seconds
        cast.size = size
        if size != cast.cast_size and self._running(cast):
            self._restart_soon(cast)  # a paused cast resumes at the new size, one starting checks it

    def navigated(self, target_id: str, url: str) -> None:
        """The page went to ``url`` (``Target.targetInfoChanged``): capture it again. Chromium's
        capturer can miss a document that replaces the one it was started on (measured under
        load: no frame at all in 4 of 12 casts started just before a navigation), and a page
        that does not change afterwards sends no other; a new screencast captures it as it is."""
        cast = self.casts.get(target_id)
        if cast is None:
            return
        was, cast.url = cast.url, url
        if was != url and self._running(cast):
            self._restart_soon(cast)

    @staticmethod
    def _running(cast: _Cast) -> bool:
        return (cast.live and cast.starting is not None and cast.starting.done() and cast.session_id is not None
                and cast.resume is None)

    def replay(self, target_id: str, viewer: FrameSink) -> None:
        """Offer the newest frame again (a viewer that switched views shows it at once), and
        ask Chromium for a fresh one: a frame taken while the tab was not drawn is blank, and
        a page that does not change sends no other."""
        cast = self.casts.get(target_id)
        if cast is None or viewer not in cast.viewers:
            return
        if cast.last is not None:
            viewer.offer_frame(target_id, cast.last)
        if self._running(cast):
            self._restart_soon(cast)

    def _restart_soon(self, cast: _Cast) -> None:
        if not cast.restarting:
            cast.restarting = True
            asyncio.ensure_future(self._restart(cast)).add_done_callback(_retrieve)

    async def _restart(self, cast: _Cast) -> None:
        self._pictures("cast_paused", cast.target_id)
        try:
            session = self.host.browser.conn.session(cast.session_id)
            await session.send("Page.stopScreencast", timeout=5.0)
            await session.send("Page.startScreencast", cast.format(), timeout=5.0)
            # the first start may have failed (the page between two documents, or a loaded
            # machine past the deadline): the trace's pictures learn of the cast from this one
            if cast.live:
                self._pictures("cast_started", cast.target_id)
        finally:
            cast.restarting = False
            self._check_soon(cast)  # also when the page refused it between two documents
        if cast.size != cast.cast_size and self._running(cast):
            self._restart_soon(cast)  # resized again meanwhile

    def _check_soon(self, cast: _Cast) -> None:
        """A screencast just (re)started: if it sends nothing, it missed the page (see
        ``navigated``); a page that does not change would then never be shown."""
        cast.starts += 1
        asyncio.get_running_loop().call_later(_NO_FRAME_AFTER, self._check, cast, cast.starts, cast.received)

    def _check(self, cast: _Cast, start: int, received: int) -> None:
        if cast.received != received:
            cast.checks = 0  # it captures
            return
        if start != cast.starts or self.casts.get(cast.target_id) is not cast:
            return  # started again since (that start has its own check), or nobody watches
        if cast.checks < _NO_FRAME_RETRIES and self._running(cast) and not cast.restarting:
            cast.checks += 1
            self._restart_soon(cast)

    def unwatch(self, target_id: str, viewer: FrameSink) -> None:
        cast = self.casts.get(target_id)
        if cast is None:
            return
        cast.viewers.discard(viewer)
        if not cast.viewers:
            del self.casts[target_id]
            asyncio.ensure_future(self._stop(cast))

    def unwatch_all(self, viewer: FrameSink) -> None:
        for tid in [t for t, c in self.casts.items() if viewer in c.viewers]:
            self.unwatch(tid, viewer)

    def watched(self, viewer: FrameSink) -> set[str]:
        return {t for t, c in self.casts.items() if viewer in c.viewers}

    async def close(self) -> None:
        casts, self.casts = list(self.casts.values()), {}
        await asyncio.gather(*(self._stop(c) for c in casts), return_exceptions=True)

    async def _start(self, cast: _Cast) -> None:
        conn = self.host.browser.conn
        try:
            res = await conn.send("Target.attachToTarget", {"targetId": cast.target_id, "flatten": True}, timeout=10.0)
            cast.session_id = res["sessionId"]
            session = conn.session(cast.session_id)
            cast.offs.append(session.on("Page.screencastFrame", lambda p, _s: self._frame(cast, session, p)))
            url = cast.url
            await session.send("Page.startScreencast", cast.format(), timeout=10.0)
            if cast.live:  # not stopped while it started (the pictures forgot it then)
                self._pictures("cast_started", cast.target_id)
        except (EgoError, KeyError) as exc:
            logger.info("no live view of %s: %s", cast.target_id, exc)
            if cast.session_id is not None:
                # attached, but the page was between two documents ("Not attached to an active
                # page" while it navigates): the check starts it again
                self._check_soon(cast)
            return
        self._check_soon(cast)
        # the viewers' size changed, or the page navigated, while it started (``_running`` is
        # not true yet: this is the task that starts it)
        if (cast.size != cast.cast_size or cast.url != url) and cast.live and cast.resume is None:
            self._restart_soon(cast)

    def _pictures(self, name: str, *args: Any) -> None:
        """Tell the trace's pictures (a host without them: a test's stand-in) of a cast."""
        pictures = getattr(self.host, "pictures", None)
        if pictures is not None:
            getattr(pictures, name)(*args)

    def _frame(self, cast: _Cast, session: Any, params: dict[str, Any]) -> None:
        meta = params.get("metadata") or {}
        cast.received += 1
        if cast.live:
            self._pictures("cast_frame", cast.target_id, params["data"], meta.get("timestamp"),
                           meta.get("deviceWidth"))
        loop = asyncio.get_running_loop()
        now = loop.time()
        burst = now - cast.frame_at < cast.interval
        cast.frame_at = now
        resumed, cast.resumed = cast.resumed, False

        def ack() -> None:
            if cast.live:
                fut = asyncio.ensure_future(
                    session.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]}, timeout=5.0))
                fut.add_done_callback(_retrieve)

        if resumed and cast.last_data is not None:
            # the first frame after a pause: the page changed meanwhile (it is still busy: pause
            # again at once, one frame per interval) or it did not (keep the cast running: the
            # next change is captured when it happens; the viewers already show this picture,
            # so none decodes it again)
            if params["data"] == cast.last_data:
                ack()
                return
            burst = True
        cast.last_data = params["data"]
        width, height = meta.get("deviceWidth"), meta.get("deviceHeight")
        message = orjson.dumps({
            "t": "frame", "target": cast.target_id, "data": params["data"], "width": width, "height": height,
            "offset_top": meta.get("offsetTop", 0), "scale": meta.get("pageScaleFactor", 1),
            "timestamp": meta.get("timestamp"), "sent": time.time() * 1000,
        })

        frame = Frame(message, width, height, ack)
        cast.last = frame
        cast.frames += 1
        for viewer in list(cast.viewers):
            viewer.offer_frame(cast.target_id, frame)
        if burst and cast.resume is None and cast.live:
            self._pause(cast, session)

    def _pause(self, cast: _Cast, session: Any) -> None:
        """Frames come faster than the viewers need: stop capturing until the interval has
        passed, then start again (the new screencast's first frame is the page as it is then)."""
        cast.pauses += 1
        self._pictures("cast_paused", cast.target_id)
        asyncio.ensure_future(session.send("Page.stopScreencast", timeout=5.0)).add_done_callback(_retrieve)
        cast.resume = asyncio.get_running_loop().call_later(cast.interval, self._resume, cast, session)

    def _resume(self, cast: _Cast, session: Any) -> None:
        cast.resume = None
        cast.resumed = True
        if cast.live:
            fut = asyncio.ensure_future(session.send("Page.startScreencast", cast.format(), timeout=5.0))
            fut.add_done_callback(_retrieve)
            # a page navigating refuses the start, or its capturer misses the new document: no
            # frame would ever come (the page's later changes included), so it is checked too
            self._check_soon(cast)

    async def _stop(self, cast: _Cast) -> None:
        cast.live = False
        if self.casts.get(cast.target_id) is None:  # not watched again meanwhile (a new cast of the page)
            self._pictures("cast_stopped", cast.target_id)
        if cast.resume is not None:
            cast.resume.cancel()
            cast.resume = None
        if cast.starting is not None and not cast.starting.done():
            with contextlib.suppress(Exception):
                await cast.starting
        for off in cast.offs:
            off()
        conn = self.host.browser.conn
        if cast.session_id is None or conn is None:
            return
        with contextlib.suppress(EgoError, Exception):
            await conn.session(cast.session_id).send("Page.stopScreencast", timeout=5.0)
        with contextlib.suppress(EgoError, Exception):
            await conn.send("Target.detachFromTarget", {"sessionId": cast.session_id}, timeout=5.0)


def _retrieve(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()  # a page closing mid-ack is not an error
