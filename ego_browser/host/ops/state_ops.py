"""Host operations for check/uncheck/set_checked and the element reads (issue 13, point 5).

The acting ones are element actions like click (``action_ops.element_action``, run by
``driver/act.py``: gate, input lock, receipt, and the navigation they start is waited for);
the reads (``act.element_read``) take no input lock and send no input: they resolve strictly,
wait for a match, read in the page (``driver/state_actions.py``) and release their handles.
"""

from __future__ import annotations

from typing import Any

from ...driver import act, state_actions
from ...schema import wire
from .action_ops import element_action
from ..core.host import Host
from ..core.dispatch import op
from ..core.page_site import PageSite

element_action("Page.check", state_actions.check, navigates=True)
element_action("Page.uncheck", state_actions.uncheck, navigates=True)
element_action("Page.set_checked", state_actions.set_checked, navigates=True)

#: the bound of a read that declares no timeout (is_visible does not wait for a match)
_NO_WAIT_BOUND_MS = 3000

#: reads: declaration -> (what the page reads, whether it waits for a match)
READS: dict[str, tuple[str, bool]] = {
    "Page.is_checked": ("checked", True),
    "Page.is_enabled": ("enabled", True),
    "Page.is_visible": ("visible", False),
    "Page.input_value": ("value", True),
    "Page.text_content": ("text", True),
    "Page.inner_text": ("innerText", True),
    "Page.get_attribute": ("attribute", True),
}


def reader(name: str, kind: str, *, wait: bool) -> None:
    """Register the handler of read ``name``: its declared arguments besides ``selector`` and
    ``timeout`` (``get_attribute``'s ``name``) go to the page as the read's argument."""
    api = wire.declaration(name).api

    async def handler(host: Host, at: dict[str, Any], *, selector: str, **kwargs: Any) -> Any:
        timeout_ms = kwargs.pop("timeout") if "timeout" in kwargs else _NO_WAIT_BOUND_MS
        arg = next(iter(kwargs.values()), None)
        ctx = await host.page_ctx(at, activate=True)
        read = act.element_read(ctx.driver, PageSite(host, ctx), selector, api=api, kind=kind, arg=arg,
                                timeout_ms=timeout_ms, wait=wait)
        # a dialog blocks the renderer: fail at once, as every other call does
        return await ctx.driver.dialogs.guard(api, read)

    handler.__name__ = handler.__qualname__ = api.rpartition(".")[2]
    op(name)(handler)


for _name, (_kind, _wait) in READS.items():
    reader(_name, _kind, wait=_wait)
