"""Record the CDP commands the host sends, to prove an action took no deadline-bound path.

Tests of stalls must not assert wall time (the suite runs under heavy load). Instead they
look at what was sent and how each request ended: a command aimed at a frame that no longer
exists, pointer input sent to a hidden tab, or a request that ran into its deadline is the
stall itself, whatever the clock says.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ego_browser.errors import CdpChannelUnavailable, CdpError, EgoTimeout


@dataclass
class Sent:
    method: str
    params: dict[str, Any]
    session_id: str | None
    outcome: str = "pending"  # ok | timeout | error | pending
    result: Any = None  # the answer, once ok


@dataclass
class Recorder:
    sent: list[Sent] = field(default_factory=list)
    #: the commands ``after_send`` put behind others
    extra: list[asyncio.Future[Any]] = field(default_factory=list)
    _seen: list[asyncio.Future[None]] = field(default_factory=list)

    def record(self, entry: Sent) -> None:
        self.sent.append(entry)
        self.changed()

    def changed(self) -> None:
        seen, self._seen = self._seen, []
        for fut in seen:
            if not fut.done():
                fut.set_result(None)

    async def until(self, check: Callable[[list[Sent]], bool], timeout: float = 30.0) -> None:
        """Return once ``check(sent)`` holds (re-checked as commands are sent and answered), so a
        test can act at a known point of a call in flight instead of sleeping."""
        async with asyncio.timeout(timeout):
            while not check(self.sent):
                fut = asyncio.get_running_loop().create_future()
                self._seen.append(fut)
                await fut

    def methods(self, session_id: str | None = None) -> list[str]:
        return [s.method for s in self.sent if session_id is None or s.session_id == session_id]

    def timed_out(self) -> list[Sent]:
        return [s for s in self.sent if s.outcome == "timeout"]

    def clear(self) -> None:
        self.sent.clear()


#: ``after_send(entry, send)``: called once ``entry`` is on the wire; a command it returns (a
#: coroutine of ``send``, the unwrapped sender) is put on the wire right behind it, so the
#: browser runs it after ``entry`` and before anything the host sends once ``entry`` is answered
AfterSend = Callable[[Sent, Callable[..., Any]], Any]


@contextlib.contextmanager
def record_cdp(host: Any, *, after_send: AfterSend | None = None):
    """Wrap ``send`` of every browser connection the host holds for the duration of the block.

    The page drivers talk to their own browser's connection; ``host.browser.conn`` routes the
    host's own calls to one of them, so the browsers' connections are the ones to wrap (each
    command is recorded once, whoever sent it).
    """
    members = getattr(host.browser, "members", {}) or {}
    conns = [m.opened.conn for m in members.values()] or [host.browser.conn]
    rec = Recorder()

    def wrap(conn: Any) -> None:
        orig = conn.send

        async def send(method: str, params: dict | None = None, **kw: Any) -> Any:
            entry = Sent(method, dict(params or {}), kw.get("session_id"))
            rec.record(entry)
            try:
                if after_send is None:
                    res = await orig(method, params, **kw)
                else:
                    call = asyncio.ensure_future(orig(method, params, **kw))
                    await asyncio.sleep(0)  # ``entry`` is written
                    behind = after_send(entry, orig)
                    if behind is not None:
                        rec.extra.append(asyncio.ensure_future(behind))
                        await asyncio.sleep(0)
                    res = await call
                entry.outcome, entry.result = "ok", res
                return res
            except EgoTimeout:
                entry.outcome = "timeout"
                raise
            except (CdpError, CdpChannelUnavailable):
                entry.outcome = "error"
                raise
            finally:
                rec.changed()

        conn.send = send

    for conn in conns:
        wrap(conn)
    try:
        yield rec
    finally:
        for conn in conns:
            del conn.send
