"""Runtime argument validation comes from the schema (issue 6, B174)."""

from __future__ import annotations

import math

import pytest

from ego_browser.errors import InvalidArgument
from ego_browser.schema import check, checker


def fails(name, *args, **kwargs) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as info:
        check(name, None, *args, **kwargs)
    return info.value


def test_b174_messages():
    e = fails("Page.click", "#a", timeout=0)
    assert str(e) == "page.click: timeout must be a positive, finite number of milliseconds (got 0)"
    assert (e.api, e.option) == ("page.click", "timeout") and "positive" in e.expected
    assert str(fails("Page.click", "#a", click_count=0)) == "page.click: click_count must be an int from 1 to 10 (got 0)"
    with pytest.raises(TypeError, match=r"Page\.click\(\) got an unexpected keyword argument 'bogus'"):
        check("Page.click", None, "#a", bogus=1)
    with pytest.raises(TypeError):
        check("Page.click", None, "#a", "left")  # options are keyword-only


@pytest.mark.parametrize("value", [0, -1, math.inf, math.nan, True, "100", None])
def test_positive_ms(value):
    assert fails("Page.goto", "https://x.test", timeout=value).option == "timeout"


def test_zero_is_fine_where_documented():
    check("Page.wait_for_timeout", None, 0)
    check("Page.click", None, "#a", delay=0)
    with pytest.raises(InvalidArgument):
        check("Page.wait_for_timeout", None, -1)


def test_rules_and_enums():
    assert str(fails("Page.snapshot", scope="subtree")) == "subtree scope requires root"
    assert str(fails("Page.snapshot", root="@3")) == "root is only supported when scope is subtree"
    assert "one of 'commit', 'domcontentloaded', 'load', 'networkidle'" in str(fails("Page.goto", "u", wait_until="x"))
    check("Page.snapshot", None, scope="subtree", root="@3")


def test_value_shapes():
    check("Page.click", None, "#a", position={"x": 1, "y": 2.5})
    assert fails("Page.click", "#a", position={"x": 1}).option == "position"
    # the driver no longer re-checks a position: the schema holds the whole rule (issue 35)
    for bad in ({"x": 1, "y": 2, "width": 3}, {"x": True, "y": 2}, {"x": math.nan, "y": 0}, [1, 2]):
        assert fails("Page.click", "#a", position=bad).option == "position"
        assert fails("Page.drag_and_drop", "#a", "#b", target_position=bad).option == "target_position"
    for name, option, bad in (("Page.click", "button", "back"), ("Page.mouse.down", "button", "forward"),
                              ("Page.mouse.move", "steps", 0), ("Page.press", "delay", -1),
                              ("Page.fill", "clear_first", 1), ("Page.hover", "timeout", math.inf)):
        args = {"Page.mouse.down": (), "Page.mouse.move": (1, 2), "Page.press": ("#a", "Enter"),
                "Page.fill": ("#a", "x"), "Page.click": ("#a",), "Page.hover": ("#a",)}[name]
        assert fails(name, *args, **{option: bad}).option == option
    check("Page.select_option", None, "#s", [{"label": "A"}, "b"])
    assert fails("Page.select_option", "#s", {"bogus": 1}).option == "value"
    check("Page.keyboard.paste", None, {"text": "a", "html": None})
    assert fails("Page.fetch", "/x", headers={"a": 1}).option == "headers"
    check("TaskSpace.finish", None, keep="all")
    check("TaskSpace.finish", None, keep=["p1"])
    assert fails("TaskSpace.finish", keep="p1").option == "keep"
    assert str(fails("TaskSpace.set_status", "x" * 501)).startswith("task.set_status: text must be a str of at most 500")
    assert str(fails("Download.save_as", "relative/x.csv")) == "download.save_as requires an absolute file path"
    with pytest.raises(InvalidArgument, match="task_space: name_or_id must be a str name or an int id"):
        check("task_space", True)


def test_input_device_rules_live_in_the_schema():
    """The driver's Mouse and Keyboard take every argument explicitly and re-check none (issue
    35): each rule they used to enforce is the schema's, refused before any request."""
    for name, args, option, bad in (
        ("Page.mouse.click", (1, 2), "button", "back"),
        ("Page.mouse.click", (1, 2), "click_count", 0),
        ("Page.mouse.click", (1, 2), "click_count", True),
        ("Page.mouse.click", (1, 2), "delay", -1),
        ("Page.mouse.up", (), "button", "forward"),
        ("Page.mouse.up", (), "click_count", 11),
        ("Page.mouse.down", (), "click_count", 1.5),
        ("Page.mouse.move", (1, 2), "steps", 1.0),
        ("Page.mouse.move", (1, 2), "steps", 1001),
        ("Page.keyboard.press", ("Enter",), "delay", math.nan),
        ("Page.keyboard.type", ("a",), "delay", 10_001),
    ):
        assert fails(name, *args, **{option: bad}).option == option, (name, option, bad)
    # a key must be a non-empty str (the key table then checks its name)
    for name, args in (("Page.keyboard.press", ()), ("Page.keyboard.down", ()), ("Page.keyboard.up", ()),
                       ("Page.press", ("#a",))):
        for bad in ("", 5, None, ["Enter"]):
            assert fails(name, *args, bad).option == "key", (name, bad)
    # paste: a str or exactly {"text": str, "html": str | None}
    for bad in ({"text": "a", "html": 1}, {"text": "a", "extra": "b"}, {"html": "<b>a</b>"}, {"text": 1}, 5, None):
        assert fails("Page.keyboard.paste", bad).option == "content", bad
    check("Page.keyboard.paste", None, {"text": "a"})
    check("Page.keyboard.paste", None, "a")


def test_checker_is_compiled_once():
    assert checker("Page.goto") is checker("Page.goto")


async def test_wired_methods_raise_before_any_request():
    from ego_browser.client.round import Round
    from ego_browser import Page

    page = Page(Round(channel=None), space_id=1, label="p1")  # no channel: a request would fail differently
    with pytest.raises(InvalidArgument, match="page.goto: timeout"):
        await page.goto("https://x.test", timeout=-5)
    with pytest.raises(TypeError):
        await page.goto("https://x.test", bogus=1)
