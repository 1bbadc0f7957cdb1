"""A minimal harness for the input and action-pipeline tests.

Launches Chromium, serves HTML from memory on 127.0.0.1 (port 0, threaded), attaches to one tab
(flat session), creates an isolated world and resolves elements by CSS in it. It stands in for
the host until the lead integrates ``driver/actions.py``.
"""

from __future__ import annotations

import asyncio
import tempfile
from typing import Any

from ego_browser.browser.launcher import launch_chromium
from ego_browser.cdp.connection import Connection, Session
from ego_browser.driver import handles
from ego_browser.driver.keyboard import Keyboard
from ego_browser.driver.mouse import Mouse
from tests.server import TestServer

#: recorder injected in every served page: events land in window.__log (main world)
RECORDER = """<script>
window.__log = [];
window.__rec = (e, extra) => window.__log.push(Object.assign({type: e.type, trusted: e.isTrusted,
  target: (e.target && (e.target.id || (e.target.tagName||'').toLowerCase())) || '', key: e.key, code: e.code,
  location: e.location, repeat: e.repeat, shift: e.shiftKey, ctrl: e.ctrlKey, buttons: e.buttons,
  x: e.clientX, y: e.clientY, data: e.data, inputType: e.inputType}, extra || {}));
window.__watch = (el, types) => types.split(/\\s+/).forEach(t => el.addEventListener(t, e => __rec(e), true));
</script>"""


def declared(name: str, **given: Any) -> dict[str, Any]:
    """The keyword arguments the host hands the driver function of action ``name`` ("Page.click"):
    the schema's defaults (the one place they live), ``timeout`` as ``timeout_ms``, and ``given``
    on top. Selector parameters are the resolvers; ``drag_and_drop``'s target also goes as text."""
    from ego_browser.schema import wire
    from ego_browser.schema.spec import REQUIRED

    out: dict[str, Any] = {}
    targets = [p.name for p in wire.declaration(name).params if p.type == "selector"]
    for p in wire.declaration(name).params:
        if p.name in targets or p.name == "no_wait_after" or p.default is REQUIRED:
            continue
        out["timeout_ms" if p.name == "timeout" else p.name] = p.default
    for extra in targets[1:]:
        out[f"{extra}_selector"] = None
    out.update(given)
    return out


class Declared:
    """A driver Mouse or Keyboard called as a round calls ``page.mouse`` / ``page.keyboard``: the
    driver's methods take every argument explicitly, so an argument left out gets the schema's
    default (``owner`` is "Page.mouse" or "Page.keyboard"), as the host's binder gives it."""

    def __init__(self, device: Any, owner: str) -> None:
        self._device = device
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        from ego_browser.schema import wire
        from ego_browser.schema.spec import REQUIRED

        attr = getattr(self._device, name)
        try:
            params = wire.declaration(f"{self._owner}.{name}").params
        except (KeyError, ValueError):
            return attr
        # the caption and the navigation switch are the envelope's and the receipt's, not the device's
        defaults = {p.name: p.default for p in params
                    if p.default is not REQUIRED and p.name not in ("label", "note", "no_wait_after")}

        def call(*args: Any, **given: Any) -> Any:
            return attr(*args, **{**defaults, **given})

        return call


