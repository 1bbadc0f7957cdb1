"""MCP servers driven the way an agent host drives them: the official MCP Python SDK's stdio client.

``McpServer`` keeps one client session open in a thread of its own (the SDK is async; the traces
are plain functions), and every ``call`` is one tool call the agent makes and then reads: one
turn. What it costs is the time of the call as the client sees it and the bytes the call returned
to the agent (the text parts of the result, plus any image data, as the model would get them).

- ``EgoMcpAgent``: ``ego-browser mcp`` (one tool, ``browser_round``); it offers ``round(code)``
  so the ego traces (``trace_ego.py``) run through it unchanged: the round code the skill teaches.
- ``PlaywrightMcp``: Microsoft's ``@playwright/mcp`` from the npm registry, on /usr/bin/chromium
  (``benchmarks/setup_peers.sh`` installs it into benchmarks/.peers/playwright-mcp).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from agents import PY, ROOT, Cost, TraceFailed

import peers

PW_MCP_DIR = peers.PEERS_DIR / "playwright-mcp"
PW_MCP_CLI = PW_MCP_DIR / "node_modules" / "@playwright" / "mcp" / "cli.js"
CALL_TIMEOUT = 120.0


def pw_mcp_missing() -> str:
    """Why Playwright MCP cannot run here ('' when it can)."""
    if not PW_MCP_CLI.is_file():
        return f"@playwright/mcp is not installed ({PW_MCP_CLI}); run benchmarks/setup_peers.sh"
    try:
        import mcp  # noqa: F401
    except ImportError:
        return "the MCP Python SDK is missing (pip install -e '.[mcp]')"
    return ""


class McpServer:
    """One stdio MCP server and one client session to it, open until ``stop()``."""

    def __init__(self, command: str, args: list[str], env: dict[str, str], cwd: str) -> None:
        self.command, self.args, self.env, self.cwd = command, args, env, cwd
        self.cost = Cost()
        self.tools: list[dict[str, Any]] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._session: Any = None
        self._closed: asyncio.Event | None = None
        self._runner: Any = None

    def start(self) -> None:
        self._thread.start()
        ready: Any = asyncio.run_coroutine_threadsafe(self._open(), self._loop)
        self._ready = ready
        # _open sets the session, then waits until stop(); wait for the session only
        deadline = time.monotonic() + CALL_TIMEOUT
        while self._session is None:
            if ready.done():
                ready.result()  # raises why the server did not start
                raise TraceFailed("the MCP server closed during start-up")
            if time.monotonic() > deadline:
                raise TraceFailed(f"the MCP server did not answer initialize within {CALL_TIMEOUT:.0f} s")
            time.sleep(0.05)

    async def _open(self) -> None:
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=self.command, args=self.args, env=self.env, cwd=self.cwd)
        self._closed = asyncio.Event()
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                self.tools = [t.model_dump(exclude_none=True) for t in (await session.list_tools()).tools]
                self._session = session
                await self._closed.wait()

    def resource_bytes(self, uri: str) -> int:
        """The size of a resource the agent is asked to read (not a turn of a task)."""
        fut = asyncio.run_coroutine_threadsafe(self._session.read_resource(uri), self._loop)
        result = fut.result(CALL_TIMEOUT)
        return sum(len((getattr(c, "text", None) or "").encode()) for c in result.contents)

    def schema_bytes(self) -> int:
        return len(json.dumps(self.tools))

    def call(self, tool: str, args: dict[str, Any], *, turn: bool = True) -> str:
        """One tool call; its text as the agent reads it. A tool error is returned, not raised
        (the agent reads it), unless the caller checks ``is_error``."""
        fut = asyncio.run_coroutine_threadsafe(self._call(tool, args), self._loop)
        seconds, text, is_error = fut.result(CALL_TIMEOUT + 10)
        self.cost.add(seconds, text, turn=turn)
        if is_error:
            raise TraceFailed(f"{tool} failed: {text[-2000:]}")
        return text

    async def _call(self, tool: str, args: dict[str, Any]) -> tuple[float, str, bool]:
        t0 = time.perf_counter()
        result = await asyncio.wait_for(self._session.call_tool(tool, args), CALL_TIMEOUT)
        seconds = time.perf_counter() - t0
        parts = []
        for c in result.content:
            parts.append(getattr(c, "text", None) or getattr(c, "data", None) or "")
        if getattr(result, "structured_content", None):
            parts.append(json.dumps(result.structured_content))
        return seconds, "".join(parts), bool(result.is_error)

    def stop(self) -> None:
        if self._closed is not None:
            self._loop.call_soon_threadsafe(self._closed.set)
            try:
                self._ready.result(30)
            except Exception:  # noqa: BLE001 (a server that dies on close is closed)
                pass
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():
            self._loop.close()


class EgoMcpAgent(McpServer):
    """``ego-browser mcp`` with a private home; ``round(code)`` is one ``browser_round`` call."""

    def __init__(self, home: str) -> None:
        super().__init__(PY, ["-m", "ego_browser", "mcp"], peers.ego_env(home), str(ROOT))

    def round(self, script: str, timeout: float = 120) -> str:
        out = self.call("browser_round", {"code": script})
        if "[exit status " in out:
            raise TraceFailed(f"round failed:\n{out[-3000:]}")
        return out


class PlaywrightMcp(McpServer):
    """``@playwright/mcp`` on our Chromium: headless, no sandbox, PEERS.md's flags, an isolated
    (in-memory) profile, every other option at its default."""

    def __init__(self, scratch: str) -> None:
        work = Path(scratch)
        (work / "home").mkdir(parents=True, exist_ok=True)
        config = work / "config.json"
        config.write_text(json.dumps({"browser": {"browserName": "chromium", "isolated": True, "launchOptions": {
            "executablePath": peers.CHROMIUM, "headless": True, "chromiumSandbox": False, "args": peers.FLAGS}}}))
        env = {"HOME": str(work / "home"), "TMPDIR": scratch, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        super().__init__("node", [str(PW_MCP_CLI), "--config", str(config), "--headless",
                                  "--executable-path", peers.CHROMIUM], env, scratch)
