"""A learned tool's steps wait for what was observed and act once (learning/steps.py).

Each step acts on the element it has just checked, by the ref its check returned (the page
does not look for it a second time, and nothing else can take its place); a navigation the
action's receipt saw committed at the expected URL is not looked for again, and a step after a
navigation waits for the document's scripts (DOMContentLoaded), not for its last image.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from ego_browser.client.models import ActionReceipt
from ego_browser.errors import LearnedStepNotFound
from ego_browser.learning.steps import Steps

ORIGIN = "http://shop.test:8080"
CHANGE = r"^http://shop\.test:8080/item/[^/]+/change/(\?|#|$)"


class _Page:
    """The calls a step makes, and a click whose receipt says where it went."""

    def __init__(self, *, went_to=None, matches=1, url=f"{ORIGIN}/item/"):
        self.calls = []
        self.went_to = went_to
        self.matches = matches
        self._url = url

    async def url(self):
        self.calls.append(("url",))
        return self._url

    async def find(self, selector, limit=3):
        self.calls.append(("find", selector))
        return [{"ref": f"@{n + 7}", "role": "link", "name": "Birch Bread Bin"} for n in range(self.matches)]

    async def wait_for_selector(self, selector, state="visible", timeout=10000):
        self.calls.append(("wait_for_selector", selector))
        return False

    async def click(self, selector):
        self.calls.append(("click", selector))
        if self.went_to:
            self._url = self.went_to
            return ActionReceipt(navigation={"url": self.went_to, "committed": True})
        return ActionReceipt()

    async def fill(self, selector, value):
        self.calls.append(("fill", selector, value))
        return ActionReceipt()

    async def goto(self, url, wait_until="load"):
        self.calls.append(("goto", url, wait_until))
        self._url = url
        return ActionReceipt()

    async def wait_for_url(self, matcher, timeout=10000, wait_until="load"):
        self.calls.append(("wait_for_url", wait_until))
        assert matcher.search(self._url)

    async def wait_for_load_state(self, state="load", timeout=10000):
        self.calls.append(("wait_for_load_state", state))


def _ops(page):
    return [c[0] for c in page.calls]


def test_a_step_acts_on_the_element_it_checked_by_its_ref():
    page = _Page()
    steps = Steps(page, tool="edit", origin=ORIGIN)
    asyncio.run(steps.click(2, 'role=link[name="Birch Bread Bin"]', expect={"role": "link", "name": "Birch Bread Bin"}))
    asyncio.run(steps.fill(3, "id=id_price", "19.90", expect={"role": "textbox", "name": "Price"}))
    assert ("click", "@7") in page.calls and ("fill", "@7", "19.90") in page.calls
    assert [c[1] for c in page.calls if c[0] == "find"] == ['role=link[name="Birch Bread Bin"]', "id=id_price"]
    two = _Page(matches=2)
    with pytest.raises(LearnedStepNotFound):  # still strict: two matches act on neither
        asyncio.run(Steps(two, tool="edit", origin=ORIGIN).click(2, "css=a", expect={"role": "link"}))
    assert "click" not in _ops(two)


def test_a_navigation_the_receipt_saw_is_not_looked_for_again():
    page = _Page(went_to=f"{ORIGIN}/item/104/change/")
    asyncio.run(Steps(page, tool="edit", origin=ORIGIN).click(
        2, "css=a.item", expect={"role": "link", "name": "Birch Bread Bin"}, wait_url=CHANGE))
    assert "wait_for_url" not in _ops(page)
    assert ("wait_for_load_state", "domcontentloaded") in page.calls
    assert _ops(page)[-1] == "url"  # the origin still checked where the page is now


def test_a_navigation_the_receipt_did_not_see_is_waited_for_until_its_scripts_ran():
    page = _Page()  # the click's receipt saw no navigation (one started later, by a script)
    page._url = f"{ORIGIN}/item/104/change/"
    asyncio.run(Steps(page, tool="edit", origin=ORIGIN).click(
        2, "css=a.item", expect={"role": "link"}, wait_url=CHANGE))
    assert ("wait_for_url", "domcontentloaded") in page.calls
    other = _Page(went_to=f"{ORIGIN}/elsewhere/")  # committed, but not where the run went
    with pytest.raises(AssertionError):
        asyncio.run(Steps(other, tool="edit", origin=ORIGIN).click(
            2, "css=a.item", expect={"role": "link"}, wait_url=CHANGE))
    assert ("wait_for_url", "domcontentloaded") in other.calls


def test_the_tools_first_page_is_ready_when_its_scripts_ran():
    page = _Page()
    asyncio.run(Steps(page, tool="edit", origin=ORIGIN).goto_query(1, f"{ORIGIN}/item/", [("q", "Birch")]))
    assert page.calls[0] == ("goto", f"{ORIGIN}/item/?q=Birch", "domcontentloaded")
    assert re.search("q=Birch", page._url)


def test_an_element_drawn_again_between_the_check_and_the_action_is_checked_once_more():
    from ego_browser.errors import StaleRef

    class Redrawn(_Page):
        async def click(self, selector):
            if selector == "@7":  # the framework replaced the node the check found
                self.calls.append(("click", selector))
                raise StaleRef("Stale ref: @7; take a new snapshot", ref=7)
            return await super().click(selector)

        async def find(self, selector, limit=3):
            self.calls.append(("find", selector))
            n = sum(1 for c in self.calls if c[0] == "find")
            return [{"ref": f"@{6 + n}", "role": "link", "name": "Birch Bread Bin"}]

    page = Redrawn()
    asyncio.run(Steps(page, tool="edit", origin=ORIGIN).click(2, "css=a.item", expect={"role": "link"}))
    assert [c for c in page.calls if c[0] in ("find", "click")] == [
        ("find", "css=a.item"), ("click", "@7"), ("find", "css=a.item"), ("click", "@8")]


class _Api(_Page):
    """A site whose API answers each call with the next status given."""

    def __init__(self, statuses):
        super().__init__(url=f"{ORIGIN}/lab")
        self.statuses = list(statuses)

    async def fetch(self, url, method="GET", body=None, headers=None):
        self.calls.append(("fetch", method, url, body))
        return {"status": self.statuses.pop(0), "body": '{"error": "untitled.py already exists"}'}


def test_a_call_after_a_failed_one_is_not_made_and_the_tool_stops_there():
    from ego_browser.errors import LearnedPostconditionFailed

    page = _Api([409, 200])
    s = Steps(page, tool="run_code", origin=ORIGIN)

    async def run():
        await s.fetch_json(2, "POST", f"{ORIGIN}/api/contents/new", query=[], body={"name": "untitled.py"})
        await s.fetch_json(3, "POST", f"{ORIGIN}/api/contents/save", query=[], body={"path": "untitled.py"})

    with pytest.raises(LearnedPostconditionFailed, match=r"step 2 .*answered 409.*step 3 and the rest were not made") as e:
        asyncio.run(run())
    assert e.value.step == 2
    assert [c[2] for c in page.calls if c[0] == "fetch"] == [f"{ORIGIN}/api/contents/new"]  # the save never went
