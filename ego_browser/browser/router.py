"""One connection-shaped front for several browsers (the grid, several CDP URLs).

The host's browser-level calls (``Target.createTarget``, ``Browser.setDownloadBehavior``,
``Storage.getCookies`` ...) keep calling ``host.browser.conn.send``; this front sends each to
the browser it concerns: the one that owns the ``targetId`` or ``browserContextId`` in its
parameters, else the browser of the space the request works on (``BrowserLink.use``), else
the first one. Subscriptions go to every browser, present and future: target and context ids
are unique across browsers, so a handler never confuses two of them. Page sessions never come
through here: a page's driver holds its own browser's connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..cdp.connection import DEFAULT_TIMEOUT, Connection, Session
from ..cdp.protocol import ANY_SESSION, Handler
from ..errors import CdpChannelUnavailable
from .providers import OpenedBrowser

__all__ = ["BrowserSet", "RoutedConnection"]


class _Member(Protocol):
    @property
    def opened(self) -> OpenedBrowser: ...


class BrowserSet(Protocol):
    """What the front needs of the host's browsers (``host.browser.BrowserLink``, a layer up):
    the open browsers by instance, which one owns each target, context and session, and the
    browser of the space the current request works on."""

    @property
    def members(self) -> Mapping[str, _Member]: ...
    @property
    def target_owner(self) -> dict[str, str]: ...
    @property
    def context_owner(self) -> dict[str, str]: ...
    @property
    def session_owner(self) -> dict[str, str]: ...

    def current(self) -> _Member | None: ...

    def conn_for_session(self, session_id: str) -> Connection | None: ...

    def instance_of_conn(self, conn: Any) -> str | None: ...


class RoutedConnection:
    def __init__(self, link: BrowserSet) -> None:
        self.link = link
        self.url = "routed"
        #: (method, handler, session filter, {instance: unsubscribe})
        self._subs: list[tuple[str, Handler, object, dict[str, Callable[[], None]]]] = []

    @property
    def closed(self) -> bool:
        return not self.link.members

    def traffic(self) -> tuple[dict[str, int], dict[str, int]]:
        """(commands sent, events received) so far by method, over every browser."""
        sent: dict[str, int] = {}
        events: dict[str, int] = {}
        for member in list(self.link.members.values()):
            one_sent, one_events = member.opened.conn.traffic()
            for into, part in ((sent, one_sent), (events, one_events)):
                for method, count in part.items():
                    into[method] = into.get(method, 0) + count
        return sent, events

    def pick(self, params: dict[str, Any] | None) -> Connection:
        link = self.link
        if params:
            tid = params.get("targetId")
            owner = link.target_owner.get(tid) if isinstance(tid, str) else None
            if owner is None:
                ctx = params.get("browserContextId")
                owner = link.context_owner.get(ctx) if isinstance(ctx, str) else None
            if owner is not None and owner in link.members:
                return link.members[owner].opened.conn
        member = link.current()
        if member is None:
            raise CdpChannelUnavailable("CDP channel unavailable: no browser is open", method=None)
        return member.opened.conn

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, session_id: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> dict[str, Any]:
        if session_id is not None:
            conn = self.link.conn_for_session(session_id) or self.pick(params)
        else:
            conn = self.pick(params)
        result = await conn.send(method, params, session_id=session_id, timeout=timeout)
        owner = self.link.instance_of_conn(conn)
        if owner is not None:
            if method == "Target.createBrowserContext" and "browserContextId" in result:
                self.link.context_owner[result["browserContextId"]] = owner
            elif method == "Target.createTarget" and "targetId" in result:
                self.link.target_owner[result["targetId"]] = owner
            elif method == "Target.attachToTarget" and "sessionId" in result:
                self.link.session_owner[result["sessionId"]] = owner
        return result

    def on(self, method: str, handler: Handler, *, session_id: object = ANY_SESSION) -> Callable[[], None]:
        entry: tuple[str, Handler, object, dict[str, Callable[[], None]]] = (method, handler, session_id, {})
        self._subs.append(entry)
        for instance, member in self.link.members.items():
            entry[3][instance] = member.opened.conn.on(method, handler, session_id=session_id)

        def off() -> None:
            for unsubscribe in entry[3].values():
                unsubscribe()
            entry[3].clear()
            if entry in self._subs:
                self._subs.remove(entry)

        return off

    def attach_member(self, instance: str, conn: Connection) -> None:
        """A new browser gets every subscription made so far."""
        for method, handler, session_id, offs in self._subs:
            offs[instance] = conn.on(method, handler, session_id=session_id)

    def detach_member(self, instance: str) -> None:
        for _method, _handler, _sid, offs in self._subs:
            off = offs.pop(instance, None)
            if off is not None:
                off()

    def on_close(self, handler: Callable[[BaseException | None], Any]) -> Callable[[], None]:
        # a browser of many going away is a lost browser (BrowserLink.on_member_lost), not the end
        return lambda: None

    def subscriber_count(self) -> int:
        return sum(m.opened.conn.subscriber_count() for m in self.link.members.values())

    def reject_session(self, session_id: str, reason: str, exc: Exception | None = None) -> None:
        conn = self.link.conn_for_session(session_id)
        if conn is not None:
            conn.reject_session(session_id, reason, exc)

    def session(self, session_id: str) -> Session:
        return Session(self, session_id)  # type: ignore[arg-type]  # Session only calls send/on, which this has

    async def close(self) -> None:
        for member in list(self.link.members.values()):
            await member.opened.conn.close()
