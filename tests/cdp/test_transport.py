"""CDP transport against a fake CDP peer (a real loopback websocket that we script).

The peer can reply, emit events (also per session), hang a method and drop the connection.
"""

from __future__ import annotations

import asyncio

import orjson
import pytest
from websockets.asyncio.server import serve

from ego_browser.cdp import Connection
from ego_browser.errors import BrowserUnavailable, CdpChannelUnavailable, CDPError, EgoTimeout


class FakePeer:
    def __init__(self) -> None:
        self.replies: dict[str, dict] = {}
        self.errors: dict[str, dict] = {}
        self.hang: set[str] = set()
        self.received: list[dict] = []
        self.sockets: list = []
        self.server = None
        self.url = ""

    async def __aenter__(self) -> FakePeer:
        self.server = await serve(self._handler, "127.0.0.1", 0, compression=None)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/devtools/browser/fake"
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def _handler(self, ws) -> None:
        self.sockets.append(ws)
        async for raw in ws:
            msg = orjson.loads(raw)
            self.received.append(msg)
            method = msg["method"]
            if method in self.hang:
                continue
            reply: dict = {"id": msg["id"]}
            if "sessionId" in msg:
                reply["sessionId"] = msg["sessionId"]
            if method in self.errors:
                reply["error"] = self.errors[method]
            else:
                reply["result"] = self.replies.get(method, {"echo": msg.get("params", {}), "session": msg.get("sessionId")})
            await ws.send(orjson.dumps(reply).decode())

    async def emit(self, method: str, params: dict, session_id: str | None = None) -> None:
        msg: dict = {"method": method, "params": params}
        if session_id:
            msg["sessionId"] = session_id
        for ws in self.sockets:
            await ws.send(orjson.dumps(msg).decode())

    async def drop(self) -> None:
        for ws in self.sockets:
            await ws.close()


async def test_request_reply_and_session_routing():
    async with FakePeer() as peer:
        conn = await Connection.connect(peer.url)
        try:
            res = await conn.send("Browser.getVersion", {"a": 1})
            assert res == {"echo": {"a": 1}, "session": None}
            a, b = await asyncio.gather(
                conn.send("Runtime.evaluate", {"x": 1}, session_id="S1"),
                conn.send("Runtime.evaluate", {"x": 2}, session_id="S2"),
            )
            assert a == {"echo": {"x": 1}, "session": "S1"}
            assert b == {"echo": {"x": 2}, "session": "S2"}
            ids = [m["id"] for m in peer.received]
            assert len(ids) == len(set(ids)), "request ids must be unique"
        finally:
            await conn.close()


async def test_events_fan_out_to_every_subscriber_and_by_session():
    async with FakePeer() as peer:
        conn = await Connection.connect(peer.url)
        try:
            await conn.send("Target.setDiscoverTargets")
            got: list[tuple[str, object]] = []
            conn.on("Page.loadEventFired", lambda p, s: got.append(("any-1", s)))
            conn.on("Page.loadEventFired", lambda p, s: got.append(("any-2", s)))
            conn.on("Page.loadEventFired", lambda p, s: got.append(("s1", s)), session_id="S1")
            done = asyncio.Event()
            conn.on("Done", lambda p, s: done.set())
            await peer.emit("Page.loadEventFired", {}, "S1")
            await peer.emit("Page.loadEventFired", {}, "S2")
            await peer.emit("Page.loadEventFired", {})
            await peer.emit("Done", {})
            await asyncio.wait_for(done.wait(), 5)
            assert got == [
                ("s1", "S1"), ("any-1", "S1"), ("any-2", "S1"),
                ("any-1", "S2"), ("any-2", "S2"),
                ("any-1", None), ("any-2", None),
            ]
        finally:
            await conn.close()


async def test_unsubscribe_stops_delivery():
    async with FakePeer() as peer:
        conn = await Connection.connect(peer.url)
        try:
            got = []
            off = conn.on("E", lambda p, s: got.append(p["n"]))
            done = asyncio.Event()
            conn.on("Done", lambda p, s: done.set())
            await peer.emit("E", {"n": 1})
            await peer.emit("Done", {})
            await asyncio.wait_for(done.wait(), 5)
            off()
            done.clear()
            await peer.emit("E", {"n": 2})
            await peer.emit("Done", {})
            await asyncio.wait_for(done.wait(), 5)
            assert got == [1]
        finally:
            await conn.close()


