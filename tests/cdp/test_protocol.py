"""The sans-I/O protocol core: frames in, replies and events out, with no loop and no socket."""

from __future__ import annotations

import orjson
import pytest

from ego_browser.cdp import errors as t
from ego_browser.cdp.protocol import ERROR, EVENT, REPLY, Protocol
from ego_browser.errors import CdpChannelUnavailable, CdpError, EgoTimeout, InvalidArgument


def test_commands_get_unique_ids_and_carry_their_session():
    p = Protocol()
    a_id, a = p.command("Runtime.evaluate", {"expression": "1"}, "S1", "waiter-a")
    b_id, b = p.command("Browser.getVersion", None, None, "waiter-b")
    assert a_id != b_id
    assert orjson.loads(a) == {"id": a_id, "method": "Runtime.evaluate", "params": {"expression": "1"}, "sessionId": "S1"}
    assert orjson.loads(b) == {"id": b_id, "method": "Browser.getVersion"}
    assert set(p.pending) == {a_id, b_id}


def test_a_reply_goes_to_its_waiter_once():
    p = Protocol()
    msg_id, _ = p.command("Runtime.evaluate", {}, "S1", "w")
    assert p.receive(orjson.dumps({"id": msg_id, "result": {"v": 1}, "sessionId": "S1"})) == (REPLY, "w", {"v": 1})
    assert p.receive(orjson.dumps({"id": msg_id, "result": {}})) is None, "a late duplicate is ignored"
    assert not p.pending


def test_an_error_reply_becomes_the_type_its_message_means():
    p = Protocol()
    msg_id, _ = p.command("DOM.resolveNode", {"backendNodeId": 4}, "S1", "w")
    kind, waiter, exc = p.receive(orjson.dumps(
        {"id": msg_id, "error": {"code": -32000, "message": "No node with given id found"}}))
    assert (kind, waiter) == (ERROR, "w")
    assert isinstance(exc, t.NodeNotFound) and exc.code == "EGO_CDP_ERROR"
    assert (exc.method, exc.session_id, exc.cdp_code) == ("DOM.resolveNode", "S1", -32000)
    assert str(exc) == "DOM.resolveNode: No node with given id found"


@pytest.mark.parametrize("message,code,expected", [
    ("Cannot find context with specified id", -32000, t.ContextDestroyed),
    ("Execution context was destroyed.", -32000, t.ContextDestroyed),
    ("Inspected target navigated or closed", -32000, t.NavigatedAway),
    ("Could not find object with given id", -32000, t.ObjectNotFound),
    ("No frame for given id found", -32602, t.FrameNotFound),
    ("Session with given id not found.", -32001, t.SessionNotFound),
    ("No dialog is showing", -32602, t.NoDialog),
    ("Cannot navigate to invalid URL", -32000, t.InvalidUrl),
    # unknown wording: the JSON-RPC code still says something, or it stays a plain CdpError
    ("Something new", -32601, t.MethodNotFound),
    ("Something new", -32000, CdpError),
])
def test_the_one_table(message, code, expected):
    assert t.error_type(message, code) is expected


def test_quoted_messages_are_found_in_any_case():
    assert t.error_type_in("Error: execution context was destroyed") is t.ContextDestroyed
    assert t.error_type_in("TypeError: x is not a function") is CdpError


def test_events_route_to_their_session_then_to_any_session():
    p = Protocol()
    calls = []
    p.subscribe("Page.loadEventFired", lambda *_: calls.append("any"))
    off = p.subscribe("Page.loadEventFired", lambda *_: calls.append("s1"), "S1")
    kind, method, params, sid = p.receive(b'{"method":"Page.loadEventFired","params":{"t":1},"sessionId":"S1"}')
    assert (kind, method, params, sid) == (EVENT, "Page.loadEventFired", {"t": 1}, "S1")
    for handler in p.handlers_for(method, sid):
        handler(params, sid)
    assert calls == ["s1", "any"]
    off()
    assert len(p.handlers_for("Page.loadEventFired", "S1")) == 1
    assert len(p.handlers_for("Page.loadEventFired", "S2")) == 1


def test_hostile_frames_cost_at_most_their_own_request():
    p = Protocol()
    ok_id, _ = p.command("A", None, None, "a")
    bad_id, _ = p.command("B", None, None, "b")
    # a page's lone surrogate: orjson refuses it, the slow path reads it as U+FFFD
    assert p.receive('{"method":"Runtime.consoleAPICalled","params":{"text":"\\ud800"}}') == (
        EVENT, "Runtime.consoleAPICalled", {"text": "\ufffd"}, None)
    assert p.receive(b"[1, 2]") is None
    assert p.receive(b'{"id": "not a number"}') is None
    kind, waiter, exc = p.receive(f'{{"id": {bad_id}, "result": {{"v": tru'.encode())
    assert (kind, waiter, type(exc)) == (ERROR, "b", CdpError) and "could not be read" in str(exc)
    assert list(p.pending) == [ok_id]


def test_deadline_session_loss_and_close_fail_only_what_they_concern():
    p = Protocol()
    one, _ = p.command("A", None, "S1", "a")
    p.command("B", None, "S1", "b")
    p.command("C", None, "S2", "c")
    waiter, exc = p.expire(one, 1.5)
    assert waiter == "a" and isinstance(exc, EgoTimeout) and exc.timeout_ms == 1500
    assert p.expire(one, 1.5) is None
    failed = p.reject_session("S1", "target closed")
    assert [(w, type(e)) for w, e in failed] == [("b", CdpChannelUnavailable)]
    failed = p.close("CDP connection lost")
    assert [w for w, _ in failed] == ["c"] and not p.pending and not p.handlers
    with pytest.raises(CdpChannelUnavailable):
        p.command("D", None, None, "d")


def test_unencodable_parameters_are_the_callers_error_and_nothing_is_pending():
    p = Protocol()
    with pytest.raises(InvalidArgument) as info:
        p.command("Runtime.evaluate", {"arguments": [{"value": object()}]}, None, "w")
    assert info.value.option == "arguments[0].value"
    assert not p.pending
    _, frame = p.command("Runtime.evaluate", {"expression": "'\ud800'"}, None, "w")
    assert orjson.loads(frame)["params"]["expression"] == "'\ufffd'"
