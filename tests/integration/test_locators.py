"""Locators and expect() through the public API (issue 34, point 1).

What a Playwright user writes must work here: ``page.get_by_role(...).click()``, chains,
``count``/``all``/``nth``, the element actions and reads, ``wait_for``, Playwright's strictness,
and ``expect(...)`` assertions that retry while the page catches up (the pages change on their
own timers; the tests never sleep). Bad input raises EgoErrors with stable codes.
"""

from __future__ import annotations

import re

import pytest

from ego_browser import AssertionFailed, EgoError, InvalidArgument, SelectorAmbiguous
from ego_browser import expect
from ego_browser.client.locator import Locator

PAGE = """
<h1>Orders</h1>
<ul id=list>
  <li class=row data-testid=r1>Tea <button onclick="log('tea')">Buy</button></li>
  <li class=row data-testid=r2>Coffee <button onclick="log('coffee')">Buy</button></li>
  <li class=row data-testid=r3>Cocoa <em>sold out</em></li>
</ul>
<label>Name <input id=name placeholder="Your name"></label>
<label><input type=checkbox id=gift> Gift wrap</label>
<select id=size><option>S</option><option>M</option></select>
<img alt="Company logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" title="Our logo">
<p id=status>Idle</p>
<button id=start onclick="start()">Start</button>
<div id=spinner>Loading</div>
<script>
window.bought = [];
function log(x) { bought.push(x); }
function start() {
  document.getElementById('status').textContent = 'Working';
  // the page finishes later, on its own
  setTimeout(() => {
    document.getElementById('status').textContent = 'Done';
    document.getElementById('spinner').style.display = 'none';
    const li = document.createElement('li');
    li.className = 'row';
    li.textContent = 'Matcha';
    document.getElementById('list').appendChild(li);
  }, 600);
}
</script>
"""


async def open_page(task, server, path: str = "/locators"):
    page = task.page("p1")
    await page.goto(server.page(path, PAGE, title="Orders page"))
    return page


async def test_locator_actions_and_reads(task, server):
    page = await open_page(task, server)
    buy = page.get_by_role("listitem").filter(has_text="coffee").get_by_role("button", name="Buy")
    assert isinstance(buy, Locator) and buy.page is page
    await buy.click()
    assert await page.evaluate("bought") == ["coffee"]
    name = page.get_by_placeholder("your name")
    await name.fill("Ann")
    assert await name.input_value() == "Ann"
    await name.press_sequentially(" Lee")
    assert await page.locator("#name").input_value() == "Ann Lee"
    await name.clear()
    assert await name.input_value() == ""
    gift = page.get_by_label("Gift wrap")
    await gift.check()
    assert await gift.is_checked() is True
    await gift.set_checked(False)
    assert await gift.is_checked() is False
    assert await page.locator("#size").select_option("M") == ["M"]
    assert await page.get_by_alt_text("logo").get_attribute("title") == "Our logo"
    assert await page.get_by_title("our logo").count() == 1
    assert await page.get_by_test_id("r3").locator("em").text_content() == "sold out"
    assert (await page.get_by_test_id("r1").inner_text()).startswith("Tea")
    assert await page.locator("#start").is_enabled() and await page.locator("#spinner").is_visible()
    # a Locator is its selector string: every Page method takes it, print() shows it
    assert await page.inner_text(page.get_by_test_id("r2").locator("button")) == "Buy"
    assert str(page.locator("li").first) == "li >> nth=0"


async def test_count_all_nth_are_not_strict_and_actions_are(task, server):
    page = await open_page(task, server, "/locators-strict")
    rows = page.locator("li.row")
    assert await rows.count() == 3
    assert await page.count("li.row") == len(await page.find("li.row")) == 3
    assert (await rows.nth(1).count(), await rows.nth(7).count(), await rows.last.count()) == (1, 0, 1)
    ref = (await page.find("li.row"))[0]["ref"]
    assert await page.count(ref) == 1 and await page.locator(ref).count() == 1
    assert [await r.text_content() for r in await rows.all()] == [
        await rows.nth(i).text_content() for i in range(3)]
    assert await rows.all_inner_texts() == ["Tea Buy", "Coffee Buy", "Cocoa sold out"]
    assert (await rows.last.inner_text()).startswith("Cocoa")
    assert await page.locator("li.row").filter(has=page.get_by_role("button")).count() == 2
    assert await page.locator("li.row").filter(has_not=page.locator("button")).count() == 1
    with pytest.raises(SelectorAmbiguous) as info:
        await page.get_by_role("button", name="Buy").click()
    assert info.value.code == "EGO_SELECTOR_AMBIGUOUS"
    with pytest.raises(SelectorAmbiguous):
        await rows.inner_text()
    with pytest.raises(SelectorAmbiguous):
        await expect(rows).to_have_text("Tea Buy", timeout=300)
    await page.get_by_role("button", name="Buy").first.click()
    assert await page.evaluate("bought") == ["tea"]


