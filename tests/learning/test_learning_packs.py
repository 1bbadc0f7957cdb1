"""The bundled entry skill and its real site packs (hackernews, wikipedia), without a browser.

The browser tools' JavaScript is run for real against the fixture copies of the sites in
tests/integration/test_learning_e2e.py; here the Python tools are driven with a recording fake page.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from ego_browser import learning
from ego_browser.learning import loader

REPO = Path(__file__).resolve().parent.parent.parent
SKILL = REPO / "skills" / "ego-browser"
BUNDLED = SKILL / "learnings"


@pytest.fixture(autouse=True)
def bundled_root(monkeypatch):
    monkeypatch.delenv("EGO_BROWSER_LEARNINGS_DIR", raising=False)
    monkeypatch.delenv("EGO_BROWSER_AGENT_WORKSPACE", raising=False)
    learning.reset()
    yield
    learning.reset()


class RecordingPage:
    """A fake Page: records navigations and the browser-tool source it is asked to run."""

    def __init__(self, result=None):
        self.visited: list[tuple[str, dict]] = []
        self.evaluated: list[tuple[str, object]] = []
        self.result = result if result is not None else {"stories": []}

    async def goto(self, url, **options):
        self.visited.append((url, options))

    async def evaluate(self, js, arg=None):
        self.evaluated.append((js, arg))
        return self.result


class FakeTaskSpace:
    def __init__(self, name, page):
        self.name = name
        self._page = page

    def page(self, label):
        assert label == "p1"
        return self._page


# -- the entry skill -------------------------------------------------------------------------


def frontmatter(text: str) -> dict[str, str]:
    match = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    assert match, "SKILL.md must start with a --- frontmatter block"
    fields = {}
    for line in match.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def test_entry_skill_frontmatter_points_at_the_versioned_guide():
    text = (SKILL / "SKILL.md").read_text()
    fields = frontmatter(text)
    assert fields["name"] == "ego-browser"
    assert "ego-browser skill" in fields["description"]
    # a YAML plain scalar must not contain ": " (it would start a mapping)
    assert ": " not in fields["description"]
    assert "ego-browser skill" in text.split("---", 2)[2]
    assert "references/install.md" in text


def test_install_reference_covers_linux_macos_and_a_check():
    text = (SKILL / "references" / "install.md").read_text()
    for needle in ("### Linux", "### macOS", "EGO_BROWSER_CHROMIUM", "ego-browser doctor", "install-skill"):
        assert needle in text, needle


# -- the bundled packs load and match the real hosts ------------------------------------------


async def test_bundled_packs_match_their_real_hosts():
    assert [s["id"] for s in await learning.site_skills("https://news.ycombinator.com/item?id=1")] == ["hackernews"]
    assert [s["id"] for s in await learning.site_skills("https://en.wikipedia.org/wiki/Python")] == ["wikipedia"]
    assert [s["id"] for s in await learning.site_skills("https://de.m.wikipedia.org/wiki/Python")] == ["wikipedia"]
    assert [s["id"] for s in await learning.site_skills("https://wikipedia.org/")] == ["wikipedia"]
    assert await learning.site_skills("https://ycombinator.com/") == []
    assert await learning.site_skills("https://wikipedia.org.evil.example/") == []


@pytest.mark.parametrize(
    "url, notes, tools",
    [
        (
            "https://news.ycombinator.com/news",
            ["notes/site.md"],
            {("front_page", "node"), ("thread", "node"), ("read_stories", "browser"), ("read_comments", "browser")},
        ),
        (
            "https://en.wikipedia.org/wiki/Python_(programming_language)",
            ["notes/articles.md", "notes/search.md"],
            {("search", "node"), ("article", "node"), ("read_article", "browser"), ("read_search_results", "browser")},
        ),
    ],
)
async def test_bundled_learn_context(url, notes, tools):
    ctx = await learning.learn_context(url)
    assert ctx["problems"] == []
    assert [k["file"] for k in ctx["knowledge"]] == notes
    assert all(len(k["content"]) > 500 for k in ctx["knowledge"])  # real notes, not stubs
    assert {(t["name"], t["kind"]) for t in ctx["tools"]} == tools
    for tool in ctx["tools"]:
        assert tool["description"] and tool["returns"] and tool["example"]
        assert tool["name"] in tool["example"]


def test_notes_describe_the_real_markup():
    hn = (BUNDLED / "hackernews" / "notes" / "site.md").read_text()
    for needle in ("tr.athing", "span.titleline > a", "span.score", "td.subtext", "a.morelink", "item?id="):
        assert needle in hn, needle
    wiki = (BUNDLED / "wikipedia" / "notes" / "articles.md").read_text()
    for needle in ("#firstHeading", ".mw-parser-output", "table.infobox", "sup.reference", "mw-heading"):
        assert needle in wiki, needle
    search = (BUNDLED / "wikipedia" / "notes" / "search.md").read_text()
    assert "fulltext=1" in search and "li.mw-search-result" in search


# -- Python tools with a recording page ------------------------------------------------------


async def test_hackernews_front_page_uses_the_given_page():
    page = RecordingPage({"stories": [{"id": "1"}], "next_page": None})
    result = await learning.run_site_tool("hackernews", "front_page", section="ask", page_number=2, limit=5, page=page)
    assert result == {"stories": [{"id": "1"}], "next_page": None}
    assert page.visited == [("https://news.ycombinator.com/ask?p=2", {"wait_until": "domcontentloaded"})]
    [(js, arg)] = page.evaluated
    assert arg == {"limit": 5}
    assert "span.titleline > a" in js and js.startswith("async (args) => {")


async def test_hackernews_thread_opens_a_task_space_without_page():
    page = RecordingPage({"story": None, "comments": []})
    spaces = []

    async def task_space(name):
        spaces.append(name)
        return FakeTaskSpace(name, page)

    learning.configure(api={"task_space": task_space})
    await learning.run_site_tool("hackernews", "thread", id=41950002)
    assert spaces == ["hackernews"]
    assert page.visited[0][0] == "https://news.ycombinator.com/item?id=41950002"
    assert page.evaluated[0][1] == {"limit": 100}
    assert "tr.athing.comtr" in page.evaluated[0][0]


async def test_hackernews_bad_section_is_the_tools_own_error():
    with pytest.raises(ValueError, match="unknown Hacker News section"):
        await learning.run_site_tool("hackernews", "front_page", section="bogus", page=RecordingPage())


async def test_wikipedia_search_builds_a_fulltext_query():
    page = RecordingPage({"results": []})
    await learning.run_site_tool("wikipedia", "search", query="python programming", lang="de", limit=5, page=page)
    url = page.visited[0][0]
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "de.wikipedia.org", "/w/index.php")
    query = parse_qs(parts.query)
    assert query["search"] == ["python programming"]
    assert query["title"] == ["Special:Search"]
    assert query["fulltext"] == ["1"]
    assert query["limit"] == ["5"]
    assert page.evaluated[0][1] == {"limit": 5}
    assert "li.mw-search-result" in page.evaluated[0][0]


async def test_wikipedia_article_url_and_origin_override():
    page = RecordingPage({"title": "x"})
    await learning.run_site_tool("wikipedia", "article", title="Python (programming language)", page=page)
    assert page.visited[0][0] == "https://en.wikipedia.org/wiki/Python_(programming_language)"
    assert page.evaluated[0][1] == {"paragraphs": 3}
    await learning.run_site_tool("wikipedia", "article", title="C++", origin="http://127.0.0.1:9", page=page)
    assert page.visited[1][0] == "http://127.0.0.1:9/wiki/C%2B%2B"
    await learning.run_site_tool("wikipedia", "article", title="AC/DC", paragraphs=1, page=page)
    assert page.visited[2][0] == "https://en.wikipedia.org/wiki/AC/DC"
    assert "table.infobox" in page.evaluated[0][0]


async def test_wikipedia_tools_check_their_arguments():
    from ego_browser.errors import InvalidArgument

    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_tool("wikipedia", "search", page=RecordingPage())
    assert info.value.option == "query"
    with pytest.raises(InvalidArgument):
        await learning.run_site_tool("wikipedia", "search", query="x", limit="5", page=RecordingPage())


def test_fixture_copies_exist_for_each_pack():
    fixtures = REPO / "tests" / "fixtures" / "sites"
    assert sorted(p.name for p in fixtures.iterdir()) == sorted(p.name for p in loader.iter_pack_dirs(BUNDLED))
    assert "tr class=\"athing submission\"" in (fixtures / "hackernews" / "news.html").read_text()
    assert "table class=\"infobox" in (fixtures / "wikipedia" / "article.html").read_text()
