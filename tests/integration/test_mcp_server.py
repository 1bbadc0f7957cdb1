"""``ego-browser mcp`` (issue 34 point 2), driven by the MCP SDK's own stdio client.

One tool runs a round's code; spaces, labels and refs persist between calls as between rounds;
the guide is a resource; the whole tool schema stays under 1K tokens.
"""

from __future__ import annotations

import json
import re
import subprocess
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


async def test_malformed_requests_get_errors_and_a_round_cannot_reach_another_space(rounds, server):
    """Hostile input to the MCP server (issue 31 §3): unknown tools, missing or mistyped arguments
    and a line that is not JSON-RPC each get an error, never a dead server; code run through it
    meets the same walls as any round: a space the person holds, another space's tab by raw CDP."""
    url = server.page("/mcp-walls", "<button>Pay</button>", title="Walls")
    params = StdioServerParameters(command=sys.executable, args=["-m", "ego_browser", "mcp"],
                                   env={k: rounds.env[k] for k in ("EGO_BROWSER_HOME", "PYTHONPATH")})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, args in (("no_such_tool", {"code": "print(1)"}), ("browser_round", {}),
                           ("browser_round", {"code": 42}), ("browser_round", {"code": "x", "extra": {"a": [1] * 3}})):
            result = await session.call_tool(name, args)
            if name == "browser_round" and args.get("code") == "x":
                assert "NameError" in _text(result)  # extra arguments are ignored; the code ran and failed
            else:
                assert result.is_error, (name, args, _text(result))
        held = _text(await session.call_tool("browser_round", {"code": (
            f"t = await task_space('mcp-held')\nawait t.page('p1').goto({url!r})\n"
            "print(t.space_id, t.page('p1').target_id)\n")}))
        space_id, target = held.split()[-2:]
        assert rounds.cli("spaces", "take-over", space_id).returncode == 0
        try:
            walls = _text(await session.call_tool("browser_round", {"code": (
                "held = (await task_space('mcp-held')).page('p1')\n"
                "try:\n    await held.click('button')\nexcept EgoError as exc:\n    print('act', exc.code)\n"
                "mine = (await task_space('mcp-other')).page('p1')\n"
                f"for method, args in (('Target.attachToTarget', {{'targetId': {target!r}, 'flatten': True}}),\n"
                f"                     ('Target.closeTarget', {{'targetId': {target!r}}}),\n"
                f"                     ('Runtime.evaluate', {{'expression': '1', 'contextId': 1, 'targetId': {target!r}}})):\n"
                "    try:\n        await mine.cdp(method, args)\n        print('cdp', method, 'ran')\n"
                "    except EgoError as exc:\n        print('cdp', method, exc.code)\n")}))
        finally:
            rounds.cli("spaces", "give-back", space_id)
        assert "act EGO_TASK_SPACE_USER_IN_CONTROL" in walls, walls
        assert "cdp Target.attachToTarget EGO_CDP_METHOD_REFUSED" in walls, walls
        assert "cdp Target.closeTarget EGO_CDP_METHOD_REFUSED" in walls, walls
        # the server is still there and works
        assert _text(await session.call_tool("browser_round", {"code": "print('alive')"})).strip() == "alive"


def test_a_line_that_is_not_json_rpc_does_not_end_the_server(rounds):
    proc = subprocess.Popen([sys.executable, "-m", "ego_browser", "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**rounds.env})
    try:
        def send(obj) -> None:
            proc.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
            proc.stdin.flush()

        def answer(request_id: int) -> dict:
            while True:
                line = proc.stdout.readline()
                assert line, proc.stderr.read()
                message = json.loads(line)
                if message.get("id") == request_id:
                    return message

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}})
        assert "result" in answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for garbage in ("this is not json", "{\"jsonrpc\": \"2.0\", \"id\": ", "[]", "{}", "\x00\x01\x02",
                        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "no/such/method"})):
            send(garbage)
        assert "error" in answer(5)  # an unknown method is an error answer
        send({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
        assert [t["name"] for t in answer(6)["result"]["tools"]] == ["browser_round"]
        assert proc.poll() is None
    finally:
        proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