async def test_expect_retries_until_the_page_catches_up(task, server):
    page = await open_page(task, server, "/locators-expect")
    status = page.locator("#status")
    await page.locator("#start").click()
    # the page is not there yet: only a retrying assertion passes
    assert await status.text_content() == "Working"
    assert await page.get_by_text("Matcha").count() == 0
    await expect(page.get_by_text("Matcha")).to_be_visible()
    await expect(status).to_have_text("Done")
    await expect(status).not_.to_have_text("Working")
    await expect(page.locator("li.row")).to_have_count(4)
    await expect(page.locator("li.row")).to_contain_text(["Tea", "Matcha"])
    await expect(page.locator("li.row")).to_have_text(["Tea Buy", "Coffee Buy", "Cocoa sold out", "Matcha"])
    await expect(page.locator("#spinner")).not_.to_be_visible()
    await expect(page.locator("#spinner")).to_be_hidden()
    await expect(page.locator("#start")).to_be_visible()
    await expect(status).to_contain_text("don", ignore_case=True)
    await expect(status).to_have_text(re.compile(r"^D.ne$"))
    await page.locator("#name").fill("Bo")
    await expect(page.locator("#name")).to_have_value("Bo")
    await expect(page.locator("#name")).not_.to_have_value("Ann")
    await expect(page.get_by_label("Gift wrap")).not_.to_be_checked()
    await expect(page.locator("#start")).to_be_enabled()
    await expect(page.locator("#start")).not_.to_be_disabled()
    await expect(page.get_by_alt_text("logo")).to_have_attribute("title", re.compile("logo$"))
    await expect(page.get_by_test_id("r3")).to_have_text("Cocoa sold out", use_inner_text=True)
    await expect(page).to_have_title("Orders page")
    await expect(page).to_have_url(re.compile(r"/locators-expect$"))
    await expect(page).not_.to_have_url("https://example.com/")


async def test_expect_failure_says_expected_and_actual(task, server):
    page = await open_page(task, server, "/locators-fail")
    with pytest.raises(AssertionFailed) as info:
        await expect(page.locator("#status")).to_have_text("Done", timeout=300)
    err = info.value
    assert isinstance(err, AssertionError) and isinstance(err, EgoError)
    assert err.code == "EGO_ASSERTION_FAILED"
    assert (err.assertion, err.expected, err.actual) == ("to_have_text", "Done", "Idle")
    assert "expected 'Done', actual 'Idle'" in str(err) and "300 ms" in str(err)
    with pytest.raises(AssertionFailed) as info:
        await expect(page.locator("#status")).not_.to_have_text("Idle", timeout=200)
    assert info.value.assertion == "not_.to_have_text" and "expected not 'Idle'" in str(info.value)
    with pytest.raises(AssertionFailed) as info:
        await expect(page.locator("#nothing-here")).to_be_visible(timeout=200)
    assert info.value.actual is None and "no element matched" in str(info.value)
    with pytest.raises(AssertionFailed):
        await expect(page.locator("li.row")).to_have_count(5, timeout=200)
    with pytest.raises(AssertionFailed) as info:
        await expect(page, "after login").to_have_title("Other", timeout=200)
    assert str(info.value).startswith("after login: ") and info.value.actual == "Orders page"


async def test_bad_input_raises_ego_errors(task, server):
    page = await open_page(task, server, "/locators-bad")
    rows = page.locator("li.row")
    for bad in ("1", 1.0, True, -2):
        with pytest.raises(InvalidArgument) as info:
            rows.nth(bad)
        assert info.value.code == "EGO_INVALID_ARGUMENT" and info.value.option == "index"
    with pytest.raises(InvalidArgument) as info:
        expect("#status")
    assert "page.locator('#status')" in str(info.value)
    with pytest.raises(InvalidArgument):
        expect(42)
    with pytest.raises(InvalidArgument):
        rows.filter(has=3)
    with pytest.raises(InvalidArgument):
        rows.filter(has_text=5)
    with pytest.raises(InvalidArgument):
        page.locator("")
    with pytest.raises(InvalidArgument) as info:
        rows.get_by_role("button", name=3)
    assert info.value.api == "page.get_by_role" and info.value.option == "name"
    with pytest.raises(InvalidArgument):
        rows.get_by_title(re.compile("x"))
    other = await task.new_page()
    with pytest.raises(InvalidArgument) as info:
        rows.filter(has=other.locator("button"))
    assert "same Page" in str(info.value)
    with pytest.raises(InvalidArgument):
        await expect(rows).to_have_count("3")
    with pytest.raises(InvalidArgument):
        await expect(rows).to_have_text(3)


