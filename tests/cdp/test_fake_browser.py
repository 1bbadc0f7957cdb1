"""The shipped test kit (ego_browser.testing): a real Connection against a scripted browser."""

from __future__ import annotations

import asyncio

import pytest

from ego_browser.cdp.errors import NodeNotFound
from ego_browser.errors import CdpChannelUnavailable, EgoTimeout
from ego_browser.testing import FakeBrowser


async def test_scripted_replies_defaults_and_what_was_sent():
    browser = FakeBrowser()
    browser.reply("Browser.getVersion", {"product": "Fake/1"})
    browser.reply("Runtime.evaluate", lambda params, sid: {"result": {"value": params["expression"] + sid}})
    browser.reply("Runtime.evaluate", {"result": {"value": "first"}}, once=True)
    conn = await browser.connect()
    try:
        assert await conn.send("Browser.getVersion") == {"product": "Fake/1"}
        assert await conn.send("Page.enable", session_id="S1") == {}
        assert await conn.send("Runtime.evaluate", {"expression": "1"}, session_id="S1") == {"result": {"value": "first"}}
        assert await conn.send("Runtime.evaluate", {"expression": "2"}, session_id="S1") == {"result": {"value": "2S1"}}
        assert [c.method for c in browser.sent(session_id="S1")] == ["Page.enable", "Runtime.evaluate", "Runtime.evaluate"]
        assert browser.sent("Runtime.evaluate")[1].params == {"expression": "2"}
    finally:
        await conn.close()


async def test_errors_are_typed_as_against_chromium():
    browser = FakeBrowser()
    browser.fail("DOM.resolveNode", "No node with given id found")
    conn = await browser.connect()
    try:
        with pytest.raises(NodeNotFound) as info:
            await conn.send("DOM.resolveNode", {"backendNodeId": 3}, session_id="S1")
        assert info.value.session_id == "S1" and info.value.cdp_code == -32000
    finally:
        await conn.close()


async def test_a_hung_method_is_answered_by_the_test_or_times_out():
    browser = FakeBrowser()
    browser.hang("Page.navigate")
    conn = await browser.connect()
    try:
        pending = asyncio.ensure_future(conn.send("Page.navigate", {"url": "https://a.test/"}))
        command = await browser.command("Page.navigate")
        assert command.params == {"url": "https://a.test/"} and not pending.done()
        command.reply({"frameId": "F1", "loaderId": "L2"})
        assert await pending == {"frameId": "F1", "loaderId": "L2"}
        with pytest.raises(EgoTimeout):
            await conn.send("Page.navigate", {"url": "https://b.test/"}, timeout=0.05)
    finally:
        await conn.close()


async def test_events_reach_subscribers_and_drop_fails_what_is_pending():
    browser = FakeBrowser()
    browser.hang("Runtime.evaluate")
    conn = await browser.connect()
    closed = asyncio.get_running_loop().create_future()
    conn.on_close(lambda cause: closed.set_result(cause))
    got = []
    conn.on("Page.loadEventFired", lambda params, sid: got.append((params, sid)), session_id="S1")
    pending = asyncio.ensure_future(conn.send("Runtime.evaluate", {"expression": "1"}, session_id="S1"))
    await browser.command("Runtime.evaluate")
    browser.emit("Page.loadEventFired", {"timestamp": 1}, session_id="S1")
    browser.emit("Page.loadEventFired", {"timestamp": 2}, session_id="S2")
    browser.drop()
    with pytest.raises(CdpChannelUnavailable):
        await pending
    await asyncio.wait_for(closed, 5)
    assert got == [({"timestamp": 1}, "S1")]
    assert conn.closed
    with pytest.raises(CdpChannelUnavailable):
        await conn.send("Browser.getVersion")
    await conn.close()
