"""Issue 33 §4-§5: the trace's pictures stay within their caps, old spaces' pictures rotate, and
the Playwright script reads a journal's targets as Playwright locators."""

from __future__ import annotations

import asyncio
import base64

from ego_browser.host.features import trace_pictures
from ego_browser.host.features.trace_pictures import Pictures
from ego_browser.trace.playwright_script import locator_code, playwright_script


class _Session:
    def __init__(self, size: int) -> None:
        self.size = size
        self.calls = 0

    async def send(self, method, params, timeout):
        self.calls += 1
        return {"data": base64.b64encode(b"\xff" * self.size).decode()}


class _Driver:
    def __init__(self, target: str, size: int = 1000) -> None:
        self.target_id = target
        self.dialogs = None
        self.session = _Session(size)


async def _take(pictures: Pictures, space: int, driver: _Driver, n: int) -> list[str | None]:
    names = []
    for _ in range(n):
        names.append(pictures.schedule(space, "p1", driver))
        await pictures.settle()
    return names


async def test_a_space_pictures_stay_under_their_cap_the_oldest_going_first(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    monkeypatch.setattr(trace_pictures, "MAX_SPACE_BYTES", 10_000)
    pictures = Pictures(tmp_path)
    names = await _take(pictures, 1, _Driver("t1"), 30)
    kept = pictures.files(1)
    assert sum(p.stat().st_size for p in kept.values()) <= 10_000
    assert set(kept) == set(names[-len(kept):]) and len(kept) >= 5  # the newest stay


async def test_only_so_many_spaces_keep_pictures(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    monkeypatch.setattr(trace_pictures, "MAX_SPACES", 3)
    pictures = Pictures(tmp_path)
    for space in range(1, 6):
        await _take(pictures, space, _Driver(f"t{space}"), 1)
        await asyncio.sleep(0.01)  # distinct folder times
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3", "4", "5"]


async def test_a_burst_of_actions_takes_the_last_picture_and_one_capture_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    pictures = Pictures(tmp_path)
    driver = _Driver("t1")
    names = [pictures.schedule(1, "p1", driver) for _ in range(5)]
    await pictures.settle()
    kept = pictures.files(1)
    assert names[0] in kept and names[-1] in kept and driver.session.calls <= 2
    assert pictures.last[(1, "p1")] == names[-1]


async def test_pictures_off(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "0")
    pictures = Pictures(tmp_path)
    assert pictures.schedule(1, "p1", _Driver("t1")) is None


def test_playwright_locators_from_journal_targets():
    assert locator_code({"locator": "data-testid=book-title"}) == 'page.get_by_test_id("book-title")'
    assert locator_code({"locator": "id=author"}) == 'page.locator("[id=\\"author\\"]")'
    assert locator_code({"locator": 'label="Search books"'}) == 'page.get_by_label("Search books", exact=True)'
    assert locator_code({"locator": 'role=button[name="Save book"]'}) == (
        'page.get_by_role("button", name="Save book", exact=True)')
    assert locator_code({"locator": 'css=input[name="q"]'}) == 'page.locator("input[name=\\"q\\"]")'
    assert locator_code({"locator": None, "given": "@12"}) is None  # a ref means nothing in another load
    assert locator_code({"locator": None, "given": "@12", "role": "link", "name": "Next"}) == (
        'page.get_by_role("link", name="Next", exact=True)')


def test_playwright_script_answers_a_dialog_before_the_action_that_opens_it():
    journal = {"space_id": 4, "rounds": [{"n": 1, "status": "ok", "actions": [
        {"op": "page.goto", "page": "p1", "value": "http://x/a", "outcome": "ok", "url_after": "http://x/a"},
        {"op": "page.click", "page": "p1", "target": {"locator": "id=del"}, "outcome": "ok",
         "dialog": {"type": "confirm", "message": "Sure?"}, "url_after": "http://x/a"},
        {"op": "page.accept_dialog", "page": "p1", "outcome": "ok"},
        {"op": "page.click", "page": "p1", "target": {"given": "#gone"}, "outcome": "error", "error": "EGO_TIMEOUT"},
    ]}]}
    source = playwright_script(journal)
    compile(source, "replay.py", "exec")
    body = source.split("def replay(page: Page) -> None:")[1]
    assert body.index('page.once("dialog", lambda d: d.accept())') < body.index('locator("[id=\\"del\\"]").click()')
    assert "# not replayed: page.click failed when recorded (EGO_TIMEOUT)" in body
    assert 'expect(page).to_have_url("http://x/a")' in body
