"""One open dashboard tab: its websocket, what it watches, and a sender that never queues frames.

Messages (JSON) are sent in order; frames are not queued at all: each watched page has one slot
holding its newest frame, replaced when a newer one arrives before the last was sent. A viewer
on a slow link or a busy machine therefore shows fewer frames, never older ones, and the
browser and the agent never wait for it. Thumbnails (the list page, and a space's tabs besides
the one in its live view) are limited to one frame per page per ``THUMB_INTERVAL`` seconds; the
newest one is still delivered when the interval ends.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

import orjson

from .screencast import MAX_EDGE, Frame

__all__ = ["Viewer", "THUMB_INTERVAL"]

THUMB_INTERVAL = 1.0
#: control messages waiting for a viewer that does not read: past this the viewer is dropped
_MAX_PENDING = 1000


class Viewer:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: dict[str, Frame] = {}
        self.messages: deque[bytes] = deque()
        self.wake = asyncio.Event()
        #: target id -> min seconds between frames (thumbnails), absent: every frame
        self.interval: dict[str, float] = {}
        self._sent_at: dict[str, float] = {}
        self._held: dict[str, asyncio.TimerHandle] = {}
        self.dropped = 0
        self.sent_frames = 0
        self.space: int | None = None  # the space it views (None: the list)
        self.target: str | None = None  # the tab in its live view (None: every tab of the space)
        #: frame sizes (device pixels, ``screencast.frame_size``) of its live view and its thumbnails
        self.live_size = (MAX_EDGE, MAX_EDGE)
        self.thumb_size = (MAX_EDGE, MAX_EDGE)
        self.hidden = False  # its tab is not shown: it watches nothing
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        if len(self.messages) >= _MAX_PENDING:
            self.closed = True  # never reads: stop feeding it
            self.wake.set()
            return
        self.messages.append(orjson.dumps(message))
        self.wake.set()

    def offer_frame(self, target_id: str, frame: Frame) -> None:
        if self.closed:
            return
        interval = self.interval.get(target_id)
        if interval:
            wait = self._sent_at.get(target_id, 0.0) + interval - time.monotonic()
            if wait > 0:
                if target_id in self.frames:
                    self.dropped += 1
                self.frames[target_id] = frame
                if target_id not in self._held:
                    self._held[target_id] = asyncio.get_running_loop().call_later(wait, self._release, target_id)
                return
        if target_id in self.frames:
            self.dropped += 1  # the viewer had not taken the previous one yet
        self.frames[target_id] = frame
        if target_id not in self._held:
            self.wake.set()

    def _release(self, target_id: str) -> None:
        self._held.pop(target_id, None)
        self.wake.set()

    def forget(self, target_id: str) -> None:
        self.frames.pop(target_id, None)
        handle = self._held.pop(target_id, None)
        if handle is not None:
            handle.cancel()

    async def run(self) -> None:
        """Send until the connection closes."""
        ws = self.ws
        while not self.closed:
            await self.wake.wait()
            self.wake.clear()
            while self.messages:
                await ws.send(self.messages.popleft(), text=True)
            for tid in [t for t in self.frames if t not in self._held]:
                frame = self.frames.pop(tid)
                self._sent_at[tid] = time.monotonic()
                self.sent_frames += 1
                # the message as the host built it for every viewer (UTF-8 JSON, sent as text)
                await ws.send(frame.message, text=True)
                frame.taken()  # on the wire (or in the socket's buffer): the browser may encode the next
                if self.messages:
                    break  # control messages first
            if self.messages or any(t not in self._held for t in self.frames):
                self.wake.set()

    def close(self) -> None:
        self.closed = True
        for handle in self._held.values():
            handle.cancel()
        self._held.clear()
        self.wake.set()
