"""Host operations for check/uncheck/set_checked and the element reads (issue 13, point 5).

The acting ones run like every element action (gate, input lock, receipt: ``action_ops._act``);
the reads take no input lock and send no input: they resolve strictly, wait for a match, read
in the page (``driver/state_actions.py``) and release their handles.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..driver import actions, state_actions
from .action_ops import _act, _context, _Run, _timeout
from .core import Host, PageCtx
from .ops import op
from .targeting import release_handles, resolver


def _checker(api: str, checked: Any):
    async def handler(host: Host, args: dict[str, Any]) -> dict[str, Any]:
        if api == "page.check" and "selector" not in args:
            from .page_ops import gate

            return await gate(host, args)  # a round of an earlier release: wait_for_timeout's gate
        sel = args["selector"]
        want = args["checked"] if checked is None else checked

        async def body(ctx: PageCtx, run: _Run) -> Any:
            return await state_actions.set_checked(
                _context(ctx, args, api, sel, run), resolver(host, ctx, sel, run.group), checked=want,
                position=args.get("position"), force=args.get("force", False), timeout_ms=_timeout(args),
                label=args.get("label"),
            )

        return await _act(host, args, api, body, navigates=True)

    return handler


op("page.check")(_checker("page.check", True))
op("page.uncheck")(_checker("page.uncheck", False))
op("page.set_checked")(_checker("page.set_checked", None))

_groups = itertools.count(1)


def _reader(api: str, kind: str, *, wait: bool = True, arg_name: str | None = None):
    async def handler(host: Host, args: dict[str, Any]) -> Any:
        from .dialog_ops import guarded

        sel = args["selector"]
        ctx = await host.page_ctx(args, activate=True)
        group = f"ego-read-{next(_groups)}"
        actx = actions.ActionContext(mouse=None, keyboard=None, selector=sel, api=api)  # type: ignore[arg-type]
        resolve = resolver(host, ctx, sel, group)

        async def read() -> Any:
            try:
                return await state_actions.read_state(actx, resolve, kind=kind,
                                                      arg=args.get(arg_name) if arg_name else None,
                                                      timeout_ms=args.get("timeout", 3000), wait=wait)
            finally:
                await release_handles(ctx.driver, group)

        # a dialog blocks the renderer: fail at once, as every other call does
        return await guarded(ctx.driver, api, read())

    return handler


op("page.is_checked")(_reader("page.is_checked", "checked"))
op("page.is_enabled")(_reader("page.is_enabled", "enabled"))
op("page.is_visible")(_reader("page.is_visible", "visible", wait=False))
op("page.input_value")(_reader("page.input_value", "value"))
op("page.text_content")(_reader("page.text_content", "text"))
op("page.inner_text")(_reader("page.inner_text", "innerText"))
op("page.get_attribute")(_reader("page.get_attribute", "attribute", arg_name="name"))
