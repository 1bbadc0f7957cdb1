"""An agent's rounds on a Selenium Grid space, end to end (issue 16): the background host
started by a round with EGO_BROWSER_GRID_URL gets its browser from the Grid (tests/grid.py)
and every kind of call works as on a local browser."""

from __future__ import annotations

import json
import shutil
import tempfile

import pytest

from tests.server import Response

APP = """
<h1>Grid app</h1>
<button id=go onclick="document.getElementById('out').textContent = 'clicked ' + document.getElementById('name').value">Go</button>
<input id=name aria-label=Name>
<p id=out>idle</p>
<input type=file id=file onchange="window.picked = Array.from(this.files).map(f => f.name + ':' + f.size)">
<a id=dl href=/grid-round/report.csv>report</a>
<button id=ask onclick="window.answer = confirm('Sure?')">Ask</button>
<a id=pop href=/grid-round/popup target=_blank>popup</a>
"""

SCRIPT = """
import json
task = await task_space('grid-round')
page = task.page('p1')
await page.goto({url!r})
snap = await page.snapshot()
await page.fill('#name', 'Ada')
await page.click('#go')
await page.set_input_files('#file', {upload!r})
waiter = page.wait_for_event('download', timeout=20000)
await page.click('#dl')
dl = await waiter
await dl.save_as({saved!r})
receipt = await page.click('#ask')
dialog = receipt.dialog
accepted = await page.accept_dialog()
receipt = await page.click('#pop')
popup = task.page(receipt.popups[0]['label'])
await popup.wait_for_load_state()
spaces = await list_task_spaces()
print(json.dumps({{
    'heading': 'heading "Grid app"' in snap,
    'out': await page.evaluate("document.getElementById('out').textContent"),
    'picked': await page.evaluate('window.picked'),
    'download': dl.suggested_filename(),
    'dialog': dialog and dialog['message'],
    'accepted': accepted, 'answer': await page.evaluate('window.answer'),
    'popup': [popup.label, await popup.title()],
    'browser': [s['browser'] for s in spaces if s['name'] == 'grid-round'],
}}))
"""


@pytest.fixture
def grid_rounds(grid):
    from tests.conftest import Rounds

    home = tempfile.mkdtemp(prefix="ego-test-grid-rounds-")
    r = Rounds(home)
    r.env["EGO_BROWSER_GRID_URL"] = grid.url
    try:
        yield r
    finally:
        r.stop()
        shutil.rmtree(home, ignore_errors=True)


def test_agent_round_on_a_grid_space_end_to_end(grid_rounds, grid, server, tmp_path):
    server.route("/grid-round/report.csv", Response(b"a,b\n1,2\n", content_type="text/csv",
                                                    headers={"Content-Disposition": 'attachment; filename="report.csv"'}))
    server.page("/grid-round/popup", "<p>second</p>", title="Popup")
    url = server.page("/grid-round", APP, title="Grid app")
    upload = tmp_path / "notes.txt"
    upload.write_text("hello grid")
    saved = tmp_path / "out" / "report.csv"
    proc = grid_rounds.run(SCRIPT.format(url=url, upload=str(upload), saved=str(saved)), timeout=180)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["heading"] is True
    assert out["out"] == "clicked Ada"
    assert out["picked"] == ["notes.txt:10"]
    assert out["download"] == "report.csv" and saved.read_bytes() == b"a,b\n1,2\n"
    assert out["dialog"] == "Sure?" and out["accepted"] is True and out["answer"] is True
    assert out["popup"] == ["p2", "Popup"]
    # the space lives on a Grid session, on one of the two nodes
    (where,) = out["browser"]
    kind, node, _, session = where.split()
    assert kind == "grid" and node in grid.sessions() and session in grid.sessions()[node]
    # host stop gives the Grid session back
    grid_rounds.stop()
    assert not grid.session_alive(session)
