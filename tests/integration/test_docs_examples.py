"""Every code example in the usage guide and in docs/*.md runs against the demo shop (issue 6).

- ``python`` blocks are round snippets: each runs in-process (the ``host`` fixture) in a fresh
  task space with ``task`` and ``page`` (its p1, on the shop's home page) defined, plus the runner
  globals. A block containing ``asyncio.run(`` is a standalone program: it runs in a subprocess
  with its own ``EGO_BROWSER_HOME``.
- ``bash`` blocks holding ``python -m ego_browser <<'EOF'`` are rounds: the guide's rounds run in
  order, as separate processes, against one background host.
``https://shop.example`` is replaced by the served ``demo/site``; site learnings come from
``demo/learnings``. Nothing is skipped: an example using a member that has not landed fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ego_browser.schema.render import guide
from tests.server import TestServer

ROOT = Path(__file__).resolve().parent.parent.parent
SITE = ROOT / "demo" / "site"
LEARNINGS = ROOT / "demo" / "learnings"
SHOP = "https://shop.example"
_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)
_ROUND = re.compile(r"(?:ego-browser|python -m ego_browser) <<'EOF'\n(.*?)^EOF$", re.S | re.M)
_n = itertools.count(1)


def blocks(text: str, lang: str) -> list[str]:
    return [body for kind, body in _FENCE.findall(text) if kind == lang]


def rounds_of(text: str) -> list[str]:
    return [r for body in blocks(text, "bash") for r in _ROUND.findall(body)]


def _doc_files() -> list[Path]:
    return sorted((ROOT / "docs").glob("*.md"))


def _snippets() -> list[tuple[str, str]]:
    out = [(f"guide:{i}", src) for i, src in enumerate(blocks(guide(), "python"), 1)]
    for path in _doc_files():
        text = path.read_text()
        heading = ""
        count = itertools.count(1)
        for line_or_block in re.split(r"(^```\w*[^\n]*\n.*?^```)", text, flags=re.S | re.M):
            if line_or_block.startswith("```python"):
                out.append((f"{path.name}:{heading or 'top'}:{next(count)}", line_or_block.split("\n", 1)[1][:-3]))
            else:
                found = re.findall(r"^#+ `?([^`\n]+)`?$", line_or_block, re.M)
                if found:
                    heading, count = found[-1], itertools.count(1)
    return out


SNIPPETS = _snippets()


@pytest.fixture(scope="module")
def shop():
    server = TestServer()
    server.serve_files(SITE)
    yield f"http://127.0.0.1:{server.port}"
    server.close()


def test_examples_exist():
    assert len(rounds_of(guide())) >= 5
    assert len(SNIPPETS) >= 50
    assert all(SHOP in src or "shop.example" not in src for _name, src in SNIPPETS)


async def _cleanup(before: set[int]) -> None:
    import ego_browser

    for space in await ego_browser.list_task_spaces():
        if space["id"] in before:
            continue
        with contextlib.suppress(ego_browser.EgoError):
            if space["ownership"] == "user":
                task = await ego_browser.claim_task_space(space["id"])
            else:
                task = await ego_browser.take_over_task_space(space["id"])
            await task.finish(keep=[])


@pytest.mark.parametrize("name,source", SNIPPETS, ids=[n for n, _ in SNIPPETS])
async def test_snippet(name, source, host, shop, monkeypatch, capsys):
    code = source.replace(SHOP, shop)
    if "asyncio.run(" in code:
        home = tempfile.mkdtemp(prefix="ego-docs-standalone-")
        env = {**os.environ, "EGO_BROWSER_HOME": home, "PYTHONPATH": str(ROOT),
               "EGO_BROWSER_LEARNINGS_DIR": str(LEARNINGS)}
        proc = await asyncio.to_thread(subprocess.run, [sys.executable, "-c", code], env=env, capture_output=True,
                                       text=True, timeout=120, cwd=tempfile.gettempdir())
        assert proc.returncode == 0, f"{name} failed:\n{proc.stderr}"
        return
    import ego_browser
    from ego_browser.round.runner import compile_script, script_globals

    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(LEARNINGS))
    before = {s["id"] for s in await ego_browser.list_task_spaces()}
    task = await ego_browser.task_space(f"docs-example-{next(_n)}")
    try:
        page = task.page("p1")
        await page.goto(shop + "/")
        ns = script_globals()
        ns.update(task=task, page=page)
        result = eval(compile_script(code, f"<{name}>"), ns)  # noqa: S307 - our own docs
        if asyncio.iscoroutine(result):
            await asyncio.wait_for(result, 60)
    finally:
        await _cleanup(before)


def test_guide_rounds(rounds, shop):
    """The guide's rounds, in order, as real ``python -m ego_browser`` processes."""
    env = {**rounds.env, "EGO_BROWSER_LEARNINGS_DIR": str(LEARNINGS)}
    for i, script in enumerate(rounds_of(guide()), 1):
        proc = subprocess.run([sys.executable, "-m", "ego_browser"], input=script.replace(SHOP, shop), env=env,
                              capture_output=True, text=True, timeout=120, cwd=str(ROOT))
        assert proc.returncode == 0, f"guide round {i} failed:\n{script}\n--- stderr:\n{proc.stderr}"

