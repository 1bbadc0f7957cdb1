"""Live views: one ``Page.startScreencast`` per watched page, only while someone watches.

Each screencast runs on a CDP session of its own (attached for it, detached when the last viewer
leaves), so the agent's session of the page never sees its frames or its acks. Frames are acked
as they arrive, so Chromium keeps producing the newest; each viewer keeps only the newest frame
per page (``Viewer.offer_frame``), so a slow viewer skips frames instead of queueing them and
never slows the browser or the agent down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

from ..errors import EgoError

__all__ = ["Screencasts", "FRAME_FORMAT"]

logger = logging.getLogger("ego_browser.dashboard")

#: at most 1024 px wide (a 1280x720 page: 1024x576, 64% of the pixels to encode, send and decode: the live
#: view is shown about that wide anyway), JPEG quality 60: 20-40 kB a frame, text still readable
FRAME_FORMAT = {"format": "jpeg", "quality": 60, "maxWidth": 1024, "maxHeight": 1024, "everyNthFrame": 1}


#: frames per second a live view takes at most from a page that keeps changing
MAX_FPS = 25


class FrameSink(Protocol):
    def offer_frame(self, target_id: str, frame: dict[str, Any]) -> None: ...


class _Cast:
    def __init__(self, target_id: str) -> None:
        self.target_id = target_id
        self.viewers: set[FrameSink] = set()
        self.session_id: str | None = None
        self.offs: list[Any] = []
        self.last: dict[str, Any] | None = None
        self.frames = 0
        self.starting: asyncio.Task[None] | None = None
        self.acked_at = 0.0


class Screencasts:
    def __init__(self, host: Any) -> None:
        self.host = host
        self.casts: dict[str, _Cast] = {}

    def watch(self, target_id: str, viewer: FrameSink) -> None:
        cast = self.casts.get(target_id)
        if cast is None:
            cast = self.casts[target_id] = _Cast(target_id)
            cast.starting = asyncio.ensure_future(self._start(cast))
        elif cast.last is not None:
            viewer.offer_frame(target_id, cast.last)  # the page may not change for a while
        cast.viewers.add(viewer)

    def replay(self, target_id: str, viewer: FrameSink) -> None:
        """Offer the newest frame again (a viewer that switched views shows it at once), and
        ask Chromium for a fresh one: a frame taken while the tab was not drawn is blank, and
        a page that does not change sends no other."""
        cast = self.casts.get(target_id)
        if cast is None or viewer not in cast.viewers:
            return
        if cast.last is not None:
            viewer.offer_frame(target_id, cast.last)
        if cast.starting is not None and cast.starting.done() and cast.session_id is not None:
            asyncio.ensure_future(self._restart(cast)).add_done_callback(_retrieve)

    async def _restart(self, cast: _Cast) -> None:
        session = self.host.browser.conn.session(cast.session_id)
        await session.send("Page.stopScreencast", timeout=5.0)
        await session.send("Page.startScreencast", FRAME_FORMAT, timeout=5.0)

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
            await session.send("Page.startScreencast", FRAME_FORMAT, timeout=10.0)
        except (EgoError, KeyError) as exc:
            logger.info("no live view of %s: %s", cast.target_id, exc)

    def _frame(self, cast: _Cast, session: Any, params: dict[str, Any]) -> None:
        # Chromium sends the next frame once this one is acked: acking at most MAX_FPS times a
        # second caps what an animation costs the page (JPEG encoding runs in the browser),
        # while the first frame after a quiet spell still goes out at once
        loop = asyncio.get_running_loop()
        due = cast.acked_at + 1 / MAX_FPS - loop.time()

        def ack() -> None:
            cast.acked_at = loop.time()
            fut = asyncio.ensure_future(
                session.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]}, timeout=5.0))
            fut.add_done_callback(_retrieve)

        if due > 0:
            loop.call_later(due, ack)
        else:
            ack()
        meta = params.get("metadata") or {}
        frame = {
            "data": params["data"],
            "width": meta.get("deviceWidth"), "height": meta.get("deviceHeight"),
            "offset_top": meta.get("offsetTop", 0), "scale": meta.get("pageScaleFactor", 1),
            "timestamp": meta.get("timestamp"),
        }
        cast.last = frame
        cast.frames += 1
        for viewer in list(cast.viewers):
            viewer.offer_frame(cast.target_id, frame)

    async def _stop(self, cast: _Cast) -> None:
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
