"""The host's one dispatcher: each request is bound once against its operation's declaration.

A round is not trusted: whatever it sends over the wire is checked by the same compiled
checker the client runs, unknown names are refused, and the declared defaults fill what it
left out (the handlers hold no defaults of their own).
"""

from __future__ import annotations

import inspect

import pytest

from ego_browser.errors import InvalidArgument
from ego_browser.host.core import dispatch as ops
from ego_browser.schema import wire
from ego_browser.schema.spec import OMIT, members


@pytest.fixture(scope="module")
def table() -> dict[str, ops.OpSpec]:
    ops.load_all()
    import ego_browser.host.core.server  # noqa: F401 - registers host.status

    return ops.OPS


def test_every_operation_is_declared_once_under_its_api_name(table):
    for name, spec in table.items():
        assert spec.name == name == spec.member.api
        # one spelling: the wire name of a public member is the name its errors use
        public = members().get(spec.member.name)
        if public is not None:
            assert name == public.api
    assert not set(wire.LEGACY_NAMES) & set(table), "a legacy spelling is still registered"


def test_handlers_take_the_declared_arguments_and_no_defaults_of_their_own(table):
    for name, spec in table.items():
        params = list(inspect.signature(spec.sync or spec.fn).parameters.values())
        kw = {p.name: p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        declared = {p.name: p for p in spec.member.params}
        assert var_kw or set(kw) == set(declared), f"{name}: handler takes {set(kw)}, declared {set(declared)}"
        assert set(kw) <= set(declared), f"{name}: handler takes undeclared {set(kw) - set(declared)}"
        for pname, p in kw.items():
            # a default in a handler only says what "not given" means for an OMIT parameter
            assert p.default is inspect.Parameter.empty or declared[pname].default is OMIT, f"{name}.{pname}"


def test_binding_fills_declared_defaults_and_refuses_what_is_not_declared(table):
    spec = table["page.click"]
    at, kwargs = spec.bind({"space": 1, "label": "p1", "proc": "t", "selector": "#b"})
    assert at == {"space": 1, "label": "p1", "proc": "t"}
    assert kwargs["button"] == "left" and kwargs["click_count"] == 1 and kwargs["timeout"] == 3000
    assert spec.deadline(kwargs) == 3000 / 1000 + ops.MARGIN
    with pytest.raises(InvalidArgument) as info:
        spec.bind({"space": 1, "label": "p1", "selector": "#b", "button": "sideways"})
    assert info.value.option == "button" and "page.click: button must be one of" in str(info.value)
    with pytest.raises(InvalidArgument) as info:
        spec.bind({"space": 1, "label": "p1", "selector": "#b", "bogus": 1})
    assert "bogus" in str(info.value) and info.value.api == "page.click"
    with pytest.raises(InvalidArgument):
        spec.bind({"space": 1, "label": "p1"})  # the selector is required
    # an OMIT parameter not given stays out: the handler's "not given"
    _at, kwargs = table["page.evaluate"].bind({"space": 1, "label": "p1", "js": "1"})
    assert "arg" not in kwargs and kwargs["has_arg"] is False


def test_rules_are_enforced_by_the_host_too(table):
    with pytest.raises(InvalidArgument) as info:
        table["page.snapshot"].bind({"space": 1, "label": "p1", "scope": "subtree"})
    assert info.value.option == "root"


def test_earlier_spellings_still_reach_their_operation(table):
    assert ops.resolve("space.pages") is table["task.pages"]
    assert ops.resolve("download.forget") is table["download.delete"]
    # page.check was wait_for_timeout's gate; today it is Page.check, which needs a selector
    assert ops.resolve("page.check", args={"space": 1, "label": "p1"}) is table["page.gate"]
    assert ops.resolve("page.check", args={"space": 1, "label": "p1", "selector": "#c"}) is table["page.check"]


async def test_a_round_sending_bad_arguments_gets_invalid_argument(task, server):
    """A round that skips the client's checks (a raw wire request) is checked by the host."""
    host = task._channel.host
    url = server.page("/dispatch", "<button id=b>b</button>")
    page = task.page("p1")
    at = {"space": task.space_id, "label": page.label}
    with pytest.raises(InvalidArgument) as info:
        await host.handle("page.click", {**at, "selector": "#b", "click_count": "many"})
    assert info.value.option == "click_count"
    with pytest.raises(InvalidArgument):
        await host.handle("page.goto", {**at, "url": url, "wait_untill": "load"})
    assert await page.url() != url  # refused before anything was sent
    # the declared defaults stand in for what was left out
    await host.handle("page.goto", {**at, "url": url})
    assert await host.handle("page.url", at) == url
    assert await page.evaluate("document.readyState") == "complete"  # wait_until's default: load
