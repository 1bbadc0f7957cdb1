"""The events one page keeps for ``page.events()`` between two reads: the newest, within a
count and a byte budget (the page driver's part, ``driver.events``)."""

from __future__ import annotations

from collections import deque
from typing import Any

import orjson

__all__ = ["EventBuffer", "EVENT_BUFFER", "EVENT_BUFFER_BYTES"]

#: events kept per page between two ``events()`` calls (the oldest go first)...
EVENT_BUFFER = 1000
#: ...and at most this many bytes of them (their JSON). A count alone let one long-lived tab
#: keep 1,000 network events of a few KB each (several MB of Python objects) for as long as
#: nobody read them: the soak's host RSS kept rising with them (issue 9)
EVENT_BUFFER_BYTES = 256 * 1024


class EventBuffer:
    __slots__ = ("_events", "_sizes", "_bytes")

    def __init__(self) -> None:
        self._events: deque[dict[str, Any]] = deque()
        self._sizes: deque[int] = deque()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._events)

    def append(self, event: dict[str, Any]) -> None:
        """Keep ``event``, dropping the oldest beyond ``EVENT_BUFFER`` events or ``EVENT_BUFFER_BYTES``."""
        try:
            size = len(orjson.dumps(event))
        except (TypeError, orjson.JSONEncodeError):
            size = 4096  # not JSON as is: counted at a typical network event's size
        events, sizes = self._events, self._sizes
        events.append(event)
        sizes.append(size)
        self._bytes += size
        while len(events) > EVENT_BUFFER or (self._bytes > EVENT_BUFFER_BYTES and len(events) > 1):
            events.popleft()
            self._bytes -= sizes.popleft()

    def take(self) -> list[dict[str, Any]]:
        """Every event kept, oldest first; the buffer is empty afterwards."""
        out = list(self._events)
        self.clear()
        return out

    def clear(self) -> None:
        self._events.clear()
        self._sizes.clear()
        self._bytes = 0
