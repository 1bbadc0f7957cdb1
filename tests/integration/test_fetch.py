"""page.fetch (BEHAVIOURS.md B146–B148)."""

from __future__ import annotations

import base64

import pytest

from ego_browser import EgoTimeout, FetchFailed

from tests.server import Response

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
) + bytes(range(256))


async def test_b146_fetch_in_page(task, server):
    seen = {}

    def api(req):
        seen.update(method=req.method, cookie=req.headers.get("cookie"), origin=req.headers.get("origin"),
                    custom=req.headers.get("x-test"), body=req.body)
        return Response('{"made": true}', status=201, content_type="application/json", headers={"X-Reply": "yes"})

    server.route("/api/info", api)
    page = task.page("p1")
    # a cookie scoped to /api: the browser profile is shared with other tests
    await page.goto(server.page("/b146/a/page", "<script>document.cookie = 'sid=abc; path=/api'</script>"))
    res = await page.fetch("../../api/info", method="POST", headers={"X-Test": "1", "Content-Type": "application/json"},
                           body='{"q": 1}', timeout=5000)
    assert set(res) == {"ok", "status", "status_text", "url", "headers", "body", "saved_path"}
    assert res["ok"] is True and res["status"] == 201 and res["status_text"] == "Created"
    assert res["url"] == server.url("/api/info")
    assert res["headers"]["x-reply"] == "yes" and res["body"] == '{"made": true}' and res["saved_path"] is None
    assert seen["method"] == "POST" and seen["custom"] == "1" and seen["body"] == b'{"q": 1}'
    assert "sid=abc" in (seen["cookie"] or "")
    assert seen["origin"] == server.url("").rstrip("/")
    await page.evaluate("document.cookie = 'sid=; path=/api; expires=Thu, 01 Jan 1970 00:00:00 GMT'")


async def test_b147_fetch_failures(task, server):
    server.route("/teapot", Response("short and stout", status=418, content_type="text/plain"))
    server.route("/slow-api", Response("late", delay=0.3))
    page = task.page("p1")
    await page.goto(server.page("/b147", "<p>x</p>"))
    res = await page.fetch("/teapot")
    assert res["ok"] is False and res["status"] == 418 and res["body"] == "short and stout"
    with pytest.raises(EgoTimeout, match="page.fetch timed out after 20ms"):
        await page.fetch("/slow-api", timeout=20)
    cross = server.url("/teapot", host="localhost")
    with pytest.raises(FetchFailed, match="page.fetch uses window.fetch and obeys browser CORS"):
        await page.fetch(cross)


async def test_b148_save_as_binary(task, server, tmp_path):
    server.route("/img.png", Response(PNG, content_type="image/png"))
    page = task.page("p1")
    await page.goto(server.page("/b148", "<p>x</p>"))
    target = tmp_path / "sub" / "img.png"
    res = await page.fetch("/img.png", save_as=str(target))
    assert res["saved_path"] == str(target) and res["body"] is None and res["status"] == 200
    assert target.read_bytes() == PNG and target.read_bytes().startswith(b"\x89PNG")


async def test_b148_fetch_in_later_round(rounds, server):
    server.route("/b148-text", Response("hello text", content_type="text/plain"))
    url = server.page("/b148-round", "<p>x</p>")
    first = rounds.run(f"p = (await task_space('fetch-rounds')).page('p1')\nawait p.goto({url!r})\n")
    assert first.returncode == 0, first.stderr
    second = rounds.run("p = (await task_space('fetch-rounds')).page('p1')\nprint((await p.fetch('/b148-text'))['body'])\n")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "hello text"
