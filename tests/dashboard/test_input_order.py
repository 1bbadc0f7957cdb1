"""The person's input reaches the page in the order the dashboard sent it (dashboard/control.py).

Each dashboard command runs as a task of its own; a command still getting its tab's driver
must not be overtaken by the next one (a click's move, press and release come at once)."""

from __future__ import annotations

import asyncio
from typing import Any

from ego_browser.dashboard.control import Control


class _Session:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, method: str, params: dict[str, Any], timeout: float = 0) -> dict[str, Any]:
        self.sent.append(params["type"])
        return {}


class _Driver:
    def __init__(self) -> None:
        self.session = _Session()


async def test_a_command_waiting_for_its_tab_is_not_overtaken() -> None:
    control = Control(host=None, activity=None)
    driver = _Driver()
    first_may_go = asyncio.Event()
    calls = 0

    async def front(_space: Any, _tid: str) -> _Driver:
        nonlocal calls
        calls += 1
        if calls == 1:
            await first_may_go.wait()  # the first command's tab takes a while (attach, activate)
        return driver

    control._held_target = lambda _t: (object(), "T1")  # type: ignore[method-assign]
    control._front = front  # type: ignore[method-assign]
    cmds = [{"op": "input", "target": "T1", "kind": "mouse", "type": t, "x": 10, "y": 10,
             "button": "none" if t == "mouseMoved" else "left", "buttons": 0, "clickCount": 1, "modifiers": 0}
            for t in ("mouseMoved", "mousePressed", "mouseReleased")]
    tasks = [asyncio.ensure_future(control.run(c)) for c in cmds]
    for _ in range(5):
        await asyncio.sleep(0)  # let every task start and reach its wait (a fixed number of loop turns)
    first_may_go.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 10)
    assert driver.session.sent == ["mouseMoved", "mousePressed", "mouseReleased"]
