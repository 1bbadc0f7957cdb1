"""``page.snapshot``: the page as text (the ref ledgers it numbers into are in ``ledgers``)."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from ... import config
from ...errors import EgoError, InvalidArgument
from ..core.host import Host, PageCtx
from ..core.ledgers import ledger_for, save_ledger
from ..core.dispatch import op
from ..core.store import OPEN, UNMANAGED


def parse_ref(value: Any) -> int | None:
    """``@21``, ``ref=21`` or ``21`` -> 21 (the selector language's ref forms); else None."""
    from ...errors import InvalidSelector
    from ...selectors.parse import RefSelector, parse_selector

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
    """``[p1 "Checkout" | space "shopping"(12) with p2 "Cart", 1 untracked]``: this page, its space,
    and the space's other pages and untracked tabs when there are any (``[p1 "Checkout" | space
    "shopping"(12)]`` alone: the page's own title said twice and "1 managed, 0 untracked" were a
    sixth of a look's bytes on the SPA tasks, docs/architecture.md "The header")."""
    assert host.store is not None
    space = ctx.space
    try:
        rows = [r for r in host.store.pages(space.id) if host.browser.is_live_page(r.target_id)]
        managed = [r for r in rows if r.state == OPEN]
        untracked = sum(1 for r in rows if r.state == UNMANAGED)
        others = [f'{r.label} "{_q((host.browser.targets.get(r.target_id or "") or {}).get("title", ""))}"'
                  for r in managed if r.label != ctx.page.label]
        if untracked:
            others.append(f"{untracked} untracked")
        text = f'[{ctx.page.label} "{_q(title)}" | space "{_q(space.name)}"({space.id})'
        if others:
            text += " with " + ", ".join(others)
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
                   locators: bool, include_stable_locator: bool | None, max_length: int | None, interactive: bool,
                   changes: bool, grep: str | None, to_file: bool) -> str:
    from ...snapshot import take_snapshot
    from ...snapshot.engine import truncate
    from ...snapshot.looks import grep_lines

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
    if grep is not None:
        if not grep.strip():
            raise InvalidArgument("grep must be some text or a /regex/, not empty", api=api, option="grep",
                                  expected="text or /regex/")
        grep_lines("", grep)  # a bad /regex/ fails before the page is read
    ctx = await host.page_ctx(at, activate=True)
    ledger = ledger_for(host, ctx)
    # a document still being parsed would come back as a bare root with a stale title
    loading = await _until_parsed(ctx)
    marks, locs = include_action_marks, locators or bool(include_stable_locator)
    note: str | None = None  # what says the document is still changing (the header's note)

    async def work() -> tuple[str, str]:
        nonlocal root_ref
        if root_ref is None and root_arg is not None:
            root_ref = await _root_ref(host, ctx, ledger, root_arg)
        elif root_ref is not None:
            from ...snapshot.refcheck import check_ref

            await check_ref(ctx.driver.frames, ledger, root_ref)  # the node it named, or its successor
        # the title's round trip runs alongside the walker's instead of before it (on a small
        # page each is about half of the snapshot's time: docs/architecture.md)
        title = asyncio.ensure_future(_title(ctx))
        changing = asyncio.ensure_future(_changing(ctx))
        try:
            body = await take_snapshot(
                ctx.driver.frames, ledger,
                scope=scope, root=root_ref, include_action_marks=marks, include_stable_locator=locs,
                interactive=interactive, lean_urls=not locs,
            )
        except BaseException:
            title.cancel()
            changing.cancel()
            raise
        nonlocal note
        note = await changing
        return await title, body

    try:
        # a dialog blocks the renderer: fail at once, as every other call does (B151)
        title, body = await ctx.driver.dialogs.guard(api, work())
    finally:
        save_ledger(host, ctx.driver)
    # the previous snapshot of this page with the same options is what changes=True compares with
    options = (scope, root_ref, marks, locs, interactive)
    main = ctx.driver.frames.main
    doc = main.loader_id if main is not None else None
    prev = ctx.driver.snapshot_prev
    ctx.driver.snapshot_prev = (options, body, doc)
    full_head = header(host, ctx, title)
    busy = f" (changing: {note}; page.wait_for_settled())" if note and not loading else ""
    # the learned and WebMCP tools' lines belong to the header's space part: printed when changed
    learned = _learned(ctx) + await _webmcp_line(ctx)
    page_part = f'[{ctx.page.label} "{_q(title)}"'
    if not full_head.startswith(page_part):  # the short form: the inventory could not be read
        page_part = f"[{ctx.page.label}"
    shown = look_header(ctx, at, page_part, full_head[len(page_part):] + learned)
    first, nl, tools = shown.partition("\n")
    head = first + (" (loading)" if loading else "") + busy + nl + tools
    if to_file:
        path = await _save_look(ctx, full_head + "\n" + body)
        return f"{head}\n[snapshot saved to {path}: {summary_of(body)}; search it with open(), or use grep=]"
    if grep is not None:
        body = grep_lines(body, grep)
    elif changes:
        same = prev is not None and prev[0] == options
        body = _changes(prev[1] if same and prev is not None else None, body,
                        new_doc=same and prev is not None and prev[2] != doc)
    return truncate(head + "\n" + body, max_length)


