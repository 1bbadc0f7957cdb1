"""File inputs and native file choosers.

The choosers themselves (the armed waiter, the unarmed ones, the receipt's check) are the page
driver's part, ``driver/choosers.py``; the operations here arm, await and answer them.

``set_input_files`` resolves its target in the page (the input, a label's control, or the one
file input inside a wrapper, through open shadow roots) and sets the files with
``DOM.setFileInputFiles``; a change handler that opens a dialog comes back in the receipt.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .. import jsbundle
from ..driver import dispatch
from ..errors import (
    CdpChannelUnavailable,
    CdpError,
    EgoTimeout,
    InvalidArgument,
    InvalidState,
    SelectorNotFound,
)
from ..driver.receipts import run_action
from .core import Host, PageCtx
from .ops import op, sync_op
from .page_site import PageSite

__all__: list[str] = []

# -- files -------------------------------------------------------------------------------------


def _check_files(api: str, files: Any) -> list[str]:
    """The same rule as the client's (a round may send anything): absolute paths of files."""
    from ..client.files import file_list

    return file_list(api, files)


_INPUT_GROUP = "ego-file-input"
_AMBIGUOUS_GROUP = "ego-file-inputs-listed"


async def _candidates(host: Host, ctx: Any, parsed: Any) -> tuple[list[tuple[Any, str, Any]], int, Any]:
    """(session, objectId, frame) of what the selector or ref designates, its match count, and a
    cleanup (the frame, a driver ``Frame`` or None, names the candidates of an ambiguity error)."""
    from ..selectors import engine
    from ..selectors.parse import RefSelector

    locate = ctx.driver.locate
    if isinstance(parsed, RefSelector):
        refs = PageSite(host, ctx)
        handle = await locate.handle_for_ref(refs, parsed.ref)
        frame = ctx.driver.frames.get(refs.ledger().lookup(parsed.ref).frame_id)
        return [(handle.session, handle.object_id, frame)], 1, lambda: locate.release()
    res = await engine.resolve(locate.engine_frames(), parsed, limit=2, describe=False, backend_ids=False,
                               timeout=5.0)
    found: list[tuple[Any, str, Any]] = []
    for m in res.matches:
        assert m.object_id is not None  # resolve() with an object group gives every match its object
        found.append((m.frame.session, m.object_id, m.frame.frame))
    return found, res.total, lambda: engine._release_matches(res.matches)


async def _inputs_ambiguous(host: Host, ctx: Any, api: str, selector: str, frame: Any, session: Any,
                            found_id: str, n: int) -> Any:
    """The element holds ``n`` file inputs: list up to 5 of them as every ambiguity error does."""
    from ..driver.candidates import SHOWN_CANDIDATES, ambiguity, describer

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
            describers.append(describer(PageSite(host, ctx), frame, r["result"]["objectId"]))
    try:
        return await ambiguity(api, selector, n, describers, hint="target one of them (by its ref or its own selector)",
                               found=f"contains multiple file inputs ({n})")
    finally:
        try:
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": _AMBIGUOUS_GROUP}, timeout=5.0)
        except (CdpError, CdpChannelUnavailable):
            pass


