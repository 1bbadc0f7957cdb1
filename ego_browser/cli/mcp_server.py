"""``ego-browser mcp``: ego_browser as an MCP server over stdio (issue 34 point 2).

For agent hosts that have no shell. One tool runs a round's code, exactly as
``ego-browser`` would (the same runner, the host's warm worker, the same output): task
spaces, page labels and refs persist between calls as they do between rounds, because they
live in the host, not in this process. The usage guide is a resource. The whole tool schema
is kept small (a test holds it under 1K tokens): the guide, not the schema, teaches the API.

Built on the official MCP Python SDK (``pip install 'ego_browser[mcp]'``), imported only
when this command runs, so rounds never pay for it.
"""

from __future__ import annotations

import asyncio
import os
import sys

__all__ = ["main", "TOOL_DESCRIPTION", "run_round"]

TOOL_DESCRIPTION = (
    "Run one ego_browser round: Python with top-level await driving a real Chromium. "
    "Globals: task_space(name) -> TaskSpace; task.page('p1') -> Page (goto, snapshot, click/fill/press "
    "by '@ref' or selector, find, evaluate, wait_for_*). Spaces, page labels and refs persist between "
    "calls. print() what you need; output and errors come back as text. Read the resource "
    "ego-browser://guide once before the first call."
)
INSTRUCTIONS = ("Drive a real browser by running short Python rounds with the browser_round tool; "
                "read ego-browser://guide first.")
#: a round has its own deadlines; this only keeps a wedged round from holding the server forever
ROUND_LIMIT_S = 900.0


async def run_round(code: str) -> str:
    """Run ``code`` as one round in a child ``ego_browser`` process; its output as the agent reads it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ego_browser", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=os.environ.copy())
    try:
        out, err = await asyncio.wait_for(proc.communicate(code.encode("utf-8")), ROUND_LIMIT_S)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        return f"EGO_TIMEOUT: the round ran longer than {ROUND_LIMIT_S:.0f} s and was stopped"
    text = out.decode("utf-8", "replace")
    if err:
        text += ("" if not text or text.endswith("\n") else "\n") + err.decode("utf-8", "replace")
    if proc.returncode:
        text += f"[exit status {proc.returncode}]\n"
    return text or "(no output)\n"


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: ego-browser mcp\n\nServe ego_browser over MCP on stdio: one tool (browser_round) runs a "
              "round's code; the guide is the resource ego-browser://guide. Needs the MCP SDK: "
              "pip install 'ego_browser[mcp]'.")
        return 0
    if argv:
        sys.stderr.write(f"ego-browser mcp takes no arguments (got {' '.join(argv)}); see ego-browser mcp --help\n")
        return 2
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        sys.stderr.write(f"EGO_MISSING_DEPENDENCY: ego-browser mcp needs the MCP SDK (mcp>=2): "
                         f"pip install 'ego_browser[mcp]' ({exc})\n")
        return 2
    from .._version import __version__
    from ..helptext import guide

    server: MCPServer = MCPServer("ego-browser", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(name="browser_round", description=TOOL_DESCRIPTION, structured_output=False)
    async def browser_round(code: str) -> str:
        return await run_round(code)

    @server.resource("ego-browser://guide", name="guide", mime_type="text/markdown",
                     description="The ego_browser usage guide for this version.")
    def usage_guide() -> str:
        return guide()

    server.run("stdio")
    return 0
