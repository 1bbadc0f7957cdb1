"""Issue 33 §4-§5: the trace's pictures stay within their caps, old spaces' pictures rotate, and
the Playwright script reads a journal's targets as Playwright locators."""

from __future__ import annotations

import asyncio
import base64

from ego_browser.host.core.admission import Admission
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


async def test_every_action_of_a_burst_has_a_picture_after_it(tmp_path, monkeypatch):
    """Actions that come while a capture runs share the one queued behind it: no action of the
    trace (or of its video) is left without a picture."""
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    pictures = Pictures(tmp_path)
    driver = _Driver("t1")
    names = [pictures.schedule(1, "p1", driver) for _ in range(6)]
    await pictures.settle()
    kept = pictures.files(1)
    assert all(n in kept for n in names) and len(set(names)) == 2 and driver.session.calls == 2


def _jpeg(tag: bytes) -> str:
    return base64.b64encode(b"\xff\xd8" + tag).decode()


async def test_pictures_come_from_a_running_cast_without_a_capture(tmp_path, monkeypatch):
    """A page cast already (the dashboard's live view): the picture after an action is the cast's
    first frame drawn after it, and the page is not captured again."""
    import time

    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    pictures = Pictures(tmp_path)
    driver = _Driver("t1")
    pictures.cast_started("t1")
    pictures.cast_frame("t1", _jpeg(b"before"), time.time() - 5, 894)
    names = []
    for i in range(3):
        started = time.time()
        names.append(pictures.schedule(1, "p1", driver, started))
        await asyncio.sleep(0)
        pictures.cast_frame("t1", _jpeg(b"after %d" % i), time.time(), 894)
        await pictures.settle()
    kept = pictures.files(1)
    assert [kept[n].read_bytes() for n in names] == [b"\xff\xd8after %d" % i for i in range(3)]
    assert driver.session.calls == 0 and pictures.from_cast == 3 and pictures.captured == 0


async def test_a_cast_that_shows_nothing_newer_falls_back_to_a_capture(tmp_path, monkeypatch):
    """No frame since before the action (the page did not change, or the cast missed it), frames
    too small to be a picture (list thumbnails), or the cast gone: the page is captured."""
    import time

    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    monkeypatch.setattr(trace_pictures, "CAST_WAIT", 0.05)
    pictures = Pictures(tmp_path)
    driver = _Driver("t1", size=10)
    pictures.cast_started("t1")
    pictures.cast_frame("t1", _jpeg(b"old"), time.time() - 5, 894)
    stale = pictures.schedule(1, "p1", driver, time.time())
    await pictures.settle()
    pictures.cast_frame("t1", _jpeg(b"thumb"), time.time() + 1, 200)
    thumb = pictures.schedule(1, "p1", driver, time.time())
    await pictures.settle()
    # drawn during the action, nothing since: the page shows the action's change already
    pictures.cast_frame("t1", _jpeg(b"during"), time.time(), 894)
    during = pictures.schedule(1, "p1", driver, time.time() - 1)
    await pictures.settle()
    pictures.cast_paused("t1")
    paused = pictures.schedule(1, "p1", driver, time.time() - 1)
    await pictures.settle()
    pictures.cast_stopped("t1")
    gone = pictures.schedule(1, "p1", driver, time.time())
    await pictures.settle()
    kept = pictures.files(1)
    assert kept[during].read_bytes() == b"\xff\xd8during"
    assert all(kept[n].read_bytes() == b"\xff" * 10 for n in (stale, thumb, paused, gone))
    assert driver.session.calls == 4 and pictures.from_cast == 1


async def _busy(adm: Admission, release: asyncio.Event) -> list[asyncio.Future[None]]:
    """Two agents' calls holding the host's one turn until ``release``: one runs, one waits."""

    async def hold() -> None:
        async with adm.turn("page.goto", 60):
            await release.wait()

    calls = [asyncio.ensure_future(hold()) for _ in range(2)]
    while adm.queued < 1:
        await asyncio.sleep(0)
    return calls


async def test_captures_yield_to_agents_calls_waiting_for_a_turn(tmp_path, monkeypatch):
    """Many agents, few turns (issue 31 §2): while calls wait for a turn a capture not yet started
    waits too, and the page's actions meanwhile share it (each still has a picture after it); a
    trace export takes it at once. With no call waiting, a capture starts at once, as before."""
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    adm = Admission(limit=1, queue_max=8, wait=30)
    pictures = Pictures(tmp_path, admission=lambda: adm)
    driver = _Driver("t1")
    alone = pictures.schedule(1, "p1", driver)
    await pictures.settle()
    assert driver.session.calls == 1 and alone in pictures.files(1) and pictures.yielded == 0

    release = asyncio.Event()
    calls = await _busy(adm, release)
    names = []
    for _ in range(3):  # three actions, each returning while another agent's call waits
        names.append(pictures.schedule(1, "p1", driver))
        for _ in range(10):
            await asyncio.sleep(0)  # the capture task runs as far as it can
    assert driver.session.calls == 1 and pictures.pending("t1") and len(set(names)) == 1
    await pictures.settle()  # an export does not wait for the agents
    assert driver.session.calls == 2 and names[0] in pictures.files(1) and not pictures.pending("t1")
    assert pictures.yielded == 1 and pictures.last[(1, "p1")] == names[-1]
    release.set()
    await asyncio.gather(*calls)


async def test_a_yielding_capture_starts_once_no_call_waits(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_TRACE_PICTURES", "1")
    adm = Admission(limit=1, queue_max=8, wait=30)
    pictures = Pictures(tmp_path, admission=lambda: adm)
    driver = _Driver("t1")
    release = asyncio.Event()
    calls = await _busy(adm, release)
    name = pictures.schedule(1, "p1", driver)
    for _ in range(10):
        await asyncio.sleep(0)
    assert driver.session.calls == 0
    release.set()  # the waiting call gets its turn: nobody waits any more
    await asyncio.gather(*calls)
    task = pictures._queued.get("t1") or pictures._running.get("t1")
    if task is not None:
        await asyncio.wait_for(task, 10)
    assert driver.session.calls == 1 and name in pictures.files(1)


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


def test_every_action_has_a_caption_in_the_video(tmp_path):
    """No dropped actions: an action whose picture was skipped (a dialog was open) or shared (a
    burst) still gets its frame and caption; looks (snapshots, status notes) get none."""
    from ego_browser.trace.video import captions

    files = {n: tmp_path / n for n in ("a1.jpg", "a2.jpg")}
    acts = [
        {"op": "page.goto", "value": "http://x/", "outcome": "ok", "picture_before": None, "picture_after": "a1.jpg"},
        {"op": "page.snapshot", "outcome": "ok", "picture_before": "a1.jpg", "picture_after": None},
        {"op": "page.click", "target": {"given": "#open"}, "outcome": "ok", "picture_before": "a1.jpg",
         "picture_after": None},  # a dialog opened: no picture taken
        {"op": "page.accept_dialog", "outcome": "ok", "picture_before": "a1.jpg", "picture_after": "a2.jpg"},
        {"op": "page.fill", "target": {"given": "#q"}, "value": "x", "outcome": "ok", "picture_before": "a2.jpg",
         "picture_after": "a3.jpg"},  # its file went (a full disk)
    ]
    frames = captions({"rounds": [{"n": 1, "actions": acts}]}, files)
    assert [c.split("\n")[1].split(" ")[0] for _, c in frames] == [
        "page.goto", "page.click", "page.accept_dialog", "page.fill"]
    assert [f.name for f, _ in frames] == ["a1.jpg", "a1.jpg", "a2.jpg", "a2.jpg"]
