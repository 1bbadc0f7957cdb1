"""Two input commands sent back to back: a press and its release.

Each ``Input.dispatch*Event`` is answered only once the renderer has handled the event, so a
press awaited before its release is sent costs one more renderer round trip per click or key
(measured on the whole-task benchmark, see docs/architecture.md "Input pairs"). Chromium's
input router delivers a page's events in the order the commands arrive, and both transports
(the keeper's pipe, a websocket) write a command in the first step of its task, so starting
the two tasks in order puts the press on the wire before the release: the page sees the same
sequence, only the wait for the first answer goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from ..cdp.errors import TargetClosed
from ..errors import CdpChannelUnavailable

__all__ = ["send_all", "send_pair"]


async def send_pair(first: Coroutine[Any, Any, Any], second: Coroutine[Any, Any, Any]) -> None:
    """Run ``first`` and ``second`` (each sends one command, then waits for its answer) with both
    commands in flight at once; raises the first failure. A press that opens a dialog is handled
    as before: the release is already queued behind it.

    A page that closes itself on the click (a lookup popup) can go before the press's answer is
    back, now that the release is in flight too: when the sender then forgave the release (it
    does so only for a page that is gone after input was sent), the press failing for the same
    reason is the same outcome, not an error of the click."""
    await send_all(first, second)


async def send_all(*steps: Coroutine[Any, Any, Any]) -> None:
    """``send_pair`` for any number of input commands (a move, then press/release pairs): all in
    flight at once, in order on the wire; raises the first failure, except that a page gone
    after its last command was answered is the outcome of the input, not an error."""
    futures = [asyncio.ensure_future(step) for step in steps]
    results: list[Any] = await asyncio.gather(*futures, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    if not failures:
        return
    last = results[-1]
    if not isinstance(last, BaseException) and all(isinstance(f, (TargetClosed, CdpChannelUnavailable)) for f in failures):
        return
    raise failures[0]
