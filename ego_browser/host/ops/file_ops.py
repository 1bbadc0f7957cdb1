"""File inputs and native file choosers.

The choosers themselves (the armed waiter, the unarmed ones, the receipt's check) are the page
driver's part, ``driver/choosers.py``; the operations here arm, await and answer them.

Setting files is an element action of the driver (``driver/file_actions.py``: the page's
input lock, the parse wait, the dialog check, the receipt); the operations here check the
file list (a round may send anything) and hand it over.
"""

from __future__ import annotations

from typing import Any

from ...driver import file_actions
from ..core.host import Host
from ..core.dispatch import op, sync_op
from ..core.page_site import PageSite

__all__: list[str] = []

# -- files -------------------------------------------------------------------------------------


def _check_files(api: str, files: Any) -> list[str]:
    """The same rule as the client's (a round may send anything): absolute paths of files."""
    from ...wire.files import file_list

    return file_list(api, files)


@op("Page.set_input_files")
async def set_input_files(host: Host, at: dict[str, Any], *, selector: str, files: Any,
                          timeout: float) -> dict[str, Any]:
    api = "page.set_input_files"
    ctx = await host.page_ctx(at, activate=True)
    files = _check_files(api, files)
    return await file_actions.set_input_files(ctx.driver, PageSite(host, ctx), selector=selector, files=files,
                                              timeout_ms=timeout, api=api)


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
    ctx = await host.page_ctx(at, activate=True)
    chooser = host.features.choosers.of(ctx.driver.target_id).take(id, api)
    files = _check_files(api, files)
    return await file_actions.set_chooser_files(ctx.driver, PageSite(host, ctx), chooser=chooser, files=files,
                                                api=api)
