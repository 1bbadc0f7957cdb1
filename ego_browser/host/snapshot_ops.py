"""``page.snapshot``: the page as text (the ref ledgers it numbers into are in ``ledgers``)."""

from __future__ import annotations

import asyncio
from typing import Any

from .. import config
from ..errors import EgoError, InvalidArgument
from .core import Host, PageCtx
from .ledgers import ledger_for, save_ledger
from .ops import op
from .store import OPEN, UNMANAGED


def parse_ref(value: Any) -> int | None:
    """``@21``, ``ref=21`` or ``21`` -> 21 (the selector language's ref forms); else None."""
    from ..errors import InvalidSelector
    from ..selectors.parse import RefSelector, parse_selector

    if isinstance(value, int) and not isinstance(value, bool):
        return value if value > 0 else None
    if not isinstance(value, str):
        return None
    try:
        parsed = parse_selector(value)
    except InvalidSelector:
        return None
    return parsed.ref if isinstance(parsed, RefSelector) else None


def header(host: Host, ctx: PageCtx, title: str) -> str:
    """``[p1 "Checkout" | space "shopping"(12): 2 managed, 1 untracked — p1* "Checkout", p2 "Cart"]``."""
    assert host.store is not None
    space = ctx.space
    try:
        rows = [r for r in host.store.pages(space.id) if host.browser.is_live_page(r.target_id)]
        managed = [r for r in rows if r.state == OPEN]
        untracked = [r for r in rows if r.state == UNMANAGED]
        pages = []
        for r in managed:
            t = title if r.label == ctx.page.label else (host.browser.targets.get(r.target_id or "") or {}).get("title", "")
            star = "*" if r.label == ctx.page.label else ""
            pages.append(f'{r.label}{star} "{_q(t)}"')
        text = (
            f'[{ctx.page.label} "{_q(title)}" | space "{_q(space.name)}"({space.id}): {len(managed)} managed, '
            f'{len(untracked)} untracked — {", ".join(pages)}'
        )
        limit = config.page_budget()
        if len(managed) >= limit - 1:
            text += f" | budget {len(managed)}/{limit}"
        return text + "]"
    except Exception:  # the inventory could not be read: the short form
        return f'[{ctx.page.label} | space "{_q(space.name)}"({space.id})]'


def _q(text: str) -> str:
    return " ".join(text.replace("\\", "\\\\").replace('"', '\\"').split())


@op("Page.snapshot")
async def snapshot(host: Host, at: dict[str, Any], *, scope: str, root: str | None, include_action_marks: bool,
                   include_stable_locator: bool, max_length: int | None, interactive: bool, changes: bool) -> str:
    from ..snapshot import take_snapshot
    from ..snapshot.engine import truncate

    api = "page.snapshot"
    root_arg = root
    root_ref: int | None = None
    if root_arg is not None:
        root_ref = parse_ref(root_arg)
        if root_ref is None and not isinstance(root_arg, str):
            raise InvalidArgument(
                f"root must be a snapshot ref such as \"@12\" or a selector (got {root_arg!r})",
                api=api, option="root", expected="a ref or a selector",
            )
    ctx = await host.page_ctx(at, activate=True)
    ledger = ledger_for(host, ctx)
    # a document still being parsed would come back as a bare root with a stale title
    loading = await _until_parsed(ctx)
    marks, locs = include_action_marks, include_stable_locator

    async def work() -> tuple[str, str]:
        nonlocal root_ref
        if root_ref is None and root_arg is not None:
            root_ref = await _root_ref(host, ctx, ledger, root_arg)
        # the title's round trip runs alongside the walker's instead of before it (on a small
        # page each is about half of the snapshot's time: docs/architecture.md)
        title = asyncio.ensure_future(_title(ctx))
        try:
            body = await take_snapshot(
                ctx.driver.frames, ledger,
                scope=scope, root=root_ref, include_action_marks=marks, include_stable_locator=locs,
                interactive=interactive,
            )
        except BaseException:
            title.cancel()
            raise
        return await title, body

    try:
        # a dialog blocks the renderer: fail at once, as every other call does (B151)
        title, body = await ctx.driver.dialogs.guard(api, work())
    finally:
        save_ledger(host, ctx.driver)
    # the previous snapshot of this page with the same options is what changes=True compares with
    options = (scope, root_ref, marks, locs, interactive)
    prev = getattr(ctx.driver, "snapshot_prev", None)
    ctx.driver.snapshot_prev = (options, body)
    if changes:
        body = _changes(prev[1] if prev is not None and prev[0] == options else None, body)
    return truncate(header(host, ctx, title) + (" (loading)" if loading else "") + _learned(ctx) + "\n" + body,
                    max_length)


