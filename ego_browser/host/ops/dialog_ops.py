"""The dialog operations: ``page.accept_dialog`` and ``page.dismiss_dialog``.

The dialogs themselves are the page driver's part (``driver/dialogs.py``: the queue, the guard,
answering); the operations are ownership-gated by the dispatcher and pass the host's background
tasks for the answer's tail. Permission prompts are ``permission_watch.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.dispatch import op

if TYPE_CHECKING:
    from ..core.host import Host


@op("Page.accept_dialog")
async def accept_dialog(host: Host, at: dict[str, Any], *, prompt_text: str | None) -> bool:
    ctx = await host.page_ctx(at)
    return await ctx.driver.dialogs.answer(True, prompt_text, background=host.background)


@op("Page.dismiss_dialog")
async def dismiss_dialog(host: Host, at: dict[str, Any]) -> bool:
    ctx = await host.page_ctx(at)
    return await ctx.driver.dialogs.answer(False, background=host.background)
