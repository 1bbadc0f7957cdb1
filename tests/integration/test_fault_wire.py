"""Wire faults (issue 9, points 2 and 6): a hostile page's lone surrogate, values with no JSON
form, unencodable replies and a frozen host never cost a connection, a space or a hang.

The page tests drive real Chromium; the transport tests use the fake CDP peer; the frozen-host
test SIGSTOPs the real background host of the ``rounds`` fixture (and SIGCONTs it after).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import tempfile

import orjson
import pytest

import ego_browser
from ego_browser import jsonsafe
from ego_browser.cdp import Connection
from ego_browser.errors import CdpError, HostUnresponsive, InvalidArgument
from ego_browser.wire import protocol as wire
from tests.cdp.test_transport import FakePeer

SURROGATE_PAGE = """<title>t</title><p id=x>ok</p><input id=q>
<script>
console.log('lone \\ud800 here');
document.getElementById('x').textContent = 'bad \\udc00 text';
</script>"""


# -- real Chromium -----------------------------------------------------------------------------


async def test_lone_surrogate_page_takes_no_space_down(host, server, space_name):
    """A page logging and returning a lone surrogate: its own calls still answer (U+FFFD in place
    of the surrogate), and another space's half-typed form survives."""
    other = await ego_browser.task_space(space_name + "-other")
    hostile = await ego_browser.task_space(space_name + "-hostile")
    try:
        form = await other.new_page()
        await form.goto(server.page("/form", "<input id=name>"))
        await form.fill("#name", "half typed")

        bad = await hostile.new_page()
        await bad.goto(server.page("/surrogate", SURROGATE_PAGE))
        assert await bad.evaluate("'\\ud800'") == "\ufffd"
        assert await bad.evaluate("() => ({['k\\udbff']: ['x\\udfff']})") == {"k\ufffd": ["x\ufffd"]}
        await bad.evaluate("console.log('again \\udfff'); document.title = 'T\\ud800'")
        assert await bad.title() == "T\ufffd"
        snap = await bad.snapshot()
        assert "bad \ufffd text" in snap
        # arguments holding lone surrogates reach the page as U+FFFD too
        assert await bad.evaluate("(s) => s", "a\ud800b") == "a\ufffdb"
        await bad.fill("#q", "x\udc00y")
        assert await bad.evaluate("document.getElementById('q').value") == "x\ufffdy"
        logged = [e for e in bad.events() if e["method"] == "Runtime.consoleAPICalled"]
        texts = [a.get("value") for e in logged for a in e["params"]["args"]]
        assert "lone \ufffd here" in texts and "again \ufffd" in texts

        # the browser connection survived: the other space still has its form and works on
        assert await form.evaluate("document.getElementById('name').value") == "half typed"
        await form.fill("#name", "finished")
        assert await form.evaluate("document.getElementById('name').value") == "finished"
    finally:
        for space in (hostile, other):
            try:
                await space.finish(keep=[])
            except ego_browser.EgoError:
                pass


async def test_values_with_no_json_form_are_invalid_argument(task, server):
    page = await task.new_page()
    await page.goto(server.page("/plain", "<p>x</p>"))
    with pytest.raises(InvalidArgument) as info:
        await page.evaluate("(x) => x", 10**30)
    assert info.value.code == "EGO_INVALID_ARGUMENT" and "64 bits" in str(info.value)
    with pytest.raises(InvalidArgument):
        await page.evaluate("(x) => x", {"a": object()})
    with pytest.raises(InvalidArgument):
        await page.cdp("Runtime.evaluate", {"expression": "1", "x": 2**70})
    assert await page.evaluate("(x) => x", 2**53) == 2**53  # the page still answers


# -- the CDP transport against a fake peer ----------------------------------------------------------


async def test_undecodable_frames_cost_one_message_not_the_connection():
    async with FakePeer() as peer:
        conn = await Connection.connect(peer.url)
        try:
            seen: list = []
            conn.on("Runtime.consoleAPICalled", lambda params, sid: seen.append(params))
            ws = peer.sockets[0]
            await ws.send('{"method":"Runtime.consoleAPICalled","params":{"text":"a\\ud800b"}}')
            await ws.send('{"method":"Runtime.consoleAPICalled","params":{"text":')  # not JSON at all
            await ws.send('[1, 2]')  # JSON, but not a message
            await ws.send('{"method":"Runtime.consoleAPICalled","params":{"text":"after"}}')
            # a reply the peer garbles: only that request fails, with the method named
            peer.hang.add("Broken.method")
            broken = asyncio.ensure_future(conn.send("Broken.method"))
            while not any(m["method"] == "Broken.method" for m in peer.received):
                await asyncio.sleep(0.01)
            msg_id = next(m["id"] for m in peer.received if m["method"] == "Broken.method")
            await ws.send('{"id":%d,"result":{"value":' % msg_id)
            with pytest.raises(CdpError) as info:
                await broken
            assert info.value.method == "Broken.method"
            # a reply holding a lone surrogate is delivered, mended
            peer.replies["Runtime.evaluate"] = {"result": {"value": "x"}}
            assert await conn.send("Runtime.evaluate") == {"result": {"value": "x"}}
            peer.hang.add("Odd.reply")
            odd = asyncio.ensure_future(conn.send("Odd.reply"))
            while not any(m["method"] == "Odd.reply" for m in peer.received):
                await asyncio.sleep(0.01)
            odd_id = next(m["id"] for m in peer.received if m["method"] == "Odd.reply")
            await ws.send('{"id":%d,"result":{"v":"\\udfff!"}}' % odd_id)
            assert await odd == {"v": "\ufffd!"}
            assert [p["text"] for p in seen] == ["a\ufffdb", "after"]
            assert not conn.closed
            # commands with lone surrogates go out mended; values with no JSON form never go out
            await conn.send("Runtime.evaluate", {"expression": "'\ud800'"})
            assert peer.received[-1]["params"] == {"expression": "'\ufffd'"}
            sent = len(peer.received)
            with pytest.raises(InvalidArgument) as bad:
                await conn.send("Runtime.evaluate", {"arg": {"n": 2**64}})
            assert bad.value.option == "arg.n"
            assert len(peer.received) == sent
        finally:
            await conn.close()


