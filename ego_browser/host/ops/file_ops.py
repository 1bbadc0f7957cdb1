"""File inputs and native file choosers.

The choosers themselves (the armed waiter, the unarmed ones, the receipt's check) are the page
driver's part, ``driver/choosers.py``; the operations here arm, await and answer them.

``set_input_files`` resolves its target in the page (``driver/file_inputs.py``: the input, a
label's control, or the one file input inside a wrapper, through open shadow roots) and sets
the files with ``DOM.setFileInputFiles``; a change handler that opens a dialog comes back in
the receipt.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ...driver import dispatch, file_inputs
from ...driver.receipts import run_action
from ...errors import CdpError, InvalidArgument, InvalidState
from ..core.host import Host, PageCtx
from ..core.dispatch import op, sync_op
from ..core.page_site import PageSite

__all__: list[str] = []

# -- files -------------------------------------------------------------------------------------


def _check_files(api: str, files: Any) -> list[str]:
    """The same rule as the client's (a round may send anything): absolute paths of files."""
    from ...client.files import file_list

    return file_list(api, files)


@op("Page.set_input_files")
async def set_input_files(host: Host, at: dict[str, Any], *, selector: str, files: Any,
                          timeout: float) -> dict[str, Any]:
    api = "page.set_input_files"
    ctx = await host.page_ctx(at, activate=True)
    files = _check_files(api, files)
    from ...driver.dialogs import dialog_open_error

    if ctx.driver.dialog is not None:
        raise dialog_open_error(api, ctx.driver.dialog)
    session, oid, multiple = await file_inputs.file_input(ctx.driver, PageSite(host, ctx), selector, api, timeout)
    if len(files) > 1 and not multiple:
        with contextlib.suppress(Exception):
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": file_inputs.INPUT_GROUP}, timeout=2.0)
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
                await session.send("Runtime.releaseObjectGroup", {"objectGroup": file_inputs.INPUT_GROUP}, timeout=2.0)

    return await run_action(ctx.driver, PageSite(host, ctx), action, name=api)


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

    return await run_action(ctx.driver, PageSite(host, ctx), action, name=api)
