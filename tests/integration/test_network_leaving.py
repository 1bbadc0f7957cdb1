"""A page that leaves itself before it has loaded, and URL fragments (issue 33 §4: the requests
Chromium's own network log lists, found missing on corpus pages by benchmarks/bench_har.py).

A script in the page's head sends it to another site while its images still load: the new
document commits in another renderer, Chromium cancels the old document's requests and reports
nothing about them (test_tags_deadline.html of the corpus never went network-idle).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ego_browser import NavigationFailed

from tests.server import Response


@pytest.fixture
def leaving(server):
    """(url of a page that leaves for another site at once, its held image's url, where it goes)"""
    held = threading.Event()  # the image is answered only when the test is over

    def hold(_req):
        held.wait(30.0)
        return Response(b"\x89PNG", content_type="image/png")

    server.route("/leave/held.png", hold)
    server.page("/leave/there.html", "<p id=there>arrived</p>")
    there = server.url("/leave/there.html", host="localhost")  # another site: another renderer
    url = server.page("/leave/here.html", f"<img src=/leave/held.png><script>location.href = {there!r}</script>")
    try:
        yield url, server.url("/leave/held.png"), there
    finally:
        held.set()


async def test_goto_waits_for_the_document_the_page_went_to(task, leaving):
    url, _, there = leaving
    page = task.page("p1")
    # the first document never loads (its image is held): goto waits for the load of the one
    # the page went to, as Playwright's does (it timed out before)
    await page.goto(url, wait_until="load", timeout=15000)
    assert await page.url() == there
    assert await page.evaluate("document.getElementById('there').textContent") == "arrived"


async def test_requests_of_the_document_that_left_end_and_do_not_hold_idle(task, leaving, tmp_path):
    url, image, there = leaving
    page = task.page("p1")
    har = str(tmp_path / "leave.har")
    await task.record_har(har, content="omit")
    await page.goto(url, wait_until="networkidle", timeout=15000)
    assert await page.url() == there
    held = await page.requests(url=image)
    assert [(r.state, r.failure, r.status) for r in held] == [("failed", "net::ERR_ABORTED", None)]
    await task.stop_har()
    entries = json.loads(Path(har).read_text())["log"]["entries"]
    listed = [e for e in entries if e["request"]["url"] == image]
    assert [(e["response"]["status"], e["_failureText"]) for e in listed] == [(-1, "net::ERR_ABORTED")]
    assert [e["request"]["url"] for e in entries].count(there) == 1


async def test_a_request_keeps_its_url_fragment(task, server, tmp_path):
    server.route("/frag/a.js", Response("window.ran = 1", content_type="text/javascript"))
    url = server.page("/frag/page.html", "<script src='/frag/a.js#part=1'></script>")
    page = task.page("p1")
    har = str(tmp_path / "frag.har")
    await task.record_har(har, content="omit")
    await page.goto(url, wait_until="networkidle")
    assert [r.url for r in await page.requests(url="**/frag/a.js*")] == [server.url("/frag/a.js#part=1")]
    await task.stop_har()
    entries = json.loads(Path(har).read_text())["log"]["entries"]
    assert server.url("/frag/a.js#part=1") in [e["request"]["url"] for e in entries]


async def test_a_failed_navigation_has_no_body_in_the_har(task, tmp_path):
    page = task.page("p1")
    har = str(tmp_path / "failed.har")
    await task.record_har(har, content="omit")
    with pytest.raises(NavigationFailed):
        await page.goto("http://nothing-here.invalid/")
    await task.stop_har()
    entries = json.loads(Path(har).read_text())["log"]["entries"]
    listed = [e for e in entries if e["request"]["url"] == "http://nothing-here.invalid/"]
    # nothing came back: no body (Chromium counts the error page it shows instead)
    assert [(e["response"]["status"], e["response"]["bodySize"]) for e in listed] == [(-1, -1)]
