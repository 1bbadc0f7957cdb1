"""What the person sees happen in a space: its event log, the agent's current and last action,
the agent's pointer on each page.

Installed when the dashboard starts (never on the host's start-up path): it listens to the
pages the host has attached (``on_driver``), to new tabs, and to the host's requests. Each space
keeps its last ``LOG_SIZE`` events in memory; nothing here is written to the state store.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ..host.core.store import OPEN, UNMANAGED

__all__ = ["Activity", "LOG_SIZE"]

LOG_SIZE = 200
#: requests that are not the agent acting (reads the dashboard would only clutter the log with)
_QUIET_PREFIXES = ("host.", "round.", "list_task_spaces", "spaces.", "dashboard.")
_QUIET_OPS = frozenset({
    "task.info", "task.control", "task.pages", "task.tabs", "task.page", "task.set_status",
    "page.events", "page.url", "page.title", "page.info", "page.gate", "page.nav_mark", "page.url_watch",
    "page.arm_popup", "page.arm_download", "page.disarm_download", "page.arm_file_chooser",
    "page.disarm_file_chooser",
})


class Activity:
    def __init__(self, host: Any) -> None:
        self.host = host
        self.logs: dict[int, deque[dict[str, Any]]] = {}
        #: space id -> the agent request running now ({op, label, note, since})
        self.current: dict[int, dict[str, Any]] = {}
        #: space id -> the agent's last action ({op, label, note, at, error})
        self.last: dict[int, dict[str, Any]] = {}
        #: target id -> (x, y) of the agent's last mouse input (CSS px of the page's viewport)
        self.pointer: dict[str, tuple[float, float]] = {}
        #: called with (space id or None, log entry or None) on every change
        self.listeners: list[Callable[[int | None, dict[str, Any] | None], None]] = []
        self._offs: list[Callable[[], Any]] = []
        self._seen: set[str] = set()

    # -- wiring -----------------------------------------------------------------------------

    def install(self) -> None:
        host = self.host
        for driver in list(host.drivers.values()):
            self.on_driver(driver)  # pages attached later come through DashboardSlot.on_driver
        host.browser.on_target_created.append(self._target_created)
        host.browser.on_target_destroyed.append(self._target_destroyed)
        host.request_listeners.append(self._request)

    def uninstall(self) -> None:
        host = self.host
        for lst, fn in ((host.browser.on_target_created, self._target_created),
                        (host.browser.on_target_destroyed, self._target_destroyed),
                        (host.request_listeners, self._request)):
            if fn in lst:
                lst.remove(fn)
        for off in self._offs:
            off()
        self._offs.clear()

    def on_driver(self, driver: Any) -> None:
        tid = driver.target_id
        if tid in self._seen and not driver.closed:
            return
        self._seen.add(tid)
        on = driver.session.on

        def navigated(params: dict[str, Any], _sid: str | None) -> None:
            frame = params.get("frame") or {}
            if not frame.get("parentId"):
                self.log_target(tid, "navigation", frame.get("url", ""))

        def exception(params: dict[str, Any], _sid: str | None) -> None:
            details = params.get("exceptionDetails") or {}
            text = ((details.get("exception") or {}).get("description") or details.get("text") or "error")
            self.log_target(tid, "error", text.splitlines()[0][:300])

        def dialog(params: dict[str, Any], _sid: str | None) -> None:
            self.log_target(tid, "dialog", f"{params.get('type')}: {params.get('message', '')[:300]}")

        def dialog_closed(params: dict[str, Any], _sid: str | None) -> None:
            self.log_target(tid, "dialog", "closed (" + ("accepted" if params.get("result") else "dismissed") + ")")

        def download(params: dict[str, Any], _sid: str | None) -> None:
            self.log_target(tid, "download", f"{params.get('suggestedFilename', '')} from {params.get('url', '')}")

        def chooser(params: dict[str, Any], _sid: str | None) -> None:
            self.log_target(tid, "file chooser", "multiple files" if params.get("mode") == "selectMultiple" else "one file")

        def crashed(_params: dict[str, Any], _sid: str | None) -> None:
            self.log_target(tid, "error", "the page's renderer crashed")

        for method, fn in (("Page.frameNavigated", navigated), ("Runtime.exceptionThrown", exception),
                           ("Page.javascriptDialogOpening", dialog), ("Page.javascriptDialogClosed", dialog_closed),
                           ("Page.downloadWillBegin", download), ("Page.fileChooserOpened", chooser),
                           ("Inspector.targetCrashed", crashed)):
            self._offs.append(on(method, fn))
        driver.input_listeners.append(lambda method, params: self._input(tid, method, params))

    def _target_created(self, info: dict[str, Any]) -> None:
        if info.get("type") == "page" and info.get("openerId"):
            self.log_target(info["openerId"], "popup", info.get("url") or "about:blank")

    def _target_destroyed(self, target_id: str) -> None:
        self.pointer.pop(target_id, None)
        self._seen.discard(target_id)

    def _input(self, target_id: str, method: str, params: dict[str, Any] | None) -> None:
        if method == "Input.dispatchMouseEvent" and params and "x" in params:
            self.pointer[target_id] = (float(params["x"]), float(params["y"]))
            self._changed(None, None)

    def _request(self, op: str, args: dict[str, Any], phase: str, error: str | None) -> None:
        """The host's request hook: the agent's actions, with the ``note`` they carry."""
        space = args.get("space")
        if not isinstance(space, int) or op in _QUIET_OPS or op.startswith(_QUIET_PREFIXES):
            return
        # the action's note, else its pointer caption (label=), is shown while it runs
        entry = {"op": op, "label": args.get("label"), "note": args.get("note") or args.get("pointer_label")}
        if phase == "start":
            self.current[space] = {**entry, "since": time.time()}
        else:
            if self.current.get(space, {}).get("op") == op:
                self.current.pop(space, None)
            self.last[space] = {**entry, "at": time.time(), "error": error}
            if error:
                self.log(space, "error", f"{op}: {error}"[:300])
        self._changed(space, None)

    # -- the log ----------------------------------------------------------------------------

    def space_of(self, target_id: str) -> int | None:
        store = self.host.store
        if store is None:
            return None
        for row in store.pages_of_target(target_id):
            if row.state in (OPEN, UNMANAGED):
                return int(row.space_id)
        return None

    def log_target(self, target_id: str, kind: str, text: str) -> None:
        space = self.space_of(target_id)
        if space is not None:
            self.log(space, kind, text, target_id=target_id)

    def log(self, space: int, kind: str, text: str, *, target_id: str | None = None) -> None:
        text = self.host.secrets.mask_text(text)  # a page's console or dialog may echo a typed secret
        entry = {"at": time.time(), "kind": kind, "text": text, "target_id": target_id}
        self.logs.setdefault(space, deque(maxlen=LOG_SIZE)).append(entry)
        self._changed(space, entry)

    def _changed(self, space: int | None, entry: dict[str, Any] | None) -> None:
        for fn in list(self.listeners):
            fn(space, entry)
