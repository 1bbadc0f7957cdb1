"""A trusted click through the host's action pipeline, for tests of receipts, dialogs, popups
and file choosers (a stand-in for ``page.click`` while that op is wired elsewhere)."""

from __future__ import annotations

from ego_browser.client.models import ActionReceipt
from ego_browser.driver.receipts import run_action
from ego_browser.host.core.page_site import PageSite


async def click(host, page, selector: str, *, api: str = "page.click") -> ActionReceipt:
    ctx = await host.page_ctx({"space": page.space_id, "label": page.label}, activate=True)
    session = ctx.driver.session
    res = await session.send("Runtime.evaluate", {
        "expression": f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
                      " return [r.x + r.width / 2, r.y + r.height / 2]; })()",
        "returnByValue": True,
    })
    assert "value" in res["result"], res
    x, y = res["result"]["value"]

    async def action() -> None:
        for kind in ("mousePressed", "mouseReleased"):
            await session.send("Input.dispatchMouseEvent",
                               {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    return ActionReceipt.from_wire(await run_action(ctx.driver, PageSite(host, ctx), action, api=api))
