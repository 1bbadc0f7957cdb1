"""Selectors and strictness through the public API (BEHAVIOURS.md section D: B77–B92).

Every page records the clicks it receives: the ``data-k`` of the element the click landed on
(looked up along the composed path, so clicks inside open shadow roots name the inner
element), with ``:untrusted`` appended for synthetic events. The tests check what a user
would check: which element got the click, exactly once, and that it was a real (trusted) click.
"""

from __future__ import annotations

import re
import time

import pytest

from ego_browser import InvalidSelector, NotActionable, SelectorAmbiguous, SelectorNotFound

LOG = """
<script>
window.log = [];
window.hovers = [];
function keyOf(e) {
  for (const n of e.composedPath()) if (n.dataset && n.dataset.k) return n.dataset.k;
  return null;
}
document.addEventListener('click', e => {
  const k = keyOf(e);
  if (k) log.push(k + (e.isTrusted ? '' : ':untrusted'));
  const a = e.target.closest && e.target.closest('a');
  if (a) e.preventDefault();
}, true);
document.addEventListener('mouseover', e => {
  const k = keyOf(e);
  if (k && !hovers.includes(k)) hovers.push(k + (e.isTrusted ? '' : ':untrusted'));
}, true);
</script>
"""

# a helper that attaches an open shadow root holding ``html`` to the element with ``id``
SHADOW = """
<script>
function shadow(host, html) { const r = host.attachShadow({mode: 'open'}); r.innerHTML = html; return r; }
</script>
"""


async def open_page(task, server, path: str, body: str):
    page = task.page("p1")
    await page.goto(server.page(path, LOG + SHADOW + body))
    return page


async def test_b77_text_is_normalized_substring_and_quoted_text_is_exact(task, server):
    page = await open_page(task, server, "/b77", (
        "<button data-k=sc>Save &nbsp;  Changes</button>"
        "<button data-k=exact>Exact action</button>"
        "<button data-k=lower>exact action</button>"
        "<button data-k=longer>Exact action plus</button>"
    ))
    await page.click("text=save changes")
    assert await page.evaluate("log") == ["sc"]
    # quoted: exact and case-sensitive; neither "exact action" nor "Exact action plus" match
    await page.click('text="Exact action"')
    assert await page.evaluate("log") == ["sc", "exact"]
    await page.click('text="exact action"')
    assert await page.evaluate("log") == ["sc", "exact", "lower"]
    # the unquoted form is a case-insensitive substring: three buttons contain it
    with pytest.raises(SelectorAmbiguous, match="matched 3 elements"):
        await page.click("text=exact action")
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.click('text="Exact"', timeout=200)
    assert await page.evaluate("log") == ["sc", "exact", "lower"]


async def test_b78_text_reaches_nested_shadow_roots_and_is_strict(task, server):
    page = await open_page(task, server, "/b78", (
        "<div id=outer></div><button data-k=t1>Twin</button><button data-k=t2>Twin</button>"
        "<script>"
        "const mid = shadow(document.getElementById('outer'), '<section><div id=inner></div></section>');"
        "shadow(mid.getElementById('inner'), '<button data-k=deep>Deep shadow button</button>');"
        "</script>"
    ))
    await page.click("text=deep shadow button")
    assert await page.evaluate("log") == ["deep"]
    with pytest.raises(SelectorAmbiguous, match="matched 2 elements"):
        await page.click("text=twin")
    assert await page.evaluate("log") == ["deep"], "an ambiguous match never receives a click"


async def test_b79_css_reaches_nested_shadow_roots(task, server):
    page = await open_page(task, server, "/b79", (
        "<div id=outer></div>"
        "<script>"
        "const mid = shadow(document.getElementById('outer'), '<div id=inner></div>');"
        "const deep = shadow(mid.getElementById('inner'),"
        " '<button id=deep-btn data-k=deep>Deep</button><input aria-label=\"Shadow field\">');"
        "window.field = deep.querySelector('input');"
        "window.inputs = [];"
        "field.addEventListener('input', e => inputs.push(e.isTrusted));"
        "</script>"
    ))
    await page.click("#deep-btn")
    assert await page.evaluate("log") == ["deep"]
    snap = await page.snapshot()
    assert 'textbox "Shadow field"' in snap, snap
    await page.fill('loc=css:input[aria-label="Shadow field"]', "in the shadow")
    assert await page.evaluate("field.value") == "in the shadow"
    assert await page.evaluate("inputs") == [True]


