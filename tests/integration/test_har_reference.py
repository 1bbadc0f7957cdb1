"""Issue 33 §4: task.record_har lists every request Chromium's own network log (NetLog) lists for
the same page, with the same statuses and body sizes (the reference: benchmarks/netlog_ref.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import ego_browser
from tests.server import Response

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import netlog_ref  # noqa: E402

PAGES = {
    # the icon a page names is its request, though called favicon.ico (the browser's own guess at
    # an icon, /favicon.ico at the root, is not: Chromium's log and Playwright leave it out)
    "/ref/plain.html": "<!doctype html><html><head><title>plain</title><link rel=icon href=/ref/theme/favicon.ico>"
                       "</head><body><h1>plain</h1><link rel=stylesheet href=/ref/s.css><img src=/ref/dot.svg>"
                       "<script src=/ref/a.js></script><script src=http://127.0.0.1:9/refused.js></script>",
    "/ref/fetches.html": "<p id=out>waiting</p><img src=/ref/gone.png><script>"
                         "Promise.all([fetch('/ref/data.json').then(r => r.json()),"
                         " fetch('/ref/echo', {method: 'POST', body: 'q=kettle'}).then(r => r.text()),"
                         " fetch('/ref/moved').then(r => r.text())])"
                         ".then(v => { document.getElementById('out').textContent = 'done'; });</script>",
    "/ref/framed.html": "<iframe src=/ref/inner.html></iframe><link rel=stylesheet href=/ref/s.css>",
}


def _serve(server) -> None:
    for path, body in PAGES.items():
        server.page(path, body)
    server.page("/ref/inner.html", "<p>inner</p><img src=/ref/dot.svg><script src=/ref/a.js></script>")
    server.route("/ref/s.css", Response("p { color: #123 }\n" * 200, content_type="text/css"))
    server.route("/ref/a.js", Response("window.loaded = 1;\n//" + "x" * 3000, content_type="text/javascript"))
    server.route("/ref/dot.svg", Response("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>",
                                          content_type="image/svg+xml"))
    server.route("/ref/theme/favicon.ico", Response("<svg xmlns='http://www.w3.org/2000/svg' width='16' height='16'/>",
                                                    content_type="image/svg+xml"))
    server.route("/ref/gone.png", Response("no such picture", status=404, content_type="text/plain"))
    server.route("/ref/data.json", Response(json.dumps({"items": list(range(300))}), content_type="application/json"))
    server.route("/ref/echo", lambda req: Response("echo " + req.body.decode(), content_type="text/plain"))
    server.route("/ref/moved", Response("", status=302, headers={"Location": "/ref/data.json?moved=1"}))


@pytest.mark.parametrize("path", sorted(PAGES))
async def test_har_matches_chromiums_own_network_log(host, server, tmp_path, path):
    _serve(server)
    url = server.url(path)
    ref = netlog_ref.reference(url)
    assert len(ref) >= 3 and any(r.url == url for r in ref)
    space = await ego_browser.task_space(f"har-ref-{path.rsplit('/', 1)[1]}", isolated=True)
    try:
        har = str(tmp_path / "page.har")
        await space.record_har(har, content="omit")
        page = space.page("p1")
        if path == "/ref/plain.html":
            # the icon is fetched once the page has loaded, by the browser's favicon loader: the HAR
            # is closed only after its answer came, however busy the machine
            async with page.expect_response("**/ref/theme/favicon.ico", timeout=30000):
                await page.goto(url, wait_until="networkidle")
        else:
            await page.goto(url, wait_until="networkidle")
        await space.stop_har()
    finally:
        await space.finish(keep=[])
    log = json.loads(Path(har).read_text())
    got = netlog_ref.compare(ref, log)
    assert got["missing"] == [] and got["share"] == 1.0, got
    assert got["status_mismatches"] == [], got
    assert got["size_mismatches"] == [], got
    refused = [e for e in log["log"]["entries"] if e["request"]["url"].endswith("/refused.js")]
    assert len(refused) == (1 if path == "/ref/plain.html" else 0)
    assert all(e["response"]["status"] == -1 and e["_failureText"] for e in refused)  # failed: listed, as Playwright does
    if path == "/ref/plain.html":
        assert [e["response"]["status"] for e in log["log"]["entries"]
                if e["request"]["url"].endswith("/ref/theme/favicon.ico")] == [200]
