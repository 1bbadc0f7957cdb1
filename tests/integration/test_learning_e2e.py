"""The bundled browser tools, run in a real Chromium against local copies of the real sites.

Chromium's ``--host-resolver-rules`` maps news.ycombinator.com and en.wikipedia.org to a
local server that serves tests/fixtures/sites/<id>/ (hand-written copies of the real
markup). The page adapter below is the smallest thing with ``async evaluate(js, arg)`` and
``async goto(url)`` over raw CDP, so the learning runtime is exercised without the host.

The copy is served over **https** with a throw-away self-signed certificate and Chromium
runs with ``--ignore-certificate-errors``: wikipedia.org is on Chromium's HSTS preload list,
so ``https://en.wikipedia.org`` is upgraded to https before any request is made (plain http
fails with ERR_SSL_PROTOCOL_ERROR). It also lets the tools run with their real origins.
"""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import orjson
import pytest

from ego_browser import learning
from ego_browser.errors import PageScriptError
from tests.server import Response, TestServer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sites"

pytestmark = [
    pytest.mark.skipif(
        not any(shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")),
        reason="no Chromium on PATH",
    ),
    pytest.mark.skipif(not shutil.which("openssl"), reason="openssl is needed for the test certificate"),
]
HOSTS = ("news.ycombinator.com", "en.wikipedia.org")


# -- the local copy of the sites -------------------------------------------------------------


def site_page(req: Any) -> Response | None:
    """news.ycombinator.com and en.wikipedia.org as the fixture copies, chosen by the Host header."""
    host = (req.headers.get("host") or "").split(":")[0].lower()
    query = parse_qs(req.query)
    name = None
    if host == "news.ycombinator.com":
        name = {"/": "news.html", "/news": "news.html", "/ask": "news.html", "/item": "item.html"}.get(req.path)
        folder = "hackernews"
    elif host == "en.wikipedia.org":
        folder = "wikipedia"
        if req.path == "/wiki/Python_(programming_language)":
            name = "article.html"
        elif req.path == "/w/index.php":
            name = "search-none.html" if query.get("search") == ["qwxzvbnmplk"] else "search.html"
    if name is None:
        return None
    return Response((FIXTURES / folder / name).read_bytes())


@pytest.fixture(scope="module")
def site_port(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=ego-test",
         "-keyout", str(key), "-out", str(cert), "-addext", "subjectAltName=" + ",".join(f"DNS:{h}" for h in HOSTS)],
        check=True, capture_output=True,
    )
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server = TestServer(tls=tls, fallback=site_page)
    yield server.port
    server.close()


# -- a minimal CDP page ----------------------------------------------------------------------


