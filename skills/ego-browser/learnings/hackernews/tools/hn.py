"""Hacker News tools: open a list or an item page and read it with the pack's browser tools.

Both run in ``page=`` when given (``run_site_tool(..., page=page)``), else in page ``p1`` of
the task space ``space`` (created on first use).
"""

from urllib.parse import urlencode

ORIGIN = "https://news.ycombinator.com"
SECTIONS = {
    "news": "news",
    "top": "news",
    "front": "news",
    "newest": "newest",
    "new": "newest",
    "best": "best",
    "ask": "ask",
    "show": "show",
    "jobs": "jobs",
}


async def _page(ctx, space):
    if ctx.page is not None:
        return ctx.page
    task = await ctx.task_space(space)
    return task.page("p1")


def list_url(section="news", page_number=1, origin=None):
    """The URL of a list page: ``/news``, ``/news?p=2``, ``/ask`` ..."""
    path = SECTIONS.get(str(section).lower())
    if path is None:
        raise ValueError(f"unknown Hacker News section {section!r}; use one of {', '.join(sorted(set(SECTIONS)))}")
    if page_number < 1:
        raise ValueError(f"page_number must be 1 or more (got {page_number})")
    query = "?" + urlencode({"p": page_number}) if page_number > 1 else ""
    return f"{(origin or ORIGIN).rstrip('/')}/{path}{query}"


def item_url(id, origin=None):
    return f"{(origin or ORIGIN).rstrip('/')}/item?" + urlencode({"id": id})


async def front_page(ctx, section="news", page_number=1, limit=30, space="hackernews", origin=None):
    page = await _page(ctx, space)
    await page.goto(list_url(section, page_number, origin), wait_until="domcontentloaded")
    return await ctx.run_browser_tool("read_stories", page=page, limit=limit)


async def thread(ctx, id, limit=100, space="hackernews", origin=None):
    page = await _page(ctx, space)
    await page.goto(item_url(id, origin), wait_until="domcontentloaded")
    return await ctx.run_browser_tool("read_comments", page=page, limit=limit)
