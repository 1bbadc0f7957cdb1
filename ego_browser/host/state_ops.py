"""Host operations for check/uncheck/set_checked and the element reads (issue 13, point 5).

The acting ones are element actions like click (``action_ops.element_action``, run by
``driver/act.py``: gate, input lock, receipt, and the navigation they start is waited for); the reads take no input lock and
send no input: they resolve strictly, wait for a match, read in the page
(``driver/state_actions.py``) and release their handles.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..driver import state_actions
from ..driver.handles import ActionContext
from ..schema import wire
from .action_ops import element_action
from .core import Host
from .ops import op
from .page_site import PageSite

element_action("Page.check", state_actions.check, navigates=True)
element_action("Page.uncheck", state_actions.uncheck, navigates=True)
element_action("Page.set_checked", state_actions.set_checked, navigates=True)

_groups = itertools.count(1)
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
        from .dialog_ops import guarded

        timeout_ms = kwargs.pop("timeout") if "timeout" in kwargs else _NO_WAIT_BOUND_MS
        arg = next(iter(kwargs.values()), None)
        ctx = await host.page_ctx(at, activate=True)
        group = f"ego-read-{next(_groups)}"
        # a read moves no pointer and presses no key: its context has neither
        actx = ActionContext(mouse=None, keyboard=None, selector=selector, api=api)  # type: ignore[arg-type]
        resolve = ctx.driver.locate.resolver(PageSite(host, ctx), selector, group)

        async def read() -> Any:
            try:
                return await state_actions.read_state(actx, resolve, kind=kind, arg=arg, timeout_ms=timeout_ms,
                                                      wait=wait)
            finally:
                await ctx.driver.locate.release(group)

        # a dialog blocks the renderer: fail at once, as every other call does
        return await guarded(ctx.driver, api, read())

    handler.__name__ = handler.__qualname__ = api.rpartition(".")[2]
    op(name)(handler)


for _name, (_kind, _wait) in READS.items():
    reader(_name, _kind, wait=_wait)
