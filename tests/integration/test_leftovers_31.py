"""Leftovers of the issue 31 probe: a 5,000-deep argument, a 100,000-character name, and a
held page's events (what the person did) kept from the agent."""

from __future__ import annotations

import threading

import pytest

import ego_browser
from ego_browser.errors import InvalidArgument, TaskSpaceUserInControl


async def test_a_deeply_nested_argument_is_invalid_argument_not_recursion_error(task, server):
    page = task.page("p1")
    await page.goto(server.page("/deep-arg", "<p>deep</p>"))
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InvalidArgument) as info:
        await page.evaluate("(a) => Array.isArray(a)", deep)
    assert "nested deeper" in str(info.value)
    shallow: list = []
    for _ in range(100):
        shallow = [shallow]
    assert await page.evaluate("(a) => Array.isArray(a)", shallow) is True


async def test_a_name_of_100000_characters_is_refused(host):
    with pytest.raises(InvalidArgument) as info:
        await ego_browser.task_space("n" * 100_000)
    assert info.value.option == "name_or_id" and "at most 200 characters" in str(info.value)


async def test_a_held_pages_events_are_not_the_agents(task, server, host):
    page = task.page("p1")
    await page.goto(server.page("/held-events", "<p>held</p>"))
    await page.evaluate("console.log('agent-line')")
    assert any("agent-line" in str(e) for e in page.events())
    await host.handle("spaces.take_over", {"space": task.space_id})
    row = next(r for r in host.store.pages(task.space_id) if r.label == page.label)
    driver = host.drivers[row.target_id]
    # the person types in the page: its console says what they typed
    await driver.session.send("Runtime.evaluate", {"expression": "console.log('person-typed-secret')"}, timeout=10)
    with pytest.raises(TaskSpaceUserInControl):
        page.events()
    await host.handle("spaces.give_back", {"space": task.space_id})
    assert not any("person-typed-secret" in str(e) for e in page.events())
    await page.evaluate("console.log('agent-again')")
    assert any("agent-again" in str(e) for e in page.events())


def test_an_odd_row_type_in_the_store_is_a_clear_error(fresh_rounds):
    import sqlite3
    from pathlib import Path

    r = fresh_rounds
    made = r.run("t = await task_space('odd rows')\nprint(t.space_id)\n", timeout=120)
    assert made.returncode == 0, made.stderr
    r.stop()
    db = sqlite3.connect(Path(r.home) / "state.sqlite3")
    db.execute("UPDATE spaces SET ownership = 3")  # a row edited by hand
    db.commit()
    db.close()
    nxt = r.run("t = await task_space('odd rows')\n", timeout=120)
    assert nxt.returncode == 1
    assert "EGO_" in nxt.stderr and "unexpected type" in nxt.stderr and "move the file aside" in nxt.stderr, nxt.stderr
    assert "TypeError" not in nxt.stderr and "ValueError" not in nxt.stderr, nxt.stderr


async def test_a_page_navigating_away_mid_call_is_told_in_the_agents_words(task, server):
    page = task.page("p1")
    server.page("/words-2", "<p>two</p>")
    await page.goto(server.page("/words-1", "<p>one</p>"))
    with pytest.raises(ego_browser.EgoError) as info:
        await page.evaluate("new Promise(r => { setTimeout(() => location.href = '/words-2', 50); })")
    message = str(info.value)
    assert info.value.code == "EGO_CDP_ERROR"
    assert "Runtime." not in message and "Inspected target" not in message, message
    assert "navigated" in message and "page.evaluate" in message and "run it again" in message, message
    # raw CDP keeps the browser's own words: the agent named the method there
    with pytest.raises(ego_browser.EgoError) as raw:
        await page.cdp("Runtime.callFunctionOn", {"functionDeclaration": "() => 1", "executionContextId": 987654})
    assert "context" in str(raw.value).lower()


async def test_a_screenshot_of_a_self_reloading_page_fails_fast_in_the_agents_words(task, server):
    import asyncio

    from ego_browser.errors import InvalidState
    from tests.server import Response

    # the page reloads itself until the test calms it: a goto away from a page in the middle of
    # such a storm races the reload its old document already asked for (the reload can land
    # after the goto's document, measured), which is not what this test is about
    calm = threading.Event()

    def self_reload(_req):
        body = "<p>calm</p>" if calm.is_set() else "<p>again</p><script>location.reload()</script>"
        return Response(f"<!doctype html><title>Test</title>{body}")

    server.route("/self-reload", self_reload)
    page = task.page("p1")
    await page.goto(server.url("/self-reload"), wait_until="commit")
    for kwargs in ({}, {"full_page": True}):
        # inside the 30 s the capture itself would wait
        async with asyncio.timeout(30):
            with pytest.raises(InvalidState) as info:
                await page.screenshot(**kwargs)
        assert "navigated" in str(info.value) and "Page.captureScreenshot" not in str(info.value)
    calm.set()
    await page.wait_for_selector("text=calm")
    await page.goto(server.page("/still", "<p>still</p>"))
    assert await page.screenshot()
