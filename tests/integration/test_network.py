"""A page's requests and waiting for them (issue 33 §1): page.requests(), bodies, expect_response."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from ego_browser import BodyUnavailable, EgoTimeout, InvalidRoutePattern
from ego_browser.driver import network

from tests.server import Response

BIG = b"x" * (network.BODY_INLINE_MAX + 10)


@pytest.fixture
def api(server):
    server.route("/net/data.json", Response('{"items": [1, 2, 3]}', content_type="application/json",
                                            headers={"X-Kind": "data"}))
    server.route("/net/echo", lambda req: Response(req.body, content_type="text/plain"))
    server.route("/net/big.bin", Response(BIG, content_type="application/octet-stream"))
    server.route("/net/redirect", Response("", status=302, headers={"Location": "/net/data.json"}))
    server.route("/net/slow.json", Response('{"slow": true}', content_type="application/json", delay=0.3))
    return server


async def test_requests_lists_what_the_page_fetched_with_its_action(task, api):
    page = task.page("p1")
    url = api.page("/net/list", '<button onclick="fetch(\'/net/data.json\')">load</button>'
                                '<img src="/net/missing.png">')
    await page.goto(url)
    async with page.expect_response("**/net/data.json") as info:
        await page.click("text=load")
    reqs = await info.value
    assert reqs.status == 200 and reqs.ok and reqs.method == "GET"
    assert await reqs.json() == {"items": [1, 2, 3]}  # waits for the body: the log has its end too
    await page.wait_for_load_state("networkidle")
    found = await page.requests()
    doc = next(r for r in found if r.url == url)
    assert doc.resource_type == "document" and doc.status == 200 and doc.frame["main"] is True
    assert doc.action is not None and doc.action["name"] == "page.goto"
    img = next(r for r in found if r.url.endswith("/net/missing.png"))
    assert img.resource_type == "image" and img.status == 404 and not img.ok
    data = next(r for r in found if r.url.endswith("/net/data.json"))
    assert data.resource_type == "fetch" and data.action is not None and data.action["name"] == "page.click"
    assert data.action["id"] != doc.action["id"]
    assert data.headers["x-kind"] == "data" and data.mime_type == "application/json"
    assert await data.json() == {"items": [1, 2, 3]}
    assert data.timing["duration_ms"] >= 0 and data.timing["started"] > 1e9
    assert data.sizes["transfer"] > 0 and data.sizes["body"] == len('{"items": [1, 2, 3]}')
    # filters: a glob, a regex, a callable, a resource type, a limit
    assert [r.id for r in await page.requests(url="**/data.json")] == [data.id]
    assert [r.id for r in await page.requests(url=re.compile(r"missing\.png$"))] == [img.id]
    assert [r.id for r in await page.requests(url=lambda r: r.status == 404)] == [img.id]
    assert [r.id for r in await page.requests(resource_type="document")] == [doc.id]
    assert len(await page.requests(limit=1)) == 1
    json.dumps(data.to_dict())  # JSON-ready


async def test_request_and_response_bodies(task, api):
    page = task.page("p1")
    await page.goto(api.page("/net/bodies", "<p>bodies</p>"))
    async with page.expect_request("**/net/echo") as info:
        await page.evaluate("fetch('/net/echo', {method: 'POST', body: 'hello=world'}).then(r => r.status)")
    request = await info.value
    assert request.method == "POST"
    assert await request.text("request") == "hello=world"
    assert await request.text() == "hello=world"  # the echo's response
    # a large body comes through a file, read and removed by the round
    async with page.expect_response("**/big.bin") as info:
        await page.evaluate("fetch('/net/big.bin').then(r => r.arrayBuffer()).then(b => b.byteLength)")
    assert await (await info.value).body() == BIG
    # a GET has no request body
    got = (await page.requests(url="**/big.bin"))[-1]
    assert await got.body("request") == b""


async def test_redirect_hops_and_failed_requests(task, api):
    page = task.page("p1")
    await page.goto(api.page("/net/hops", "<p>hops</p>"))
    async with page.expect_response("**/net/data.json") as info:
        await page.evaluate("fetch('/net/redirect').then(r => r.status)")
    final = await info.value
    hop = next(r for r in await page.requests(url="**/net/redirect"))
    assert hop.status == 302 and final.redirected_from == hop.id and final.status == 200
    with pytest.raises(BodyUnavailable, match="redirect"):
        await hop.body()
    # a failed request: a port nobody listens on
    failed, _ = await asyncio.gather(page.wait_for_request("http://127.0.0.1:9/nothing"),
                                     page.evaluate("fetch('http://127.0.0.1:9/nothing').catch(() => 0)"))
    assert failed.url == "http://127.0.0.1:9/nothing" and failed.method == "GET"


async def test_failed_request_has_no_body(task, api):
    page = task.page("p1")
    await page.goto(api.page("/net/fail", "<p>fail</p>"))
    await page.evaluate("fetch('http://127.0.0.1:9/gone').catch(() => 0)")
    failed = (await page.requests(url="http://127.0.0.1:9/gone"))[-1]
    assert failed.state == "failed" and failed.failure and failed.status is None
    with pytest.raises(BodyUnavailable, match="failed") as err:
        await failed.body()
    assert err.value.code == "EGO_BODY_UNAVAILABLE"


async def test_expect_response_matchers_and_timeout(task, api):
    page = task.page("p1")
    await page.goto(api.page("/net/expect", "<p>expect</p>"))
    fetch = "fetch('/net/data.json?n=' + {n}).then(r => r.status)"
    # a callable gets the Request (Playwright's predicate), async ones too
    async with page.expect_response(lambda r: r.url.endswith("n=2")) as info:
        for n in (1, 2, 3):
            await page.evaluate(fetch.format(n=n))
    assert (await info.value).url.endswith("n=2")

    async def is_three(r):
        return r.url.endswith("n=3") and (await r.json())["items"] == [1, 2, 3]

    async with page.expect_response(is_three) as info:
        for n in (1, 2, 3):
            await page.evaluate(fetch.format(n=n))
    assert (await info.value).url.endswith("n=3")
    async with page.expect_response(re.compile(r"n=4$")) as info:
        await page.evaluate(fetch.format(n=4))
    assert (await info.value).status == 200
    # only what comes after the call counts
    with pytest.raises(EgoTimeout, match="page.wait_for_response timed out after 300ms"):
        await page.wait_for_response(re.compile(r"n=4$"), timeout=300)
    with pytest.raises(EgoTimeout):
        async with page.expect_response("**/never", timeout=200):
            pass
    # the response is there when its headers are; its body when it has finished
    response, _ = await asyncio.gather(page.wait_for_response("**/slow.json"),
                                       page.evaluate("fetch('/net/slow.json').then(r => r.status)"))
    assert await response.json() == {"slow": True}


async def test_bad_patterns_are_clear_errors(task, api):
    page = task.page("p1")
    await page.goto(api.page("/net/bad", "<p>bad</p>"))
    with pytest.raises(InvalidRoutePattern, match="does not compile") as err:
        await page.requests(url="**/{api,static")  # an unclosed group
    assert err.value.code == "EGO_INVALID_ROUTE_PATTERN"
    with pytest.raises(InvalidRoutePattern, match="does not compile"):
        await page._call("page.network_log", regex="(unclosed", limit=1)  # a round sending a bad regex
    with pytest.raises(Exception, match="matcher|url"):
        await page.requests(url=42)


async def test_requests_survive_rounds(rounds, server):
    server.route("/net/r.json", Response('{"r": 1}', content_type="application/json"))
    url = server.page("/net/rounds", "<script>fetch('/net/r.json')</script>")
    first = rounds.run(f"p = (await task_space('net-rounds')).page('p1')\nawait p.goto({url!r})\n"
                       "await p.wait_for_load_state('networkidle')\n")
    assert first.returncode == 0, first.stderr
    second = rounds.run("p = (await task_space('net-rounds')).page('p1')\n"
                        "r = (await p.requests(url='**/r.json'))[-1]\nprint(r.status, await r.json())\n")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "200 {'r': 1}"


async def test_a_back_navigation_loads_the_page_again_and_the_log_sees_it(task, server):
    """No back/forward cache: history.back() loads the page like any navigation, so its
    request reaches the network log (and routes) instead of a kept page coming back unseen."""
    page = task.page("p1")
    first = server.page("/net/back-a", "<p>page a</p><script>window.loaded = Date.now()</script>")
    second = server.page("/net/back-b", "<p>page b</p>")
    await page.goto(first)
    await page.goto(second)
    await page.evaluate("history.back()")
    await page.wait_for_url(first)
    await page.wait_for_load_state("load")
    docs = [r for r in await page.requests() if r.url == first and r.resource_type == "document"]
    assert len(docs) == 2, [(r.url, r.status) for r in await page.requests()]
    assert "page a" in await page.evaluate("document.body.innerText")
