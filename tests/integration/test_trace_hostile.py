"""A trace of a space whose page is hostile (issue 31 §3: every new surface lands with its own
hostile-input tests): page text, a title, a control's name, a URL and the agent's own note that
carry markup and code end up in the exported viewer as text and in the Playwright script as
string literals; nothing of them runs."""

from __future__ import annotations

import ast
import html
import json
import zipfile

import pytest

#: closes a script, opens one, and runs code from an image's error: whatever renders it as markup runs it
HOSTILE = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
#: closes a Python string and runs code in a generated script
HOSTILE_PY = '"); import os; os.system("touch pwned") #\n__import__("os").system("touch pwned")'


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _round(rounds, script: str) -> str:
    proc = rounds.run(script)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


async def test_a_trace_of_hostile_page_text_is_shown_as_text_and_runs_nothing(rounds, server, tmp_path):
    pytest.importorskip("playwright.async_api")
    from playwright.async_api import async_playwright

    from tests.selector_cases import CHROMIUM, PW_ARGS

    text = html.escape(HOSTILE)
    url = server.page("/hostile-trace.html", f"""<h1>{text}</h1>
<label>{html.escape(HOSTILE_PY)}<input id="field"></label>
<button id="go" onclick="document.title = {html.escape(json.dumps(HOSTILE))}">{text}</button>
<script>document.title = {html.escape(json.dumps(HOSTILE))};</script>""", title="x")
    hostile_url = url + "?q=" + "%3C/script%3E%3Cscript%3Ewindow.__pwned=3%3C/script%3E"
    out = _round(rounds, f"""task = await task_space("hostile-trace")
p = task.page("p1")
await task.set_status({HOSTILE!r})
await p.goto({hostile_url!r})
print(await p.snapshot())
await p.fill("#field", {HOSTILE_PY!r})
await p.click("#go")
print(task.space_id)
""")
    space_id = out.strip().splitlines()[-1]
    bundle = tmp_path / "trace.zip"
    proc = rounds.cli("trace", "export", space_id, "--output", str(bundle), "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(bundle) as z:
        z.extractall(tmp_path / "unzipped")
        data = json.loads(z.read("trace.json"))
    assert any(HOSTILE in v for v in _strings(data))  # the trace keeps what happened, as data

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
        try:
            page = await browser.new_page()
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            await page.goto((tmp_path / "unzipped" / "index.html").as_uri())
            await page.wait_for_selector("li.action")
            shown = await page.evaluate("document.body.textContent")
            pwned = await page.evaluate("window.__pwned === undefined ? null : window.__pwned")
            scripts = await page.evaluate("[...document.scripts].map((s) => s.getAttribute('src'))")
            images = await page.evaluate("[...document.images].map((i) => i.getAttribute('src'))")
        finally:
            await browser.close()
    assert pwned is None  # no markup of the page's ran in the viewer
    assert HOSTILE in shown  # it is shown, as text
    assert sorted(scripts) == ["trace-data.js", "trace.js"]  # the viewer's own, nothing injected
    assert "x" not in images and not any(u.endswith("/x") for u in asked)
    assert all(u.startswith("file://") for u in asked), asked

    # the same trace as a Playwright script: the hostile strings are literals, never code
    script = tmp_path / "replay.py"
    proc = rounds.cli("trace", "export", space_id, "--output", str(script), "--as", "playwright", "--json")
    assert proc.returncode == 0, proc.stderr
    tree = ast.parse(script.read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert not [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "system"]
    assert not [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "__import__"]
    literals = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert any(HOSTILE_PY in s for s in literals)  # the field's text is replayed as it was typed
