"""check/uncheck/set_checked and the element reads on real Chromium (issue 13, point 5).

Playwright's semantics: check on a checked box is a no-op (no click reaches the page), a label
stands for its control, a radio cannot be unchecked, a non-checkbox is a clear error at once;
reads are strict and wait for a match (is_visible does not wait).
"""

from __future__ import annotations

import pytest

from ego_browser import ActionReceipt, NotActionable, SelectorAmbiguous, SelectorNotFound
from tests.integration.test_behaviours_selectors import open_page

FORM = """
<script>window.clicks = []; document.addEventListener('click', e => clicks.push(e.target.id || e.target.tagName), true);</script>
<label id=gift-label><input type=checkbox id=gift> Gift wrap</label>
<input type=checkbox id=news checked aria-label=News>
<input type=checkbox id=stuck onclick="return false" aria-label=Stuck>
<label><input type=radio name=ship id=std checked> Standard</label>
<label><input type=radio name=ship id=exp> Express</label>
<div role=checkbox id=aria-box aria-checked=false tabindex=0
     onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">Aria box</div>
<button id=plain>Plain</button>
<button id=off disabled>Off</button>
<fieldset disabled><input id=in-fieldset></fieldset>
<div role=button id=aria-off aria-disabled=true>Aria off</div>
<input id=email value="ann@example.com">
<textarea id=notes>line one</textarea>
<select id=country><option>France</option><option selected>Japan</option></select>
<p id=para data-x="1">Hello <span style="display:none">hidden </span>world</p>
<p id=ghost style="visibility:hidden">Ghost</p>
<p class=dup>a</p><p class=dup>b</p>
<svg id=pic width=10 height=10><circle r=4 cx=5 cy=5></circle></svg>
"""


async def test_check_and_uncheck_are_idempotent_and_click_only_when_needed(task, server):
    page = await open_page(task, server, "/state-check", FORM)
    receipt = await page.check("#gift")
    assert isinstance(receipt, ActionReceipt)
    assert await page.is_checked("#gift") is True
    await page.check("#gift")  # already checked: nothing reaches the page
    await page.check("#news")
    assert await page.evaluate("clicks") == ["gift"]
    await page.uncheck("#news")
    await page.uncheck("#news")
    assert await page.is_checked("#news") is False
    await page.set_checked("#gift", False)
    assert await page.evaluate("[gift.checked, news.checked]") == [False, False]
    assert await page.evaluate("clicks") == ["gift", "news", "gift"]


async def test_labels_radios_and_aria_checkboxes(task, server):
    page = await open_page(task, server, "/state-labels", FORM)
    await page.check("text=Gift wrap")  # a label stands for its control
    assert await page.evaluate("gift.checked") is True
    assert await page.is_checked("#gift-label") is True
    await page.check("#exp")
    assert await page.evaluate("[std.checked, exp.checked]") == [False, True]
    with pytest.raises(NotActionable, match="radio button") as info:
        await page.uncheck("#exp")
    assert info.value.reason == "radio"
    assert await page.evaluate("exp.checked") is True
    await page.check("role=checkbox[name='Aria box']")
    assert await page.evaluate("document.getElementById('aria-box').getAttribute('aria-checked')") == "true"
    assert await page.is_checked("#aria-box") is True


async def test_check_on_a_non_checkbox_fails_at_once_without_clicking(task, server):
    page = await open_page(task, server, "/state-wrong", FORM)
    with pytest.raises(NotActionable, match="not a checkbox or radio button") as info:
        await page.check("#plain", timeout=30000)  # an error at once, not after 30 s of retries
    assert info.value.reason == "not_checkable"
    with pytest.raises(NotActionable, match="not a checkbox"):
        await page.is_checked("#email")
    with pytest.raises(NotActionable, match="did not change") as info:
        await page.check("#stuck")  # the page cancels the click
    assert info.value.reason == "unchanged"
    assert await page.evaluate("clicks") == ["stuck"]


async def test_reads(task, server):
    page = await open_page(task, server, "/state-reads", FORM)
    assert await page.is_enabled("#plain") is True
    assert await page.is_enabled("#off") is False
    assert await page.is_enabled("#in-fieldset") is False
    assert await page.is_enabled("#aria-off") is False
    assert await page.is_visible("#para") is True
    assert await page.is_visible("#ghost") is False
    assert await page.is_visible("#no-such-element") is False  # no waiting: False
    assert await page.input_value("#email") == "ann@example.com"
    assert await page.input_value("#notes") == "line one"
    assert await page.input_value("#country") == "Japan"
    await page.fill("#email", "bob@example.com")
    assert await page.input_value("#email") == "bob@example.com"
    assert await page.text_content("#para") == "Hello hidden world"
    assert await page.inner_text("#para") == "Hello world"
    assert await page.get_attribute("#para", "data-x") == "1"
    assert await page.get_attribute("#para", "data-missing") is None
    with pytest.raises(NotActionable, match="not an <input>"):
        await page.input_value("#para")
    with pytest.raises(NotActionable, match="not an HTML element"):
        await page.inner_text("#pic")


async def test_reads_are_strict_and_wait_for_a_match(task, server):
    page = await open_page(task, server, "/state-strict", FORM)
    with pytest.raises(SelectorAmbiguous) as info:
        await page.text_content(".dup")
    rows = info.value.candidates
    assert [c["role"] for c in rows] == ["paragraph", "paragraph"] and all(c["ref"] for c in rows)
    assert await page.text_content(rows[1]["ref"]) == "b"  # the listed refs name the candidates
    with pytest.raises(SelectorAmbiguous):
        await page.is_visible(".dup")
    with pytest.raises(SelectorNotFound, match="matched 0 elements"):
        await page.get_attribute("#later", "id", timeout=300)
    # an element the page adds later is waited for
    await page.evaluate("setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<i id=later data-v=ok></i>'), 300)")
    assert await page.get_attribute("#later", "data-v", timeout=20000) == "ok"
