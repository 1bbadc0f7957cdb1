"""Keyboard: US layout, chords, editing shortcuts, type/insert_text/paste (BEHAVIOURS.md F)."""

from __future__ import annotations

import pytest

from ego_browser.driver import actions, form_actions
from ego_browser.driver.keyboard import describe_key, split_chord
from ego_browser.errors import InvalidArgument

from tests.input_harness import browser, declared, tab  # noqa: F401

pytestmark = pytest.mark.asyncio(loop_scope="session")

FIELDS = ("<input id=a><input id=b><textarea id=t></textarea><div id=ce contenteditable style='min-height:30px'></div>"
          "<script>for (const el of [a,b,t,ce]) __watch(el,'keydown keyup input paste')</script>")


async def test_parsing_offline():
    assert split_chord("Shift+Tab") == ["Shift", "Tab"]
    assert split_chord("+") == ["+"]
    assert split_chord("Control++") == ["Control", "+"]
    assert describe_key("ENTER").code == "Enter"
    assert describe_key("escape").key == "Escape"
    assert describe_key("ControlOrMeta").key == "Control"
    assert describe_key("Numpad1").location == 3
    assert describe_key("1").code == "Digit1"
    assert describe_key("!").code == "Digit1"
    assert describe_key("\n").code == "Enter"
    for alias, hint in (("Left", "ArrowLeft"), ("Right", "ArrowRight"), ("Up", "ArrowUp"), ("Down", "ArrowDown"),
                        ("Esc", "Escape"), ("Return", "Enter"), ("Del", "Delete"), ("Ctrl", "Control"), ("Cmd", "Meta")):
        with pytest.raises(InvalidArgument, match=f'Unknown key: "{alias}"; Use "{hint}"'):
            describe_key(alias)


async def focus(tab, sel):
    await form_actions.focus(tab.ctx(sel, "page.focus"), tab.resolver(sel), **declared("Page.focus"))


async def test_b115_type_printable_ascii(tab):
    """B115: all 95 printable ASCII characters round-trip; one trusted keydown each; no Numpad."""
    await tab.goto(FIELDS)
    await focus(tab, "#a")
    text = "".join(chr(c) for c in range(32, 127))
    await tab.keyboard.type(text)
    assert await tab.js("a.value") == text
    downs = await tab.log("keydown")
    char_downs = [e for e in downs if e["key"] != "Shift"]
    assert len(char_downs) == 95 and all(e["trusted"] for e in downs)
    assert [e["code"] for e in char_downs if e["key"] in "0123456789"] == [f"Digit{d}" for d in range(10)]
    assert next(e for e in char_downs if e["key"] == ".")["code"] == "Period"
    assert not any(e["code"].startswith("Numpad") for e in downs)
    assert next(e for e in char_downs if e["key"] == "A")["shift"]


async def test_b116_held_shift_and_repeat(tab):
    """B116: down Shift, a, a, up a, up Shift, type a → "AAa"; repeat and shiftKey."""
    await tab.goto(FIELDS)
    await focus(tab, "#a")
    kb = tab.keyboard
    await kb.down("Shift")
    await kb.down("a")
    await kb.down("a")
    await kb.up("a")
    await kb.up("Shift")
    await kb.type("a")
    assert await tab.js("a.value") == "AAa"
    downs = [e for e in await tab.log("keydown") if e["code"] == "KeyA"]
    assert [d["repeat"] for d in downs] == [False, True, False]
    assert downs[0]["shift"] and downs[1]["shift"] and not downs[2]["shift"]


async def test_b117_b119_b124_shortcuts(tab):
    """B117/B119/B124: CONTROL+A selects all; ControlOrMeta+A/C/V/Z; Control+End/Home; Enter in textarea."""
    await tab.goto(FIELDS)
    await focus(tab, "#a")
    await tab.keyboard.type("replaced")
    await tab.keyboard.press("CONTROL+A")
    assert await tab.js("[a.selectionStart, a.selectionEnd]") == [0, 8]
    await tab.keyboard.press("ArrowRight")
    await tab.keyboard.press("Backspace")
    await tab.keyboard.press("ArrowLeft")
    await tab.keyboard.press("Delete")
    assert await tab.js("a.value") == "replac"
    await tab.keyboard.press("ControlOrMeta+A")
    await tab.keyboard.press("ControlOrMeta+C")
    await focus(tab, "#b")
    await tab.keyboard.press("ControlOrMeta+V")
    assert await tab.js("b.value") == "replac"
    await tab.keyboard.press("ControlOrMeta+Z")
    assert await tab.js("b.value") == ""
    await focus(tab, "#t")
    await tab.keyboard.type("one")
    await tab.keyboard.press("Enter")
    await tab.keyboard.type("two")
    assert await tab.js("t.value") == "one\ntwo"
    await tab.keyboard.press("Control+Home")
    assert await tab.js("t.selectionStart") == 0
    await tab.keyboard.press("Control+End")
    assert await tab.js("t.selectionStart") == 7
    assert all(e["trusted"] for e in await tab.log("keydown"))


async def test_b118_b130_named_keys(tab):
    """B118/B130: ENTER / escape / ARROWDOWN codes via page.press and keyboard.press; Backspace."""
    await tab.goto(FIELDS)
    await form_actions.press(tab.ctx("#a", "page.press"), tab.resolver("#a"), **declared("Page.press", key="ENTER"))
    await tab.keyboard.press("escape")
    await tab.keyboard.press("ARROWDOWN")
    codes = [e["code"] for e in await tab.log("keydown")]
    assert codes == ["Enter", "Escape", "ArrowDown"]
    await tab.keyboard.type("xy")
    await tab.clear_log()
    await tab.keyboard.press("Backspace")
    assert await tab.js("a.value") == "x"
    assert [(e["key"], e["trusted"]) for e in await tab.log("keydown")] == [("Backspace", True)]


