"""page.route / task.route (issue 33 §1): fulfil, abort, continue; against Playwright on the same fixtures."""

from __future__ import annotations

import json
import os
import re

import pytest

from ego_browser import BodyTooLarge, InvalidArgument, InvalidRoutePattern

from tests.server import Response

ECHO_JS = """(args) => fetch(args[0], args[1] || {}).then(
    async r => ({status: r.status, text: await r.text(), type: r.headers.get('content-type'),
                 xa: r.headers.get('x-a')}),
    e => ({error: String(e)}))"""


def _echo(req):
    return Response(json.dumps({"path": req.path, "method": req.method, "xh": req.headers.get("x-h"),
                                "body": req.body.decode()}), content_type="application/json")


@pytest.fixture
def site(server, tmp_path):
    server.route("/rt/echo", _echo)
    server.route("/rt/other", _echo)
    server.route("/rt/api/a", _echo)
    server.route("/rt/api/a/b", _echo)
    (tmp_path / "data.json").write_text('{"from": "file"}')
    return server


def _cases(tmp_path):
    """(name, route url, route kwargs, fetch url, fetch init): each run alone on a fresh page."""
    data = str(tmp_path / "data.json")
    return [
        ("fulfill-text", "**/rt/echo", {"fulfill": {"status": 201, "body": "made", "headers": {"X-A": "1"}}},
         "/rt/echo", None),
        ("fulfill-type", "**/rt/echo", {"fulfill": {"body": "<b>x</b>", "content_type": "text/html"}},
         "/rt/echo", None),
        ("fulfill-json", "**/rt/echo", {"fulfill": {"json": {"a": [1, 2]}}}, "/rt/echo", None),
        ("fulfill-path", "**/rt/echo", {"fulfill": {"path": data}}, "/rt/echo", None),
        ("fulfill-404", re.compile(r"/rt/ech"), {"fulfill": {"status": 404, "body": "no"}}, "/rt/echo", None),
        ("abort-failed", "**/rt/echo", {"abort": "failed"}, "/rt/echo", None),
        ("abort-blocked", "**/rt/echo", {"abort": "blockedbyclient"}, "/rt/echo", None),
        ("continue-url", "**/rt/echo", {"continue_": {"url": "/rt/other"}}, "/rt/echo", None),
        ("continue-method", "**/rt/echo", {"continue_": {"method": "POST", "post_data": "k=v"}}, "/rt/echo", None),
        ("continue-headers", "**/rt/echo", {"continue_": {"headers": {"X-H": "set"}}}, "/rt/echo", None),
        ("glob-star-one-segment", "**/rt/api/*", {"fulfill": {"body": "routed"}}, "/rt/api/a/b", None),
        ("glob-star-matches", "**/rt/api/*", {"fulfill": {"body": "routed"}}, "/rt/api/a", None),
        ("glob-braces", "**/rt/{echo,other}", {"fulfill": {"body": "routed"}}, "/rt/other", None),
        ("exact-url-no-match", "/rt/echo", {"fulfill": {"body": "routed"}}, "/rt/echo", None),
        ("regex-search", re.compile(r"api/a$"), {"abort": "failed"}, "/rt/api/a", None),
        ("glob-query-not-matched", "**/rt/echo", {"fulfill": {"body": "routed"}}, "/rt/echo?x=1", None),
        ("glob-query-star", "**/rt/echo?*", {"fulfill": {"body": "routed"}}, "/rt/echo?x=1", None),
        ("glob-question-literal", "**/rt/ech?", {"fulfill": {"body": "routed"}}, "/rt/echo", None),
        ("glob-double-star-middle", "**/rt/**/b", {"fulfill": {"body": "routed"}}, "/rt/api/a/b", None),
        ("regex-ignorecase", re.compile(r"RT/ECHO", re.I), {"fulfill": {"body": "routed"}}, "/rt/echo", None),
        ("post-continue-body", "**/rt/echo", {"continue_": {"post_data": "changed"}}, "/rt/echo",
         {"method": "POST", "body": "original"}),
    ]


async def _pw_route(pw_page, url, kw):
    async def handler(route):
        if "fulfill" in kw:
            f = dict(kw["fulfill"])
            await route.fulfill(**f)
        elif "abort" in kw:
            await route.abort(kw["abort"])
        else:
            c = dict(kw["continue_"])
            if "url" in c:
                c["url"] = route.request.url.rsplit("/rt/", 1)[0] + c["url"]
            await route.continue_(**c)

    await pw_page.route(url, handler)


