"""A minimal FrameTree for one page session, for tests, benchmarks and as a reference.

The host's own FrameTree (with out-of-process iframes, lifecycle tracking and ledgers) is the
real implementation of the protocol in :mod:`ego_browser.selectors.engine`; this one reads
``Page.getFrameTree`` on each call and creates one isolated world per frame lazily. It does not
follow out-of-process iframes (they live in other sessions).
"""

from __future__ import annotations

from typing import Any

from .engine import ENGINE_WORLD

__all__ = ["PageFrames", "StandaloneFrame", "open_page"]


class StandaloneFrame:
    __slots__ = ("session", "frame_id", "loader_id", "url", "is_main", "installed", "_ctx")

    def __init__(self, session: Any, frame_id: str, loader_id: str | None, url: str, is_main: bool) -> None:
        self.session = session
        self.frame_id = frame_id
        self.loader_id = loader_id
        self.url = url
        self.is_main = is_main
        self._ctx: int | None = None
        self.installed: set[str] = set()

    async def utility_context(self) -> int:
        if self._ctx is None:
            r = await self.session.send(
                "Page.createIsolatedWorld",
                {"frameId": self.frame_id, "worldName": ENGINE_WORLD, "grantUniveralAccess": True},
            )
            self._ctx = r["executionContextId"]
            self.installed = set()
        return self._ctx

    def invalidate_utility_context(self) -> None:
        self._ctx = None
        self.installed = set()

    def __repr__(self) -> str:
        return f"<StandaloneFrame {self.frame_id[:8]} {self.url[:40]!r}{' main' if self.is_main else ''}>"


class PageFrames:
    """``frames()``: the page's same-session frames, top first, then depth-first."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._frames: dict[tuple[str, str | None], StandaloneFrame] = {}

    async def frames(self) -> list[StandaloneFrame]:
        tree = (await self.session.send("Page.getFrameTree"))["frameTree"]
        out: list[StandaloneFrame] = []
        live: set[tuple[str, str | None]] = set()

        def walk(node: dict[str, Any], is_main: bool) -> None:
            f = node["frame"]
            key = (f["id"], f.get("loaderId"))
            live.add(key)
            frame = self._frames.get(key)
            if frame is None:
                frame = self._frames[key] = StandaloneFrame(self.session, f["id"], f.get("loaderId"), f.get("url", ""), is_main)
            frame.url = f.get("url", "") + (f.get("urlFragment") or "")
            out.append(frame)
            for child in node.get("childFrames", ()):
                walk(child, False)

        walk(tree, True)
        for key in list(self._frames):
            if key not in live:
                del self._frames[key]
        return out

    def invalidate(self) -> None:
        """Forget every utility context (after the document was replaced in place)."""
        for frame in self._frames.values():
            frame.invalidate_utility_context()


async def open_page(connection: Any, url: str = "about:blank") -> tuple[Any, str]:
    """Create a tab and attach a flat session to it; returns (session, target_id)."""
    t = await connection.send("Target.createTarget", {"url": url})
    a = await connection.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})
    return connection.session(a["sessionId"]), t["targetId"]