def _learned(ctx: PageCtx) -> str:
    """The line naming the learned tools of the page's site (issue 28 §4), or nothing."""
    from ...learning.learned import header_line

    main = ctx.driver.frames.main
    line = header_line(main.url) if main is not None else ""
    return "\n" + line if line else ""


async def _webmcp_line(ctx: PageCtx) -> str:
    """The line naming the page's WebMCP tools (issue 28 §2), names and parameters only, or nothing."""
    from ...driver import webmcp

    try:
        listed = await webmcp.tools(ctx.driver)
    except Exception:  # noqa: BLE001 - a page whose tools cannot be read still gets its snapshot
        return ""
    if not listed:
        return ""
    return "\n[webmcp tools: " + ", ".join(webmcp.signature(t) for t in listed) + \
        " — await page.call_webmcp_tool(NAME, {...}); page.webmcp_tools() for schemas]"


def summary_of(body: str) -> str:
    from ...snapshot.looks import summary

    return summary(body)


def look_header(ctx: PageCtx, at: dict[str, Any], page_part: str, rest: str) -> str:
    """The look's header: ``page_part + rest`` (``[p1 "Title"`` and `` | space ...]`` with the
    learned and WebMCP tool lines) when ``rest`` changed since the page's last look, else
    ``[p1 "Title"]``; ``[p1]`` for a later look in the same round whose header is the same.

    The space part is what the agent set up itself and the page's last look said: a page-to-page
    flow reprinted it on every look (docs/architecture.md "The header")."""
    proc = at.get("proc")
    last = ctx.driver.snapshot_header
    ctx.driver.snapshot_header = (proc, page_part, rest)
    if last is None or last[2] != rest:
        return page_part + rest
    if proc is not None and last[0] == proc and last[1] == page_part:
        return f"[{ctx.page.label}]"
    return page_part + "]"


_saved = itertools.count(1)


async def _save_look(ctx: PageCtx, text: str) -> str:
    """Write ``text`` to a fresh file under the temp directory (atomically) and return its path."""
    import os
    import tempfile

    from ..core.user_files import write_file

    path = os.path.join(tempfile.gettempdir(),
                        f"ego-browser-snapshot-{ctx.page.label}-{os.getpid()}-{next(_saved)}.txt")
    await write_file("page.snapshot", "to_file", path, text.encode())
    return path


def _changes(prev: str | None, body: str, *, new_doc: bool = False) -> str:
    """The ``changes=True`` text: a note line, then only what changed (``modes.diff_lines``), or
    after a navigation the new document with its unchanged landmarks collapsed (``looks``)."""
    from ...snapshot.looks import document_delta
    from ...snapshot.modes import diff_lines

    if prev is None:
        return "[changes: no previous snapshot with these options; the whole snapshot]\n" + body
    if new_doc:
        delta = document_delta(prev, body)
        if delta is None:
            return "[changes: a new document, no landmark as before; the whole snapshot]\n" + body
        text, n = delta
        return f"[changes: a new document; {n} landmark{'s' if n > 1 else ''} as before (= unchanged)]\n" + text
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


@op("Page.locator_of")
async def locator_of(host: Host, at: dict[str, Any], *, ref: str) -> str | None:
    """The stable locator of one element: a subtree look at it with locators on, without marks
    (role locators are offered then), read from the root row."""
    from ...snapshot import take_snapshot

    api = "page.locator_of"
    ctx = await host.page_ctx(at)
    ledger = ledger_for(host, ctx)
    num = parse_ref(ref)

    async def work() -> str | None:
        n = num if num is not None else await _root_ref(host, ctx, ledger, ref)
        locs: list[str] = []
        await take_snapshot(ctx.driver.frames, ledger, scope="subtree", root=n, include_action_marks=False,
                            include_stable_locator=True, out_locs=locs)
        return ("loc=" + locs[0]) if locs and locs[0] else None

    try:
        return await ctx.driver.dialogs.guard(api, work())
    finally:
        save_ledger(host, ctx.driver)


async def _root_ref(host: Host, ctx: PageCtx, ledger: Any, selector: str) -> int:
    """The ref of the one element ``selector`` names (strict, like actions): the snapshot root."""
    from ...errors import SelectorNotFound
    from ...selectors import engine
    from ...selectors.parse import RefSelector, parse_selector
    from ...snapshot import settle
    from ..core.page_site import PageSite

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

    from ...driver import navigation

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


async def _changing(ctx: PageCtx) -> str | None:
    """What says the document is still changing (driver/settle.py), for the header; None if
    quiet or unknown (the snapshot never fails for it)."""
    from ...driver.settle import busy_note

    try:
        return await busy_note(ctx.driver)
    except EgoError:
        return None


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