async def _file_input(host: Host, ctx: Any, selector: str, api: str, timeout_ms: float) -> tuple[Any, str, bool]:
    """(session, objectId, multiple) of the one file input the selector (or ref) designates."""
    from ..selectors.parse import parse_selector

    driver = ctx.driver
    parsed = parse_selector(selector)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    while True:
        found, total, cleanup = await _candidates(host, ctx, parsed)
        try:
            if total > 1:
                raise await driver.locate.ambiguous_selector(PageSite(host, ctx), api, parsed, total)
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
                    raise await _inputs_ambiguous(host, ctx, api, selector, frame, session, oid, info["n"])
                if info["n"] == 1:
                    # a group of its own: without one the handle inherits the ref's group, which the
                    # cleanup below releases before DOM.setFileInputFiles can use it
                    el = await session.send("Runtime.callFunctionOn", {
                        "objectId": oid, "functionDeclaration": "function() { return this.el; }",
                        "objectGroup": _INPUT_GROUP,
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


@op("Page.set_input_files")
async def set_input_files(host: Host, at: dict[str, Any], *, selector: str, files: Any,
                          timeout: float) -> dict[str, Any]:
    api = "page.set_input_files"
    ctx = await host.page_ctx(at, activate=True)
    files = _check_files(api, files)
    from ..driver.dialogs import dialog_open_error

    if ctx.driver.dialog is not None:
        raise dialog_open_error(api, ctx.driver.dialog)
    session, oid, multiple = await _file_input(host, ctx, selector, api, timeout)
    if len(files) > 1 and not multiple:
        with contextlib.suppress(Exception):
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": _INPUT_GROUP}, timeout=2.0)
        raise InvalidArgument(f"{api}: {len(files)} files given, but the input takes one (no multiple attribute)",
                              api=api, option="files", expected="one file")
    files = await host.browser.files_for_browser(ctx.space.browser_instance, files)  # a Grid node's copies

    dispatch.expect_input()

    async def action() -> None:
        ctx.driver.check_input()
        dispatch.mark()
        try:
            await session.send("DOM.setFileInputFiles", {"files": files, "objectId": oid}, timeout=10.0)
        finally:
            with contextlib.suppress(Exception):
                await session.send("Runtime.releaseObjectGroup", {"objectGroup": _INPUT_GROUP}, timeout=2.0)

    return await run_action(ctx.driver, PageSite(host, ctx), action)


# -- file chooser waiters ----------------------------------------------------------------------


@sync_op("page.arm_file_chooser")
def arm_file_chooser(host: Host, at: dict[str, Any]) -> int:
    space = host.space_row(at.get("space"))
    row = host.page_row(space, str(at.get("label")))
    return host.features.choosers.of(row.target_id or "").arm()


@sync_op("page.disarm_file_chooser")
def disarm_file_chooser(host: Host, at: dict[str, Any], *, token: int) -> None:
    space = host.space_row(at.get("space"))
    row = host.page_row(space, str(at.get("label")))
    choosers = host.features.choosers.peek(row.target_id or "")
    if choosers is not None:
        choosers.disarm(token)


@op("page.wait_file_chooser")
async def wait_file_chooser(host: Host, at: dict[str, Any], *, token: int, timeout: float) -> dict[str, Any]:
    ctx = await host.page_ctx(at, gated=False)
    return await host.features.choosers.of(ctx.driver.target_id).wait(token, timeout)


@op("FileChooser.set_files")
async def chooser_set_files(host: Host, at: dict[str, Any], *, id: int, files: Any) -> dict[str, Any]:  # noqa: A002
    api = "FileChooser.set_files"
    ctx: PageCtx = await host.page_ctx(at, activate=True)
    chooser = host.features.choosers.of(ctx.driver.target_id).take(id, api)
    files = _check_files(api, files)
    if len(files) > 1 and not chooser["multiple"]:
        raise InvalidArgument(f"{api}: {len(files)} files given, but the chooser takes one", api=api,
                              option="files", expected="one file")
    files = await host.browser.files_for_browser(ctx.space.browser_instance, files)  # a Grid node's copies
    frame = ctx.driver.frames.get(chooser["frame_id"] or "")
    session = frame.session if frame is not None else ctx.driver.session

    dispatch.expect_input()

    async def action() -> None:
        ctx.driver.check_input()
        dispatch.mark()
        try:
            await session.send(
                "DOM.setFileInputFiles", {"files": files, "backendNodeId": chooser["backend_node_id"]}, timeout=10.0
            )
        except CdpError as exc:
            raise InvalidState(f"{api}: the file input is gone ({exc.cdp_message})", api=api) from exc

    return await run_action(ctx.driver, PageSite(host, ctx), action)