async def test_b80_css_prefix_is_the_same_as_raw_css(task, server):
    page = await open_page(task, server, "/b80", (
        "<button data-k=other>Other</button><button id=target data-k=target>Target</button>"
    ))
    await page.click("#target")
    await page.click("css=#target")
    assert await page.evaluate("log") == ["target", "target"]
    a = await page.find("#target")
    b = await page.find("css=#target")
    assert [x["ref"] for x in a] == [x["ref"] for x in b] and len(a) == 1


async def test_b81_has_text_and_text_is(task, server):
    page = await open_page(task, server, "/b81", (
        "<button data-k=changes><span>Save</span> changes</button>"
        "<button data-k=child><span>Save</span></button>"
        "<button data-k=own>Save</button>"
    ))
    await page.click('button:has-text("save changes")')
    assert await page.evaluate("log") == ["changes"]
    # own text "Save" only: not the button whose "Save" sits in a child span
    await page.click('button:text-is("Save")')
    assert await page.evaluate("log") == ["changes", "own"]


async def test_b82_text_is_escapes_and_empty_text(task, server):
    page = await open_page(task, server, "/b82", (
        "<button data-k=cant>can't</button><button data-k=can>can</button>"
        "<button data-k=ab>AB</button><button data-k=a>A</button>"
        "<button id=icon data-k=icon aria-label=Close style='width:40px;height:24px'></button>"
        "<button id=texty data-k=texty aria-label=Texty>x</button>"
    ))
    await page.click("button:text-is('can\\'t')")
    await page.click('button:text-is("\\41 B")')
    await page.click('#icon:text-is("")')
    assert await page.evaluate("log") == ["cant", "ab", "icon"]
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.click('#texty:text-is("")', timeout=200)
    assert await page.evaluate("log") == ["cant", "ab", "icon"]


async def test_b83_look_alikes_in_attribute_quotes_and_selector_lists(task, server):
    page = await open_page(task, server, "/b83", (
        "<button data-value=':has-text(' data-k=attr>Attr</button><button data-k=plain>Plain</button>"
        "<a href='/docs' data-k=docs>Docs</a>"
    ))
    await page.click('[data-value=":has-text("]')
    assert await page.evaluate("log") == ["attr"]
    # a selector list with a Playwright filter is a valid list since issue 13: three matches
    with pytest.raises(SelectorAmbiguous, match="matched 3 elements"):
        await page.click('button, a:has-text("Docs")', timeout=500)
    assert await page.evaluate("log") == ["attr"]
    await page.click('button:has-text("plain"), a:text-is("Nothing")')
    assert await page.evaluate("log") == ["attr", "plain"]


async def test_b84_nth_counts_matches_before_the_checks(task, server):
    server.page("/b84-target", "target")
    page = await open_page(task, server, "/b84", (
        "<button class=dup data-k=hidden style='display:none'>Dup</button>"
        "<button class=dup data-k=shown>Dup</button>"
        "<button data-k=item1>Dup item</button><button data-k=item2>Dup item</button>"
        "<a href='/b84-target' data-k=link1>first link</a> <a href='/b84-target' data-k=link2>second link</a>"
    ))
    await page.click(".dup >> nth=1")
    assert await page.evaluate("log") == ["shown"]
    with pytest.raises(NotActionable, match="hidden"):
        # nth=0 is the hidden one: it is picked first and then refused, never swapped for the other
        await page.click(".dup >> nth=0", timeout=200)
    assert await page.evaluate("log") == ["shown"]
    await page.click('text="Dup item" >> nth=-1')
    await page.click("text=dup item >> nth=-1")
    assert await page.evaluate("log") == ["shown", "item2", "item2"]
    await page.click("loc=href:/b84-target >> nth=-1")
    await page.click(f"loc=href:{server.url('/b84-target')} >> nth=0")
    assert await page.evaluate("log") == ["shown", "item2", "item2", "link2", "link1"]
    assert await page.url() == server.url("/b84")


