"""The tickets task's floor: what its steps cost a client that does nothing but the steps.

Issue 28 §7 asks the learned tool's 2nd and 3rd attempts to take at most 0.7x agent-browser's tool
time on the same task. This measures how far down any tool could go on this page on this
machine: one raw CDP client (websockets + orjson, the project's own transport), trusted input,
the waits the task cannot do without (the document's DOMContentLoaded after each navigation,
the suggestion's option, the popup's link, the assignee's id), and nothing else: no process per
round, no host, no checks that the element is the one recorded, no journal, no trace pictures,
no network log, no actionability checks. Its answer is checked as the bench checks ours.

``warm``: the same browser, a new window per run (the 2nd attempt's situation); ``cold``:
Chromium launched (a loopback port, the benchmarks' way) and the task run at once (the 3rd's).

    .venv/bin/python benchmarks/tasks/floor_tickets.py [--runs 8] [--cold 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent.parent)]

import registry  # noqa: E402
import repeat  # noqa: E402

from ego_browser.browser.launcher import launch_chromium  # noqa: E402
from ego_browser.cdp.connection import Connection  # noqa: E402

#: the centre of the one element matching ``sel`` (and whose text is ``text``), scrolled into view
BOX = """(sel, text) => { const els = [...document.querySelectorAll(sel)].filter(e => !text || e.textContent.trim() === text);
  if (els.length !== 1) return null; const e = els[0]; e.scrollIntoViewIfNeeded(); const r = e.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2]; }"""
#: resolves once such an element is in the document
APPEARS = """(sel, text) => new Promise(res => { const f = () => [...document.querySelectorAll(sel)].some(e => !text || e.textContent.trim() === text);
  if (f()) return res(true); const o = new MutationObserver(() => { if (f()) { o.disconnect(); res(true); } });
  o.observe(document, {subtree: true, childList: true, attributes: true}); })"""
STEP = 10.0  # seconds any one command may take


class Tab:
    def __init__(self, conn: Connection, session: str) -> None:
        self.conn, self.session = conn, session
        self.parsed = asyncio.Event()
        conn.on("Page.domContentEventFired", lambda *_: self.parsed.set(), session_id=session)

    @classmethod
    async def attach(cls, conn: Connection, target: str) -> "Tab":
        session = (await conn.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        tab = cls(conn, session)
        await tab.send("Page.enable")
        await tab.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        return tab

    async def send(self, method: str, params: dict | None = None) -> dict:
        return await self.conn.send(method, params or {}, session_id=self.session, timeout=STEP)

    async def call(self, fn: str, *args: object, wait: bool = False) -> object:
        res = await self.send("Runtime.evaluate", {"expression": f"({fn})(...{json.dumps(list(args))})",
                                                    "returnByValue": True, "awaitPromise": wait})
        return res["result"].get("value")

    async def click(self, sel: str, text: str | None = None) -> None:
        await self.call(APPEARS, sel, text, wait=True)
        x, y = await self.call(BOX, sel, text)  # type: ignore[misc]
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    async def navigating(self, act) -> None:
        self.parsed.clear()
        await act
        await asyncio.wait_for(self.parsed.wait(), STEP)


async def tickets(conn: Connection, url: str, v: dict, popups: asyncio.Queue) -> None:
    target = (await conn.send("Target.createTarget", {"url": "about:blank", "newWindow": True}))["targetId"]
    try:
        tab = await Tab.attach(conn, target)
        await tab.navigating(tab.send("Page.navigate", {"url": url}))
        await tab.navigating(tab.click("a", v["ticket"]))
        await tab.call("() => { const e = document.getElementById('id_customer_name'); e.focus(); e.select(); }")
        await tab.send("Input.insertText", {"text": v["customer_typed"]})
        await tab.click("li[role=option]", v["customer"])
        await tab.click("#lookup_id_assignee")
        popup = await Tab.attach(conn, (await asyncio.wait_for(popups.get(), STEP))["targetId"])
        await popup.click("a", v["agent"])  # waits for the popup's document to show the link
        await tab.call("() => new Promise(r => { const f = () => document.getElementById('id_assignee').value ? "
                       "r(true) : setTimeout(f, 2); f(); })", wait=True)
        await tab.navigating(tab.click("input[name=_save]"))
        await tab.call(APPEARS, "li", f"The ticket “{v['ticket']}” was changed successfully.", wait=True)
    finally:
        await conn.send("Target.closeTarget", {"targetId": target})


async def launch() -> tuple[object, Connection, asyncio.Queue]:
    browser = await asyncio.to_thread(launch_chromium, tempfile.mkdtemp(prefix="ego-floor-"), debugging_port=True)
    conn = await Connection.connect(browser.ws_url)  # type: ignore[attr-defined]
    popups: asyncio.Queue = asyncio.Queue()
    conn.on("Target.targetCreated", lambda p, *_: popups.put_nowait(p["targetInfo"])
            if p["targetInfo"].get("openerId") else None)
    await conn.send("Target.setDiscoverTargets", {"discover": True})
    return browser, conn, popups


async def main(runs: int, cold: int) -> None:
    task = registry.TASKS["tickets"]
    app = task.app()
    variants = repeat.SPECS["tickets"].prepare(app)[1:3]
    warm_s: list[float] = []
    cold_s: list[float] = []
    with app.serve() as srv:
        url = srv.url(task.start)
        for n in range(cold):
            await asyncio.sleep(1.0)
            t0 = time.perf_counter()
            browser, conn, popups = await launch()
            try:
                await tickets(conn, url, variants[n % 2], popups)
                cold_s.append(time.perf_counter() - t0)
            finally:
                await conn.close()
                browser.terminate()  # type: ignore[attr-defined]
        browser, conn, popups = await launch()
        try:
            for n in range(runs + 1):  # the first run warms the browser up: not counted
                await asyncio.sleep(1.0)
                t0 = time.perf_counter()
                await tickets(conn, url, variants[n % 2], popups)
                if n:
                    warm_s.append(time.perf_counter() - t0)
        finally:
            await conn.close()
            browser.terminate()  # type: ignore[attr-defined]
    ok, why = app.check_for(variants[runs % 2], {v["ticket"] for v in variants})
    if not ok:
        raise SystemExit(f"the floor's run did not do the task: {why}")
    print(f"tickets floor (raw CDP, load {os.getloadavg()[0]:.2f}): warm median {statistics.median(warm_s):.3f} s "
          f"({', '.join(f'{s:.3f}' for s in warm_s)})" + (
              f"; cold median {statistics.median(cold_s):.3f} s ({', '.join(f'{s:.3f}' for s in cold_s)})"
              if cold_s else ""))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=8, help="warm runs (after one not counted)")
    ap.add_argument("--cold", type=int, default=4, help="runs that launch Chromium first")
    args = ap.parse_args()
    asyncio.run(main(args.runs, args.cold))
