"""Files on a Grid space as on a local one (issue 16): downloads come back over the Grid's HTTP
API (managed downloads), screenshots decode at the right size. The nodes run with a temp
folder of their own (tests/grid.py): the folder their Chromium downloads into does not exist
on this side, so a download that reaches the agent came through the Grid, not a shared disk."""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

import pytest

import ego_browser

from tests.integration.test_screenshot import read_png
from tests.server import Response

#: not a text file, and large enough to need more than one read of the Grid's zip
BODY = hashlib.sha256(b"grid").digest() * 12_000 + bytes(range(256))


def _attachment(server, path: str, name: str, body: bytes) -> None:
    server.route(path, Response(body, content_type="application/octet-stream",
                                headers={"Content-Disposition": f'attachment; filename="{name}"'}))


async def test_a_download_on_a_grid_node_comes_back_over_the_grid(on_grid, grid, server, tmp_path):
    if not grid.private_files:
        pytest.skip("no mount namespaces here: the Grid's nodes share this machine's temp folder")
    host = on_grid
    _attachment(server, "/grid-dl/a", "report.bin", BODY)
    _attachment(server, "/grid-dl/b", "report.bin", BODY[::-1])  # same name: neither overwrites the other
    url = server.page("/grid-dl", "<a id=a href=/grid-dl/a>a</a> <a id=b href=/grid-dl/b>b</a>")
    t = await ego_browser.task_space("grid-downloads")
    page = t.page("p1")
    await page.goto(url)
    got = []
    for link in ("#a", "#b"):
        waiter = page.wait_for_event("download", timeout=20000)
        await page.click(link)
        got.append(await waiter)
    a, b = got
    assert a.suggested_filename() == b.suggested_filename() == "report.bin"
    assert await a.failure() is None and await b.failure() is None
    assert Path(await a.path()).read_bytes() == BODY
    assert Path(await b.path()).read_bytes() == BODY[::-1]
    saved = tmp_path / "saved" / "report.bin"
    await a.save_as(str(saved))
    assert saved.read_bytes() == BODY
    # Chromium wrote them on the node, in a folder this side cannot open: the bytes above
    # came over the Grid's HTTP API
    records = host.features.downloads.records
    (node_dir,) = {r.remote_dir for r in records.values() if r.suggested == "report.bin"}
    assert node_dir.startswith("/") and not os.path.exists(node_dir)
    assert not any((host.run_dir / "downloads").glob("*"))
    await t.finish(keep=[])


PAGE = """<style>body{margin:0;background:#fff} #box{position:absolute;left:40px;top:30px;width:120px;
height:50px;background:rgb(255,0,0)}</style><div id=box></div>"""


async def test_screenshots_on_a_grid_space(on_grid, server, tmp_path):
    t = await ego_browser.task_space("grid-shots")
    page = t.page("p1")
    await page.goto(server.page("/grid-shot", PAGE))
    await page.cdp("Emulation.setDeviceMetricsOverride", {"width": 640, "height": 480, "deviceScaleFactor": 1,
                                                         "mobile": False})
    whole = await page.screenshot(path=str(tmp_path / "page.png"))
    w, h, rows = read_png(whole)
    assert (w, h) == (640, 480)
    assert rows[55][100] == (255, 0, 0) and rows[200][300] == (255, 255, 255)
    # an element's own picture: a clip of its box
    box = await page.evaluate("(() => { const r = document.getElementById('box').getBoundingClientRect();"
                              " return {x: r.x, y: r.y, width: r.width, height: r.height} })()")
    element = await page.screenshot(path=str(tmp_path / "box.png"), clip=box)
    w, h, rows = read_png(element)
    assert (w, h) == (120, 50)
    assert {px for row in rows for px in row} == {(255, 0, 0)}
    full = await page.screenshot(path=str(tmp_path / "full.png"), full_page=True)
    assert struct.unpack(">II", Path(full).read_bytes()[16:24]) == (640, 480)
    await t.finish(keep=[])
