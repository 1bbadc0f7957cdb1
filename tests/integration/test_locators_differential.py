"""Locator chains against Playwright's (issue 34): the same Python expression builds a Locator
on both sides (``page.locator("li").filter(has_text="dune").nth(0)``); ours compiles to a
selector string our engine resolves, Playwright's runs in Playwright. Both run on
/usr/bin/chromium over the same fixture DOM (``selector_cases.Oracle``) and must match the same
elements, in the same order.
"""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("playwright.async_api")
if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("needs /usr/bin/chromium", allow_module_level=True)

from ego_browser.client.locator import Locator  # noqa: E402
from ego_browser.client.page_locators import LocatorsMixin  # noqa: E402
from tests.selector_cases import FIXTURES, Oracle  # noqa: E402

pytestmark = pytest.mark.peers


class _Builder(LocatorsMixin):
    """A Page as far as building Locators goes (no host: building never touches the page)."""

    label = "p1"


#: (fixture, the expression on ``page``, expected match count)
CASES: list[tuple[str, str, int]] = [
    ("agent", 'page.locator("ul.todo li")', 4),
    ("agent", 'page.locator("ul.todo li").filter(has_text="dune")', 1),
    ("agent", 'page.locator("ul.todo li").filter(has_text="BUY MILK")', 1),
    ("agent", 'page.locator("ul.todo li").filter(has_not_text="dune")', 3),
    ("agent", 'page.locator("ul.todo li").filter(has_text=re.compile(r"^Read"))', 1),
    ("agent", 'page.locator("ul.todo li").filter(has_not_text=re.compile("item|milk"))', 2),
    ("agent", 'page.locator("ul.todo li").filter(has=page.locator("b"))', 1),
    ("agent", 'page.locator("ul.todo li").filter(has_not=page.locator("b"))', 3),
    ("agent", 'page.locator("ul.todo li").filter(has=page.locator("span"), has_text="nested")', 1),
    ("agent", 'page.locator("article.card").filter(has=page.get_by_role("button", name="Add to cart"))', 2),
    ("agent", 'page.locator("article.card").filter(has=page.get_by_role("button", name="Add to cart", exact=True)'
              '.filter(has_text="Add"))', 2),
    ("agent", 'page.locator("article.card").filter(has_not=page.get_by_role("button"))', 2),
    ("agent", 'page.locator("article.card").filter(has=page.get_by_text("$4.50"))', 1),
    ("agent", 'page.locator("article.card").filter(has_text="dune").get_by_role("button")', 2),
    ("agent", 'page.locator("article.card").filter(has_text="dune").get_by_role("button").first', 1),
    ("agent", 'page.locator("article.card").filter(has_text="dune").get_by_role("button").last', 1),
    ("agent", 'page.locator("article.card").nth(1).locator("h3")', 1),
    ("agent", 'page.locator("article.card").last.locator("a")', 1),
    ("agent", 'page.locator("article.card").nth(2)', 1),
    ("agent", 'page.locator("article.card").nth(9)', 0),
    ("agent", 'page.locator("article.card").locator(page.get_by_role("button", name="save"))', 2),
    ("agent", 'page.locator("#data tr").filter(has=page.get_by_role("cell", name="Tea")).locator("td").last', 1),
    ("agent", 'page.locator("#data tbody tr").filter(has_text="coffee").locator("td")', 2),
    ("agent", 'page.get_by_role("row").filter(has_text="Beta")', 1),
    ("agent", 'page.get_by_role("article").filter(has=page.locator(".price")).nth(0)', 1),
    ("agent", 'page.get_by_role("listitem").filter(has_text="Call")', 1),
    ("agent", 'page.get_by_role("checkbox").filter(has_not_text="zzz")', 4),
    ("agent", 'page.locator("p.count").filter(has_text="3 of 12")', 1),
    ("agent", 'page.locator("p.count").filter(has_text=re.compile(r"12 of 12"))', 1),
    ("agent", 'page.get_by_placeholder("YOU@")', 1),
    ("agent", 'page.get_by_test_id("card-2").get_by_role("button")', 2),
    ("agent", 'page.get_by_label("Email")', 1),
    ("agent", 'page.locator("#host").locator("section").filter(has=page.locator("p"))', 1),
    ("agent", 'page.locator("section").filter(has_text="Shadow add")', 1),
    ("agent", 'page.locator("main").locator("article.card").filter(visible=True)', 3),
    ("has", 'page.locator("div.card").filter(has_text="save changes")', 1),
    ("has", 'page.locator("div").filter(has=page.locator("span"), has_text="phrase")', 2),
    ("has", 'page.locator("button").filter(has=page.locator("span"))', 2),
    ("has", 'page.locator("button").filter(has_not=page.locator("span"))', 3),
    ("has", 'page.locator("div.card").filter(has=page.get_by_role("heading", name="Second"))', 1),
    ("has", 'page.locator("div.card").filter(has=page.locator("button").filter(has_text="Cancel"))', 1),
    ("has", 'page.locator("div.card").filter(has=page.locator("button >> nth=1"))', 0),
    ("has", 'page.locator("section div").filter(has=page.locator("div span"))', 1),
    ("has", 'page.locator("section").filter(has=page.locator("section span"))', 0),
    ("has", 'page.locator("div").filter(has=page.get_by_text("phrase")).filter(has_not=page.locator("div div"))', 2),
    ("agent", 'page.locator("article.card").get_by_text("Add to cart")', 3),
    ("agent", 'page.get_by_test_id("card-1").get_by_text("$9.99", exact=True)', 1),
    ("agent", 'page.locator("ul.todo").locator("li").filter(has_text="dune").locator("b")', 1),
    ("agent", 'page.locator("form").get_by_label("Email")', 1),
    ("agent", 'page.get_by_role("form").get_by_role("checkbox").filter(has_not_text="gift").nth(-1)', 1),
    ("role", 'page.get_by_role("button", name="save").or_(page.get_by_role("link"))', 12),
    ("role", 'page.get_by_role("heading").or_(page.locator("li"))', 4),
    ("role", 'page.get_by_role("button").and_(page.locator(".pseudo"))', 1),
    ("role", 'page.locator("button").and_(page.get_by_title("Titled"))', 1),
    ("agent", 'page.locator("article.card").filter(has_text="dune").or_(page.get_by_test_id("card-4")).locator("h3")', 2),
    ("agent", 'page.get_by_role("heading", level=3).or_(page.locator("#host").locator("p"))', 4),
    ("agent", 'page.locator("li").or_(page.locator("#host button")).or_(page.get_by_text("Store"))', 6),
    ("agent", 'page.locator("article.card").filter(has=page.locator("h3").or_(page.locator("a")))', 4),
    ("agent", 'page.locator("article.card").locator("button").and_(page.get_by_role("button", pressed=True))', 1),
    ("agent", 'page.locator("article.card").locator(page.locator("button").first)', 3),
    ("agent", 'page.locator("article.card").locator(page.get_by_role("button").last)', 2),
    ("agent", 'page.locator("#data tr").locator(page.locator("td").last)', 2),
    ("agent", 'page.locator("ul.todo li").locator(page.locator("b").or_(page.locator("span")))', 2),
    ("agent", 'page.locator("article.card").locator(page.locator("h3")).nth(1)', 1),
    ("role", 'page.get_by_title("titl")', 1),
    ("role", 'page.get_by_title("Titled", exact=True)', 1),
    ("role", 'page.get_by_alt_text("logo")', 1),
    ("role", 'page.get_by_alt_text("save")', 1),
    ("role", 'page.get_by_role("button").filter(has_text="save")', 5),
    ("role", 'page.get_by_role("list").get_by_role("listitem").nth(-1)', 1),
    ("nth", 'page.locator(".dup").first', 1),
    ("nth", 'page.locator(".dup").nth(3)', 1),
    ("nth", 'page.locator("a").filter(has_text="link").last', 1),
]


@pytest.fixture(scope="module")
def oracle():
    o = Oracle()
    try:
        yield o
    finally:
        o.close()


@pytest.mark.parametrize("case", CASES, ids=[f"{f}:{e}" for f, e, _ in CASES])
def test_locator_chain_matches_playwright(oracle: Oracle, case: tuple[str, str, int]) -> None:
    fixture, expression, n = case
    oracle.load(FIXTURES[fixture])
    ours_locator = eval(expression, {"page": _Builder(), "re": re})  # noqa: S307 - test data
    assert isinstance(ours_locator, Locator)
    selector = str(ours_locator)
    theirs = oracle.theirs("pw:" + expression[len("page."):])
    ours = oracle.ours(selector)
    assert ours == theirs, f"{expression} -> {selector!r}: ours {ours} != Playwright {theirs}"
    assert len(ours) == n, (expression, ours)
    assert oracle.ours_count(selector) == len(theirs), f"{selector!r}: count differs"
