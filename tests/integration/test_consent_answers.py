"""The agent gets the person's answer (issue 32, point 2): a yes lets the action through, a no is
its own outcome, ``ConsentRefused`` (``EGO_CONSENT_REFUSED``) carrying the person's note, raised
by the agent's wait. The person answers as a person does: in the dashboard (a real browser), or
with the CLI (``ego-browser confirm`` sets the rule, ``spaces give-back --note`` answers).

Every wait is on an outcome (a DOM state, a host state, a line a round prints).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

import ego_browser
from ego_browser.errors import ConsentRefused, ConsentRequired
from tests.integration.test_dashboard import dash, viewer  # noqa: F401 - fixtures
from tests.integration.test_handoffs import ROOT, _until, _waiting

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

SHOP = """<button id="place" onclick="window.placed = (window.placed || 0) + 1">Place order</button>
<form method="post" action="/answers/order"><input name="item" value="kettle"><button id="go">Send</button></form>"""


async def _notice(viewer, space_id: int) -> None:
    """The dashboard's notice that the space needs the person: they click it (it opens the space)."""
    await viewer.wait_for_function("() => [...document.querySelectorAll('#notices .notice')]"
                                   ".some((n) => n.textContent.includes('consent-answers\" needs you'))")
    await viewer.click('#notices .notice:has-text("needs you") >> nth=-1')  # the newest
    await viewer.wait_for_function(
        "(id) => document.getElementById('sp-title').textContent.endsWith('#' + id)", space_id)


async def _card_button(viewer, space_id: int, kind: str) -> str:
    """The overview's card of the space, once it asks: its Allow or Refuse button."""
    await viewer.evaluate("() => { location.hash = '#/'; }")
    selector = f'section.card[data-space="{space_id}"] button.{kind}'
    await viewer.wait_for_function("(sel) => !!document.querySelector(sel)", selector)
    return selector


async def test_the_person_answers_in_the_dashboard_and_the_agent_gets_it(host, dash, viewer, server):
    server.route("/answers/order", "<title>Ordered</title>done")
    t = await ego_browser.task_space("consent-answers")
    try:
        page = t.page("p1")
        url = server.page("/answers/shop.html", SHOP, title="Shop")
        await page.goto(url)
        before = server.count("/answers/order")
        await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None, "click": ["place order"],
                                            "post": ["127.0.0.1"]})

        # a listed control; the person refuses with a reason typed in the space's view
        with pytest.raises(ConsentRequired, match="Place order"):
            await page.click("#place")
        waiting = asyncio.create_task(t.wait_for_control(timeout=120000))
        await _notice(viewer, t.space_id)
        await viewer.wait_for_function("document.getElementById('sp-owner').textContent === 'needs you'")
        assert "Place order" in await viewer.evaluate("document.getElementById('sp-status').textContent")
        await _until(_waiting(host, t.space_id), "the agent waits for the answer")
        await viewer.fill("#sp-note", "no: that is the wrong address")
        await viewer.click("#sp-give")
        with pytest.raises(ConsentRefused, match="wrong address") as refused:
            await asyncio.wait_for(waiting, 30)
        assert refused.value.code == "EGO_CONSENT_REFUSED"
        assert refused.value.note == "no: that is the wrong address"
        assert refused.value.action == 'click "Place order"'
        assert await page.evaluate("window.placed || 0") == 0  # the click never happened

        # a form post held in the browser; the person clicks Allow on the overview's card
        with pytest.raises(ConsentRequired, match="send a form"):
            await page.click("#go")
        waiting = asyncio.create_task(t.wait_for_control(timeout=120000))
        await _notice(viewer, t.space_id)
        allow = await _card_button(viewer, t.space_id, "allow")
        await _until(_waiting(host, t.space_id), "the agent waits for the answer")
        await viewer.click(allow)
        back = await asyncio.wait_for(waiting, 30)
        assert back["note"] == "yes"
        await page.wait_for_url("**/answers/order")  # the held post went on by itself
        assert server.count("/answers/order") == before + 1

        # the same post again; Refuse: nothing reaches the server, the tab stays where it was
        await page.goto(url)
        with pytest.raises(ConsentRequired):
            await page.click("#go")
        waiting = asyncio.create_task(t.wait_for_control(timeout=120000))
        await _notice(viewer, t.space_id)
        refuse = await _card_button(viewer, t.space_id, "refuse")
        await _until(_waiting(host, t.space_id), "the agent waits for the answer")
        await viewer.click(refuse)
        with pytest.raises(ConsentRefused) as refused:
            await asyncio.wait_for(waiting, 30)
        assert refused.value.note == "no" and refused.value.action.startswith("send a form (POST) to http://127.0.0.1")
        assert server.count("/answers/order") == before + 1
        assert await page.evaluate("location.pathname") == "/answers/shop.html"
    finally:
        await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None, "click": None})
        await t.finish(keep=[])


