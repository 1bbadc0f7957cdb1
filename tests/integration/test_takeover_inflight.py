"""A take-over stops the agent's actions in flight (issue 9, point 3).

The person's ``spaces take-over`` must win over an action that is already running: the
request fails with ``EGO_TASK_SPACE_USER_IN_CONTROL`` and no input of it reaches the page,
even when its element only appears afterwards. ``claim_task_space`` cannot take the space
back from the person either.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

import ego_browser
from ego_browser.errors import TaskSpaceUserInControl
from tests.conftest import ROOT
from tests.server import Response

#: a button appears only when the test releases /<path>-release (a held request); it counts
#: clicks in the page and tells the server
LATE = """<p>waiting</p><input id=f>
<script>
window.clicks = 0;
fetch('{release}').then(() => {{
  const b = document.createElement('button');
  b.id = 'late'; b.textContent = 'Late';
  b.style.cssText = 'width:120px;height:40px';
  b.onclick = () => {{ window.clicks++; fetch('{clicked}'); }};
  document.body.appendChild(b);
}});
</script>"""


def _held(server, path: str) -> threading.Event:
    """Route ``path`` to a response held until the returned event is set (bounded)."""
    release = threading.Event()

    def hold(_req):
        release.wait(60)
        return Response("ok", content_type="text/plain")

    server.route(path, hold)
    return release


async def _until(predicate, what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.01)  # polls host state the test cannot await


async def test_take_over_stops_a_click_waiting_for_its_element(task, host, server):
    release = _held(server, "/to3-release")
    server.route("/to3-clicked", Response("ok", content_type="text/plain"))
    page = task.page("p1")
    try:
        await page.goto(server.page("/to3", LATE.format(release="/to3-release", clicked="/to3-clicked")))
        driver = host.drivers[page.target_id]
        click = asyncio.ensure_future(page.click("#late", timeout=30000))
        # the click holds the page's input lock while it waits for its element
        await _until(driver.input_lock.locked, "the click started")
        await host.handle("spaces.take_over", {"space": task.space_id})
    finally:
        release.set()  # the element appears now
    with pytest.raises(TaskSpaceUserInControl) as info:
        await click
    assert info.value.code == "EGO_TASK_SPACE_USER_IN_CONTROL" and info.value.reason == "manual_takeover"
    assert info.value.space_id == task.space_id
    await host.handle("spaces.give_back", {"space": task.space_id})
    await page.wait_for_selector("#late")
    # a later action is served at once: nothing of the stopped click is still queued on the page
    await page.fill("#f", "after")
    assert await page.evaluate("window.clicks") == 0
    assert server.count("/to3-clicked") == 0


async def test_input_dispatch_rechecks_the_gate(task, host, server):
    """The driver's input path itself refuses input to a tab whose space the person holds."""
    from ego_browser.driver.act import input_state

    page = task.page("p1")
    await page.goto(server.page("/to3-gate", "<button id=b style='width:200px;height:60px'"
                                " onclick='window.clicks=(window.clicks||0)+1'>b</button><input id=f>"))
    await page.focus("#f")
    driver = host.drivers[page.target_id]
    mouse, keyboard = input_state(driver, "probe")
    await host.handle("spaces.take_over", {"space": task.space_id})
    try:
        for attempt in (lambda: mouse.click(50, 20, button="left", click_count=1, delay=0),
                        lambda: keyboard.insert_text("typed"), lambda: keyboard.press("a", delay=0)):
            with pytest.raises(TaskSpaceUserInControl):
                await attempt()
    finally:
        await host.handle("spaces.give_back", {"space": task.space_id})
    assert await page.evaluate("[window.clicks || 0, document.querySelector('#f').value]") == [0, ""]


async def test_hand_off_stops_the_agents_other_requests(task, host, server):
    release = _held(server, "/to3h-release")
    page = task.page("p1")
    try:
        await page.goto(server.page("/to3h", LATE.format(release="/to3h-release", clicked="/to3h-clicked")))
        driver = host.drivers[page.target_id]
        click = asyncio.ensure_future(page.click("#late", timeout=30000))
        await _until(driver.input_lock.locked, "the click started")
        await task.hand_off()  # the hand-off itself is not stopped
    finally:
        release.set()
    with pytest.raises(TaskSpaceUserInControl) as info:
        await click
    assert info.value.reason == "handed_off"
    await ego_browser.take_over_task_space(task.space_id)
    await page.wait_for_selector("#late")
    assert await page.evaluate("window.clicks") == 0


async def test_claim_refuses_a_space_the_person_took_over(task, host):
    await host.handle("spaces.take_over", {"space": task.space_id})
    try:
        with pytest.raises(TaskSpaceUserInControl) as info:
            await ego_browser.claim_task_space(task.space_id)
        assert info.value.reason == "manual_takeover" and "give-back" in str(info.value)
        listed = {s["id"]: s for s in await ego_browser.list_task_spaces()}
        assert listed[task.space_id]["ownership"] == "user"
    finally:
        await host.handle("spaces.give_back", {"space": task.space_id})
    # given back: the agent has it again, and a finished (user-owned) space is still claimable
    assert await task.page("p1").evaluate("1 + 1") == 2


def test_cli_take_over_stops_a_round_mid_click(rounds, server):
    """The real CLI against the background host: the round's click fails with the code."""
    release = _held(server, "/to3c-release")
    moved = threading.Event()

    def on_move(_req):
        moved.set()
        return Response("ok", content_type="text/plain")

    server.route("/to3c-moved", on_move)
    # the button is there but dodges the pointer: the click's first move hides it (and tells
    # the test), and it comes back only once the test releases it
    url = server.page("/to3c", """<button id=late style='width:160px;height:50px'
 onclick="window.clicks=(window.clicks||0)+1; fetch('/to3c-clicked')">Late</button>
<script>
const b = document.getElementById('late');
b.addEventListener('mousemove', () => {
  if (b.dataset.moved) return;
  b.dataset.moved = '1'; b.style.display = 'none';
  fetch('/to3c-moved');
  fetch('/to3c-release').then(() => { b.style.display = ''; });
}, {once: true});
</script>""")
    server.route("/to3c-clicked", Response("ok", content_type="text/plain"))
    setup = rounds.run(f"task = await task_space('to3-cli')\nawait task.page('p1').goto({url!r})\nprint(task.space_id)\n")
    assert setup.returncode == 0, setup.stderr
    space_id = setup.stdout.strip()
    script = (
        f"task = await task_space({space_id})\n"
        "try:\n"
        "    await task.page('p1').click('#late', timeout=30000)\n"
        "    print('clicked')\n"
        "except ego_browser.TaskSpaceUserInControl as e:\n"
        "    print(e.code, e.reason)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "ego_browser", "-e", script], env=rounds.env, cwd=str(ROOT), text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        assert moved.wait(60), "the round's click never reached the button"
        taken = rounds.cli("spaces", "take-over", space_id)
        assert taken.returncode == 0, taken.stderr
    finally:
        release.set()
    out, err = proc.communicate(timeout=60)
    assert out.strip().splitlines()[-1:] == ["EGO_TASK_SPACE_USER_IN_CONTROL manual_takeover"], (out, err)
    assert rounds.cli("spaces", "give-back", space_id).returncode == 0
    after = rounds.run(f"task = await task_space({space_id})\np = task.page('p1')\n"
                       "await p.wait_for_function(\"() => getComputedStyle(document.getElementById('late')).display"
                       " !== 'none'\")\nprint(await p.evaluate('window.clicks || 0'))\nawait task.finish(keep=[])\n")
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip() == "0" and server.count("/to3c-clicked") == 0
