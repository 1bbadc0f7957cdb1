"""Issue 28 §2: a page that registers tools for agents (WebMCP, navigator.modelContext) has them
listed (page.webmcp_tools, the snapshot header, learn_context) and callable from a round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ego_browser import EgoTimeout, WebMcpBadArguments, WebMcpToolFailed, WebMcpToolNotFound

from tests.server import Response

TODO = (Path(__file__).resolve().parent.parent / "fixtures" / "webmcp" / "todo.html").read_text()


@pytest.fixture
def todo_url(server):
    return server.route("/webmcp/todo.html", Response(TODO, content_type="text/html"))


async def test_page_tools_listed_and_called(task, todo_url):
    page = task.page("p1")
    await page.goto(todo_url)
    # the page found the API it feature-detects, from its first script
    assert await page.text_content("#detected") == "agent tools offered"
    tools = {t["name"]: t for t in await page.webmcp_tools()}
    assert sorted(tools) == ["add_todo", "explode", "hang", "list_todos", "refuse"]  # 'temporary' unregistered
    assert tools["add_todo"]["description"] == "Add a todo item"
    assert tools["add_todo"]["input_schema"]["required"] == ["text"]
    res = await page.call_webmcp_tool("add_todo", {"text": "buy milk", "priority": "high"})
    assert res["tool"] == "add_todo" and res["data"] == {"count": 1, "added": "buy milk"}
    assert json.loads(res["text"]) == res["data"] and res["result"]["content"][0]["type"] == "text"
    # the tool acted on the page as the person would see it
    assert await page.text_content("#list") == "buy milk"
    listed = await page.call_webmcp_tool("list_todos")
    assert listed["data"] == [{"text": "buy milk", "priority": "high", "done": False}]
    snap = await page.snapshot()
    assert "[webmcp tools: add_todo(text, priority?), list_todos(), explode(), refuse(), hang()" in snap
    assert "await page.call_webmcp_tool(NAME, {...})" in snap


async def test_call_errors(task, todo_url):
    page = task.page("p1")
    await page.goto(todo_url)
    with pytest.raises(WebMcpToolNotFound, match="no WebMCP tool 'remove_todo'; it offers: add_todo") as e:
        await page.call_webmcp_tool("remove_todo", {})
    assert e.value.code == "EGO_WEBMCP_TOOL_NOT_FOUND" and "list_todos" in e.value.available
    with pytest.raises(WebMcpBadArguments, match="missing required text"):
        await page.call_webmcp_tool("add_todo", {"priority": "high"})
    with pytest.raises(WebMcpBadArguments, match=r"priority must be one of \[\"low\",\"high\"\]"):
        await page.call_webmcp_tool("add_todo", {"text": "x", "priority": "urgent"})
    with pytest.raises(WebMcpBadArguments, match="text must be string \\(got integer\\)"):
        await page.call_webmcp_tool("add_todo", {"text": 5})
    with pytest.raises(WebMcpToolFailed, match="'explode' threw: the kitchen is on fire") as e:
        await page.call_webmcp_tool("explode")
    assert e.value.code == "EGO_WEBMCP_TOOL_FAILED"
    with pytest.raises(WebMcpToolFailed, match="'refuse' reported an error: not allowed today"):
        await page.call_webmcp_tool("refuse")
    with pytest.raises(EgoTimeout, match="'hang' did not answer within 300ms"):
        await page.call_webmcp_tool("hang", timeout=300)
    # nothing was added by the refused calls
    assert (await page.call_webmcp_tool("list_todos"))["data"] == []


async def test_pages_without_tools_and_new_documents(task, server, todo_url):
    page = task.page("p1")
    await page.goto(server.page("/webmcp/plain", "<p>nothing for agents</p>"))
    assert await page.webmcp_tools() == []
    assert "webmcp tools" not in await page.snapshot()
    with pytest.raises(WebMcpToolNotFound, match="registers no WebMCP tools"):
        await page.call_webmcp_tool("add_todo", {"text": "x"})
    # nothing of ours in the page besides the API itself: no global, no own property of the API
    leaks = await page.evaluate(
        "Object.getOwnPropertyNames(window).filter(n => /mcp|modelcontext|^registry$|^provided$/i.test(n)).concat("
        "Reflect.ownKeys(navigator.modelContext).map(String).filter(k => !['provideContext', 'clearContext', "
        "'registerTool', 'unregisterTool'].includes(k)))")
    assert leaks == []
    assert await page.evaluate("Object.values(navigator.modelContext).map(String).join().includes('ego')") is False
    # a frame is not a model context provider: the API is the top-level document's only
    await page.goto(server.page("/webmcp/framed", "<iframe srcdoc='<p>in</p>'></iframe>"))
    assert await page.evaluate("document.querySelector('iframe').contentWindow.eval(\"'modelContext' in navigator\")") is False
    # the same page tab, another document: its own tools are found again
    await page.goto(todo_url)
    await page.call_webmcp_tool("add_todo", {"text": "again"})
    await page.reload()
    assert (await page.call_webmcp_tool("list_todos"))["data"] == []


def test_listed_in_learn_context_from_a_round(rounds, server):
    url = server.route("/webmcp/todo-round.html", Response(TODO, content_type="text/html"))
    script = (f"p = (await task_space('webmcp')).page('p1')\nawait p.goto({url!r})\n"
              "ctx = await learn_context(page=p)\n"
              "print(json.dumps([t['name'] for t in ctx['tools'] if t['kind'] == 'webmcp']))\n"
              "print(json.dumps((await p.call_webmcp_tool('add_todo', {'text': 'from a round'}))['data']))\n")
    proc = rounds.run("import json\n" + script, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert json.loads(lines[-2]) == ["add_todo", "list_todos", "explode", "refuse", "hang"]
    assert json.loads(lines[-1]) == {"count": 1, "added": "from a round"}


async def test_turned_off_the_page_sees_no_api(task, todo_url, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_WEBMCP", "0")
    page = await task.new_page()  # a page attached while it is off gets no shim
    await page.goto(todo_url)
    assert await page.evaluate("'modelContext' in navigator") is False
    assert await page.text_content("#detected") == ""
    assert await page.webmcp_tools() == []
