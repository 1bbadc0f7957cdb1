"""CDP round trip: ``Runtime.evaluate("1")`` through our transport vs the floor vs Playwright.

- **floor**: a minimal client written here (websockets + orjson, one browser socket, flat
  sessions, compression off): the least any Python CDP client can pay.
- **ours**: ``ego_browser.cdp.Connection.send(..., session_id=sid)`` over a websocket.
- **keeper**: the same ``Connection`` on Chromium's ``--remote-debugging-pipe``, which the keeper hands
  over its Unix socket: the transport the host uses for the Chromium it launches.
- **playwright**: ``page.evaluate("1")`` (goes through its Node driver).

The floor and ours talk to one Chromium launched by our launcher, each on its own socket and
its own page; Playwright launches the same binary. Samples are taken in interleaved blocks
(floor, ours, playwright, floor, ...) after a warm-up so that drift hits all alike; the
median of every call is reported. Target: ours ≤ 1.15× floor.

    .venv/bin/python benchmarks/bench_transport.py [--calls N]
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402
from pages import serve  # noqa: E402

CALLS = int(os.environ.get("BENCH_TRANSPORT_CALLS", "1000"))  # per client, ≥ 500
WARMUP = 200
BLOCKS = 5
BURST = 100  # concurrent requests in the pipelined variant
TARGET = 1.15


class FloorClient:
    """The floor: the least a Python CDP client can do per call."""

    def __init__(self, ws) -> None:
        import orjson

        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future] = {}
        self._dumps = orjson.dumps
        self._loads = orjson.loads
        self._loop = asyncio.get_running_loop()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str) -> FloorClient:
        from websockets.asyncio.client import connect

        ws = await connect(url, compression=None, max_size=None, ping_interval=None)
        return cls(ws)

    async def _read(self) -> None:
        pending = self._pending
        loads = self._loads
        async for raw in self._ws:
            msg = loads(raw)
            fut = pending.pop(msg.get("id"), None)
            if fut is not None:
                fut.set_result(msg)

    async def send(self, method: str, params: dict | None = None, session_id: str | None = None) -> dict:
        msg_id = next(self._ids)
        msg = {"id": msg_id, "method": method}
        if params:
            msg["params"] = params
        if session_id:
            msg["sessionId"] = session_id
        fut = self._loop.create_future()
        self._pending[msg_id] = fut
        await self._ws.send(self._dumps(msg), text=True)
        reply = await fut
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["result"]

    async def close(self) -> None:
        await self._ws.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


async def _open_page(send, url: str) -> str:
    """Create a page target and attach flat; returns the session id."""
    target = await send("Target.createTarget", {"url": url})
    attached = await send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
    return attached["sessionId"]


async def _sequential(call, n: int) -> list[float]:
    samples = []
    pc = time.perf_counter
    for _ in range(n):
        t0 = pc()
        await call()
        samples.append(pc() - t0)
    return samples


async def _burst(call, rounds: int = 10) -> list[float]:
    """Per-call cost with BURST requests in flight (pipelining through one socket)."""
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await asyncio.gather(*(call() for _ in range(BURST)))
        out.append((time.perf_counter() - t0) / BURST)
    return out


async def measure(calls: int | None = None) -> dict:
    from ego_browser.cdp import Connection

    calls = max(500, calls or CALLS)
    results: dict = {"calls": calls, "notes": []}
    with serve() as site, peers.ego_chromium() as browser, peers.ego_chromium(pipe=True) as piped:
        url = site.url("/blank")
        floor = await FloorClient.connect(browser.ws_url)
        ours = await Connection.connect(browser.ws_url)
        keeper = await Connection.connect(piped.ws_url)
        floor_sid = await _open_page(floor.send, url)
        ours_sid = await _open_page(ours.send, url)
        keeper_sid = await _open_page(keeper.send, url)
        expr = {"expression": "1"}

        async def floor_call():
            return await floor.send("Runtime.evaluate", expr, floor_sid)

        async def ours_call():
            return await ours.send("Runtime.evaluate", expr, session_id=ours_sid)

        async def keeper_call():
            return await keeper.send("Runtime.evaluate", expr, session_id=keeper_sid)

        assert (await floor_call())["result"]["value"] == 1
        assert (await ours_call())["result"]["value"] == 1
        assert (await keeper_call())["result"]["value"] == 1

        clients = {"floor": floor_call, "ours": ours_call, "keeper": keeper_call}
        pw_cm = peers.playwright_page(url)
        page = await pw_cm.__aenter__()
        try:
            if page is None:
                results["notes"].append(f"playwright skipped: {peers.missing('playwright')}")
            else:

                async def pw_call():
                    return await page.evaluate("1")

                assert await pw_call() == 1
                clients["playwright"] = pw_call

            samples: dict[str, list[float]] = {k: [] for k in clients}
            for call in clients.values():  # warm-up
                await _sequential(call, WARMUP)
            per_block = max(1, calls // BLOCKS)
            for _ in range(BLOCKS):
                for name, call in clients.items():
                    gc.collect()
                    samples[name] += await _sequential(call, per_block)
            burst: dict[str, list[float]] = {}
            for name, call in clients.items():
                gc.collect()
                burst[name] = await _burst(call)
        finally:
            await pw_cm.__aexit__(None, None, None)
            await ours.close()
            await keeper.close()
            await floor.close()
    results["seq"] = {k: peers.median(v) for k, v in samples.items()}
    results["p90"] = {k: sorted(v)[int(len(v) * 0.9)] for k, v in samples.items()}
    results["n"] = {k: len(v) for k, v in samples.items()}
    results["burst"] = {k: peers.median(v) for k, v in burst.items()}
    return results


def _section(r: dict) -> str:
    seq, p90, burst = r["seq"], r["p90"], r["burst"]
    floor = seq["floor"]
    labels = {
        "floor": "floor (websockets + orjson, written in the bench)",
        "ours": "ego_browser.cdp.Connection (websocket)",
        "keeper": "ego_browser.cdp.Connection (the pipe, handed over by the keeper, as the host runs)",
        "playwright": "Playwright page.evaluate",
    }
    rows = []
    for name in ("floor", "ours", "keeper", "playwright"):
        if name not in seq:
            rows.append([labels[name], "—", "—", "—", "—", "skipped"])
            continue
        rows.append(
            [
                labels[name],
                r["n"][name],
                peers.ms(seq[name]),
                peers.ms(p90[name]),
                peers.ratio(seq[name], floor),
                peers.ms(burst[name]),
            ]
        )
    verdict = seq["ours"] / floor
    lines = [
        "### CDP round trip: `Runtime.evaluate(\"1\")`",
        "",
        peers.md_table(
            ["client", "calls", "median ms", "p90 ms", "vs floor", f"ms/call, {BURST} in flight"], rows
        ),
        "",
        f"Ours / floor = **{verdict:.2f}×** (target ≤ {TARGET:.2f}×: "
        + ("met" if verdict <= TARGET else "**not met**")
        + ")."
        + (
            f" Ours vs Playwright: **{seq['ours'] / seq['playwright']:.2f}×**."
            if "playwright" in seq
            else ""
        ),
        f"Sequential calls after {WARMUP} warm-up calls each, interleaved in {BLOCKS} blocks; "
        "floor and ours on one Chromium (own socket, own page each), the keeper row on a second "
        "Chromium launched as the host launches it (`--remote-debugging-pipe`, handed to the "
        "client by the keeper over its Unix socket, no TCP port), Playwright on its own launch of the same binary.",
    ]
    for note in r["notes"]:
        lines.append(f"- {note}")
    return "\n".join(lines)


def run() -> list[str]:
    return [_section(asyncio.run(measure()))]


if __name__ == "__main__":
    if "--calls" in sys.argv:
        CALLS = int(sys.argv[sys.argv.index("--calls") + 1])
    print("\n\n".join(run()))
