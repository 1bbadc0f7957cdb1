"""What the person does from the dashboard: take over, give back, close, and act in a space
they hold (input, navigation, tabs, dialogs, file choosers).

Take-over and give-back go through the host's own operations (``spaces.take_over`` /
``spaces.give_back``), the ones ``ego-browser spaces take-over/give-back`` sends:
same ownership change, same preemption of the agent's requests in flight. Everything else
acts on a tab only while the person holds its space (the agent's calls fail meanwhile), so the
person and the agent never both drive a page.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from ..errors import CdpError, EgoError, InvalidArgument, InvalidState
from ..host.core.store import OPEN, UNMANAGED
from ..states import OpenedBy, Ownership
from .model import pending_chooser

__all__ = ["Control"]

_MOUSE_TYPES = frozenset({"mousePressed", "mouseReleased", "mouseMoved"})
_KEY_TYPES = frozenset({"keyDown", "keyUp", "rawKeyDown", "char"})
_BUTTONS = frozenset({"none", "left", "middle", "right"})


def _num(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"dashboard: {name} must be a number", api="dashboard", option=name, expected="number")
    return float(value)


def _int(value: Any, name: str, default: int = 0) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"dashboard: {name} must be an int", api="dashboard", option=name, expected="int")
    return value


def _str(value: Any, name: str, limit: int = 10000) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidArgument(f"dashboard: {name} must be a str of at most {limit} characters", api="dashboard",
                              option=name, expected="str")
    return value


class Control:
    def __init__(self, host: Any, activity: Any) -> None:
        self.host = host
        self.activity = activity
        #: the person's input reaches the page in the order it was sent: each command runs as a
        #: task of its own, and one awaiting the tab's driver (or bringing it to the front) let
        #: a later one pass it; a click's move, press and release come within a millisecond of
        #: each other (a trusted click in the dashboard page) and arrived out of order
        self._input_order = asyncio.Lock()

    async def run(self, cmd: dict[str, Any]) -> Any:
        op = cmd.get("op")
        fn = getattr(self, f"op_{op}", None) if isinstance(op, str) and op.isidentifier() else None
        if fn is None:
            raise InvalidArgument(f"dashboard: unknown command {op!r}", api="dashboard", option="op",
                                  expected="a dashboard command")
        return await fn(cmd)

    # -- ownership --------------------------------------------------------------------------

    async def op_take_over(self, cmd: dict[str, Any]) -> Any:
        space = self.host.space_row(cmd.get("space"))
        if space.ownership == Ownership.USER:
            return {"ownership": str(space.ownership)}
        info = await self.host.handle("spaces.take_over", {"space": space.id})
        self.activity.log(space.id, "control", "the person took the space over")
        return info

    async def op_give_back(self, cmd: dict[str, Any]) -> Any:
        space = self.host.space_row(cmd.get("space"))
        note = cmd.get("note") or ""
        _str(note, "note", 2000)
        # the op hands the note to a waiting ask_human/wait_for_control, else to the next round's report
        info = await self.host.handle("spaces.give_back", {"space": space.id, "note": note})
        self.activity.log(space.id, "control", "given back to the agent" + (f": {note.strip()}" if note.strip() else ""))
        return info

    async def op_close(self, cmd: dict[str, Any]) -> Any:
        """Close the space and its tabs; the agent's calls on it then fail (TaskSpaceNotFound)."""
        host = self.host
        space = host.space_row(cmd.get("space"))
        if space.ownership == Ownership.AGENT:
            # stops what the agent runs there first, exactly as a take-over does
            await host.handle("spaces.take_over", {"space": space.id, "reason": "closed_by_user"})
        assert host.store is not None and host.browser.conn is not None
        targets = [r.target_id for r in host.store.pages(space.id)
                   if r.state in (OPEN, UNMANAGED) and host.browser.is_live_page(r.target_id)]
        await asyncio.gather(*(self._close_target(t) for t in targets))
        host.store.close_space(space.id)
        host.active.pop(space.id, None)
        self.activity.log(space.id, "control", "the person closed the space")
        return {"closed": space.id}

    async def op_permission(self, cmd: dict[str, Any]) -> Any:
        """Answer the permission prompt that handed the space over: allow or block that permission
        for the asking tab's origin in the space's browser context, then give the space back."""
        host = self.host
        space = host.space_row(cmd.get("space"))
        setting = cmd.get("setting")
        if setting not in ("granted", "denied"):
            raise InvalidArgument("dashboard: setting must be granted or denied", api="dashboard", option="setting",
                                  expected="granted|denied")
        give_back = cmd.get("give_back", True)
        if not isinstance(give_back, bool):
            raise InvalidArgument("dashboard: give_back must be a bool", api="dashboard", option="give_back",
                                  expected="bool")
        prompt = host.features.permissions.waiting(space)
        if prompt is None:
            raise InvalidState(f"no permission prompt waits in space {space.id} (answered, or given back already)",
                               api="dashboard")
        if prompt.origin is None:
            raise InvalidState("the page that asked has no origin a permission can be stored for (about:, data:): "
                               "give the space back instead", api="dashboard")
        params: dict[str, Any] = {"permission": {"name": prompt.name}, "setting": setting, "origin": prompt.origin}
        if space.context_id:
            params["browserContextId"] = space.context_id
        assert host.browser.conn is not None
        await host.browser.conn.send("Browser.setPermission", params, timeout=10.0)
        host.features.permissions.pending.pop(space.id, None)
        verb = "allowed" if setting == "granted" else "blocked"
        self.activity.log(space.id, "control", f"the person {verb} {prompt.reason} for {prompt.origin}")
        if give_back:
            await host.handle("spaces.give_back", {"space": space.id})
            self.activity.log(space.id, "control", "given back to the agent")
        return {"permission": prompt.name, "origin": prompt.origin, "setting": setting}

    # -- acting in a held space -------------------------------------------------------------

    def _held_space(self, space_id: Any) -> Any:
        space = self.host.space_row(space_id)
        if space.ownership == Ownership.AGENT:
            raise InvalidState(f"space {space.id} is the agent's: take it over first", api="dashboard")
        return space

    def _held_target(self, target_id: Any) -> tuple[Any, str]:
        host = self.host
        assert host.store is not None
        if not isinstance(target_id, str) or not host.browser.is_live_page(target_id):
            raise InvalidState("that tab is closed", api="dashboard")
        for row in host.store.pages_of_target(target_id):
            if row.state in (OPEN, UNMANAGED):
                return self._held_space(row.space_id), target_id
        raise InvalidState("that tab belongs to no space", api="dashboard")

    async def _front(self, space: Any, target_id: str) -> Any:
        """The tab's driver, its tab brought to the front (a hidden tab gets no input)."""
        driver = await self.host.driver(target_id)
        if self.host.active.get(space.id) != target_id:
            await self.host.activate(space.id, target_id)
        return driver

    async def op_input(self, cmd: dict[str, Any]) -> Any:
        # asyncio.Lock wakes its waiters first come, first served: the commands' arrival order
        async with self._input_order:
            return await self._input(cmd)

    async def _input(self, cmd: dict[str, Any]) -> Any:
        space, tid = self._held_target(cmd.get("target"))
        driver = await self._front(space, tid)
        kind = cmd.get("kind")
        mods = _int(cmd.get("modifiers"), "modifiers")
        if kind == "mouse":
            kind_type = cmd.get("type")
            button = cmd.get("button", "none")
            if kind_type not in _MOUSE_TYPES or button not in _BUTTONS:
                raise InvalidArgument("dashboard: bad mouse event", api="dashboard", option="type",
                                      expected="mousePressed|mouseReleased|mouseMoved")
            params: dict[str, Any] = {
                "type": kind_type, "x": _num(cmd.get("x"), "x"), "y": _num(cmd.get("y"), "y"), "button": button,
                "buttons": _int(cmd.get("buttons"), "buttons"), "clickCount": _int(cmd.get("clickCount"), "clickCount"),
                "modifiers": mods,
            }
            await driver.session.send("Input.dispatchMouseEvent", params, timeout=10.0)
        elif kind == "wheel":
            await driver.session.send("Input.dispatchMouseEvent", {
                "type": "mouseWheel", "x": _num(cmd.get("x"), "x"), "y": _num(cmd.get("y"), "y"),
                "deltaX": _num(cmd.get("deltaX", 0), "deltaX"), "deltaY": _num(cmd.get("deltaY", 0), "deltaY"),
                "modifiers": mods,
            }, timeout=10.0)
        elif kind == "key":
            key_type = cmd.get("type")
            if key_type not in _KEY_TYPES:
                raise InvalidArgument("dashboard: bad key event", api="dashboard", option="type",
                                      expected="keyDown|keyUp|rawKeyDown|char")
            params = {"type": key_type, "modifiers": mods}
            for name in ("key", "code", "text", "unmodifiedText"):
                if cmd.get(name) is not None:
                    params[name] = _str(cmd[name], name, 64)
            code = _int(cmd.get("keyCode"), "keyCode")
            if code:
                params["windowsVirtualKeyCode"] = params["nativeVirtualKeyCode"] = code
            await driver.session.send("Input.dispatchKeyEvent", params, timeout=10.0)
        elif kind == "text":
            await driver.session.send("Input.insertText", {"text": _str(cmd.get("text"), "text")}, timeout=10.0)
        else:
            raise InvalidArgument("dashboard: input kind must be mouse, wheel, key or text", api="dashboard",
                                  option="kind", expected="mouse|wheel|key|text")
        return None

    async def op_navigate(self, cmd: dict[str, Any]) -> Any:
        space, tid = self._held_target(cmd.get("target"))
        url = _str(cmd.get("url"), "url", 8000).strip()
        if "://" not in url and not url.startswith(("about:", "data:")):
            url = "https://" + url  # what the person typed in an address bar
        driver = await self._front(space, tid)
        res = await driver.session.send("Page.navigate", {"url": url}, timeout=30.0)
        if res.get("errorText"):
            raise InvalidState(f"could not open {url}: {res['errorText']}", api="dashboard")
        return None

    async def op_history(self, cmd: dict[str, Any]) -> Any:
        """Back (-1), forward (1) or reload (0)."""
        space, tid = self._held_target(cmd.get("target"))
        delta = _int(cmd.get("delta"), "delta")
        driver = await self._front(space, tid)
        if delta == 0:
            await driver.session.send("Page.reload", {}, timeout=30.0)
            return None
        hist = await driver.session.send("Page.getNavigationHistory", {}, timeout=10.0)
        index = hist["currentIndex"] + delta
        if 0 <= index < len(hist["entries"]):
            await driver.session.send("Page.navigateToHistoryEntry", {"entryId": hist["entries"][index]["id"]},
                                      timeout=30.0)
        return None

    async def op_activate(self, cmd: dict[str, Any]) -> Any:
        space, tid = self._held_target(cmd.get("target"))
        await self.host.activate(space.id, tid)
        return None

    async def op_new_tab(self, cmd: dict[str, Any]) -> Any:
        host = self.host
        space = self._held_space(cmd.get("space"))
        url = cmd.get("url") or "about:blank"
        _str(url, "url", 8000)
        params: dict[str, Any] = {"url": url}
        if space.context_id:
            params["browserContextId"] = space.context_id
        assert host.browser.conn is not None and host.store is not None
        res = await host.browser.conn.send("Target.createTarget", params, timeout=10.0)
        tid = res["targetId"]
        host.browser.targets.setdefault(tid, {"targetId": tid, "type": "page", "url": url, "title": ""})
        # the person's tab: listed in the space, never labelled for the agent unless it adopts it
        host.store.add_page(space.id, "#" + tid, tid, OpenedBy.UNKNOWN, state=UNMANAGED)
        host.active[space.id] = tid
        return {"target_id": tid}

    async def op_close_tab(self, cmd: dict[str, Any]) -> Any:
        _space, tid = self._held_target(cmd.get("target"))
        await self._close_target(tid)
        return None

    async def op_dialog(self, cmd: dict[str, Any]) -> Any:
        _space, tid = self._held_target(cmd.get("target"))
        driver = await self.host.driver(tid)
        session = driver.dialogs.session
        if session is None:
            raise InvalidState("no dialog is open on that tab", api="dashboard")
        params: dict[str, Any] = {"accept": bool(cmd.get("accept"))}
        if cmd.get("text") is not None:
            params["promptText"] = _str(cmd.get("text"), "text")
        try:
            await session.send("Page.handleJavaScriptDialog", params, timeout=10.0)
        except CdpError:
            driver.dialogs.drop(session)  # it closed meanwhile
            raise InvalidState("the dialog was already closed", api="dashboard") from None
        return None

    async def op_files(self, cmd: dict[str, Any]) -> Any:
        _space, tid = self._held_target(cmd.get("target"))
        files = cmd.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) and f for f in files):
            raise InvalidArgument("dashboard: files must be a non-empty list of paths", api="dashboard",
                                  option="files", expected="list[str]")
        chooser = pending_chooser(self.host, tid)
        if chooser is None:
            raise InvalidState("no file chooser is waiting on that tab", api="dashboard")
        if len(files) > 1 and not chooser["multiple"]:
            raise InvalidArgument("dashboard: this chooser takes one file", api="dashboard", option="files",
                                  expected="one path")
        driver = await self.host.driver(tid)
        frame = driver.frames.get(chooser["frame_id"] or "")
        session = frame.session if frame is not None else driver.session
        await session.send("DOM.setFileInputFiles", {"files": files, "backendNodeId": chooser["backend_node_id"]},
                           timeout=10.0)
        choosers = self.host.features.choosers.peek(tid)
        if choosers is not None:
            choosers.answered(chooser)
        return None

    async def _close_target(self, target_id: str) -> None:
        conn = self.host.browser.conn
        assert conn is not None
        try:
            await conn.send("Target.closeTarget", {"targetId": target_id}, timeout=5.0)
        except EgoError:
            pass  # already gone