async def test_routes_match_playwright(task, site, tmp_path):
    pytest.importorskip("playwright.async_api")
    from playwright.async_api import async_playwright

    from tests.selector_cases import CHROMIUM, PW_ARGS

    page = task.page("p1")
    start = site.page("/rt/start", "<p>routes</p>")
    differences = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
        try:
            for name, url, kw, path, init in _cases(tmp_path):
                pw_page = await browser.new_page()
                await pw_page.goto(start)
                await _pw_route(pw_page, url, kw)
                theirs = await pw_page.evaluate(ECHO_JS, [path, init])
                await pw_page.close()
                await page.goto(start)
                ours_kw = dict(kw)
                if "continue_" in ours_kw and "url" in ours_kw["continue_"]:
                    ours_kw["continue_"] = {**ours_kw["continue_"], "url": site.url(ours_kw["continue_"]["url"])}
                await page.route(url, **ours_kw)
                ours = await page.evaluate(ECHO_JS, [path, init])
                assert await page.unroute(url) == 1
                if ours != theirs:
                    differences.append(f"{name}: ours {ours} != Playwright {theirs}")
        finally:
            await browser.close()
    assert not differences, "\n".join(differences)


async def test_route_lifetime_precedence_and_times(task, site):
    page = task.page("p1")
    await page.goto(site.page("/rt/life", "<p>life</p>"))
    fetch = "fetch('/rt/echo').then(r => r.text(), e => 'error')"
    await page.route("**/rt/echo", fulfill={"body": "first"})
    await page.route("**/rt/echo", fulfill={"body": "second"})  # the newest wins
    assert await page.evaluate(fetch) == "second"
    await page.route("**/rt/echo", fulfill={"body": "once"}, times=1)
    assert await page.evaluate(fetch) == "once"
    assert await page.evaluate(fetch) == "second"
    assert await page.unroute("**/rt/echo") == 2
    assert json.loads(await page.evaluate(fetch))["path"] == "/rt/echo"  # to the server again
    # a navigation's document is routed too
    await page.route("**/rt/routed-doc", fulfill={"body": "<title>Routed</title><p>from a route</p>",
                                                   "content_type": "text/html"})
    await page.goto(site.url("/rt/routed-doc"))
    assert await page.title() == "Routed"
    # the routed requests are in the log, with the status the route gave
    doc = (await page.requests(url="**/rt/routed-doc"))[-1]
    assert doc.status == 200 and await doc.text() == "<title>Routed</title><p>from a route</p>"
    assert await page.unroute() == 1


async def test_space_routes_reach_every_page_and_later_ones(task, site):
    await task.route("**/rt/echo", fulfill={"body": "space"})
    page = task.page("p1")
    await page.goto(site.page("/rt/space", "<p>space</p>"))
    fetch = "fetch('/rt/echo').then(r => r.text())"
    assert await page.evaluate(fetch) == "space"
    later = await task.new_page()
    await later.goto(site.url("/rt/space"))
    assert await later.evaluate(fetch) == "space"
    await page.route("**/rt/echo", fulfill={"body": "page"})  # a page's own route comes first
    assert await page.evaluate(fetch) == "page"
    assert await later.evaluate(fetch) == "space"
    assert await task.unroute("**/rt/echo") == 1
    assert json.loads(await later.evaluate(fetch))["path"] == "/rt/echo"
    assert await page.evaluate(fetch) == "page"
    await page.unroute()


async def test_routes_outlive_their_round(rounds, server):
    server.route("/rt/r-echo", _echo)
    url = server.page("/rt/rounds", "<p>rounds</p>")
    first = rounds.run(f"p = (await task_space('route-rounds')).page('p1')\nawait p.goto({url!r})\n"
                       "await p.route('**/rt/r-echo', fulfill={'body': 'kept'})\n")
    assert first.returncode == 0, first.stderr
    second = rounds.run("p = (await task_space('route-rounds')).page('p1')\n"
                        "print(await p.evaluate(\"fetch('/rt/r-echo').then(r => r.text())\"))\n"
                        "print(await p.unroute())\n")
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["kept", "1"]


async def test_bad_routes_are_clear_errors(task, site, tmp_path):
    page = task.page("p1")
    await page.goto(site.page("/rt/bad", "<p>bad</p>"))
    with pytest.raises(InvalidRoutePattern) as err:
        await page.route("**/{a,b", abort="failed")
    assert err.value.code == "EGO_INVALID_ROUTE_PATTERN"
    with pytest.raises(InvalidRoutePattern):
        await page._call("page.add_route", pattern="x", regex="(", flags=0, action={"abort": "failed"}, times=None)
    with pytest.raises(BodyTooLarge) as err:
        await page.route("**/x", fulfill={"body": b"\0" * (32 * 1024 * 1024 + 1)})
    assert err.value.code == "EGO_BODY_TOO_LARGE"
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(32 * 1024 * 1024 + 1)
    with pytest.raises(BodyTooLarge):
        await task.route("**/x", fulfill={"path": str(big)})
    os.unlink(big)
    with pytest.raises(InvalidArgument, match="abort must be one of"):
        await page.route("**/x", abort="nope")
    with pytest.raises(InvalidArgument, match="exactly one of"):
        await page.route("**/x", abort="failed", fulfill={"body": "x"})
    with pytest.raises(InvalidArgument, match="cannot read fulfill path"):
        await page.route("**/x", fulfill={"path": str(tmp_path / "missing")})
    with pytest.raises(InvalidArgument, match="re.Pattern"):
        await page.route(lambda u: True, abort="failed")
    assert await page.unroute() == 0 and await task.unroute() == 0


