"""Site learnings: running Python tools and browser tools (B182-B186)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ego_browser import learning
from ego_browser.errors import InvalidArgument, PageScriptError, SiteNotFound, SitePackInvalid, SiteToolNotFound
from ego_browser.learning.tools import ToolContext


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_pack(root: Path, pack_id: str = "shop", *, node_tools=None, browser_tools=None, files=None) -> Path:
    pack = root / pack_id
    for rel, text in (files or {}).items():
        write(pack / rel, text)
    manifest = {
        "id": pack_id,
        "name": "Example Shop",
        "domains": ["shop.example"],
        "node_tools": node_tools or {},
        "browser_tools": browser_tools or {},
    }
    write(pack / "manifest.json", json.dumps(manifest))
    return pack


def node_tool(file="tools/t.py", callable="run", args=None, **extra):
    return {"file": file, "callable": callable, "description": "a tool", "args": args or {}, **extra}


def browser_tool(file="browser-tools/t.js", args=None):
    return {"file": file, "description": "a browser tool", "args": args or {}}


@pytest.fixture
def root(tmp_path, monkeypatch):
    r = tmp_path / "learnings"
    r.mkdir()
    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(r))
    learning.reset()
    yield r
    learning.reset()


class FakePage:
    """Duck-typed Page: records every evaluate call and answers with ``result``."""

    def __init__(self, result=None, error: Exception | None = None):
        self.calls: list[tuple[str, object]] = []
        self.result = result
        self.error = error
        self.visited: list[str] = []

    async def evaluate(self, js, arg=None):
        self.calls.append((js, arg))
        if self.error is not None:
            raise self.error
        return self.result

    async def goto(self, url, **kw):
        self.visited.append(url)


# -- Python tools (B183, B184) ---------------------------------------------------------------


async def test_b183_sync_and_async_callables_get_ctx_and_args(root):
    make_pack(
        root,
        node_tools={
            "sync_tool": node_tool("tools/a.py", "sync_tool", {"query": "str"}),
            "async_tool": node_tool("tools/a.py", "async_tool", {"n": "int"}),
        },
        files={
            "tools/a.py": (
                "import asyncio\n"
                "def sync_tool(ctx, query):\n"
                "    return {'site': ctx.site_id, 'dir': str(ctx.pack_dir), 'query': query}\n"
                "async def async_tool(ctx, n):\n"
                "    await asyncio.sleep(0)\n"
                "    return n * 2\n"
            )
        },
    )
    assert await learning.run_site_tool("shop", "sync_tool", query="socks") == {
        "site": "shop",
        "dir": str(root / "shop"),
        "query": "socks",
    }
    assert await learning.run_site_tool("shop", "async_tool", n=21) == 42


async def test_b183_ctx_has_the_injected_api_functions(root):
    make_pack(
        root,
        node_tools={"open": node_tool("tools/o.py", "open", {"name": "str"})},
        files={
            "tools/o.py": (
                "async def open(ctx, name):\n"
                "    task = await ctx.task_space(name)\n"
                "    return [task, ctx.page, ctx.pack_dir.name]\n"
            )
        },
    )
    seen = []

    async def fake_task_space(name):
        seen.append(name)
        return f"TaskSpace({name})"

    learning.configure(api={"task_space": fake_task_space})
    page = FakePage()
    result = await learning.run_site_tool("shop", "open", name="flights", page=page)
    assert result == ["TaskSpace(flights)", page, "shop"]
    assert seen == ["flights"]


async def test_ctx_page_is_none_without_page_and_unknown_attributes_raise(root):
    make_pack(
        root,
        node_tools={"peek": node_tool("tools/p.py", "peek")},
        files={
            "tools/p.py": (
                "def peek(ctx):\n"
                "    try:\n"
                "        ctx.no_such_thing\n"
                "    except AttributeError as exc:\n"
                "        return [ctx.page, str(exc)]\n"
            )
        },
    )
    page, message = await learning.run_site_tool("shop", "peek")
    assert page is None
    assert "no_such_thing" in message and "task_space" in message


async def test_a_declared_page_argument_is_passed_on(root):
    make_pack(
        root,
        node_tools={"p": node_tool("tools/p.py", "p", {"page": "any"})},
        files={"tools/p.py": "def p(ctx, page):\n    return ctx.page is page\n"},
    )
    assert await learning.run_site_tool("shop", "p", page=FakePage()) is True


async def test_b184_unknown_site_undeclared_tool_missing_callable(root):
    make_pack(
        root,
        node_tools={"gone": node_tool("tools/g.py", "not_there")},
        browser_tools={"read": browser_tool("browser-tools/r.js")},
        files={"tools/g.py": "def something_else(ctx):\n    return 1\n", "browser-tools/r.js": "return 1;"},
    )
    with pytest.raises(SiteNotFound) as info:
        await learning.run_site_tool("nope", "x")
    assert info.value.site_id == "nope"

    with pytest.raises(SiteToolNotFound) as info:
        await learning.run_site_tool("shop", "undeclared")
    assert (info.value.site_id, info.value.tool) == ("shop", "undeclared")

    with pytest.raises(SiteToolNotFound) as info:
        await learning.run_site_tool("shop", "gone")
    assert info.value.tool == "gone" and "not_there" in str(info.value)

    # a browser tool is not a Python tool, and the reverse
    with pytest.raises(SiteToolNotFound):
        await learning.run_site_tool("shop", "read")
    with pytest.raises(SiteToolNotFound):
        await learning.run_site_browser_tool("shop", "gone", page=FakePage())
    with pytest.raises(SiteNotFound):
        await learning.run_site_browser_tool("nope", "read", page=FakePage())


async def test_b184_the_tools_own_exception_propagates_unchanged(root):
    make_pack(
        root,
        node_tools={"boom": node_tool("tools/b.py", "boom")},
        files={"tools/b.py": "class ShopDown(RuntimeError):\n    pass\nasync def boom(ctx):\n    raise ShopDown('503 from shop')\n"},
    )
    with pytest.raises(RuntimeError) as info:
        await learning.run_site_tool("shop", "boom")
    assert type(info.value).__name__ == "ShopDown"
    assert str(info.value) == "503 from shop"


async def test_b182_tool_edits_apply_on_the_next_call_within_one_second(root):
    pack = make_pack(
        root,
        node_tools={"v": node_tool("tools/v.py", "v")},
        files={"tools/v.py": "def v(ctx):\n    return 1\n"},
    )
    assert await learning.run_site_tool("shop", "v") == 1
    stat = (pack / "tools" / "v.py").stat()
    (pack / "tools" / "v.py").write_text("def v(ctx):\n    return 2\n")  # same size
    os.utime(pack / "tools" / "v.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and same mtime
    assert await learning.run_site_tool("shop", "v") == 2
    assert not (pack / "tools" / "__pycache__").exists()


async def test_modules_are_fresh_and_not_registered(root):
    make_pack(
        root,
        node_tools={"count": node_tool("tools/c.py", "count")},
        files={"tools/c.py": "CALLS = []\ndef count(ctx):\n    CALLS.append(1)\n    return (len(CALLS), __name__)\n"},
    )
    before = set(sys.modules)
    n1, name1 = await learning.run_site_tool("shop", "count")
    n2, name2 = await learning.run_site_tool("shop", "count")
    assert (n1, n2) == (1, 1)  # module state does not survive between calls
    assert name1 != name2
    assert set(sys.modules) - before == set()


async def test_tool_modules_can_use_dataclasses_and_see_themselves_while_running(root):
    make_pack(
        root,
        node_tools={"rows": node_tool("tools/r.py", "rows")},
        files={
            "tools/r.py": (
                "from __future__ import annotations\n"
                "import sys, typing\n"
                "from dataclasses import dataclass, field\n"
                "@dataclass\n"
                "class Row:\n"
                "    title: str\n"
                "    kind: typing.ClassVar[str] = 'story'\n"
                "    tags: list = field(default_factory=list)\n"
                "async def rows(ctx):\n"
                "    return [Row('a').title, Row.kind, __name__ in sys.modules]\n"
            )
        },
    )
    before = set(sys.modules)
    assert await learning.run_site_tool("shop", "rows") == ["a", "story", True]
    assert set(sys.modules) - before == set()


# -- argument checks -------------------------------------------------------------------------


async def test_arguments_are_checked_against_the_manifest(root):
    make_pack(
        root,
        node_tools={
            "search": node_tool(
                "tools/s.py",
                "search",
                {"query": "str", "limit": {"type": "int", "required": False, "default": 5}, "ratio": "float"},
            )
        },
        files={"tools/s.py": "def search(ctx, query, ratio, limit=99):\n    return (query, limit, ratio)\n"},
    )
    assert await learning.run_site_tool("shop", "search", query="q", ratio=1) == ("q", 5, 1)
    assert await learning.run_site_tool("shop", "search", query="q", ratio=0.5, limit=2) == ("q", 2, 0.5)

    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_tool("shop", "search", ratio=1.0)
    assert info.value.option == "query" and "shop.search" in str(info.value) and "missing" in str(info.value)

    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_tool("shop", "search", query="q", ratio=1.0, colour="red")
    assert info.value.option == "colour" and "unknown" in str(info.value)

    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_tool("shop", "search", query=3, ratio=1.0)
    assert info.value.option == "query" and info.value.expected == "str"

    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_tool("shop", "search", query="q", ratio=1.0, limit=True)
    assert info.value.option == "limit"  # a bool is not an int here

    with pytest.raises(InvalidArgument):
        await learning.run_site_tool("shop", "search", query="q", ratio="1.0")


@pytest.mark.parametrize(
    "type_name, good, bad",
    [
        ("str", "x", 1),
        ("int", 3, 3.5),
        ("float", 3.5, "3.5"),
        ("bool", False, 0),
        ("list", [1], {"a": 1}),
        ("dict", {"a": 1}, [1]),
    ],
)
async def test_simple_types(root, type_name, good, bad):
    make_pack(
        root,
        browser_tools={"t": browser_tool(args={"v": type_name})},
        files={"browser-tools/t.js": "return args.v;"},
    )
    page = FakePage(result="ok")
    assert await learning.run_site_browser_tool("shop", "t", page=page, v=good) == "ok"
    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_browser_tool("shop", "t", page=page, v=bad)
    assert info.value.expected == type_name
    assert len(page.calls) == 1  # the bad call never reached the page


# -- browser tools (B185) --------------------------------------------------------------------


async def test_b185_browser_tool_runs_the_file_as_an_async_function_body(root):
    body = "const rows = document.querySelectorAll('tr.item');\nreturn Array.from(rows).slice(0, args.limit).length;"
    make_pack(
        root,
        browser_tools={"read": browser_tool("browser-tools/read.js", {"limit": "int"})},
        files={"browser-tools/read.js": body},
    )
    page = FakePage(result=3)
    assert await learning.run_site_browser_tool("shop", "read", page=page, limit=3) == 3
    [(js, arg)] = page.calls
    assert arg == {"limit": 3}
    assert js.startswith("async (args) => {")
    assert js.rstrip().endswith("}")
    assert body in js


async def test_b185_browser_tool_defaults_are_filled(root):
    make_pack(
        root,
        browser_tools={"read": browser_tool("browser-tools/read.js", {"limit": {"type": "int", "default": 30}})},
        files={"browser-tools/read.js": "return args.limit;"},
    )
    page = FakePage(result=30)
    await learning.run_site_browser_tool("shop", "read", page=page)
    assert page.calls[0][1] == {"limit": 30}


async def test_b185_a_page_script_error_propagates(root):
    make_pack(root, browser_tools={"bad": browser_tool("browser-tools/bad.js")}, files={"browser-tools/bad.js": "throw new Error('nope');"})
    page = FakePage(error=PageScriptError("Error: nope", js_name="Error", stack=None))
    with pytest.raises(PageScriptError) as info:
        await learning.run_site_browser_tool("shop", "bad", page=page)
    assert "nope" in str(info.value)


async def test_browser_tool_requires_a_page(root):
    make_pack(root, browser_tools={"read": browser_tool("browser-tools/read.js")}, files={"browser-tools/read.js": "return 1;"})
    with pytest.raises(InvalidArgument) as info:
        await learning.run_site_browser_tool("shop", "read", page=None)
    assert info.value.option == "page"


async def test_browser_tool_edits_apply_at_once(root):
    pack = make_pack(root, browser_tools={"r": browser_tool("browser-tools/r.js")}, files={"browser-tools/r.js": "return 'v1';"})
    page = FakePage()
    await learning.run_site_browser_tool("shop", "r", page=page)
    (pack / "browser-tools" / "r.js").write_text("return 'v2';")
    await learning.run_site_browser_tool("shop", "r", page=page)
    assert "'v1'" in page.calls[0][0] and "'v2'" in page.calls[1][0]


async def test_ctx_run_browser_tool_uses_ctx_page(root):
    make_pack(
        root,
        node_tools={"combo": node_tool("tools/c.py", "combo", {"n": "int"})},
        browser_tools={"count": browser_tool("browser-tools/count.js", {"n": "int"})},
        files={
            "tools/c.py": "async def combo(ctx, n):\n    return await ctx.run_browser_tool('count', n=n)\n",
            "browser-tools/count.js": "return args.n + 1;",
        },
    )
    page = FakePage(result=8)
    assert await learning.run_site_tool("shop", "combo", n=7, page=page) == 8
    assert page.calls[0][1] == {"n": 7}


# -- path checks (B186) ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
async def test_b186_tool_paths_leaving_the_pack_are_refused(root, tmp_path, kind):
    outside = write(tmp_path / "outside" / "evil.py", "import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\ndef run(ctx):\n    return 'escaped'\n")
    outside_js = write(tmp_path / "outside" / "evil.js", "return 'escaped';")
    pack = root / "shop"
    if kind == "dotdot":
        py, js = "../../outside/evil.py", "../../outside/evil.js"
    elif kind == "absolute":
        py, js = str(outside), str(outside_js)
    else:
        write(pack / "tools" / "placeholder.txt", "")
        (pack / "tools" / "evil.py").symlink_to(outside)
        (pack / "tools" / "evil.js").symlink_to(outside_js)
        py, js = "tools/evil.py", "tools/evil.js"
    make_pack(root, node_tools={"run": node_tool(py, "run")}, browser_tools={"read": browser_tool(js)})

    with pytest.raises(SitePackInvalid) as info:
        await learning.run_site_tool("shop", "run")
    assert info.value.site_id == "shop"
    assert any("leaves the pack" in p for p in info.value.problems)
    assert not (tmp_path / "outside" / "ran").exists()

    page = FakePage()
    with pytest.raises(SitePackInvalid):
        await learning.run_site_browser_tool("shop", "read", page=page)
    assert page.calls == []


async def test_missing_tool_file_is_an_invalid_pack(root):
    make_pack(root, node_tools={"run": node_tool("tools/missing.py", "run")})
    with pytest.raises(SitePackInvalid) as info:
        await learning.run_site_tool("shop", "run")
    assert "file not found" in str(info.value)


async def test_an_invalid_manifest_raises_site_pack_invalid_on_run(root):
    write(root / "shop" / "manifest.json", "{not json")
    with pytest.raises(SitePackInvalid) as info:
        await learning.run_site_tool("shop", "x")
    assert "not valid JSON" in str(info.value)


def test_tool_context_repr_and_fields(tmp_path):
    ctx = ToolContext("shop", tmp_path, api={"profiles": "P"})
    assert ctx.site_id == "shop" and ctx.pack_dir == tmp_path and ctx.page is None
    assert ctx.profiles == "P"
    assert "shop" in repr(ctx)
