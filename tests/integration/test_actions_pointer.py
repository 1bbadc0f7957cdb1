"""Pointer actions through the action pipeline (BEHAVIOURS.md E)."""

from __future__ import annotations

import pytest

from ego_browser.driver import actions, form_actions
from ego_browser.errors import NotActionable, SelectorAmbiguous, SelectorNotFound

from tests.input_harness import browser, declared, tab  # noqa: F401

pytestmark = pytest.mark.asyncio(loop_scope="session")

BTN = '<button id=b style="position:absolute;left:100px;top:100px;width:120px;height:40px">Save</button>'


async def clicks(tab, id_="b"):
    return [e for e in await tab.log("click") if e["target"] == id_]


async def test_b112_click_order_trusted(tab):
    """B112: native mousedown, mouseup, click in order, all trusted, exactly once."""
    await tab.goto(BTN + "<script>__watch(b, 'mousedown mouseup click')</script>")
    await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click"))
    log = await tab.log()
    assert [e["type"] for e in log] == ["mousedown", "mouseup", "click"]
    assert all(e["trusted"] for e in log)


async def test_b93_overlay_intercepts(tab):
    """B93: a fixed overlay makes click raise 'intercepts pointer events'; nothing clicked."""
    await tab.goto(BTN + '<div id=ov style="position:fixed;inset:0;background:rgba(0,0,0,.2)"></div>'
                   "<script>__watch(b,'click');__watch(ov,'click')</script>")
    with pytest.raises(NotActionable) as ei:
        await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click", timeout_ms=500))
    assert ei.value.reason == "intercepted"
    assert "intercepts pointer events" in str(ei.value)
    assert str(ei.value).startswith("page.click timed out after 500ms: selector #b matched 1 elements, but none can receive input; <div id=\"ov\"")
    assert await tab.log("click") == []
    # a raw mouse click at that point lands on the overlay
    await tab.mouse.click(160, 120)
    assert [e["target"] for e in await tab.log("click")] == ["ov"]


async def test_b94_overlay_removed_later(tab):
    """B94: overlay removed after 650 ms: click waits and clicks exactly once."""
    await tab.goto(BTN + '<div id=ov style="position:fixed;inset:0"></div>'
                   "<script>__watch(b,'click');setTimeout(()=>ov.remove(),650)</script>")
    await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click"))
    assert len(await clicks(tab)) == 1


async def test_b95_overlay_on_mouseenter(tab):
    """B95: overlay created on mouseenter is caught by the second hit test; no click."""
    await tab.goto(BTN + "<script>__watch(b,'click');b.addEventListener('mouseenter',()=>{const d=document.createElement('div');"
                   "d.id='ov';d.style='position:fixed;inset:0';document.body.append(d);__watch(d,'click')})</script>")
    with pytest.raises(NotActionable, match="intercepts pointer events"):
        await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click", timeout_ms=400))
    assert await tab.log("click") == []


async def test_b96_child_span_and_pointer_events_none(tab):
    """B96: a child span at the press point counts as a hit; pointer-events:none span in a menuitem."""
    await tab.goto('<button id=b style="width:200px;height:60px"><span id=s style="padding:20px">inner</span></button>'
                   '<div role=menuitem id=m style="width:200px;height:40px"><span id=t style="pointer-events:none">Open</span></div>'
                   "<script>__watch(b,'click');__watch(m,'click')</script>")
    await actions.click(tab.ctx("#s"), tab.resolver("#s"), **declared("Page.click"))
    await actions.click(tab.ctx("#t"), tab.resolver("#t"), **declared("Page.click"))
    log = await tab.log("click")
    assert len([e for e in log if e["target"] in ("b", "s")]) == 1
    assert len([e for e in log if e["target"] == "m"]) == 1


