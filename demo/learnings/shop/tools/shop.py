"""Demo shop tools: search and read the results (used by the docs' examples)."""

from urllib.parse import quote, urljoin


async def search(ctx, query):
    page = ctx.page
    if page is None:
        page = (await ctx.task_space("shop")).page("p1")
    await page.goto(urljoin(await page.url(), "/search.html?q=" + quote(query)))
    results = await ctx.run_browser_tool("read_results", page=page)
    return {"query": query, "count": len(results), "results": results}