WAITER = """
task = await task_space("consent-cli")
page = task.page("p1")
for attempt in range(2):
    try:
        await page.click("#place")
    except ego_browser.ConsentRequired as exc:
        print("asked", exc.code, flush=True)
    try:
        back = await task.wait_for_control(timeout=120000)
        print("answered", json.dumps(back["note"]), flush=True)
    except ego_browser.ConsentRefused as exc:
        print("refused", exc.code, json.dumps([exc.action, exc.note]), flush=True)
await page.click("#place")
print("placed", await page.evaluate("window.placed || 0"), flush=True)
"""


def test_a_rule_set_with_the_cli_and_answered_with_give_back(fresh_rounds, server):
    url = server.page("/answers/cli.html", SHOP, title="Shop")
    first = fresh_rounds.run(f"""
task = await task_space("consent-cli")
await task.page("p1").goto({url!r})
print(task.space_id)
""")
    assert first.returncode == 0, first.stderr
    space_id = first.stdout.strip().splitlines()[-1]
    rule = fresh_rounds.cli("confirm", "--space", space_id, "--click", "place order")
    assert rule.returncode == 0, rule.stderr

    # the person answers before any round waits: the next round's wait gets the refusal
    asked = fresh_rounds.run('task = await task_space("consent-cli")\n'
                             'try:\n    await task.page("p1").click("#place")\n'
                             'except ego_browser.ConsentRequired as exc:\n    print("asked", exc.code)\n')
    assert "asked EGO_CONSENT_REQUIRED" in asked.stdout, asked.stderr
    assert fresh_rounds.cli("spaces", "give-back", space_id, "--note", "not today").returncode == 0
    later = fresh_rounds.run('task = await task_space("consent-cli")\n'
                             'try:\n    await task.wait_for_control(timeout=60000)\n'
                             'except ego_browser.ConsentRefused as exc:\n    print("refused", exc.code, exc.note)\n')
    assert "refused EGO_CONSENT_REFUSED not today" in later.stdout, later.stderr

    # a round that waits: a no, then a yes; the click goes through once, after the yes
    waiter = subprocess.Popen(
        [sys.executable, "-m", "ego_browser"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=fresh_rounds.env, cwd=str(ROOT))
    waiter.stdin.write(WAITER)
    waiter.stdin.close()
    try:
        assert waiter.stdout.readline().strip() == "asked EGO_CONSENT_REQUIRED"
        gave = fresh_rounds.cli("spaces", "give-back", space_id, "--note", "no, ask me tomorrow")
        assert gave.returncode == 0, gave.stderr
        line = waiter.stdout.readline().strip()
        assert line.startswith("refused EGO_CONSENT_REFUSED "), line + waiter.stderr.read()
        assert json.loads(line.split(" ", 2)[2]) == ['click "Place order"', "no, ask me tomorrow"]
        assert waiter.stdout.readline().strip() == "asked EGO_CONSENT_REQUIRED"
        assert fresh_rounds.cli("spaces", "give-back", space_id, "--note", "yes").returncode == 0
        assert waiter.stdout.readline().strip() == 'answered "yes"'
        assert waiter.stdout.readline().strip() == "placed 1"
        assert waiter.wait(60) == 0
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
