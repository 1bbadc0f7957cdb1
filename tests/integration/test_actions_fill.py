"""fill, focus and select_option through the action pipeline (BEHAVIOURS.md F, G)."""

from __future__ import annotations

import pytest

from ego_browser.driver import form_actions
from ego_browser.errors import NotActionable, SelectorAmbiguous

from tests.input_harness import browser, declared, tab  # noqa: F401

pytestmark = pytest.mark.asyncio(loop_scope="session")


def fill(tab, sel, value, **kw):
    return form_actions.fill(tab.ctx(sel, "page.fill"), tab.resolver(sel), **declared("Page.fill", value=value, **kw))


def select(tab, sel, value, **kw):
    return form_actions.select_option(tab.ctx(sel, "page.select_option"), tab.resolver(sel), **declared("Page.select_option", value=value, **kw))


async def test_b125_fill_one_trusted_input(tab):
    """B125: one trusted input event with data == value, no synthetic duplicates."""
    await tab.goto("<input id=i value=old><script>__watch(i,'input pointerdown keydown')</script>")
    await fill(tab, "#i", "hello 世界")
    assert await tab.js("i.value") == "hello 世界"
    log = await tab.log()
    assert [(e["type"], e["trusted"], e["data"]) for e in log] == [("input", True, "hello 世界")]


async def test_b131_clear_first(tab):
    """B131: clear_first=False appends; default replaces."""
    await tab.goto("<input id=i value=base><textarea id=t>base</textarea><div id=ce contenteditable>base</div>")
    await fill(tab, "#i", "x", clear_first=False)
    assert await tab.js("i.value") == "basex"
    await fill(tab, "#i", "x")
    assert await tab.js("i.value") == "x"
    await fill(tab, "#t", "x", clear_first=False)
    assert await tab.js("t.value") == "basex"
    await fill(tab, "#ce", "x", clear_first=False)
    assert await tab.js("ce.textContent") == "basex"
    await fill(tab, "#ce", "new")
    assert await tab.js("ce.textContent") == "new"
    await fill(tab, "#i", "")
    assert await tab.js("i.value") == ""


async def test_b126_formatting_tolerance(tab):
    """B126: a field reformatting "610000" to "$610,000" passes, no retyping, no pointerdown."""
    await tab.goto("<input id=i><script>__watch(i,'input pointerdown');i.addEventListener('input',()=>{"
                   "const d=i.value.replace(/\\D/g,'');i.value=d?'$'+Number(d).toLocaleString('en-US'):''})</script>")
    await fill(tab, "#i", "610000")
    assert await tab.js("i.value") == "$610,000"
    assert [e["type"] for e in await tab.log()] == ["input"]


async def test_b127_wrapper_and_editing_host(tab):
    """B127: wrapper → its only field; text in an editor → editing host; two fields → ambiguous."""
    await tab.goto("<div id=w1><label>Name <input id=i></label></div>"
                   "<div id=ed contenteditable><p><b id=inner>bold</b> text</p></div>"
                   "<div id=w2><input id=x value=keep1><input id=y value=keep2></div>")
    await fill(tab, "#w1", "wrapped")
    assert await tab.js("i.value") == "wrapped"
    await fill(tab, "#inner", "host filled")
    assert await tab.js("ed.textContent") == "host filled"
    with pytest.raises(SelectorAmbiguous, match="multiple fillable fields"):
        await fill(tab, "#w2", "nope")
    assert await tab.js("[x.value, y.value]") == ["keep1", "keep2"]


async def test_fill_value_types(tab):
    """date/color/range get .value plus input/change (as Playwright)."""
    await tab.goto("<input id=d type=date><input id=c type=color><input id=r type=range min=0 max=10>"
                   "<script>for (const el of [d,c,r]) __watch(el,'input change')</script>")
    await fill(tab, "#d", "2024-05-06")
    await fill(tab, "#c", "#ff0000")
    await fill(tab, "#r", "7")
    assert await tab.js("[d.value, c.value, r.value]") == ["2024-05-06", "#ff0000", "7"]
    assert [e["type"] for e in await tab.log()] == ["input", "change"] * 3


async def test_b128_editor_needs_pointerdown(tab):
    """B128: an editor ignoring input until a real pointerdown gets exactly one click."""
    await tab.goto("<div id=ed contenteditable style='width:300px;height:60px;border:1px solid'></div>"
                   "<script>let armed=false;__watch(ed,'pointerdown click');ed.addEventListener('pointerdown',e=>{if(e.isTrusted)armed=true});"
                   "ed.addEventListener('beforeinput',e=>{if(!armed)e.preventDefault()})</script>")
    await fill(tab, "#ed", "typed")
    assert await tab.js("ed.textContent") == "typed"
    assert len(await tab.log("pointerdown")) == 1


async def test_b129_unsafe_activation(tab):
    """B129: the fallback click would hit a link inside the editor → unsafe_activation, no popup."""
    await tab.goto("<div id=ed contenteditable style='width:300px;height:60px'><a id=lnk href='/x' target=_blank "
                   "style='display:block;width:300px;height:60px'>link</a></div>"
                   "<script>__watch(document,'click');ed.addEventListener('beforeinput',e=>e.preventDefault())</script>")
    with pytest.raises(NotActionable, match="cannot safely activate") as ei:
        await fill(tab, "#ed", "x")
    assert ei.value.reason == "unsafe_activation"
    assert await tab.log("click") == []


