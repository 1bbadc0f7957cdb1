"""Native file choosers, per tab: the armed waiter, the choosers nobody waited for, and the
action pipeline's check (``receipts.run_action``) that turns an unarmed one into
``FileChooserOpened``. The operations that arm, await and answer choosers are in ``file_ops``.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CdpChannelUnavailable, FileChooserOpened, HostDisconnected

if TYPE_CHECKING:
    from ..driver.page import PageDriver
    from .core import Host

__all__ = ["unarmed_chooser_error", "chooser_mark", "ChooserState"]

_ids = itertools.count(1)


@dataclass
class _Waiter:
    token: int
    fut: asyncio.Future[dict[str, Any]]


@dataclass
class ChooserState:
    """Per tab: the armed waiter, choosers nobody waited for, and choosers handed out."""

    waiter: _Waiter | None = None
    unarmed: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    handed: dict[int, dict[str, Any]] = field(default_factory=dict)


def _states(host: Host) -> dict[str, ChooserState]:
    return host.features.choosers.states


def _state(host: Host, target_id: str) -> ChooserState:
    return _states(host).setdefault(target_id, ChooserState())


class Choosers:
    """Native file choosers per tab (one per host)."""

    def __init__(self) -> None:
        self.states: dict[str, ChooserState] = {}

    def on_driver(self, driver: PageDriver) -> None:
        _watch(self.states, driver)

    def stop(self) -> None:
        _stop(self.states)


def _watch(states: dict[str, ChooserState], driver: PageDriver) -> None:
    state = states.setdefault(driver.target_id, ChooserState())

    def opened(params: dict[str, Any]) -> None:
        state.seq += 1
        chooser = {
            "id": next(_ids),
            "seq": state.seq,
            "frame_id": params.get("frameId"),
            "backend_node_id": params.get("backendNodeId"),
            "multiple": params.get("mode") == "selectMultiple",
        }
        waiter = state.waiter
        if waiter is not None and not waiter.fut.done():
            state.waiter = None
            waiter.fut.set_result(chooser)
        else:
            state.unarmed.append(chooser)
            del state.unarmed[:-16]

    def closed() -> None:
        gone = states.pop(driver.target_id, None)
        if gone is not None and gone.waiter is not None and not gone.waiter.fut.done():
            gone.waiter.fut.set_exception(CdpChannelUnavailable(
                "the page was closed while page.wait_for_file_chooser was waiting", method=None
            ))
            gone.waiter.fut.exception()

    driver.on_file_chooser.append(opened)
    driver.on_close.append(closed)


def _stop(states: dict[str, ChooserState]) -> None:
    for state in states.values():
        if state.waiter is not None and not state.waiter.fut.done():
            state.waiter.fut.set_exception(HostDisconnected(
                "the ego_browser host stopped while page.wait_for_file_chooser was waiting",
                api="page.wait_for_file_chooser",
            ))
            state.waiter.fut.exception()  # retrieved: whoever awaits it still gets it
        state.waiter = None
    states.clear()


# -- the action pipeline's check ------------------------------------------------------------


def chooser_mark(host: Host, driver: PageDriver) -> int:
    """Call before an action: the chooser sequence number it starts from."""
    return _state(host, driver.target_id).seq


def unarmed_chooser_error(host: Host, driver: PageDriver, mark: int, api: str) -> FileChooserOpened | None:
    """After an action: the error to raise if it opened a chooser no waiter took."""
    state = _states(host).get(driver.target_id)
    if state is None:
        return None
    opened = [c for c in state.unarmed if c["seq"] > mark]
    if not opened:
        return None
    state.unarmed = [c for c in state.unarmed if c["seq"] <= mark]
    return FileChooserOpened(
        f"{api} opened a native file chooser, but no waiter was armed; it was cancelled and no file was set. "
        "Set files directly with page.set_input_files(selector, files), or arm "
        "w = page.wait_for_file_chooser() before the action and call (await w).set_files(files)",
        api=api,
    )