async def test_b120_non_us_and_insert_text(tab):
    """B120: non-US characters inserted natively; insert_text gives one trusted input with data."""
    await tab.goto(FIELDS)
    await focus(tab, "#a")
    await tab.keyboard.type("A世界🙂")
    assert await tab.js("a.value") == "A世界🙂"
    await focus(tab, "#b")
    await tab.clear_log()
    await tab.keyboard.insert_text("direct 世界🙂")
    inputs = await tab.log("input")
    assert len(inputs) == 1 and inputs[0]["trusted"] and inputs[0]["data"] == "direct 世界🙂"
    assert await tab.log("keydown") == []


async def test_b121_paste_text_and_html(tab):
    """B121: paste keeps tab and newline; HTML pastes a real table into a contenteditable."""
    await tab.goto(FIELDS)
    await focus(tab, "#t")
    await tab.keyboard.paste("pasted\t世界\nnext")
    assert await tab.js("t.value") == "pasted\t世界\nnext"
    pastes = await tab.log("paste")
    assert len(pastes) == 1 and pastes[0]["trusted"]
    await focus(tab, "#ce")
    await tab.keyboard.paste({"text": "a\tb", "html": "<table><tr><td>c1</td><td>c2</td></tr></table>"})
    assert await tab.js("ce.querySelectorAll('table td').length") == 2


async def test_b122_numpad(tab):
    """B122: Numpad1 keeps its code and location 3."""
    await tab.goto(FIELDS)
    await focus(tab, "#a")
    await tab.keyboard.press("Numpad1")
    d = (await tab.log("keydown"))[0]
    assert (d["code"], d["location"], d["trusted"]) == ("Numpad1", 3, True)


async def test_b123_unknown_key_releases_modifiers(tab):
    """B123: Shift+DefinitelyUnknown raises and leaves Shift up; '+' types '+'; Left hints."""
    await tab.goto(FIELDS)
    await focus(tab, "#a")
    with pytest.raises(InvalidArgument, match="Unknown key"):
        await tab.keyboard.press("Shift+DefinitelyUnknown")
    assert tab.keyboard.pressed_modifiers == set()
    await tab.keyboard.type("a")
    await tab.keyboard.press("+")
    assert await tab.js("a.value") == "a+"
    with pytest.raises(InvalidArgument, match='Use "ArrowLeft"'):
        await tab.keyboard.press("Left")


async def test_b107_mouse_shift_modifier(tab):
    """B107: mouse down/up/click trusted; move(steps=3) gives >= 3 moves; Shift held → shiftKey."""
    await tab.goto('<div id=pad style="width:400px;height:300px;background:#eee"></div>'
                   "<script>__watch(pad,'mousedown mouseup click mousemove')</script>")
    await tab.mouse.move(10, 10)
    await tab.mouse.move(200, 200, steps=3)
    assert len(await tab.log("mousemove")) >= 3
    await tab.keyboard.down("Shift")
    await tab.mouse.down()
    await tab.mouse.up()
    await tab.keyboard.up("Shift")
    await tab.mouse.click(100, 100)
    log = [e for e in await tab.log() if e["type"] in ("mousedown", "mouseup", "click")]
    assert [e["type"] for e in log] == ["mousedown", "mouseup", "click", "mousedown", "mouseup", "click"]
    assert all(e["trusted"] for e in log)
    assert log[0]["shift"] and not log[3]["shift"]


async def test_b106_drag_stroke(tab):
    """B106: held button + move(steps=4) interpolates; buttons & 1 during moves."""
    await tab.goto('<div id=pad style="width:600px;height:400px"></div><script>__watch(pad,"mousemove")</script>')
    await tab.mouse.move(50, 50)
    await tab.clear_log()
    await tab.mouse.down()
    await tab.mouse.move(250, 250, steps=4)
    await tab.mouse.up()
    moves = await tab.log("mousemove")
    assert len(moves) >= 4 and all(m["buttons"] & 1 and m["trusted"] for m in moves)
    await tab.clear_log()
    await tab.mouse.move(260, 260)
    assert len(await tab.log("mousemove")) == 1


async def test_b108_wheel(tab):
    """B108: wheel scrolls the document, an inner box under the pointer; preventDefault blocks."""
    await tab.goto('<div id=box style="height:100px;overflow:auto;width:300px"><div style="height:1000px"></div></div>'
                   '<div style="height:3000px"></div>')
    await tab.mouse.move(10, 300)
    await tab.mouse.wheel(0, 300)
    await actions.call((await tab.handles("#box"))[0], "raf", 3)
    assert await tab.js("scrollY") > 0
    await tab.js("scrollTo(0,0)")
    await tab.mouse.move(100, 50)
    await tab.mouse.wheel(0, 200)
    await actions.call((await tab.handles("#box"))[0], "raf", 3)
    assert await tab.js("box.scrollTop") > 0
    await tab.js("addEventListener('wheel', e => { e.preventDefault(); __rec(e) }, {passive: false}); box.scrollTop = 0")
    await tab.mouse.wheel(0, 200)
    await actions.call((await tab.handles("#box"))[0], "raf", 3)
    assert await tab.js("box.scrollTop") == 0
    assert (await tab.log("wheel"))[-1]["trusted"]
