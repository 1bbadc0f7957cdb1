"""task.record_har (issue 33 §1): a HAR of the space that Playwright's route_from_har replays."""

from __future__ import annotations

import base64
import json
import os

import pytest

from ego_browser import HarUnwritable, InvalidArgument, InvalidState

from tests.server import Response

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
PAGE = """<p id=out>waiting</p><img id=img src="/har/dot.png">
<script>
fetch('/har/data.json').then(r => r.json()).then(d =>
  fetch('/har/post', {method: 'POST', body: 'q=kettle'}).then(r => r.text()).then(t => {
    document.getElementById('out').textContent = d.version + ' ' + t; }));
</script>"""


def _serve(server, version: str) -> str:
    server.route("/har/data.json", Response(json.dumps({"version": version}), content_type="application/json"))
    server.route("/har/post", lambda req: Response("posted " + req.body.decode() + " " + version,
                                                   content_type="text/plain"))
    server.route("/har/dot.png", Response(PNG, content_type="image/png"))
    return server.page("/har/page.html", PAGE)


def _load(path: str):
    with open(path) as f:
        return json.load(f)


async def _replay(har: str, url: str) -> tuple[str, int]:
    from playwright.async_api import async_playwright

    from tests.selector_cases import CHROMIUM, PW_ARGS

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
        try:
            context = await browser.new_context()
            await context.route_from_har(har, not_found="abort")
            page = await context.new_page()
            await page.goto(url)
            await page.wait_for_function("document.getElementById('out').textContent !== 'waiting'")
            text = await page.text_content("#out")
            width = await page.evaluate("document.getElementById('img').naturalWidth")
            return str(text), int(width)
        finally:
            await browser.close()


@pytest.mark.parametrize("content", ["embed", "attach"])
async def test_har_replays_in_playwright(task, server, tmp_path, content):
    pytest.importorskip("playwright.async_api")
    url = _serve(server, "v1")
    page = task.page("p1")
    har = str(tmp_path / "space.har")
    await task.record_har(har, content=content)
    await page.goto(url)
    await page.wait_for_function("document.getElementById('out').textContent !== 'waiting'")
    assert await page.evaluate("document.getElementById('out').textContent") == "v1 posted q=kettle v1"
    assert await task.stop_har() == har
    log = _load(har)["log"]
    assert log["version"] == "1.2" and log["creator"]["name"] == "ego_browser"
    urls = [e["request"]["url"] for e in log["entries"]]
    assert url in urls and server.url("/har/data.json") in urls and server.url("/har/dot.png") in urls
    post = next(e for e in log["entries"] if e["request"]["url"].endswith("/har/post"))
    assert post["request"]["method"] == "POST" and post["request"]["postData"]["text"] == "q=kettle"
    if content == "attach":
        data = next(e for e in log["entries"] if e["request"]["url"].endswith("/data.json"))
        assert os.path.exists(tmp_path / data["response"]["content"]["_file"])
    _serve(server, "v2")  # the server changed: only the HAR still has v1
    assert await _replay(har, url) == ("v1 posted q=kettle v1", 1)


async def test_har_filter_omit_and_finish(host, server, tmp_path):
    import ego_browser

    url = _serve(server, "v1")
    space = await ego_browser.task_space("har-finish")
    page = space.page("p1")
    har = str(tmp_path / "only-json.har")
    await space.record_har(har, content="omit", url_filter="**/*.json")
    with pytest.raises(InvalidState, match="already records"):
        await space.record_har(str(tmp_path / "other.har"))
    await page.goto(url)
    await page.wait_for_function("document.getElementById('out').textContent !== 'waiting'")
    await space.finish(keep=[])  # finishing the space writes its recording
    entries = _load(har)["log"]["entries"]
    assert [e["request"]["url"] for e in entries] == [server.url("/har/data.json")]
    assert "text" not in entries[0]["response"]["content"] and entries[0]["response"]["status"] == 200


async def test_har_path_that_cannot_be_written(task, tmp_path):
    with pytest.raises(HarUnwritable) as err:
        await task.record_har(str(tmp_path / "missing" / "x.har"))
    assert err.value.code == "EGO_HAR_UNWRITABLE" and err.value.path == str(tmp_path / "missing" / "x.har")
    with pytest.raises(HarUnwritable):
        await task.record_har(str(tmp_path))  # a folder
    with pytest.raises(InvalidArgument):
        await task.record_har(str(tmp_path / "x.har"), content="inline")
    assert await task.stop_har() is None