async def test_b98_hidden_zero_disabled(tab):
    """B98: hidden / zero-size / text inside a disabled button raise, no click."""
    await tab.goto('<button id=h style="display:none">h</button><button id=z style="width:0;height:0;padding:0;border:0"></button>'
                   '<button id=d disabled><span id=ds>dis</span></button><script>__watch(document,"click")</script>')
    for sel, text, reason in (("#h", "element is hidden or inert", "hidden"),
                              ("#z", "element has a zero-sized bounding box", "zero_size"),
                              ("#ds", "element is disabled", "disabled")):
        with pytest.raises(NotActionable) as ei:
            await actions.click(tab.ctx(sel), tab.resolver(sel), **declared("Page.click", timeout_ms=150))
        assert text in str(ei.value) and ei.value.reason == reason
        assert ei.value.timeout_ms == 150
    assert await tab.log("click") == []


async def test_b99_enabled_later(tab):
    """B99: a button enabled after 100 ms is clicked exactly once."""
    await tab.goto(BTN.replace("<button id=b", "<button id=b disabled") + "<script>__watch(b,'click');setTimeout(()=>b.disabled=false,100)</script>")
    await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click", timeout_ms=1000))
    assert len(await clicks(tab)) == 1


async def test_b100_force_does_not_click_disabled(tab):
    """B100: force=True still refuses a natively disabled button (even aria-disabled=false)."""
    await tab.goto('<button id=b disabled aria-disabled="false">x</button><script>__watch(b,"click")</script>')
    with pytest.raises(NotActionable, match="element is disabled"):
        await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click", force=True, timeout_ms=200))
    assert await tab.log("click") == []


async def test_b101_aria_disabled_rules(tab):
    """B101: aria-disabled inheritance, nearer false, role-less div, shadow hosts."""
    await tab.goto(
        '<div aria-disabled="true"><button id=a1>a1</button><div aria-disabled="false"><button id=a2>a2</button></div>'
        '<input id=f1></div>'
        '<button id=a3><span aria-disabled="false" id=a3s>x</span></button>'
        '<div id=rl aria-disabled="true" style="width:50px;height:20px">rl</div>'
        '<div aria-disabled="true" id=host></div>'
        "<script>host.attachShadow({mode:'open'}).innerHTML='<button id=sb>sb</button>';"
        "document.querySelector('#a3').setAttribute('aria-disabled','true');__watch(document,'click');"
        "host.shadowRoot.addEventListener('click',e=>__rec(e),true)</script>")
    with pytest.raises(NotActionable, match="element is disabled"):
        await actions.click(tab.ctx("#a1"), tab.resolver("#a1"), **declared("Page.click", timeout_ms=150))
    with pytest.raises(NotActionable, match="element is disabled"):
        await form_actions.fill(tab.ctx("#f1", "page.fill"), tab.resolver("#f1"), **declared("Page.fill", value="x", timeout_ms=150))
    assert await tab.js("f1.value") == ""
    await actions.click(tab.ctx("#a2"), tab.resolver("#a2"), **declared("Page.click"))
    with pytest.raises(NotActionable, match="element is disabled"):
        await actions.click(tab.ctx("#a3s"), tab.resolver("#a3s"), **declared("Page.click", timeout_ms=150))
    await actions.click(tab.ctx("#rl"), tab.resolver("#rl"), **declared("Page.click"))

    async def shadow_btn():
        return await tab.handles_js("host.shadowRoot.querySelector('#sb')")

    with pytest.raises(NotActionable, match="element is disabled"):
        await actions.click(tab.ctx("#sb"), shadow_btn, **declared("Page.click", timeout_ms=150))
    targets = [e["target"] for e in await tab.log("click")]
    assert targets.count("a2") == 1 and targets.count("rl") == 1
    assert "a1" not in targets and "sb" not in targets


async def test_b104_force_clicks_overlay(tab):
    """B104: force=True skips only the hit test: the overlay gets the click."""
    await tab.goto(BTN + '<div id=ov style="position:fixed;inset:0;opacity:0"></div><script>__watch(b,"click");__watch(ov,"click")</script>')
    await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click", force=True))
    targets = [e["target"] for e in await tab.log("click")]
    assert targets == ["ov"]


