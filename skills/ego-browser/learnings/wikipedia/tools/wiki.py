"""Wikipedia tools: search one language edition or open an article, then read the page with
the pack's browser tools.

Both run in ``page=`` when given (``run_site_tool(..., page=page)``), else in page ``p1`` of
the task space ``space`` (created on first use).
"""

from urllib.parse import quote, urlencode


def origin_for(lang="en", origin=None):
    if origin:
        return origin.rstrip("/")
    lang = str(lang).strip().lower()
    if not lang or not all(c.isalnum() or c == "-" for c in lang):
        raise ValueError(f"lang must be a Wikipedia language code such as 'en' or 'de' (got {lang!r})")
    return f"https://{lang}.wikipedia.org"


def search_url(query, lang="en", limit=20, origin=None):
    """Full-text search (``fulltext=1`` so an exact title lists results instead of redirecting)."""
    params = {"search": query, "title": "Special:Search", "profile": "default", "fulltext": "1", "ns0": "1"}
    if limit and limit != 20:
        params["limit"] = str(limit)
    return f"{origin_for(lang, origin)}/w/index.php?" + urlencode(params)


def article_url(title, lang="en", origin=None):
    """``/wiki/<Title>``: spaces become underscores; ``/`` ``:`` ``(`` ``)`` ``,`` stay readable."""
    path = quote(title.strip().replace(" ", "_"), safe="/:()_,'!*-.~")
    return f"{origin_for(lang, origin)}/wiki/{path}"


async def _page(ctx, space):
    if ctx.page is not None:
        return ctx.page
    task = await ctx.task_space(space)
    return task.page("p1")


async def search(ctx, query, lang="en", limit=20, space="wikipedia", origin=None):
    if not query.strip():
        raise ValueError("query must not be empty")
    page = await _page(ctx, space)
    await page.goto(search_url(query, lang, limit, origin), wait_until="domcontentloaded")
    return await ctx.run_browser_tool("read_search_results", page=page, limit=limit)


async def article(ctx, title, lang="en", paragraphs=3, space="wikipedia", origin=None):
    if not title.strip():
        raise ValueError("title must not be empty")
    page = await _page(ctx, space)
    await page.goto(article_url(title, lang, origin), wait_until="domcontentloaded")
    return await ctx.run_browser_tool("read_article", page=page, paragraphs=paragraphs)
