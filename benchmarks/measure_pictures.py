"""What a trace picture costs per action, by how it is taken (issue 33 §2: "cheap: taken from
frames the browser already produces where possible").

A Chromium of its own (our launcher, the project's flags), the bench page ``/actions``, N clicks
per mode (trusted input at the button, then two animation frames so the click is drawn), modes
interleaved in blocks. Per click: the wall time until the picture is there, and the CPU time of
Chromium's whole process tree (``/proc``), against the same clicks with no picture:

- ``capture q35``: ``Page.captureScreenshot`` JPEG quality 35, ``optimizeForSpeed`` (today's);
- ``capture q35 x0.75`` / ``x0.5``: the same with a clip at scale 0.75 (the video's 960×540) or
  0.5 (a quarter of the pixels);
- ``cast q35``: a ``Page.startScreencast`` (JPEG 35, the viewport's size) running all along on a
  session of its own, every frame acked; the picture is the first frame after the click.

    .venv/bin/python benchmarks/measure_pictures.py [--clicks 40] [--blocks 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import peers  # noqa: E402
from pages import serve  # noqa: E402

from ego_browser.cdp.connection import Connection  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")
MODES = ("off", "capture q35", "capture q35 x0.75", "capture q35 x0.5", "cast q35")


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of ``root`` and every process under it."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(fields[1])
        cpu[int(d)] = (int(fields[11]) + int(fields[12])) / _TICK
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += [p for p, pp in parent.items() if pp == pid]
    return total


class Page:
    def __init__(self, conn: Connection, session: Any, cast: Any) -> None:
        self.conn, self.session, self.cast = conn, session, cast
        self.frames = 0
        self.frame = asyncio.Event()

    async def click(self) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            await self.session.send("Input.dispatchMouseEvent", {"type": kind, "x": self.x, "y": self.y,
                                                                 "button": "left", "clickCount": 1})
        await self.session.send("Runtime.evaluate", {
            "expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
            "awaitPromise": True})

    async def picture(self, mode: str) -> None:
        if mode.startswith("capture"):
            params: dict[str, Any] = {"format": "jpeg", "quality": 35, "optimizeForSpeed": True}
            if "x0." in mode:
                params["clip"] = {"x": 0, "y": 0, "width": 1280, "height": 720, "scale": float(mode.rsplit("x", 1)[1])}
            await self.session.send("Page.captureScreenshot", params)
        elif mode.startswith("cast"):
            try:
                await asyncio.wait_for(self.frame.wait(), 0.5)
            except asyncio.TimeoutError:
                pass
        self.frame.clear()


async def _page(conn: Connection, url: str) -> Page:
    target = (await conn.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    sid = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    cast_sid = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    page = Page(conn, conn.session(sid), conn.session(cast_sid))
    await page.session.send("Page.enable")
    await page.session.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 720,
                                                                   "deviceScaleFactor": 1, "mobile": False})
    await page.session.send("Page.navigate", {"url": url})
    for _ in range(100):
        r = await page.session.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        if r["result"].get("value") == "complete":
            break
        await asyncio.sleep(0.05)
    box = await page.session.send("Runtime.evaluate", {"expression": (
        "(() => { const r = document.getElementById('btn').getBoundingClientRect(); "
        "return [r.x + r.width / 2, r.y + r.height / 2]; })()"), "returnByValue": True})
    page.x, page.y = box["result"]["value"]

    def frame(params: dict[str, Any], _s: Any) -> None:
        page.frames += 1
        page.frame.set()
        asyncio.ensure_future(page.cast.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]}))

    page.cast.on("Page.screencastFrame", frame)
    return page


async def measure(clicks: int, blocks: int) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {m: {"wall": [], "cpu": [], "frames": []} for m in MODES}
    with serve() as site, peers.ego_chromium() as bp:
        conn = await Connection.connect(bp.ws_url)
        page = await _page(conn, site.url("/actions"))
        for _ in range(3):
            await page.click()
        for _ in range(blocks):
            for mode in MODES:
                if mode.startswith("cast"):
                    await page.cast.send("Page.startScreencast", {"format": "jpeg", "quality": 35,
                                                                  "maxWidth": 1280, "maxHeight": 720})
                    await asyncio.wait_for(page.frame.wait(), 5)
                page.frame.clear()
                frames0, cpu0, walls = page.frames, tree_cpu(bp.pid), []
                for _ in range(clicks):
                    t0 = time.perf_counter()
                    await page.click()
                    await page.picture(mode)
                    walls.append((time.perf_counter() - t0) * 1000)
                out[mode]["cpu"].append((tree_cpu(bp.pid) - cpu0) * 1000 / clicks)
                out[mode]["wall"].append(statistics.median(walls))
                out[mode]["frames"].append((page.frames - frames0) / clicks)
                if mode.startswith("cast"):
                    await page.cast.send("Page.stopScreencast")
        await conn.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clicks", type=int, default=40)
    ap.add_argument("--blocks", type=int, default=3)
    args = ap.parse_args()
    out = asyncio.run(measure(args.clicks, args.blocks))
    off_cpu = statistics.median(out["off"]["cpu"])
    off_wall = statistics.median(out["off"]["wall"])
    print(f"load average {os.getloadavg()[0]:.1f}; {args.clicks} clicks x {args.blocks} blocks per mode")
    for mode, row in out.items():
        cpu, wall = statistics.median(row["cpu"]), statistics.median(row["wall"])
        extra = f", {statistics.median(row['frames']):.2f} frames a click" if mode.startswith("cast") else ""
        print(f"{mode:18s} Chromium CPU {cpu:6.1f} ms a click ({cpu - off_cpu:+.1f}), wall {wall:6.1f} ms "
              f"({wall - off_wall:+.1f}){extra}  blocks cpu {[round(c, 1) for c in row['cpu']]}")


if __name__ == "__main__":
    main()