# -- our own wire ----------------------------------------------------------------------------------


def test_wire_mends_surrogates_and_names_unencodable_values():
    frame = wire.encode({"i": 1, "r": {"t\ud800": ["\udc00"]}})
    assert wire.decode(frame[wire.HEADER.size:]) == {"i": 1, "r": {"t\ufffd": ["\ufffd"]}}
    with pytest.raises(wire.Unencodable) as info:
        wire.encode({"i": 1, "op": "x", "a": {"n": [1, -(2**64)]}})
    assert info.value.path == "a.n[1]"
    # the host's replies keep their error rather than losing it
    body = wire.encode({"i": 2, "e": {"code": "EGO_UNKNOWN_REF", "attrs": {"ref": 10**21}}}, big_ints_as_text=True)
    assert orjson.loads(body[wire.HEADER.size:])["e"]["attrs"]["ref"] == str(10**21)
    # a frame orjson refuses (an escaped lone surrogate) still decodes
    assert wire.decode(b'{"i":3,"r":"\\ud800"}') == {"i": 3, "r": "\ufffd"}
    assert jsonsafe.loads(b"[123456789012345678901234567890]") == [1.2345678901234568e29]


def test_host_answers_even_when_its_reply_cannot_be_encoded():
    from ego_browser.host.core.server import _encode_reply

    frame = _encode_reply(7, "page.evaluate", {"i": 7, "r": {"x": object()}})
    msg = wire.decode(frame[wire.HEADER.size:])
    assert msg["i"] == 7 and msg["e"]["code"] == "EGO_ERROR"
    assert "could not be sent" in msg["e"]["message"]


def test_round_huge_ref_gets_an_error_not_a_hang(rounds, server):
    url = server.page("/refs", "<button>b</button>")
    proc = rounds.run(
        "t = await task_space('huge-ref')\np = await t.new_page()\n"
        f"await p.goto({url!r})\n"
        "try:\n    await p.click('@999999999999999999999')\n"
        "except ego_browser.InvalidSelector as e:\n    print('refused', e.code)\n"
        "print(repr(await p.evaluate(\"'\\\\ud800'\")))\n"
        "print(await p.evaluate('(s) => s.length', 'a\\ud800'))\n"
        "try:\n    await p.evaluate('(x) => x', 2**70)\n"
        "except ego_browser.InvalidArgument as e:\n    print('refused', e.code, e.option)\n"
        "await t.finish(keep=[])\n",
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "refused EGO_INVALID_SELECTOR", repr("\ufffd"), "2", "refused EGO_INVALID_ARGUMENT arg",
    ]


# -- a host that never answers -----------------------------------------------------------------------


def test_frozen_host_fails_the_call_at_its_deadline(rounds):
    from pathlib import Path

    assert rounds.run("print(len(await list_task_spaces()) >= 0)").stdout == "True\n"  # the host runs
    pid = int((Path(rounds.home) / "run" / "host.pid").read_text())
    env = dict(rounds.env, EGO_BROWSER_REQUEST_DEADLINE="1")
    os.kill(pid, signal.SIGSTOP)
    try:
        import subprocess
        import sys

        from tests.conftest import ROOT

        proc = subprocess.run(
            [sys.executable, "-m", "ego_browser", "-e",
             "try:\n    await list_task_spaces()\nexcept ego_browser.HostDisconnected as e:\n"
             "    print(e.code, e.api, e.timeout_ms)\n"],
            env=env, capture_output=True, text=True, timeout=120, cwd=str(ROOT),
        )
    finally:
        os.kill(pid, signal.SIGCONT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "EGO_HOST_UNRESPONSIVE list_task_spaces 11000\n"
    # thawed, the same host answers again
    assert rounds.run("print(type(await list_task_spaces()).__name__)").stdout == "list\n"


async def test_silent_host_socket_fails_both_call_forms(monkeypatch):
    """A socket that accepts and never answers: async and sync calls end with HostUnresponsive."""
    from ego_browser import config
    from ego_browser.client import channel as channel_mod

    home = tempfile.mkdtemp(prefix="ego-silent-")
    monkeypatch.setenv("EGO_BROWSER_HOME", home)
    monkeypatch.setenv("EGO_BROWSER_REQUEST_DEADLINE", "0.2")
    monkeypatch.setattr(channel_mod, "REPLY_MARGIN", 0.1)
    config.ensure_private_dir(config.home())
    config.ensure_private_dir(config.run_dir())
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(config.socket_path()))
    listener.listen(8)
    chan = channel_mod.SocketChannel()
    try:
        with pytest.raises(HostUnresponsive) as info:
            await chan.call("list_task_spaces", {})
        assert info.value.code == "EGO_HOST_UNRESPONSIVE" and info.value.api == "list_task_spaces"
        with pytest.raises(HostUnresponsive):
            await asyncio.to_thread(chan.call_sync, "page.events", {"space": 1, "label": "p1"})
        with pytest.raises(InvalidArgument):
            await chan.call("list_task_spaces", {"x": 2**65})
    finally:
        await chan.aclose()
        listener.close()