async def test_handlers_are_never_awaited_by_the_reader():
    """A coroutine handler that blocks forever must not delay replies or other events."""
    async with FakePeer() as peer:
        conn = await Connection.connect(peer.url)
        try:
            await conn.send("Target.setDiscoverTargets")
            blocked = asyncio.Event()

            async def slow(params, sid):
                blocked.set()
                await asyncio.Event().wait()  # never returns

            conn.on("Slow", slow)
            await peer.emit("Slow", {})
            await asyncio.wait_for(blocked.wait(), 5)
            res = await asyncio.wait_for(conn.send("Browser.getVersion"), 5)
            assert "echo" in res
        finally:
            await conn.close()
        # close cancelled the stuck handler task: nothing left behind
        assert not conn._tasks


async def test_deadline_names_the_method():
    async with FakePeer() as peer:
        peer.hang.add("Runtime.evaluate")
        conn = await Connection.connect(peer.url)
        try:
            with pytest.raises(EgoTimeout) as info:
                await conn.send("Runtime.evaluate", {"expression": "1"}, timeout=0.1)
            assert "CDP request timed out: Runtime.evaluate" in str(info.value)
            assert info.value.code == "EGO_TIMEOUT"
            assert not conn._pending
            # the connection still works afterwards
            assert await conn.send("Browser.getVersion")
        finally:
            await conn.close()


async def test_cdp_error_keeps_code_message_and_method():
    async with FakePeer() as peer:
        peer.errors["DOM.noSuchMethod"] = {"code": -32601, "message": "'DOM.noSuchMethod' wasn't found"}
        conn = await Connection.connect(peer.url)
        try:
            with pytest.raises(CDPError) as info:
                await conn.send("DOM.noSuchMethod")
            err = info.value
            assert err.code == "EGO_CDP_ERROR"
            assert err.method == "DOM.noSuchMethod"
            assert err.cdp_code == -32601
            assert err.cdp_message == "'DOM.noSuchMethod' wasn't found"
        finally:
            await conn.close()


async def test_connection_loss_rejects_every_pending_request():
    async with FakePeer() as peer:
        peer.hang.update({"A.one", "B.two"})
        conn = await Connection.connect(peer.url)
        closed = []
        conn.on_close(lambda exc: closed.append(exc))
        one = asyncio.ensure_future(conn.send("A.one"))
        two = asyncio.ensure_future(conn.send("B.two", session_id="S"))
        while len(peer.received) < 2:
            await asyncio.sleep(0.01)
        await peer.drop()
        for fut, method in ((one, "A.one"), (two, "B.two")):
            with pytest.raises(CdpChannelUnavailable) as info:
                await asyncio.wait_for(fut, 5)
            assert info.value.code == "EGO_CDP_CHANNEL_UNAVAILABLE"
            assert info.value.method == method
        assert closed, "close handlers run on connection loss"
        with pytest.raises(CdpChannelUnavailable):
            await conn.send("C.three")
        await conn.close()


async def test_close_rejects_pending_and_leaves_nothing_behind():
    async with FakePeer() as peer:
        peer.hang.add("Hang.forever")
        conn = await Connection.connect(peer.url)
        conn.on("Some.event", lambda p, s: None)
        pending = asyncio.ensure_future(conn.send("Hang.forever"))
        while not peer.received:
            await asyncio.sleep(0.01)
        await conn.close()
        with pytest.raises(CdpChannelUnavailable):
            await pending
        assert conn.closed
        assert conn.subscriber_count() == 0
        assert not conn._pending and not conn._tasks
        assert conn._reader.done()


async def test_session_rejection_only_hits_that_session():
    async with FakePeer() as peer:
        peer.hang.add("Runtime.evaluate")
        conn = await Connection.connect(peer.url)
        try:
            a = asyncio.ensure_future(conn.send("Runtime.evaluate", session_id="A"))
            b = asyncio.ensure_future(conn.send("Runtime.evaluate", session_id="B", timeout=0.3))
            while len(peer.received) < 2:
                await asyncio.sleep(0.01)
            conn.reject_session("A", "target detached")
            with pytest.raises(CdpChannelUnavailable):
                await a
            with pytest.raises(EgoTimeout):
                await b
        finally:
            await conn.close()


async def test_unreachable_endpoint_is_browser_unavailable():
    with pytest.raises(BrowserUnavailable) as info:
        await Connection.connect("ws://127.0.0.1:9/devtools/browser/none", timeout=2)
    assert info.value.code == "EGO_BROWSER_UNAVAILABLE"