async def test_b102_fieldset_reenabled(tab):
    """B102: disabled fieldset blocks controls outside the first legend; fill retries; no input before."""
    await tab.goto("<fieldset id=fs disabled><legend><input id=inleg></legend><input id=f></fieldset>"
                   "<div id=ad aria-disabled=true><input id=g></div>"
                   "<script>__watch(f,'input');__watch(g,'input');setTimeout(()=>{window.before=__log.length;fs.disabled=false},300);"
                   "setTimeout(()=>ad.setAttribute('aria-disabled','false'),300)</script>")
    await fill(tab, "#inleg", "legend ok")
    await fill(tab, "#f", "later")
    await fill(tab, "#g", "aria later")
    assert await tab.js("[f.value, g.value, window.before]") == ["later", "aria later", 0]


async def test_b114_focus(tab):
    """B114: focus the element; wrapper → its focusable child; text in contenteditable → host;
    slotted content → through the slot into the shadow host's button."""
    await tab.goto("<input id=i><div id=w><span>label</span><button id=wb>in wrapper</button></div>"
                   "<div id=ed contenteditable><b id=t>text</b></div><x-host id=h><span id=sl>slotted</span></x-host>"
                   "<script>h.attachShadow({mode:'open'}).innerHTML='<button id=sb><slot></slot></button>'</script>")
    f = lambda s: form_actions.focus(tab.ctx(s, "page.focus"), tab.resolver(s), **declared("Page.focus"))  # noqa: E731
    await f("#i")
    assert await tab.js("document.activeElement.id") == "i"
    await f("#w")
    assert await tab.js("document.activeElement.id") == "wb"
    await f("#t")
    assert await tab.js("document.activeElement.id") == "ed"
    await f("#sl")
    assert await tab.js("document.activeElement.id + '/' + h.shadowRoot.activeElement?.id") == "h/sb"


async def test_b109_fill_clipped_nested(tab):
    """B109: fill into a field clipped inside a nested scroll container scrolls by wheel."""
    await tab.goto("<div style='height:1500px'></div><div id=o style='height:150px;overflow:auto'>"
                   "<div style='height:700px'></div><input id=i><div style='height:400px'></div></div><div style='height:1500px'></div>"
                   "<script>addEventListener('wheel',e=>__rec(e),true)</script>")
    await fill(tab, "#i", "deep")
    assert await tab.js("i.value") == "deep"
    assert len(await tab.log("wheel")) > 1


SELECT = ("<select id=s><option value=''>none</option><option value=alpha>Alpha</option><option value=beta>Beta</option>"
          "<option value=d disabled>Dis</option><option value=ad aria-disabled=true>AriaDis</option>"
          "<optgroup disabled label=g><option value=og>InGroup</option></optgroup></select>"
          "<select id=m multiple><option value=one>One</option><option value=two>Two</option><option value=three>Three</option></select>"
          "<script>__watch(s,'input change')</script>")


async def test_b132_b133_select(tab):
    """B132/B133: value, label and descriptors; first match in single; all fields in multiple."""
    await tab.goto(SELECT)
    assert await select(tab, "#s", "beta") == ["beta"]
    assert await select(tab, "#s", "Alpha") == ["alpha"]
    assert await select(tab, "#s", {"label": "Beta"}) == ["beta"]
    assert await select(tab, "#s", {"index": 1}) == ["alpha"]
    assert await select(tab, "#s", [{"value": "nope"}, "Beta", "alpha"]) == ["alpha"]
    assert await select(tab, "#m", [{"value": "one"}, {"label": "Two", "index": 1}]) == ["one", "two"]
    assert await select(tab, "#s", "") == [""]
    assert "change" in [e["type"] for e in await tab.log()]


async def test_b134_b135_b137_select(tab):
    """B134: option added later is waited for; missing lists options. B135: disabled options
    selectable. B137: None/[] clear a multiple select; opacity:0 accepted."""
    await tab.goto(SELECT + "<script>setTimeout(()=>s.add(new Option('Late','late')),100)</script>")
    assert await select(tab, "#s", "late") == ["late"]
    with pytest.raises(NotActionable, match="available options:") as ei:
        await select(tab, "#s", "missing", timeout_ms=150)
    assert ei.value.reason == "option_not_found" and '"Beta" (value "beta")' in str(ei.value)
    for v in ("d", "ad", "og"):
        assert await select(tab, "#s", v) == [v]
    await select(tab, "#m", ["one", "two"])
    assert await select(tab, "#m", None) == []
    await select(tab, "#m", ["one"])
    assert await select(tab, "#m", []) == []
    assert await tab.js("m.selectedOptions.length") == 0
    await tab.js("m.style.opacity = '0'")
    assert await select(tab, "#m", "three") == ["three"]


async def test_b136_disabled_selects(tab):
    """B136: fieldset / aria-disabled / native disabled selects; re-enabled ones succeed."""
    await tab.goto("<fieldset id=fs disabled><select id=a><option>x</option></select></fieldset>"
                   "<div id=ad aria-disabled=true><select id=b><option>y</option></select></div>"
                   "<select id=c disabled><option>z</option></select>")
    with pytest.raises(NotActionable, match="none can receive input"):
        await select(tab, "#a", "x", timeout_ms=150)
    with pytest.raises(NotActionable, match="element is disabled"):
        await select(tab, "#b", "y", timeout_ms=150)
    with pytest.raises(NotActionable):
        await select(tab, "#c", "z", timeout_ms=150)
    await tab.js("setTimeout(() => { fs.disabled = false; ad.setAttribute('aria-disabled', 'false') }, 200)")
    assert await select(tab, "#a", "x", timeout_ms=2000) == ["x"]
    assert await select(tab, "#b", "y", timeout_ms=2000) == ["y"]