async def test_wait_for_states(task, server):
    page = await open_page(task, server, "/locators-wait")
    await page.locator("#start").click()
    await page.locator("li.row").filter(has_text="Matcha").wait_for(state="attached")
    await page.locator("#spinner").wait_for(state="hidden")
    assert await page.locator("#spinner").is_hidden()


def test_rounds_get_locators_and_expect(rounds, server):
    url = server.page("/locators-round", PAGE, title="Orders page")
    script = f"""
task = await task_space("locators-round")
page = task.page("p1")
await page.goto({url!r})
await page.get_by_role("listitem").filter(has_text="tea").get_by_role("button").click()
print(await page.evaluate("bought"), await page.locator("li").count())
await expect(page.locator("#status")).to_have_text("Idle")
await expect(page.locator("#status"), "status").to_have_text("Done", timeout=200)
"""
    proc = rounds.run(script)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "['tea'] 3\n"
    assert "EGO_ASSERTION_FAILED: status: expect(locator('#status')).to_have_text failed" in proc.stderr
    assert "expected 'Done', actual 'Idle'" in proc.stderr and "at line 8" in proc.stderr


def test_help_documents_locators():
    from ego_browser.schema.render import guide, help_text

    for name in ("Locator", "locators", Locator, Locator(None, "#x")):
        text = help_text(name)
        assert "filter(has_text=" in text and "expect(loc)" in text, name
    assert "help(\"locators\")" in guide()


STRICT_PAGE = """
<div class=card><h3>One</h3><button data-k=b1>Buy</button></div>
<div class=card><h3>Two</h3><button data-k=b2>Buy</button><button data-k=b3>Info</button></div>
<script>
window.log = [];
document.addEventListener('click', e => { const k = e.target.closest('[data-k]'); if (k) log.push(k.dataset.k); }, true);
</script>
"""

#: the same expression on both Pages: which element a click lands on, or a strictness error
STRICT_CASES = [
    ('page.get_by_role("button", name="Buy")', "ambiguous"),
    ('page.get_by_role("button", name="Buy").first', "b1"),
    ('page.get_by_role("button", name="Buy").last', "b2"),
    ('page.locator(".card").filter(has_text="Two").get_by_role("button", name="Buy")', "b2"),
    ('page.locator(".card").get_by_role("button")', "ambiguous"),
    ('page.locator(".card").filter(has=page.get_by_text("Info")).locator("button").last', "b3"),
    ('page.locator("button").nth(1)', "b2"),
    ('page.get_by_text("Buy")', "ambiguous"),
    ('page.locator(".card").filter(has_not_text="Info").locator("button")', "b1"),
    ('page.locator(".card").filter(has=page.locator("h3", has_text="one")).get_by_role("button")', "b1"),
    ('page.get_by_text("Info").or_(page.get_by_text("One"))', "ambiguous"),
    ('page.get_by_role("button", name="Info").or_(page.locator("#missing"))', "b3"),
    ('page.get_by_role("button").and_(page.get_by_text("Buy")).last', "b2"),
]


@pytest.mark.peers
async def test_strictness_and_targets_match_playwright(task, server):
    pw_api = pytest.importorskip("playwright.async_api")
    url = server.page("/locators-strict-pw", STRICT_PAGE)
    page = task.page("p1")
    await page.goto(url)
    async with pw_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            pw_page = await browser.new_page()
            await pw_page.goto(url)

            async def theirs(expression: str) -> str:
                await pw_page.evaluate("log = []")
                try:
                    await eval(expression, {"page": pw_page}).click(timeout=2000)  # noqa: S307 - test data
                except pw_api.Error as exc:
                    assert "strict mode violation" in str(exc), exc
                    return "ambiguous"
                return (await pw_page.evaluate("log"))[-1]

            async def ours(expression: str) -> str:
                await page.evaluate("log = []")
                try:
                    await eval(expression, {"page": page}).click(timeout=2000)  # noqa: S307 - test data
                except SelectorAmbiguous:
                    return "ambiguous"
                return (await page.evaluate("log"))[-1]

            for expression, want in STRICT_CASES:
                assert (await ours(expression), await theirs(expression)) == (want, want), expression
        finally:
            await browser.close()
