"""Finding the file input a selector designates, for ``page.set_input_files``.

The target may be the input itself, a label's control, or the one file input inside a
wrapper (through open shadow roots); a wrapper of several is an ambiguity error listing them
as every other one does. ``driver/file_actions.py`` sets the files (``DOM.setFileInputFiles``)
on what this returns, inside the action's receipt.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import jsbundle
from ..errors import CdpChannelUnavailable, CdpError, SelectorNotFound
from ..selectors import engine
from ..selectors.parse import RefSelector, parse_selector
from .candidates import SHOWN_CANDIDATES, ambiguity, describer
from .page import PageDriver
from .sites import RefBook

__all__ = ["INPUT_GROUP", "file_input"]


INPUT_GROUP = "ego-file-input"
_AMBIGUOUS_GROUP = "ego-file-inputs-listed"


async def _candidates(driver: PageDriver, refs: RefBook, parsed: Any) -> tuple[list[tuple[Any, str, Any]], int, Any]:
    """(session, objectId, frame) of what the selector or ref designates, its match count, and a
    cleanup (the frame, a driver ``Frame`` or None, names the candidates of an ambiguity error)."""
    locate = driver.locate
    if isinstance(parsed, RefSelector):
        handle = await locate.handle_for_ref(refs, parsed.ref)
        frame = driver.frames.get(refs.ledger().lookup(parsed.ref).frame_id)
        return [(handle.session, handle.object_id, frame)], 1, lambda: locate.release()
    res = await engine.resolve(locate.engine_frames(), parsed, limit=2, describe=False, backend_ids=False,
                               timeout=5.0)
    found: list[tuple[Any, str, Any]] = []
    for m in res.matches:
        assert m.object_id is not None  # resolve() with an object group gives every match its object
        found.append((m.frame.session, m.object_id, m.frame.frame))
    return found, res.total, lambda: engine._release_matches(res.matches)


async def _inputs_ambiguous(refs: RefBook, api: str, selector: str, frame: Any, session: Any,
                            found_id: str, n: int) -> Any:
    """The element holds ``n`` file inputs: list up to 5 of them as every ambiguity error does."""
    describers = []
    if frame is not None:
        for i in range(min(n, SHOWN_CANDIDATES)):
            try:
                r = await session.send("Runtime.callFunctionOn", {
                    "objectId": found_id, "functionDeclaration": "function(i) { return this.all[i]; }",
                    "arguments": [{"value": i}], "objectGroup": _AMBIGUOUS_GROUP,
                }, timeout=5.0)
            except (CdpError, CdpChannelUnavailable):
                break
            describers.append(describer(refs, frame, r["result"]["objectId"]))
    try:
        return await ambiguity(api, selector, n, describers, hint="target one of them (by its ref or its own selector)",
                               found=f"contains multiple file inputs ({n})")
    finally:
        try:
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": _AMBIGUOUS_GROUP}, timeout=5.0)
        except (CdpError, CdpChannelUnavailable):
            pass


async def file_input(driver: PageDriver, refs: RefBook, selector: str, api: str,
                     timeout_ms: float) -> tuple[Any, str, bool]:
    """(session, objectId, multiple) of the one file input the selector (or ref) designates:
    the input, a label's control, or the one file input inside a wrapper (open shadow roots
    too). The objectId is in ``INPUT_GROUP``: release it when done."""
    parsed = parse_selector(selector)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    while True:
        found, total, cleanup = await _candidates(driver, refs, parsed)
        try:
            if total > 1:
                assert not isinstance(parsed, RefSelector)  # a ref names one element
                raise await driver.locate.ambiguous_selector(refs, api, parsed, total)
            if total == 1:
                session, object_id, frame = found[0]
                r = await session.send("Runtime.callFunctionOn", {
                    "objectId": object_id, "functionDeclaration": jsbundle.function("utility", "find_file_input"), "returnByValue": False,
                }, timeout=5.0)
                oid = r["result"]["objectId"]
                props = await session.send("Runtime.callFunctionOn", {
                    "objectId": oid, "functionDeclaration": "function() { return {n: this.n, multiple: !!(this.el && this.el.multiple)}; }",
                    "returnByValue": True,
                }, timeout=5.0)
                info = props["result"]["value"]
                if info["n"] > 1:
                    raise await _inputs_ambiguous(refs, api, selector, frame, session, oid, info["n"])
                if info["n"] == 1:
                    # a group of its own: without one the handle inherits the ref's group, which the
                    # cleanup below releases before DOM.setFileInputFiles can use it
                    el = await session.send("Runtime.callFunctionOn", {
                        "objectId": oid, "functionDeclaration": "function() { return this.el; }",
                        "objectGroup": INPUT_GROUP,
                    }, timeout=5.0)
                    return session, el["result"]["objectId"], bool(info["multiple"])
        finally:
            await cleanup()
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise SelectorNotFound(
                f"{api} timed out after {round(timeout_ms)}ms: selector {selector} matched "
                f"{total} elements, none of them a file input, a label for one, or a wrapper holding one",
                selector=selector, timeout_ms=round(timeout_ms),
            )
        fut = driver.changed()
        try:
            await asyncio.wait({fut}, timeout=min(remaining, 0.1))
        finally:
            fut.cancel()
