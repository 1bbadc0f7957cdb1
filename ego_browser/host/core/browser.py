"""The host's link to its browsers: open them through a provider, place spaces, track targets.

Where browsers come from is ``browser/providers.py``: ``local`` (the default: the Chromium we
launch, whose pipe a keeper serves on ``run/browser.sock``; a host started again reattaches to
it, see ``browser/keeper.py``), ``cdp`` (``EGO_BROWSER_CDP_URL``) or ``grid``
(``EGO_BROWSER_GRID_URL``). A provider that gives one browser is used as before: ``conn`` is
that browser's connection and its loss stops the host (the next start reopens the pages).
A provider that gives several (the grid, several CDP URLs) puts each space on a browser by
the placement policy (``place``: several CDP URLs fill a browser up to
``EGO_BROWSER_SPACES_PER_BROWSER`` spaces, then open another; a Grid spreads the spaces over
its nodes, ``spread.py``); ``conn`` is then a ``RoutedConnection`` that sends each call to
the browser it concerns, and a browser that goes away is reported to ``on_member_lost``
while the others carry on.

``targets`` lists the live targets of every browser (ids are unique across browsers).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ...browser.launcher import BrowserProcess
from ...browser.providers import OpenedBrowser, Provider, select_provider, spaces_per_browser
from ...browser.router import RoutedConnection
from ...cdp import Connection
from ...errors import CdpChannelUnavailable, EgoError
from . import spread

__all__ = ["BrowserLink", "Member", "PERSON_SPACE"]

logger = logging.getLogger("ego_browser.host")

#: seconds a heartbeat waits for the browser before its provider is asked whether it is gone
HEARTBEAT_TIMEOUT = 5.0

#: the browser (instance) the running request works in; each request is its own task
_CURRENT: ContextVar[str | None] = ContextVar("ego_browser_member", default=None)


#: the space the person's own browsing happens in: the launch window carries its name
#: (``windows`` opens that space; it lives here, below ``windows``, which builds on this link)
PERSON_SPACE = "My browsing"


class Member:
    """One open browser of the link."""

    def __init__(self, opened: OpenedBrowser, provider: Provider | None = None) -> None:
        self.opened = opened
        #: where it came from when not the link's own provider (an imported profile's browser)
        self.provider = provider
        self.version: dict[str, Any] = {}
        self.default_context = ""
        self.keepalive: asyncio.Task[None] | None = None
        self.offs: list[Callable[[], None]] = []

    @property
    def instance(self) -> str:
        return self.opened.instance


class BrowserLink:
    def __init__(self, home: Path, run_dir: Path, *, embedded: bool = False) -> None:
        self.home = home
        self.run_dir = run_dir
        #: in-process hosts tie Chromium's life to this process (nothing survives a killed test);
        #: the background host lets it outlive a killed host so the next one reattaches
        self.embedded = embedded
        self.provider: Provider | None = None
        self.members: dict[str, Member] = {}
        self.primary: Member | None = None
        self.router: RoutedConnection | None = None
        #: target id -> latest TargetInfo (pages, iframes, workers ...) of every browser
        self.targets: dict[str, dict[str, Any]] = {}
        #: which browser (instance) holds a target, a browser context, a flat session
        self.target_owner: dict[str, str] = {}
        self.context_owner: dict[str, str] = {}
        self.session_owner: dict[str, str] = {}
        self.on_target_created: list[Callable[[dict[str, Any]], Any]] = []
        self.on_target_destroyed: list[Callable[[str], Any]] = []
        self.on_target_changed: list[Callable[[dict[str, Any]], Any]] = []
        #: the only browser went away (one-browser providers): the host stops
        self.on_disconnect: list[Callable[[], Any]] = []
        #: one browser of several went away: (instance, the target ids it held)
        self.on_member_lost: list[Callable[[str, list[str]], Any]] = []
        self._opening: asyncio.Lock | None = None
        #: the placement policy's count: a space placed but not yet stored counts too
        self._placed: dict[str, set[int]] = {}
        self._releasing: set[asyncio.Task[None]] = set()
        self._tokens = 0

    # -- what the rest of the host reads -------------------------------------------------------

    @property
    def many(self) -> bool:
        return self.provider is not None and self.provider.many

    def current(self) -> Member | None:
        """The browser of the request's space (``use``), else the first one."""
        chosen = _CURRENT.get()
        if chosen is not None and chosen in self.members:
            return self.members[chosen]
        if self.primary is not None and self.primary.instance in self.members:
            return self.primary
        return next(iter(self.members.values()), None)

    @property
    def conn(self) -> Connection | None:
        if self.router is not None:
            return self.router  # type: ignore[return-value]  # connection-shaped: send/on/close as a Connection
        return self.primary.opened.conn if self.primary is not None else None

    @property
    def instance(self) -> str:
        member = self.current()
        return member.instance if member is not None else ""

    @property
    def owned(self) -> bool:
        member = self.current()
        return member is not None and member.opened.owned

    @property
    def endpoint(self) -> str:
        member = self.current()
        return member.opened.endpoint if member is not None else ""

    @property
    def process(self) -> BrowserProcess | None:
        member = self.current()
        return member.opened.process if member is not None else None

    @property
    def version(self) -> dict[str, Any]:
        member = self.current()
        return member.version if member is not None else {}

    @property
    def headed(self) -> bool:
        """The browser we launched shows windows on a display (``EGO_BROWSER_HEADLESS=0``)."""
        member = self.current()
        return member is not None and member.opened.headed

    @property
    def default_context(self) -> str:
        """The id of the browser's persistent context (its tabs are the only ones a person
        can open from the browser's own UI in a window of ours)."""
        member = self.current()
        return member.default_context if member is not None else ""

    def use(self, instance: str | None) -> None:
        """Calls made by the running request (and the tasks it starts) go to this browser."""
        _CURRENT.set(instance if instance in self.members else None)

    def has(self, instance: str | None) -> bool:
        return instance is not None and instance in self.members

    def where(self, instance: str | None) -> str:
        member = self.members.get(instance or "")
        return member.opened.where if member is not None else ""

    async def files_for_browser(self, instance: str | None, paths: list[str]) -> list[str]:
        """Upload paths as the space's browser sees them (copied to a Grid node first)."""
        member = self.members.get(instance or "")
        if member is None or self.provider is None:
            return paths
        return await self.provider.files_for_browser(member.opened, paths)

    def download_dir(self, instance: str | None) -> str:
        """Where that browser writes downloads in its own file system when it is not ours to
        read (a Grid node's managed downloads), else "" (the host's folder, by path)."""
        member = self.members.get(instance or "")
        return member.opened.download_dir if member is not None else ""

    async def fetch_download(self, instance: str, name: str, dest: str) -> None:
        """Copy a finished download of that browser (see ``download_dir``) to ``dest`` here."""
        member = self.members.get(instance)
        provider = (member.provider or self.provider) if member is not None else None
        if member is None or provider is None:
            raise CdpChannelUnavailable("the browser that downloaded the file went away", method=None)
        await provider.fetch_download(member.opened, name, dest)

    def conn_for_target(self, target_id: str) -> Connection:
        owner = self.target_owner.get(target_id)
        member = self.members.get(owner or "") or self.current()
        assert member is not None
        return member.opened.conn

    def conn_for_session(self, session_id: str) -> Connection | None:
        member = self.members.get(self.session_owner.get(session_id, ""))
        return member.opened.conn if member is not None else None

    def instance_of_conn(self, conn: Any) -> str | None:
        for instance, member in self.members.items():
            if member.opened.conn is conn:
                return instance
        return None

    # -- life cycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        self.provider = select_provider(self.home, self.run_dir, embedded=self.embedded, window_name=PERSON_SPACE)
        self._opening = asyncio.Lock()
        # routed even with a single browser: an imported profile's own Chromium may join
        # (``open_extra``), and it must get every subscription made from the start
        self.router = RoutedConnection(self)
        self.primary = await self._open()

    async def open_extra(self, provider: Provider) -> Member:
        """A browser from another provider beside the link's own: an imported profile's own
        Chromium (host/features/profile_contexts.py). Calls naming its default context go to it."""
        member = await self._open(provider)
        if member.default_context:
            self.context_owner[member.default_context] = member.instance
        return member

    async def release_extra(self, instance: str) -> None:
        member = self.members.get(instance)
        if member is not None and member.provider is not None:
            await self._release(member, kill=True)

    async def _open(self, extra: Provider | None = None) -> Member:
        provider = extra or self.provider
        assert provider is not None
        opened = await provider.open()
        member = Member(opened, extra)
        conn = opened.conn
        instance = opened.instance
        self.members[instance] = member
        # one browser of several (or an extra one) going away is a lost browser, not the end
        many = provider.many or extra is not None

        def closed(_exc: BaseException | None) -> None:
            if many:
                self._lost(member)
            else:
                for cb in list(self.on_disconnect):
                    cb()

        def created(params: dict[str, Any], _sid: str | None) -> None:
            self._created(instance, params)

        conn.on_close(closed)
        member.offs += [
            conn.on("Target.targetCreated", created),
            conn.on("Target.targetInfoChanged", lambda p, _s: self._changed(p)),
            conn.on("Target.targetDestroyed", lambda p, _s: self._destroyed(p)),
        ]
        try:
            replies: tuple[dict[str, Any], ...] = await asyncio.gather(
                conn.send("Browser.getVersion", timeout=10.0),
                conn.send("Target.getTargets", timeout=10.0),
                conn.send("Target.setDiscoverTargets", {"discover": True}, timeout=10.0),
                conn.send("Target.getBrowserContexts", timeout=10.0),
            )
            version, targets = replies[0], replies[1]
            member.default_context = str(replies[3].get("defaultBrowserContextId") or "")
        except BaseException:
            self.members.pop(instance, None)
            with contextlib.suppress(Exception):
                await provider.release(opened, kill=True)
            raise
        member.version = version
        for info in targets["targetInfos"]:
            self.targets.setdefault(info["targetId"], info)
            self.target_owner[info["targetId"]] = instance
        if self.router is not None:
            self.router.attach_member(instance, conn)
        if extra is None and (provider.keepalive_interval or provider.heartbeat_interval):
            member.keepalive = asyncio.get_running_loop().create_task(self._watch(member))
        return member

    async def _watch(self, member: Member) -> None:
        """Keep the browser's session alive (``keepalive_interval``) and find out when the
        browser is gone although its connection stays open (``heartbeat_interval``)."""
        provider = self.provider
        assert provider is not None
        loop = asyncio.get_running_loop()
        beat = provider.heartbeat_interval
        keep = provider.keepalive_interval
        next_keep = loop.time() + keep if keep else None
        while True:
            # timers, not waits on the browser: nothing else says when to look
            await asyncio.sleep(min(x for x in (beat, keep) if x))
            if beat and not await self._beat(member):
                return
            if next_keep is not None and loop.time() >= next_keep:
                next_keep = loop.time() + (keep or 0)
                try:
                    await provider.keepalive(member.opened)
                except Exception as exc:  # noqa: BLE001 - the next one may pass; a lost browser shows in the heartbeat
                    logger.warning("keep-alive of %s failed: %s", member.opened.where, exc)

    async def _beat(self, member: Member) -> bool:
        """One heartbeat; False once the browser is found gone (its connection is closed,
        which fails what is pending and reports it lost)."""
        assert self.provider is not None
        conn = member.opened.conn
        if conn.closed:
            return False
        try:
            await conn.send("Browser.getVersion", timeout=HEARTBEAT_TIMEOUT)
            return True
        except CdpChannelUnavailable:
            return False
        except EgoError:
            pass  # no answer in time: ask the browser's provider whether it is gone or slow
        if not await self.provider.confirm_lost(member.opened):
            return True
        logger.warning("browser %s does not answer and its provider says it is gone", member.opened.where)
        await conn.close()
        return False

    async def stop(self, *, kill_browser: bool) -> None:
        for member in list(self.members.values()):
            await self._release(member, kill=kill_browser)
        if self._releasing:
            await asyncio.wait(list(self._releasing), timeout=15.0)

    async def _release(self, member: Member, *, kill: bool) -> None:
        provider = member.provider or self.provider
        assert provider is not None
        self.members.pop(member.instance, None)
        self._forget(member)
        await provider.release(member.opened, kill=kill)

    def _forget(self, member: Member) -> list[str]:
        if member.keepalive is not None and member.keepalive is not asyncio.current_task():
            member.keepalive.cancel()  # (a heartbeat that found the browser gone ends by itself)
        for off in member.offs:
            off()
        member.offs.clear()
        if self.router is not None:
            self.router.detach_member(member.instance)
        self._placed.pop(member.instance, None)
        gone = [t for t, owner in self.target_owner.items() if owner == member.instance]
        for tid in gone:
            self.target_owner.pop(tid, None)
            self.targets.pop(tid, None)
        for table in (self.context_owner, self.session_owner):
            for key in [k for k, owner in table.items() if owner == member.instance]:
                del table[key]
        return gone

    def _lost(self, member: Member) -> None:
        """One browser of several closed its connection (node, session or Chromium gone)."""
        if self.members.get(member.instance) is not member:
            return  # released on purpose
        self.members.pop(member.instance, None)
        gone = self._forget(member)
        if self.primary is member:
            self.primary = None
        logger.warning("browser %s went away (%d targets)", member.opened.where, len(gone))
        if self.provider is not None:
            # what is left of it (a Grid session whose Chromium died) is given back
            task = asyncio.get_running_loop().create_task(self.provider.release(member.opened, kill=True))
            self._releasing.add(task)
            task.add_done_callback(self._releasing.discard)
        for cb in list(self.on_member_lost):
            cb(member.instance, gone)

    # -- placement -----------------------------------------------------------------------------

    async def place(self, space_counts: Callable[[], dict[str, int]], *, prefer: str | None = None,
                    token: int | None = None) -> str:
        """The browser a new space goes to: ``prefer`` if it is open (a profile's context lives
        there); else, on a Grid, the node with the fewest of our spaces (``_spread``); else the
        first browser with fewer than EGO_BROWSER_SPACES_PER_BROWSER spaces; else a new one from
        the provider. ``space_counts()`` (open spaces per instance) is read once it is this
        space's turn: spaces placed and stored while it waited count.
        ``token`` counts the space as placed there until ``placed_done`` (it is not stored yet)."""
        if not self.many:
            member = self.current()
            assert member is not None
            return member.instance
        if prefer is not None and prefer in self.members:
            chosen = prefer
        else:
            limit = spaces_per_browser()
            assert self._opening is not None and self.provider is not None
            async with self._opening:  # two spaces arriving together: one new browser, not two
                stored = space_counts()
                counts = {i: stored.get(i, 0) + len(self._placed.get(i, ())) for i in self.members}
                if self.provider.spreads:
                    choice = await self._spread(counts, limit)
                else:
                    choice = spread.Choice(next((i for i in self.members if counts[i] < limit), ""), "")
                chosen = choice.instance
                if not chosen:
                    member = await self._open()
                    if self.primary is None:
                        self.primary = member
                    chosen = member.instance
                    if choice.node and member.opened.node and member.opened.node != choice.node:
                        logger.info("placement: the new browser meant for node %s runs on %s (the Grid's "
                                    "choice: other sessions weigh on the first)", choice.node, member.opened.node)
        if token is not None:
            self._placed.setdefault(chosen, set()).add(token)
        return chosen

    async def _spread(self, counts: dict[str, int], limit: int) -> spread.Choice:
        """A provider with nodes (a Grid): the node with the fewest of our spaces (``spread.py``).
        A new browser (no instance chosen) is put by the Grid on its least loaded node: the one
        we want unless other clients' sessions weigh on it (the space then goes where it landed)."""
        assert self.provider is not None
        free = await self.provider.free_slots()
        # an imported profile's own browser (``open_extra``) takes its profile's spaces only
        ours = [(i, m.opened.node) for i, m in self.members.items() if m.provider is None]
        return spread.choose(ours, counts, limit, free)

    def next_token(self) -> int:
        self._tokens += 1
        return self._tokens

    def placed_done(self, instance: str, token: int) -> None:
        self._placed.get(instance, set()).discard(token)

    async def release_if_idle(self, instance: str | None, open_spaces: int) -> bool:
        """After a space's finish: a browser of several with no space left is given back."""
        member = self.members.get(instance or "")
        if not self.many or member is None or open_spaces or self._placed.get(member.instance):
            return False
        await self._release(member, kill=True)
        if self.primary is member:
            self.primary = next(iter(self.members.values()), None)
        return True

    # -- targets ----------------------------------------------------------------------------

    def _created(self, instance: str, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        self.targets[info["targetId"]] = info
        self.target_owner[info["targetId"]] = instance
        for cb in self.on_target_created:
            cb(info)

    def _changed(self, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        if info["targetId"] not in self.target_owner and self.many:
            return  # a browser being released still reports its last changes
        self.targets[info["targetId"]] = info
        for cb in self.on_target_changed:
            cb(info)

    def _destroyed(self, params: dict[str, Any]) -> None:
        tid = params["targetId"]
        self.targets.pop(tid, None)
        self.target_owner.pop(tid, None)
        for cb in self.on_target_destroyed:
            cb(tid)

    def is_live_page(self, target_id: str | None) -> bool:
        info = self.targets.get(target_id or "")
        return info is not None and info.get("type") == "page"
