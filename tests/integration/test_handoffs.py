"""Hand-offs that wait (issue 32, points 3 and 4): the agent asks the person, the space says
"needs you", the person acts through the dashboard (a real browser) and gives it back with a
note, the agent's waiting call returns with the note and what changed.

Every wait is on an outcome (a DOM state, a host state, the waiting call's result).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ego_browser
from ego_browser.errors import EgoTimeout, TaskSpaceUserInControl
from ego_browser.states import Ownership
from tests.integration.test_dashboard import _open_space, _until, dash, viewer  # noqa: F401 - fixtures
from tests.server import Response

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

ROOT = Path(__file__).resolve().parents[2]

LOGIN = """<!doctype html><title>Sign in</title>
<form method="post" action="/2fa/password"><input id="user" name="user"><input id="pw" name="pw" type="password">
<button id="next">Next</button></form>"""

#: the one-time-code page: its field covers the page, so a click anywhere in the live view focuses it
OTP = """<!doctype html><title>Enter your code</title>
<style>#code{position:fixed;inset:0;width:100vw;height:100vh;font-size:40px}</style>
<form method="post" action="/2fa/verify"><input id="code" name="code" autocomplete="one-time-code"></form>"""

CODE = "493817"


def _two_factor(server) -> str:
    """A log-in that asks for a one-time code; /2fa/verify accepts only CODE."""
    server.route("/2fa/login.html", Response(LOGIN))
    server.route("/2fa/password", lambda req: Response("", status=303, headers={"Location": "/2fa/otp.html"}))
    server.route("/2fa/otp.html", Response(OTP))

    def verify(req):
        ok = req.body == f"code={CODE}".encode()
        return Response("<title>Welcome</title><h1>Signed in</h1>" if ok else "<title>Wrong code</title>")

    server.route("/2fa/verify", verify)
    return server.url("/2fa/login.html")


@pytest.fixture
def notifications(tmp_path, monkeypatch):
    """A notify-send on PATH that records what it was asked to show."""
    log = tmp_path / "notified.txt"
    tool = tmp_path / "bin" / "notify-send"
    tool.parent.mkdir()
    tool.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> {log}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    return log


async def test_a_two_factor_code_entered_by_the_person_through_the_dashboard(host, dash, viewer, server,
                                                                             notifications):
    url = _two_factor(server)
    t = await ego_browser.task_space("two-factor")
    agent_ops: list[str] = []

    def count(op, args, phase, error):  # the agent's requests on the space while the person holds it
        if phase == "start" and args.get("space") == t.space_id and not op.startswith("spaces.") and \
                host.store.space(t.space_id).ownership != Ownership.AGENT:  # spaces.*: the person's own
            agent_ops.append(op)

    ask = None
    try:
        page = t.page("p1")
        await page.goto(url)
        await page.fill("#user", "octocat")
        await page.fill("#pw", "not-a-real-one")
        await page.click("#next")
        await page.wait_for_url("**/2fa/otp.html")
        ask = asyncio.create_task(t.ask_human("Enter the code from your phone", timeout=120000))
        await _until(_reason(host, t.space_id, "needs_you"), "the space needs the person")
        host.request_listeners.append(count)

        # the space says so: in spaces, in the dashboard, as a desktop notification
        rows = {s["id"]: s for s in await ego_browser.list_task_spaces()}
        assert rows[t.space_id]["ownership"] == Ownership.DELEGATED and rows[t.space_id]["reason"] == "needs_you"
        assert rows[t.space_id]["status"] == "Enter the code from your phone"
        await _open_space(viewer, t.space_id)
        await viewer.wait_for_function("document.getElementById('sp-owner').textContent === 'needs you'")
        await _until(_has(notifications, "Enter the code from your phone"), "a desktop notification")
        assert not ask.done()

        # a second round attaches to read and wait; it may look, it may not act
        again = await ego_browser.task_space("two-factor")
        assert again.space_id == t.space_id and again.ownership == Ownership.DELEGATED
        assert (await again.page("p1").url()).endswith("/2fa/otp.html")
        with pytest.raises(TaskSpaceUserInControl):
            await again.page("p1").fill("#code", "000000")

        # the person clicks into the live view, types the code, submits it and gives the space back
        await viewer.wait_for_function("!!document.getElementById('live-img').naturalWidth")
        await viewer.click("#live-img")
        await viewer.keyboard.type(CODE)
        await viewer.keyboard.press("Enter")

        async def signed_in() -> bool:
            info = host.browser.targets.get(page.target_id) or {}
            return info.get("title") == "Welcome"

        await _until(signed_in, "the code accepted")
        assert not ask.done()
        await viewer.fill("#sp-note", "code entered, you are signed in")
        await viewer.click("#sp-give")
        back = await asyncio.wait_for(ask, 30)
        assert back["note"] == "code entered, you are signed in"
        assert back["url"].endswith("/2fa/verify") and back["title"] == "Welcome"
        assert back["before"]["url"].endswith("/2fa/otp.html") and back["before"]["title"] == "Enter your code"
        assert back["changed"] == ["url", "title"]
        assert back["resumed_after_ms"] <= 1000  # woken by the give-back itself, not by a poll
        # the agent resumes; it sent nothing while the person held the space but its reads
        assert await page.inner_text("h1") == "Signed in"
        host.request_listeners.remove(count)
        # the second round's read, then its fill, refused at the gate: no action reached the page
        assert agent_ops == ["page.url", "page.fill"]
        assert host.features.dashboard.notes.get(t.space_id) is None  # the waiting call took the note
    finally:
        if ask is not None and not ask.done():
            ask.cancel()
        if count in host.request_listeners:
            host.request_listeners.remove(count)
        if host.store.space(t.space_id).ownership != Ownership.AGENT:
            await host.handle("spaces.give_back", {"space": t.space_id})
        await t.finish(keep=[])


async def test_an_ask_that_times_out_leaves_the_space_with_the_person(host, server):
    t = await ego_browser.task_space("ask-timeout")
    try:
        await t.page("p1").goto(server.page("/ask-timeout.html", "<input>", title="Form"))
        with pytest.raises(EgoTimeout, match="stays theirs"):
            await t.ask_human("Solve the CAPTCHA", timeout=300)
        assert host.store.space(t.space_id).ownership == Ownership.DELEGATED
        with pytest.raises(EgoTimeout):
            await t.wait_for_control(timeout=200)
        waiting = asyncio.create_task(t.wait_for_control(timeout=60000))
        await _until(_waiting(host, t.space_id), "a call waiting for the space")
        await host.handle("spaces.give_back", {"space": t.space_id, "note": "solved"})
        back = await asyncio.wait_for(waiting, 30)
        assert back["note"] == "solved" and back["title"] == "Form" and back["changed"] == []
        assert (await t.wait_for_control())["note"] is None  # the agent's already: at once
    finally:
        await t.finish(keep=[])


def test_a_long_wait_outlives_the_usual_request_deadline(monkeypatch):
    from ego_browser.client.channel import reply_deadline
    monkeypatch.setenv("EGO_BROWSER_REQUEST_DEADLINE", "5")
    hour = 3_600_000
    assert reply_deadline("task.ask_human", {"timeout": hour}) > 3600
    assert reply_deadline("task.wait_for_control", {"timeout": hour}) > 3600


def test_a_round_attaches_to_a_space_the_person_took_over_and_waits_for_the_note(fresh_rounds, server):
    url = server.page("/held.html", "<p>hello</p>", title="Held")
    first = fresh_rounds.run(f"""