async def test_b86_has_text_through_a_hosts_shadow_and_in_a_same_origin_iframe(task, server):
    server.page("/b86-frame", LOG + "<button data-k=framed>Framed action</button>")
    page = await open_page(task, server, "/b86", (
        "<x-host data-k=host></x-host>"
        "<script>shadow(document.querySelector('x-host'), '<button data-k=inner>Shadow action</button>');</script>"
        "<iframe src='/b86-frame' width=300 height=80></iframe>"
    ))
    await page.wait_for_load_state()
    await page.click('x-host:has-text("shadow ACTION")')
    assert await page.evaluate("log") == ["inner"], "the click lands on the host's inner button"
    await page.click('button:has-text("framed action")')
    assert await page.evaluate("document.querySelector('iframe').contentWindow.log") == ["framed"]
    assert await page.evaluate("log") == ["inner"]


async def test_b88_hover_accepts_disabled_duplicates(task, server):
    page = await open_page(task, server, "/b88", (
        "<button class=dup data-k=off disabled>Dup</button><button class=dup data-k=on>Dup</button>"
    ))
    with pytest.raises(SelectorAmbiguous, match="matched 2"):
        await page.hover(".dup", timeout=150)
    assert await page.evaluate("hovers") == []
    # while click skips the disabled one and acts on the enabled one
    await page.click(".dup")
    assert await page.evaluate("log") == ["on"]


async def test_b89_top_document_first_then_frames(task, server):
    """B89: a covered top-level match is not a candidate, so the same-origin iframe's button is clicked."""
    server.page("/b89-frame", LOG + "<button data-k=frame>Pay now</button>")
    page = await open_page(task, server, "/b89", (
        "<button data-k=top style='position:absolute;left:10px;top:10px;width:120px;height:40px'>Pay now</button>"
        "<div data-k=overlay style='position:fixed;left:0;top:0;width:300px;height:80px;"
        "background:rgba(0,0,0,.2)'></div>"
        "<iframe src='/b89-frame' style='position:absolute;left:10px;top:120px' width=300 height=80></iframe>"
    ))
    await page.wait_for_load_state()
    await page.click('text="Pay now"')
    assert await page.evaluate("document.querySelector('iframe').contentWindow.log") == ["frame"]
    assert await page.evaluate("log") == [], "neither the covered button nor the overlay got a click"


async def test_b90_xpath_and_numeric_ids(task, server):
    page = await open_page(task, server, "/b90", (
        "<button id=x data-k=x>X</button><button id=y data-k=y>Y</button>"
        "<div id=host></div>"
        "<script>shadow(document.getElementById('host'), '<button id=sh data-k=sh>In shadow</button>');</script>"
    ))
    await page.click('xpath=//button[@id="x"]')
    await page.click('//button[@id="y"]')
    assert await page.evaluate("log") == ["x", "y"]
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.click('xpath=//button[@id="sh"]', timeout=200)
    assert await page.evaluate("log") == ["x", "y"]
    with pytest.raises(InvalidSelector, match=re.escape('[id="123"]')):
        await page.click("#123")


@pytest.mark.parametrize("selector", ["role=button[include-hidden]", "a:near(button)", "loc=role:button[pressed=true]"])
async def test_b92_unsupported_forms_raise_at_once(task, server, selector):
    page = await open_page(task, server, "/b92", "<button data-k=x aria-pressed=true>x</button><a href=#>b</a>")
    t0 = time.monotonic()
    with pytest.raises(InvalidSelector):
        await page.click(selector)  # default timeout 3000: "at once" means no retry loop
    assert time.monotonic() - t0 < 1.0
    assert await page.evaluate("log") == []
