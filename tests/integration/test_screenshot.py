"""page.screenshot (BEHAVIOURS.md B170)."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest

from ego_browser import InvalidArgument

# a 4000x4000 page: white, except one red block exactly where the viewport is after scrolling
PAGE = """<style>body{margin:0;width:4000px;height:4000px;background:#fff;position:relative}
#v{position:absolute;left:1500px;top:2000px;width:800px;height:600px;background:rgb(255,0,0)}</style>
<div id=v></div><script>scrollTo(1500, 2000)</script>"""


def read_png(path: str) -> tuple[int, int, list[list[tuple[int, int, int]]]]:
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and ctype in (2, 6)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def coloured(path: str) -> int:
    w, h, rows = read_png(path)
    hits = 0
    for i in range(5):
        for j in range(5):
            r, g, b = rows[int(h * (i + 0.5) / 5)][int(w * (j + 0.5) / 5)]
            hits += r > 200 and g < 60 and b < 60
    return hits


async def test_b170_viewport_capture_follows_scroll(task, server, tmp_path):
    page = task.page("p1")
    await page.goto(server.page("/b170", PAGE))
    await page.cdp("Emulation.setDeviceMetricsOverride", {"width": 800, "height": 600, "deviceScaleFactor": 1, "mobile": False})
    await page.evaluate("scrollTo(1500, 2000)")
    info = await page.info()
    assert (info["sx"], info["sy"]) == (1500, 2000)
    target = tmp_path / "new" / "dir" / "x.png"
    path = await page.screenshot(path=str(target), full_page=False)
    assert path == str(target) and os.path.getsize(path) > 0
    assert coloured(path) >= 20
    raw = await page.screenshot(path=str(tmp_path / "raw.png"), raw=True)
    assert coloured(raw) >= 20
    default = await page.screenshot()
    try:
        assert os.path.basename(default).startswith(f"ego-browser-shot-{os.getpid()}-")
        assert coloured(default) >= 20
    finally:
        os.unlink(default)
    clip = await page.screenshot(path=str(tmp_path / "clip.png"), clip={"x": 10, "y": 10, "width": 50, "height": 40})
    w, h, _ = read_png(clip)
    assert (w, h) == (50, 40) and coloured(clip) == 25
    full = await page.screenshot(path=str(tmp_path / "full.png"), full_page=True)
    assert struct.unpack(">II", Path(full).read_bytes()[16:24]) == (4000, 4000)
    await page.cdp("Emulation.clearDeviceMetricsOverride")


async def test_screenshot_arguments(task):
    page = task.page("p1")
    with pytest.raises(InvalidArgument):
        await page.screenshot(path="relative.png")
    with pytest.raises(InvalidArgument):
        await page.screenshot(clip={"x": 0, "y": 0, "width": 0, "height": 10})
    with pytest.raises(InvalidArgument):
        await page.screenshot(scale="device")