class CdpPage:
    """``goto`` and ``evaluate`` over one attached target (flat session)."""

    def __init__(self, conn, session_id):
        self.conn = conn
        self.session_id = session_id

    async def send(self, method, params=None):
        return await self.conn.send(method, params or {}, session_id=self.session_id, timeout=15)

    async def goto(self, url, **_options):
        loaded = asyncio.get_running_loop().create_future()

        def on_load(params, session_id):
            if not loaded.done():
                loaded.set_result(True)

        off = self.conn.on("Page.loadEventFired", on_load, session_id=self.session_id)
        try:
            result = await self.send("Page.navigate", {"url": url})
            if result.get("errorText"):
                raise RuntimeError(f"navigation to {url} failed: {result['errorText']}")
            await asyncio.wait_for(loaded, 15)
        finally:
            off()

    async def url(self):
        return await self.evaluate("location.href")

    async def evaluate(self, js, arg=None):
        expression = f"({js})({orjson.dumps(arg).decode()})" if js.lstrip().startswith("async") else js
        result = await self.send(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise PageScriptError(text, js_name=None, stack=None)
        return result["result"].get("value")


@pytest.fixture(scope="module")
async def browser(site_port, tmp_path_factory):
    from ego_browser.browser.launcher import launch_chromium
    from ego_browser.cdp import Connection

    rules = ", ".join(f"MAP {host} 127.0.0.1:{site_port}" for host in HOSTS)
    proc = launch_chromium(
        tmp_path_factory.mktemp("profile"),
        extra_args=[f"--host-resolver-rules={rules}", "--ignore-certificate-errors"],
    )
    conn = await Connection.connect(proc.ws_url)
    try:
        yield conn
    finally:
        await conn.close()
        proc.terminate()


@pytest.fixture
async def page(browser):
    target = await browser.send("Target.createTarget", {"url": "about:blank"})
    attached = await browser.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
    p = CdpPage(browser, attached["sessionId"])
    await p.send("Page.enable")
    yield p
    await browser.send("Target.closeTarget", {"targetId": target["targetId"]})


@pytest.fixture(autouse=True)
def bundled_root(monkeypatch):
    monkeypatch.delenv("EGO_BROWSER_LEARNINGS_DIR", raising=False)
    monkeypatch.delenv("EGO_BROWSER_AGENT_WORKSPACE", raising=False)
    learning.reset()
    yield
    learning.reset()


# -- Hacker News -----------------------------------------------------------------------------


async def test_hn_read_stories(page):
    await page.goto("https://news.ycombinator.com/news")
    assert [s["id"] for s in await learning.site_skills(page=page)] == ["hackernews"]
    result = await learning.run_site_browser_tool("hackernews", "read_stories", page=page)
    stories = result["stories"]
    assert [s["rank"] for s in stories] == [1, 2, 3, 4, 5]
    first = stories[0]
    assert first == {
        "id": "41950001",
        "rank": 1,
        "title": "Appropriate uses for SQLite",
        "url": "https://www.sqlite.org/whentouse.html",
        "site": "sqlite.org",
        "score": 412,
        "user": "thunderbong",
        "age": "5 hours ago",
        "time": "2024-10-26T09:14:03",
        "comments": 187,
        "discussion_url": "https://news.ycombinator.com/item?id=41950001",
    }
    ask, job, show = stories[1], stories[2], stories[3]
    assert ask["url"] == "https://news.ycombinator.com/item?id=41950002" and ask["site"] is None
    assert (ask["score"], ask["comments"]) == (1024, 1311)  # "1,024 points", "1,311&nbsp;comments"
    assert (job["score"], job["user"], job["comments"]) == (None, None, None)
    assert show["comments"] == 0  # "discuss"
    assert result["next_page"] == "https://news.ycombinator.com/news?p=2"

    limited = await learning.run_site_browser_tool("hackernews", "read_stories", page=page, limit=2)
    assert [s["id"] for s in limited["stories"]] == ["41950001", "41950002"]


async def test_hn_read_comments(page):
    await page.goto("https://news.ycombinator.com/item?id=41950002")
    result = await learning.run_site_browser_tool("hackernews", "read_comments", page=page)
    story = result["story"]
    assert story["id"] == "41950002" and story["score"] == 1024 and story["user"] == "david927"
    assert story["text"].startswith("What are you working on?")
    assert "Share what you are building" in story["text"]
    comments = result["comments"]
    assert [(c["id"], c["depth"], c["parent_id"]) for c in comments] == [
        ("41950101", 0, None),
        ("41950102", 1, "41950101"),
        ("41950103", 2, "41950102"),
        ("41950104", 0, None),
        ("41950105", 0, None),
    ]
    assert comments[0]["user"] == "alice_builds"
    assert comments[0]["text"].startswith("A local-first notes app")
    assert "OPFS" in comments[0]["text"] and "reply" not in comments[0]["text"]
    assert comments[4]["dead"] is True and comments[4]["text"] == "[flagged]" and comments[4]["user"] is None
    assert result["more_url"] == "https://news.ycombinator.com/item?id=41950002&p=2"


async def test_hn_python_tool_drives_the_page(page):
    result = await learning.run_site_tool("hackernews", "front_page", section="ask", limit=3, page=page)
    assert await page.url() == "https://news.ycombinator.com/ask"
    assert len(result["stories"]) == 3


# -- Wikipedia -------------------------------------------------------------------------------


async def test_wikipedia_read_article(page):
    await page.goto("https://en.wikipedia.org/wiki/Python_(programming_language)")
    ctx = await learning.learn_context(page=page)
    assert [s["id"] for s in ctx["sites"]] == ["wikipedia"]
    article = await learning.run_site_browser_tool("wikipedia", "read_article", page=page, paragraphs=2)
    assert article["title"] == "Python (programming language)"
    assert article["canonical_url"] == "https://en.wikipedia.org/wiki/Python_(programming_language)"
    assert article["short_description"] == "General-purpose programming language"
    assert article["redirected_from"] == "Python language"
    assert article["is_disambiguation"] is False
    assert len(article["lead"]) == 2
    assert article["lead"][0].startswith("Python is a high-level, general-purpose programming language.")
    assert "[" not in article["lead"][0]  # citation marks removed
    assert "citation needed" not in article["lead"][1]
    rows = {r["label"]: r["value"] for r in article["infobox"]["rows"]}
    assert article["infobox"]["title"] == "Python"
    assert rows["Designed by"] == "Guido van Rossum"
    assert rows["First appeared"].startswith("20 February 1991")
    assert rows["Filename extensions"] == ".py, .pyw, .pyz,\n.pyi, .pyc, .pyd"
    assert [(s["level"], s["id"]) for s in article["sections"]] == [
        (2, "History"),
        (2, "Design_philosophy_and_features"),
        (3, "Syntax_and_semantics"),
        (2, "References"),
    ]
    assert "Programming languages created in 1991" in article["categories"]
    assert "Articles with short description" not in article["categories"]  # hidden category


async def test_wikipedia_search_results(page):
    result = await learning.run_site_tool("wikipedia", "search", query="python programing", limit=2, page=page)
    assert result["query"] == "python programing"
    assert result["total"] == 4218
    assert result["did_you_mean"] == "python programming"
    assert result["no_results"] is False
    assert result["results"] == [
        {
            "title": "Python (programming language)",
            "url": "https://en.wikipedia.org/wiki/Python_(programming_language)",
            "snippet": "Python is a high-level, general-purpose programming language. Its design philosophy "
            "emphasizes code readability with the use of significant indentation",
            "data": "167 KB (14,437 words) - 19:03, 24 October 2024",
        },
        {
            "title": "History of Python",
            "url": "https://en.wikipedia.org/wiki/History_of_Python",
            "snippet": "The programming language Python was conceived in the late 1980s, and its "
            "implementation was started in December 1989",
            "data": "33 KB (2,926 words) - 08:55, 2 October 2024",
        },
    ]


async def test_wikipedia_search_without_results(page):
    await page.goto("https://en.wikipedia.org/w/index.php?search=qwxzvbnmplk&title=Special:Search&fulltext=1")
    result = await learning.run_site_browser_tool("wikipedia", "read_search_results", page=page)
    assert result["no_results"] is True
    assert result["results"] == [] and result["total"] is None


async def test_a_browser_tool_error_surfaces_as_page_script_error(page, tmp_path, monkeypatch):
    pack = tmp_path / "shop"
    (pack / "browser-tools").mkdir(parents=True)
    (pack / "browser-tools" / "boom.js").write_text("throw new Error('no cart on this page: ' + args.where);")
    (pack / "manifest.json").write_text(
        '{"id": "shop", "name": "Shop", "domains": ["shop.example"], "browser_tools": '
        '{"boom": {"file": "browser-tools/boom.js", "description": "fails", "args": {"where": "str"}}}}'
    )
    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(tmp_path))
    with pytest.raises(PageScriptError, match="no cart on this page: home"):
        await learning.run_site_browser_tool("shop", "boom", page=page, where="home")