task = await task_space("held")
await task.page("p1").goto({url!r})
print(task.space_id)
""")
    assert first.returncode == 0, first.stderr
    space_id = first.stdout.strip().splitlines()[-1]
    assert fresh_rounds.cli("spaces", "take-over", space_id).returncode == 0
    listing = fresh_rounds.cli("spaces", "--json")
    row = next(s for s in json.loads(listing.stdout)["spaces"] if str(s["id"]) == space_id)
    assert row["ownership"] == Ownership.USER and row["reason"] == "manual_takeover"
    waiter = subprocess.Popen(
        [sys.executable, "-m", "ego_browser"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=fresh_rounds.env, cwd=str(ROOT))
    waiter.stdin.write("""
task = await task_space("held")
print("ownership", task.ownership, flush=True)
print("reads", await task.page("p1").title(), flush=True)
try:
    await task.page("p1").click("p")
except EgoError as exc:
    print("acts", exc.code, flush=True)
back = await task.wait_for_control(timeout=120000)
print("back", json.dumps(back), flush=True)
await task.page("p1").click("p")
print("acted", flush=True)
""")
    waiter.stdin.close()
    try:
        lines = [waiter.stdout.readline().strip() for _ in range(3)]
        assert lines == ["ownership user", "reads Held", "acts EGO_TASK_SPACE_USER_IN_CONTROL"], lines
        gave = fresh_rounds.cli("spaces", "give-back", space_id, "--note", "all yours again")
        assert gave.returncode == 0, gave.stderr
        given = time.monotonic()
        back = waiter.stdout.readline()
        resumed = time.monotonic() - given
        assert back.startswith("back "), waiter.stderr.read()
        assert json.loads(back[5:])["note"] == "all yours again"
        assert resumed < 5  # the round's own start-up is not in it: the wait ends on the give-back
        assert waiter.stdout.readline().strip() == "acted"
        assert waiter.wait(60) == 0
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()


def _reason(host, space_id: int, reason: str):
    async def check() -> bool:
        return host.store.space(space_id).reason == reason
    return check


def _waiting(host, space_id: int):
    async def check() -> bool:
        return host.handoffs.waiting(space_id)
    return check


def _has(path: Path, text: str):
    async def check() -> bool:
        return path.exists() and text in path.read_text()
    return check
