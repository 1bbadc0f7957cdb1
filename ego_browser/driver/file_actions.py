"""Setting files: ``page.set_input_files`` and ``FileChooser.set_files`` as element actions.

Both run as every other element action does (``act.locked_action``): after the input issued
before them on the page (its input lock), once the document is parsed, refused under an open
dialog, with a receipt (a change handler that opens a dialog or a popup comes back in it). The
target is resolved inside the action, so a re-rendered input is found again
(``driver/file_inputs.py``: the input, a label's control, or the one file input inside a
wrapper); a chooser names its input by backend node. The host checks the file list and hands
the files to the page's browser (``FileSite.browser_files``: a Grid node's copies).
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..cdp import Session
from ..errors import CdpError, InvalidArgument, InvalidState
from . import dispatch, file_inputs
from .act import locked_action
from .page import PageDriver
from .sites import FileSite

__all__ = ["set_input_files", "set_chooser_files", "CHOOSER_TIMEOUT_MS"]

#: a chooser's input is known (its backend node): this bounds only the parse wait before it
CHOOSER_TIMEOUT_MS = 10_000.0


def _one_file_only(api: str, n: int, what: str) -> InvalidArgument:
    return InvalidArgument(f"{api}: {n} files given, but the {what} takes one" + (
        " (no multiple attribute)" if what == "input" else ""), api=api, option="files", expected="one file")


async def _set(driver: PageDriver, session: Session, params: dict[str, Any]) -> None:
    driver.check_input()  # who controls the space, right before the input
    dispatch.mark()
    await session.send("DOM.setFileInputFiles", params, timeout=10.0)


async def _release(session: Session) -> None:
    with contextlib.suppress(Exception):  # a courtesy: the page may be gone
        await session.send("Runtime.releaseObjectGroup", {"objectGroup": file_inputs.INPUT_GROUP}, timeout=2.0)


async def set_input_files(driver: PageDriver, site: FileSite, *, selector: str, files: list[str],
                          timeout_ms: float, api: str) -> dict[str, Any]:
    """Set ``files`` (absolute paths, checked) on the one file input ``selector`` names."""
    dispatch.expect_input()

    async def body() -> None:
        session, oid, multiple = await file_inputs.file_input(driver, site, selector, api, timeout_ms)
        try:
            if len(files) > 1 and not multiple:
                raise _one_file_only(api, len(files), "input")
            paths = await site.browser_files(files)
            await _set(driver, session, {"files": paths, "objectId": oid})
        finally:
            await _release(session)

    return await locked_action(driver, site, body, api=api, timeout_ms=timeout_ms)


async def set_chooser_files(driver: PageDriver, site: FileSite, *, chooser: dict[str, Any], files: list[str],
                            api: str) -> dict[str, Any]:
    """Answer the intercepted ``chooser`` (``driver/choosers.py``, taken once) with ``files``."""
    if len(files) > 1 and not chooser["multiple"]:
        raise _one_file_only(api, len(files), "chooser")
    dispatch.expect_input()

    async def body() -> None:
        paths = await site.browser_files(files)
        frame = driver.frames.get(chooser["frame_id"] or "")
        session = frame.session if frame is not None else driver.session
        try:
            await _set(driver, session, {"files": paths, "backendNodeId": chooser["backend_node_id"]})
        except CdpError as exc:
            raise InvalidState(f"{api}: the file input is gone ({exc.cdp_message})", api=api) from exc

    return await locked_action(driver, site, body, api=api, timeout_ms=CHOOSER_TIMEOUT_MS)
