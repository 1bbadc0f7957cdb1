"""Domain allowlists against a late request (issue 32, point 2): a popup's first request may be
paused after the action that opened it has returned (the popup is adopted first). The action must
still fail with ``EGO_NAVIGATION_NOT_ALLOWED``, however late the guard judges that request.

The race is forced, not hoped for: each request for the forbidden server is held back from the
guard until the action has returned (before the fix: the click returned without the error) or
the host waits for the guard's judgement (the fix). Every wait is on an outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest

import ego_browser
from ego_browser.errors import NavigationNotAllowed
from tests.server import Response, TestServer

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.fixture
def outside():
    srv = TestServer()
    srv.fallback = lambda req: Response("<title>outside</title>you got out")
    yield srv
    srv.close()


class LateJudge:
    """Holds every request paused for ``outside`` away from the guard until the action running
    has returned, or until the host is waiting for the guard's judgement."""

    def __init__(self, browser, outside: TestServer) -> None:
        self.browser = browser
        self.prefix = outside.url("/")
        self.action: asyncio.Future | None = None
        self.held = 0
        self._original = browser._paused

    def _waiting(self) -> bool:
        return bool(getattr(self.browser, "_wakers", ()))  # the host waits on the guard's events

    def paused(self, params, sid) -> None:
        late = params.get("request", {}).get("url", "").startswith(self.prefix) and "responseStatusCode" not in params
        if not late or self.action is None:
            self._original(params, sid)
            return
        self.held += 1
        action = self.action

        async def judge_later() -> None:
            while not action.done() and not self._waiting():
                await asyncio.sleep(0.01)
            self._original(params, sid)

        asyncio.get_running_loop().create_task(judge_later())

    async def run(self, coro):
        """Run the action with this judge; its result or its error."""
        self.action = asyncio.ensure_future(coro)
        try:
            return await self.action
        finally:
            self.action = None


@contextlib.contextmanager
def late_judge(host, outside: TestServer) -> Iterator[LateJudge]:
    browser = host.guard.browser
    assert browser.enabled, "set a list first: the judge replaces the guard's listener"
    judge = LateJudge(browser, outside)
    browser._off()
    browser._off = browser.conn.on("Fetch.requestPaused", judge.paused)
    try:
        yield judge
    finally:
        if browser._off is not None:
            browser._off()
            browser._off = browser.conn.on("Fetch.requestPaused", browser._paused)


def _popups(server, out: TestServer) -> str:
    server.route("/race/in.html", Response("<title>inside</title>in"))
    server.route("/race/bounce", Response("", status=302, headers={"Location": out.url("/bounced")}))
    return server.page("/race/popups.html", f"""
<button id="open" onclick="window.open('{out.url('/popup')}')">open</button>
<a id="blank" target="_blank" href="{out.url('/blank-link')}">new window</a>
<a id="noopener" target="_blank" rel="noopener" href="{out.url('/noopener')}">no opener</a>
<form action="{out.url('/form')}" method="post" target="_blank"><button id="post">send</button></form>
<button id="bounce" onclick="window.open('/race/bounce')">bounce</button>
<button id="inside" onclick="window.open('/race/in.html')">inside</button>
<button id="empty" onclick="window.open()">empty</button>""", title="Popups")


async def _close_popups(t) -> None:
    for p in await t.pages():
        if getattr(p, "label", None) != "p1":
            await p.close()


async def test_a_popup_judged_after_the_click_returned_still_fails_the_click(host, server, outside):
    url = _popups(server, outside)
    t = await ego_browser.task_space("guard-race")
    try:
        await t.set_allowed_domains([f"127.0.0.1:{server.port}"])
        page = t.page("p1")
        await page.goto(url)
        with late_judge(host, outside) as judge:
            # window.open, a target=_blank link, a form posting to a new window, and a popup inside
            # the list whose redirect leaves it: each judged only once the click has returned
            for selector, path in (("#open", "/popup"), ("#blank", "/blank-link"), ("#noopener", "/noopener"),
                                   ("#post", "/form"), ("#bounce", "/bounced")):
                held = judge.held
                with pytest.raises(NavigationNotAllowed, match=path) as blocked:
                    await judge.run(page.click(selector))
                assert blocked.value.code == "EGO_NAVIGATION_NOT_ALLOWED"
                assert judge.held == held + 1, f"{selector}: the race was not forced"
                assert outside.requests == [], selector  # nothing reached the forbidden server
                await _close_popups(t)
            # the keyboard's path: Enter on the focused link
            await page.focus("#blank")
            with pytest.raises(NavigationNotAllowed, match="/blank-link"):
                await judge.run(page.keyboard.press("Enter"))
            assert outside.requests == []
            await _close_popups(t)
            # a popup inside the list, and an empty one, return as before: the wait ended on the
            # guard's judgement (or had nothing to wait for), never on its deadline
            deadlines = host.guard.browser.stats["deadline"]
            receipt = await judge.run(page.click("#inside"))
            assert len(receipt.popups) == 1
            receipt = await judge.run(page.click("#empty"))
            assert len(receipt.popups) == 1
            assert host.guard.browser.stats["deadline"] == deadlines
        assert outside.requests == []
        assert server.count("/race/in.html") == 1
    finally:
        await host.handle("guard.allow", {"space_id": t.space_id, "profile_id": None, "domains": None})
        await t.finish(keep=[])
