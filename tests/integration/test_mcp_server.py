"""``ego-browser mcp`` (issue 34 point 2), driven by the MCP SDK's own stdio client.

One tool runs a round's code; spaces, labels and refs persist between calls as between rounds;
the guide is a resource; the whole tool schema stays under 1K tokens.
"""

from __future__ import annotations

import json
import re
import sys

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP SDK is a test dependency (pip install -e '.[test]')")

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

PAGE = ("<h1>Counter</h1><button onclick=\"document.querySelector('output').textContent=++window.n\">Add one</button>"
        "<output>0</output><script>window.n=0</script>")


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_one_tool_runs_rounds_whose_spaces_and_refs_persist_between_calls(rounds, server):
    url = server.page("/mcp-counter", PAGE, title="Counter")
    params = StdioServerParameters(command=sys.executable, args=["-m", "ego_browser", "mcp"],
                                   env={k: rounds.env[k] for k in ("EGO_BROWSER_HOME", "PYTHONPATH")})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert [t.name for t in tools] == ["browser_round"]
        schema = json.dumps([t.model_dump(exclude_none=True) for t in tools])
        # under 1K tokens even at a pessimistic 3 characters a token
        assert len(schema) <= 3000, len(schema)

        guide = await session.read_resource("ego-browser://guide")
        assert "usage guide" in guide.contents[0].text

        first = _text(await session.call_tool("browser_round", {"code": (
            "task = await task_space('mcp-counter')\npage = task.page('p1')\n"
            f"await page.goto({url!r})\nprint(await page.snapshot(interactive=True))\n")}))
        ref = re.search(r'button "Add one" \[ref=(\d+)\]', first)
        assert ref, first
        # a later call: the same space and page by label, the ref printed by the earlier call
        second = _text(await session.call_tool("browser_round", {"code": (
            "page = (await task_space('mcp-counter')).page('p1')\n"
            f"await page.click('@{ref.group(1)}')\nprint('count', await page.inner_text('output'))\n")}))
        assert second.strip() == "count 1", second

        failed = _text(await session.call_tool("browser_round", {"code": (
            "page = (await task_space('mcp-counter')).page('p1')\nawait page.click('#nothing', timeout=300)\n")}))
        assert "EGO_SELECTOR_NOT_FOUND" in failed and "[exit status 1]" in failed