async def test_route_patterns_from_hostile_input_are_refused_before_they_can_wedge_the_host(task, site):
    """A pattern built from a page's text, matched by the host against URLs a page chooses: one
    whose matching takes exponential or high-polynomial time would hold the host's one loop (every
    space) for minutes. It is refused with its code, and an ordinary route still works."""
    page = task.page("p1")
    await page.goto(site.page("/rt/hostile", "<p>hostile</p>"))
    for pattern in (re.compile(r"(a+)+$"), re.compile(r"^(\w+\s?)*$"), "**a" * 30, "**/" + "x" * 5000):
        with pytest.raises(InvalidRoutePattern, match="refused") as err:
            await page.route(pattern, abort="failed")
        assert err.value.code == "EGO_INVALID_ROUTE_PATTERN"
        with pytest.raises(InvalidRoutePattern, match="refused"):
            await task.route(pattern, abort="failed")
    assert await page.unroute() == 0 and await task.unroute() == 0
    await page.route("**/rt/mocked", fulfill={"body": "from the route"})
    assert await page.evaluate("fetch('/rt/mocked').then((r) => r.text())") == "from the route"
    await page.unroute()


async def test_handler_routes_decide_in_the_round(task, site):
    page = task.page("p1")
    await page.goto(site.page("/rt/handler", "<p>handler</p>"))
    seen = []

    async def handler(route, request):
        seen.append((request["method"], request["url"].rsplit("/", 1)[1]))
        if request["method"] == "POST":
            await route.abort("blockedbyclient")
        elif request["url"].endswith("?mock"):
            await route.fulfill(json={"mocked": True}, status=203)
        elif request["url"].endswith("?change"):
            await route.continue_(headers={"X-H": "from-handler"})
        elif request["url"].endswith("?boom"):
            raise RuntimeError("a bug in the handler")
        # else: no answer, the request continues unchanged

    rid = await page.route("**/rt/echo*", handler)
    assert isinstance(rid, int)
    run = "fetch('/rt/echo{q}', {{method: '{m}'}}).then(async r => [r.status, await r.text()], e => 'error')"
    assert await page.evaluate(run.format(q="?mock", m="GET")) == [203, '{"mocked":true}']
    assert await page.evaluate(run.format(q="", m="POST")) == "error"
    status, text = await page.evaluate(run.format(q="?change", m="GET"))
    assert status == 200 and json.loads(text)["xh"] == "from-handler"
    status, text = await page.evaluate(run.format(q="?plain", m="GET"))
    assert json.loads(text)["path"] == "/rt/echo" and json.loads(text)["xh"] is None
    status, text = await page.evaluate(run.format(q="?boom", m="GET"))
    assert status == 200  # a handler that raised: the request went on
    assert [m for m, _ in seen] == ["GET", "POST", "GET", "GET", "GET"]
    assert await page.unroute("**/rt/echo*") == 1
    assert not task._round.route_tasks


async def test_handler_route_of_a_vanished_round_lets_requests_through(task, site):
    page = task.page("p1")
    await page.goto(site.page("/rt/vanish", "<p>vanish</p>"))
    await page.route("**/rt/echo", lambda route: route.fulfill(body="handled"))
    fetch = "fetch('/rt/echo').then(r => r.text())"
    assert await page.evaluate(fetch) == "handled"
    # the round's poll stops (as when its process is killed): after the lease, the route goes
    for _owner, _key, serving in list(task._round.route_tasks.values()):
        serving.cancel()
    task._round.route_tasks.clear()
    assert json.loads(await page.evaluate(fetch))["path"] == "/rt/echo"
    assert await page.unroute() == 0  # already dropped by the host


async def test_handler_route_ends_with_its_round(rounds, server):
    server.route("/rt/h-echo", _echo)
    url = server.page("/rt/h-rounds", "<p>rounds</p>")
    first = rounds.run(f"p = (await task_space('handler-rounds')).page('p1')\nawait p.goto({url!r})\n"
                       "await p.route('**/rt/h-echo', lambda route: route.fulfill(body='handled'))\n"
                       "print(await p.evaluate(\"fetch('/rt/h-echo').then(r => r.text())\"))\n")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "handled" and "Background task" not in first.stdout + first.stderr
    second = rounds.run("p = (await task_space('handler-rounds')).page('p1')\n"
                        "print(await p.evaluate(\"fetch('/rt/h-echo').then(r => r.json()).then(d => d.path)\"))\n"
                        "print(await p.unroute())\n")
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["/rt/h-echo", "0"]