async def test_b109_offscreen_wheel_scroll(tab):
    """B109: off-screen targets are scrolled in with trusted wheel events, never scrollIntoView;
    nested scroll containers too."""
    await tab.goto(
        '<div style="height:2000px"></div>'
        '<div id=outer style="height:200px;overflow:auto"><div style="height:900px"></div>'
        '<button id=b>far</button><div style="height:300px"></div></div><div style="height:1500px"></div>'
        "<script>let siv=0;const o=Element.prototype.scrollIntoView;Element.prototype.scrollIntoView=function(...a){siv++;return o.apply(this,a)};"
        "__watch(b,'click');addEventListener('wheel',e=>__rec(e),true)</script>")
    await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click"))
    assert len(await clicks(tab)) == 1
    wheels = await tab.log("wheel")
    assert len(wheels) > 1 and all(w["trusted"] for w in wheels)
    assert await tab.js("siv") == 0


async def test_b97_moving_elements(tab):
    """B97: elements jittering by ±4 px are still clicked and filled (trusted)."""
    await tab.goto('<button id=b style="position:absolute;left:100px;top:100px;width:100px;height:30px">m</button>'
                   '<input id=i style="position:absolute;left:100px;top:200px">'
                   "<script>__watch(b,'click');let k=0;setInterval(()=>{k++;const d=(k%2?4:-4);"
                   "b.style.left=(100+d)+'px';i.style.top=(200+d)+'px'},16)</script>")
    await actions.click(tab.ctx("#b"), tab.resolver("#b"), **declared("Page.click"))
    await form_actions.fill(tab.ctx("#i", "page.fill"), tab.resolver("#i"), **declared("Page.fill", value="moving"))
    assert len(await clicks(tab)) == 1
    assert await tab.js("i.value") == "moving"


async def test_b103_hover_disabled_and_drag(tab):
    """B103/B105: hover reaches a disabled button; drag_and_drop on a mouse-driven widget."""
    await tab.goto('<button id=d disabled style="width:100px;height:30px">dis</button>'
                   '<div id=src aria-disabled="true" role=button style="position:absolute;left:50px;top:100px;width:60px;height:60px;background:red"></div>'
                   '<div id=dst aria-disabled="true" role=button style="position:absolute;left:300px;top:300px;width:100px;height:100px;background:blue"></div>'
                   "<script>__watch(document,'mouseover mousedown mouseup');let drag=false,moves=0;window.landed=false;"
                   "src.addEventListener('mousedown',()=>drag=true);document.addEventListener('mousemove',e=>{if(drag)moves++});"
                   "document.addEventListener('mouseup',e=>{if(drag){const r=dst.getBoundingClientRect();"
                   "window.landed=e.clientX>=r.left&&e.clientX<=r.right&&e.clientY>=r.top&&e.clientY<=r.bottom;window.moves=moves}drag=false})</script>")
    await actions.hover(tab.ctx("#d"), tab.resolver("#d"), **declared("Page.hover"))
    assert any(e["target"] == "d" and e["trusted"] for e in await tab.log("mouseover"))
    await actions.drag_and_drop(tab.ctx("#src"), tab.resolver("#src"), tab.resolver("#dst"), **declared("Page.drag_and_drop", target_selector="#dst"))
    assert await tab.js("landed") is True
    assert await tab.js("moves") >= 1
    downs, ups = await tab.log("mousedown"), await tab.log("mouseup")
    assert downs and ups and all(e["trusted"] for e in downs + ups)


async def test_not_found_and_ambiguous(tab):
    await tab.goto("<button class=x>1</button><button class=x>2</button>")
    with pytest.raises(SelectorNotFound, match="page.click timed out after 100ms: selector #nope matched 0 elements"):
        await actions.click(tab.ctx("#nope"), tab.resolver("#nope"), **declared("Page.click", timeout_ms=100))
    with pytest.raises(SelectorAmbiguous, match="matched 2 elements"):
        await actions.click(tab.ctx(".x"), tab.resolver(".x"), **declared("Page.click", timeout_ms=100))


async def test_b110_dblclick(tab):
    """B110 (partial): trusted dblclick."""
    await tab.goto(BTN + "<script>__watch(b,'dblclick click')</script>")
    await actions.dblclick(tab.ctx("#b", "page.dblclick"), tab.resolver("#b"), **declared("Page.dblclick"))
    log = await tab.log()
    assert [e["type"] for e in log] == ["click", "click", "dblclick"] and all(e["trusted"] for e in log)