class Tab:
    """One attached tab: page session, utility world, mouse and keyboard."""

    def __init__(self, conn: Connection, session: Session, target_id: str, server: TestServer) -> None:
        self.conn = conn
        self.session = session
        self.target_id = target_id
        self.server = server
        self.driver_keyboard = Keyboard(session.send)
        self.driver_mouse = Mouse(session.send, self.driver_keyboard)
        self.keyboard: Any = Declared(self.driver_keyboard, "Page.keyboard")
        self.mouse: Any = Declared(self.driver_mouse, "Page.mouse")
        self._n = 0
        self.context_id: int | None = None

    async def goto(self, html: str, *, head: str = "") -> str:
        self._n += 1
        path = f"/p{self._n}.html"
        self.server.route(path, f"<!doctype html><html><head><meta charset=utf-8>{RECORDER}{head}</head><body>{html}</body></html>")
        url = self.server.url(path)
        loaded = asyncio.get_running_loop().create_future()
        off = self.session.on("Page.loadEventFired", lambda p, s: loaded.done() or loaded.set_result(True))
        try:
            await self.session.send("Page.navigate", {"url": url})
            await asyncio.wait_for(loaded, 10)
        finally:
            off()
        await self.new_world()
        return url

    async def new_world(self) -> int:
        tree = await self.session.send("Page.getFrameTree")
        frame_id = tree["frameTree"]["frame"]["id"]
        res = await self.session.send(
            "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "ego_util", "grantUniveralAccess": True}
        )
        self.context_id = res["executionContextId"]
        return self.context_id

    async def js(self, expression: str) -> Any:
        """Evaluate in the page's main world and return the value."""
        res = await self.session.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"])
        return res["result"].get("value")

    async def log(self, type_: str | None = None) -> list[dict]:
        entries = await self.js("window.__log")
        return [e for e in entries if type_ is None or e["type"] == type_]

    async def clear_log(self) -> None:
        await self.js("window.__log.length = 0")

    async def handles(self, css: str) -> list[handles.ElementHandle]:
        res = await self.session.send(
            "Runtime.evaluate",
            {"expression": f"[...document.querySelectorAll({css!r})]", "contextId": self.context_id},
        )
        arr = res["result"]["objectId"]
        props = await self.session.send("Runtime.getProperties", {"objectId": arr, "ownProperties": True})
        out = []
        for p in props["result"]:
            if p["name"].isdigit():
                out.append(handles.ElementHandle(self.session, self.context_id, p["value"]["objectId"]))
        return out

    def resolver(self, css: str):
        async def resolve() -> list[handles.ElementHandle]:
            return await self.handles(css)

        return resolve

    def ctx(self, css: str, api: str = "page.click") -> handles.ActionContext:
        return handles.ActionContext(
            mouse=self.driver_mouse, keyboard=self.driver_keyboard, selector=css, api=api
        )


class Browser:
    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="ego-input-test-")
        self.proc = launch_chromium(self.tmp.name)
        self.conn: Connection | None = None
        self.server = TestServer()

    async def start(self) -> None:
        self.conn = await Connection.connect(self.proc.ws_url)

    async def new_tab(self) -> Tab:
        assert self.conn is not None
        t = await self.conn.send("Target.createTarget", {"url": "about:blank"})
        tid = t["targetId"]
        a = await self.conn.send("Target.attachToTarget", {"targetId": tid, "flatten": True})
        session = self.conn.session(a["sessionId"])
        await session.send("Page.enable")
        await session.send("Runtime.enable")
        await session.send("Emulation.setDeviceMetricsOverride", {"width": 800, "height": 600, "deviceScaleFactor": 1, "mobile": False})
        return Tab(self.conn, session, tid, self.server)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
        self.proc.terminate()
        self.server.close()
        self.tmp.cleanup()


# ---- pytest fixtures (import them into a test module: `from input_harness import browser, tab`) ----
import pytest_asyncio  # noqa: E402


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def browser():
    b = Browser()
    await b.start()
    try:
        yield b
    finally:
        await b.close()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def tab(browser):
    return await browser.new_tab()


async def _handles_js(self: Tab, expression: str) -> list[handles.ElementHandle]:
    """Elements from a JS expression (element, array or null) evaluated in the utility world."""
    res = await self.session.send(
        "Runtime.evaluate",
        {"expression": f"(() => {{ const v = ({expression}); return v == null ? [] : Array.isArray(v) ? v : [v]; }})()",
         "contextId": self.context_id},
    )
    props = await self.session.send("Runtime.getProperties", {"objectId": res["result"]["objectId"], "ownProperties": True})
    return [handles.ElementHandle(self.session, self.context_id, p["value"]["objectId"])
            for p in props["result"] if p["name"].isdigit()]


Tab.handles_js = _handles_js