def _learned(ctx: PageCtx) -> str:
    """The line naming the learned tools of the page's site (issue 28 §4), or nothing."""
    from ..learning.learned import header_line

    main = ctx.driver.frames.main
    line = header_line(main.url) if main is not None else ""
    return "\n" + line if line else ""


def _changes(prev: str | None, body: str) -> str:
    """The ``changes=True`` text: a note line, then only what changed (``modes.diff_lines``)."""
    from ..snapshot.modes import diff_lines

    if prev is None:
        return "[changes: no previous snapshot with these options; the whole snapshot]\n" + body
    found = diff_lines(prev.split("\n"), body.split("\n"))
    if found is None:
        return "[changes: most of the page changed; the whole snapshot]\n" + body
    lines, counts = found
    if not lines:
        return "[changes: none since the previous snapshot]"
    note = f"[changes: {counts['added']} added (+), {counts['removed']} removed (-), {counts['changed']} changed (~)]"
    out = note + "\n" + "\n".join(lines)
    if len(out) >= len(body):
        return "[changes: most of the page changed; the whole snapshot]\n" + body
    return out


async def _root_ref(host: Host, ctx: PageCtx, ledger: Any, selector: str) -> int:
    """The ref of the one element ``selector`` names (strict, like actions): the snapshot root."""
    from ..errors import SelectorNotFound
    from ..selectors import engine
    from ..selectors.parse import RefSelector, parse_selector
    from ..snapshot import settle
    from .page_site import PageSite

    parsed = parse_selector(selector)
    assert not isinstance(parsed, RefSelector), "snapshot() took the ref forms with parse_ref"
    await settle(ledger)  # numbers being bound must be bound before another is handed out
    try:
        found = await engine.resolve(ctx.driver.locate.engine_frames(), parsed, mode="top_first", limit=2,
                                     describe=False, backend_ids=True, object_group=engine.DEFAULT_GROUP)
    finally:
        await ctx.driver.locate.release()
    if found.total == 0:
        raise SelectorNotFound(f"page.snapshot: root {selector} matched 0 elements", selector=selector, timeout_ms=0)
    if found.total > 1:
        raise await ctx.driver.locate.ambiguous_selector(
            PageSite(host, ctx), "page.snapshot: root", parsed, found.total,
            hint="use a more specific selector or one of these refs as root")
    m = found.matches[0]
    if m.backend_node_id is None or not m.loader_id:
        raise SelectorNotFound(f"page.snapshot: root {selector} is gone", selector=selector, timeout_ms=0)
    ref: int = ledger.assign((m.frame_id, m.loader_id, m.backend_node_id))
    save_ledger(host, ctx.driver)
    return ref


#: longest a snapshot waits for a loading document to be parsed (DOMContentLoaded)
PARSE_WAIT = 5.0


async def _until_parsed(ctx: PageCtx) -> bool:
    """Wait (bounded) for a pending navigation and for the document's DOMContentLoaded.

    A snapshot of a document still being parsed is a bare root with a stale or empty title;
    True means it is still loading after ``PARSE_WAIT`` (the header says so).
    """
    import asyncio

    from ..driver import navigation

    driver = ctx.driver
    if driver.dialog is not None:
        return False
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PARSE_WAIT
    nav = navigation.tracker(driver)
    try:
        if not nav.settled():
            await nav.wait_idle(-1, PARSE_WAIT)
        await driver.wait_until(
            lambda: (m := driver.frames.main) is None or "DOMContentLoaded" in m.lifecycle or driver.dialog is not None,
            timeout=max(0.0, deadline - loop.time()),
        )
    except TimeoutError:
        return True
    return False


async def _title(ctx: PageCtx) -> str:
    if ctx.driver.dialog is not None:
        return ""
    try:
        res = await ctx.driver.session.send(
            "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, timeout=2.0
        )
        value = (res.get("result") or {}).get("value")
        return value if isinstance(value, str) else ""
    except EgoError:  # a busy or closing page: the header goes without its title
        return ""
