"""The public classes of ego_browser, generated from the declarations. Do not edit.

Regenerate with ``python -m ego_browser.schema.gen_client`` after changing ``schema/spec*.py`` or a
hand-written base (``client/page.py`` ...): a member the base defines is not generated.

``# type: ignore[no-any-return]``: the host's answer is Any to mypy; the host built it as the
declaration's return type says (and a test holds both to the schema).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..schema import validated
from .files import DownloadBase, FileChooserBase
from .input import KeyboardBase, MouseBase
from .models import ActionReceipt, UnmanagedPage
from .page import PageBase
from .taskspace import TaskSpaceBase

__all__ = ["TaskSpace", "Page", "Mouse", "Keyboard", "FileChooser", "Download"]

_UNSET: Any = object()


class TaskSpace(TaskSpaceBase["Page"]):
    """An agent's own group of tabs (its own window) in the shared browser. Get one from task_space()."""

    @validated("TaskSpace.wait_for_control")
    async def wait_for_control(self, *, interval: float = 20000, timeout: float = 600000) -> dict[str, Any]:
        """Wait until the agent controls the space again (never takes control itself); returns the person's note
        and where the active tab is (url, title) at once if it already does."""
        return await self._call(  # type: ignore[no-any-return]
            "task.wait_for_control", interval=interval, timeout=timeout,
        )

    @validated("TaskSpace.ask_human")
    async def ask_human(self, reason: str, *, wait: bool = True, timeout: float = 600000) -> dict[str, Any]:
        """Hand the space to the person for something only they can do (a log-in, a 2FA code, a CAPTCHA) and wait
        until they give it back; returns their note and what changed."""
        return await self._call(  # type: ignore[no-any-return]
            "task.ask_human", reason=reason, wait=wait, timeout=timeout,
        )

    @validated("TaskSpace.hand_off")
    async def hand_off(self) -> None:
        """Hand the space to the person; gated calls then raise TaskSpaceUserInControl (reason handed_off) until
        take_over_task_space(). Calls still running on the space stop with that error too."""
        await self._call("task.hand_off")

    @validated("TaskSpace.set_allowed_domains")
    async def set_allowed_domains(self, domains: list[Any]) -> dict[str, Any]:
        """Fence the space in: from now on its pages reach only these hosts (navigations, redirects, popups,
        iframes, forms, fetch/XHR/WebSocket, workers and service workers). An agent may only narrow the list
        in force."""
        return await self._call("task.set_allowed_domains", domains=domains)  # type: ignore[no-any-return]

    @validated("TaskSpace.allowed_domains")
    async def allowed_domains(self) -> dict[str, Any]:
        """The allowlist in force for the space (domains None: no list); set_by is "space", "profile" or None."""
        return await self._call("task.allowed_domains")  # type: ignore[no-any-return]

    @validated("TaskSpace.finish")
    async def finish(self, *, keep: Literal["all"] | list[str]) -> dict[str, Any]:
        """End the task: close the agent Pages not kept and delete the ledger. With keep=[] and no unmanaged tab
        left the whole space closes; otherwise it stays listed and becomes user-owned."""
        return await self._call("task.finish", keep=keep)  # type: ignore[no-any-return]

    @validated("TaskSpace.set_viewport")
    async def set_viewport(self, width: int, height: int) -> None:
        """Viewport size in CSS px of this space's pages (open and future; default 1280x720). Lasts as long as
        the host."""
        await self._call("task.set_viewport", width=width, height=height)

    @validated("TaskSpace.set_status")
    async def set_status(self, text: str) -> None:
        """Set the user-visible progress text (list_task_spaces() reports it as status)."""
        await self._call("task.set_status", text=text)

    @validated("TaskSpace.journal")
    async def journal(self, *, rounds: list[Any] | None = None) -> dict[str, Any]:
        """What the space did, round by round: each round's script and outcome, each action's target (as given
        and as resolved: role, name, the stable locator computed when it ran), value, URLs before and after
        and what it caused. Read-only; task.learn distils tools from it."""
        return await self._call("task.journal", rounds=rounds)  # type: ignore[no-any-return]

    @validated("TaskSpace.export_trace")
    async def export_trace(
        self, path: str | os.PathLike[str], *, format: Literal["zip", "playwright"] = "zip",
        rounds: list[Any] | None = None, video: bool = False,
    ) -> dict[str, Any]:
        """Write the space's trace: zip (index.html opens offline: rounds -> actions with their targets, values,
        URLs, pictures before and after, requests, dialogs, popups, downloads, errors and timings) or
        playwright (a Python script that replays the actions with stable locators and checks the last URL)."""
        return await self._call(  # type: ignore[no-any-return]
            "task.export_trace", path=path, format=format, rounds=rounds, video=video,
        )

    @validated("TaskSpace.record_video")
    async def record_video(self, path: str | os.PathLike[str], *, rounds: list[Any] | None = None) -> dict[str, Any]:
        """Write what the space did as a WebM video that plays in Chromium: the picture after each action,
        captioned with its round, action, target and value (or error). Made with Debian's ffmpeg."""
        return await self._call("task.record_video", path=path, rounds=rounds)  # type: ignore[no-any-return]

    @validated("TaskSpace.cdp")
    async def cdp(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30000) -> dict[str, Any]:
        """A raw browser-level CDP command (Target.* and Browser.* only), scoped to this space's tabs and browser
        context; returns the result."""
        return await self._call(  # type: ignore[no-any-return]
            "task.cdp", method=method, params=params, timeout=timeout,
        )

    @validated("TaskSpace.stop_har")
    async def stop_har(self) -> str | None:
        """Stop the space's HAR recording and write the file; its path (None if none was recording).
        HarUnwritable if the file cannot be written (a previous file stays) or if attached bodies found no
        room (the HAR is written, their entries say so in content.comment)."""
        return await self._call("task.stop_har")  # type: ignore[no-any-return]

    @validated("TaskSpace.emulate")
    async def emulate(
        self, *, offline: bool | None = None, network: str | None = None, extra_headers: dict[str, str] | None = None,
        user_agent: str | None = None, geolocation: dict[str, Any] | None = None, locale: str | None = None,
        timezone: str | None = None, device: str | None = None,
    ) -> dict[str, Any]:
        """Emulate for every page of the space, now and the pages it opens later; what is not given (None) stays
        as set before. Returns the space's settings."""
        return await self._call(  # type: ignore[no-any-return]
            "task.emulate", offline=offline, network=network, extra_headers=extra_headers, user_agent=user_agent,
            geolocation=geolocation, locale=locale, timezone=timezone, device=device,
        )

    @validated("TaskSpace.set_offline")
    async def set_offline(self, offline: bool) -> None:
        """Take every page of the space offline (True) or back online (False); as emulate(offline=...)."""
        await self._call("task.set_offline", offline=offline)


class Page(PageBase["Download", "FileChooser"]):
    """A tab with a durable label (p1, p2, ...). Get it from task.page(label), task.new_page() or a receipt."""

    @property
    def mouse(self) -> Mouse:
        """Trusted mouse input in viewport CSS px. Position and held buttons last one process (start (0, 0));
        events carry keyboard.down modifiers."""
        return self._part("mouse", Mouse)

    @property
    def keyboard(self) -> Keyboard:
        """Trusted keyboard input. Key names follow Playwright ("a", "Enter", "Shift+Tab", "ControlOrMeta+A",
        "KeyA", "Numpad1"); named keys ignore case. An unknown key raises InvalidArgument with a hint."""
        return self._part("keyboard", Keyboard)

    @validated("Page.url")
    async def url(self) -> str:
        """The current URL (does not activate the tab)."""
        return await self._call("page.url")  # type: ignore[no-any-return]

    @validated("Page.title")
    async def title(self) -> str:
        """The document title (does not activate the tab)."""
        return await self._call("page.title")  # type: ignore[no-any-return]

    @validated("Page.info")
    async def info(self) -> dict[str, Any]:
        """Viewport size, scroll offsets and document size in CSS px. While a JS dialog is open: {"dialog":
        {...}} only."""
        return await self._call("page.info")  # type: ignore[no-any-return]

    @validated("Page.snapshot")
    async def snapshot(
        self, *, scope: Literal["only_within_viewport", "full_page", "subtree"] = "only_within_viewport",
        root: str | None = None, include_action_marks: bool = True, locators: bool = False,
        include_stable_locator: bool | None = None, max_length: int | None = None, interactive: bool = False,
        changes: bool = False, grep: str | None = None, to_file: bool = False,
    ) -> str:
        """The page as compact text: a header, one node per line with its state and value, refs on nodes to act
        on (help('snapshot') explains the notation)."""
        return await self._call(  # type: ignore[no-any-return]
            "page.snapshot", scope=scope, root=root, include_action_marks=include_action_marks, locators=locators,
            include_stable_locator=include_stable_locator, max_length=max_length, interactive=interactive,
            changes=changes, grep=grep, to_file=to_file,
        )

    @validated("Page.locator_of")
    async def locator_of(self, ref: str) -> str | None:
        """A stable locator such as 'loc=css:#email' or 'loc=href:/terms' for the element a snapshot ref (or any
        selector naming one element) points at: one that names only that element on the page now, for code
        reused in a later round or on a fresh load. None when no such locator exists (then use text= or CSS)."""
        return await self._call("page.locator_of", ref=ref)  # type: ignore[no-any-return]

    @validated("Page.find")
    async def find(self, selector: str, *, limit: int = 100) -> list[dict[str, Any]]:
        """Every match in match order, each with a ref usable in later actions. Not strict, no waiting, no action
        checks: cheap counting and targeting without a snapshot. State as the snapshot prints it: value (live;
        None where the element has none, "***" for a filled password), checked (True, False, "mixed" or None),
        disabled, expanded (None where it does not apply), selected."""
        return await self._call("page.find", selector=selector, limit=limit)  # type: ignore[no-any-return]

    @validated("Page.count")
    async def count(self, selector: str) -> int:
        """How many elements match now: not strict, no waiting, no refs (cheaper than len(find())); frames count
        only when the top document has no match, as for actions. Locator.count() calls it."""
        return await self._call("page.count", selector=selector)  # type: ignore[no-any-return]

    @validated("Page.goto")
    async def goto(
        self, url: str, *, referer: str | None = None, timeout: float = 15000,
        wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load",
        on_beforeunload: Literal["raise", "accept"] = "raise", note: str | None = None,
    ) -> ActionReceipt:
        """Navigate and wait for wait_until (of the page it went to, if a script sends it on before: as
        Playwright's goto). A page with unsaved edits may ask to confirm leaving (beforeunload): goto raises
        NavigationBlocked with the dialog open (accept_dialog() leaves, dismiss_dialog() stays) unless
        on_beforeunload="accept"."""
        return ActionReceipt.from_wire(await self._call(
            "page.goto", url=url, referer=referer, timeout=timeout, wait_until=wait_until,
            on_beforeunload=on_beforeunload, note=note,
        ))

    @validated("Page.reload")
    async def reload(
        self, *, timeout: float = 15000,
        wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load",
        on_beforeunload: Literal["raise", "accept"] = "raise", note: str | None = None,
    ) -> ActionReceipt:
        """Reload: same tab and label, fresh document (beforeunload as goto)."""
        return ActionReceipt.from_wire(await self._call(
            "page.reload", timeout=timeout, wait_until=wait_until, on_beforeunload=on_beforeunload, note=note,
        ))

    @validated("Page.wait_for_load_state")
    async def wait_for_load_state(
        self, state: Literal["domcontentloaded", "load", "networkidle"] = "load", *, timeout: float = 10000,
        idle_ms: float = 500,
    ) -> None:
        """Wait for a load state (returns at once if already reached)."""
        await self._call("page.wait_for_load_state", state=state, timeout=timeout, idle_ms=idle_ms)

    @validated("Page.wait_for_selector")
    async def wait_for_selector(
        self, selector: str, *, state: Literal["attached", "detached", "visible", "hidden"] = "visible",
        timeout: float = 10000, strict: bool = False,
    ) -> bool:
        """Wait for the selector to reach the state. As Playwright, not strict: several matches are fine and the
        state is the first match's (strict=True to insist on one). For a page still drawing or fetching,
        wait_for_settled() first."""
        return await self._call(  # type: ignore[no-any-return]
            "page.wait_for_selector", selector=selector, state=state, timeout=timeout, strict=strict,
        )

    @validated("Page.wait_for_settled")
    async def wait_for_settled(self, *, quiet_ms: float = 500, timeout: float = 10000) -> dict[str, Any]:
        """Wait until the page is loaded and its DOM and network have been quiet for quiet_ms (at most timeout).
        Single-page apps draw after load and redraw after server round trips with no navigation: call it after
        goto or an action that fetches, before snapshot() or a read, instead of sleeping and looking again.
        Never raises on timeout: settled is False and busy says what was still going on (a live page may never
        settle; requests open for more than 5 s do not count, nor a fetch whose answer came and that has
        received nothing for quiet_ms although the page never read its body)."""
        return await self._call(  # type: ignore[no-any-return]
            "page.wait_for_settled", quiet_ms=quiet_ms, timeout=timeout,
        )

    @validated("Page.click")
    async def click(
        self, selector: str, *, button: Literal["left", "middle", "right"] = "left", click_count: int = 1,
        delay: float = 0, position: dict[str, float] | None = None, force: bool = False, timeout: float = 3000,
        label: str | None = None, no_wait_after: bool = False, note: str | None = None,
    ) -> ActionReceipt:
        """Trusted click after the checks: visible, non-zero size, enabled, hit target. Popups it opens are
        adopted (receipt.popups); a JS dialog comes back in receipt.dialog. A navigation it starts (link, form
        submit, location=) is waited for until the new document commits (receipt.navigation); then
        wait_for_load_state() for more."""
        return ActionReceipt.from_wire(await self._call(
            "page.click", selector=selector, button=button, click_count=click_count, delay=delay, position=position,
            force=force, timeout=timeout, label=label, no_wait_after=no_wait_after, note=note,
        ))

    @validated("Page.dblclick")
    async def dblclick(
        self, selector: str, *, button: Literal["left", "middle", "right"] = "left", delay: float = 0,
        position: dict[str, float] | None = None, force: bool = False, timeout: float = 3000,
        label: str | None = None, no_wait_after: bool = False, note: str | None = None,
    ) -> ActionReceipt:
        """As click, with click_count=2."""
        return ActionReceipt.from_wire(await self._call(
            "page.dblclick", selector=selector, button=button, delay=delay, position=position, force=force,
            timeout=timeout, label=label, no_wait_after=no_wait_after, note=note,
        ))

    @validated("Page.hover")
    async def hover(
        self, selector: str, *, position: dict[str, float] | None = None, force: bool = False, timeout: float = 3000,
        label: str | None = None, note: str | None = None,
    ) -> ActionReceipt:
        """Move the mouse over the element (visible, size, hit target; disabled is fine)."""
        return ActionReceipt.from_wire(await self._call(
            "page.hover", selector=selector, position=position, force=force, timeout=timeout, label=label, note=note,
        ))

    @validated("Page.drag_and_drop")
    async def drag_and_drop(
        self, source: str, target: str, *, button: Literal["left", "middle", "right"] = "left",
        source_position: dict[str, float] | None = None, target_position: dict[str, float] | None = None,
        force: bool = False, timeout: float = 3000, label: str | None = None, note: str | None = None,
    ) -> ActionReceipt:
        """Press on source, move to target, release (trusted mouse input)."""
        return ActionReceipt.from_wire(await self._call(
            "page.drag_and_drop", source=source, target=target, button=button, source_position=source_position,
            target_position=target_position, force=force, timeout=timeout, label=label, note=note,
        ))

    @validated("Page.check")
    async def check(
        self, selector: str, *, position: dict[str, float] | None = None, force: bool = False, timeout: float = 3000,
        label: str | None = None, note: str | None = None,
    ) -> ActionReceipt:
        """Check a checkbox or radio button (or the control of a label): nothing happens if it is checked
        already; else a click (with click's checks), after which it must be checked. Not a checkbox or radio:
        NotActionable (reason not_checkable) at once."""
        return ActionReceipt.from_wire(await self._call(
            "page.check", selector=selector, position=position, force=force, timeout=timeout, label=label, note=note,
        ))

    @validated("Page.uncheck")
    async def uncheck(
        self, selector: str, *, position: dict[str, float] | None = None, force: bool = False, timeout: float = 3000,
        label: str | None = None, note: str | None = None,
    ) -> ActionReceipt:
        """Uncheck a checkbox (nothing happens if it is unchecked). A radio button cannot be unchecked
        (NotActionable, reason radio): check another of its group."""
        return ActionReceipt.from_wire(await self._call(
            "page.uncheck", selector=selector, position=position, force=force, timeout=timeout, label=label,
            note=note,
        ))

    @validated("Page.set_checked")
    async def set_checked(
        self, selector: str, checked: bool, *, position: dict[str, float] | None = None, force: bool = False,
        timeout: float = 3000, label: str | None = None, note: str | None = None,
    ) -> ActionReceipt:
        """check() when checked is True, else uncheck()."""
        return ActionReceipt.from_wire(await self._call(
            "page.set_checked", selector=selector, checked=checked, position=position, force=force, timeout=timeout,
            label=label, note=note,
        ))

    @validated("Page.is_checked")
    async def is_checked(self, selector: str, *, timeout: float = 3000) -> bool:
        """Whether the checkbox or radio button (or a label's control) is checked. Strict; waits for a match; not
        a checkbox or radio: NotActionable."""
        return await self._call("page.is_checked", selector=selector, timeout=timeout)  # type: ignore[no-any-return]

    @validated("Page.is_enabled")
    async def is_enabled(self, selector: str, *, timeout: float = 3000) -> bool:
        """Whether the element is enabled (not disabled natively, by a disabled fieldset, or by aria-disabled).
        Strict; waits for a match."""
        return await self._call("page.is_enabled", selector=selector, timeout=timeout)  # type: ignore[no-any-return]

    @validated("Page.is_visible")
    async def is_visible(self, selector: str) -> bool:
        """Whether the element is visible now (a non-empty box, not visibility:hidden). No waiting: no match is
        False. Strict."""
        return await self._call("page.is_visible", selector=selector)  # type: ignore[no-any-return]

    @validated("Page.input_value")
    async def input_value(self, selector: str, *, timeout: float = 3000) -> str:
        """The value of an input, textarea or select (or a label's control). Strict; waits for a match."""
        return await self._call("page.input_value", selector=selector, timeout=timeout)  # type: ignore[no-any-return]

    @validated("Page.text_content")
    async def text_content(self, selector: str, *, timeout: float = 3000) -> str | None:
        """The element's textContent (hidden text included). Strict; waits for a match."""
        return await self._call("page.text_content", selector=selector, timeout=timeout)  # type: ignore[no-any-return]

    @validated("Page.inner_text")
    async def inner_text(self, selector: str, *, timeout: float = 3000) -> str:
        """The element's rendered text (innerText). Strict; waits for a match."""
        return await self._call("page.inner_text", selector=selector, timeout=timeout)  # type: ignore[no-any-return]

    @validated("Page.get_attribute")
    async def get_attribute(self, selector: str, name: str, *, timeout: float = 3000) -> str | None:
        """The value of the element's attribute name, or None. Strict; waits for a match."""
        return await self._call(  # type: ignore[no-any-return]
            "page.get_attribute", selector=selector, name=name, timeout=timeout,
        )

    @validated("Page.fill")
    async def fill(
        self, selector: str, value: str | dict[str, str], *, clear_first: bool = True, timeout: float = 3000,
        note: str | None = None,
    ) -> ActionReceipt:
        """Replace (or with clear_first=False append to) the text of a field, editing host or a wrapper's single
        field with one native insertion; the value is read back."""
        return ActionReceipt.from_wire(await self._call(
            "page.fill", selector=selector, value=value, clear_first=clear_first, timeout=timeout, note=note,
        ))

    @validated("Page.select_option")
    async def select_option(
        self, selector: str, value: Any, *, timeout: float = 3000, note: str | None = None,
    ) -> list[str]:
        """Select options of a <select> (fires input and change); returns the selected values."""
        return await self._call(  # type: ignore[no-any-return]
            "page.select_option", selector=selector, value=value, timeout=timeout, note=note,
        )

    @validated("Page.focus")
    async def focus(self, selector: str, *, timeout: float = 3000, note: str | None = None) -> ActionReceipt:
        """Focus the element, its nearest focusable ancestor or its single editable descendant."""
        return ActionReceipt.from_wire(await self._call("page.focus", selector=selector, timeout=timeout, note=note))

    @validated("Page.press")
    async def press(
        self, selector: str, key: str, *, delay: float = 0, timeout: float = 3000, no_wait_after: bool = False,
        note: str | None = None,
    ) -> ActionReceipt:
        """Focus as focus(), then keyboard.press(key); a navigation it starts is waited for as in click."""
        return ActionReceipt.from_wire(await self._call(
            "page.press", selector=selector, key=key, delay=delay, timeout=timeout, no_wait_after=no_wait_after,
            note=note,
        ))

    @validated("Page.accept_dialog")
    async def accept_dialog(self, prompt_text: str | None = None) -> bool:
        """Accept the open JS dialog; False if none was open. Stales every ref of the Page."""
        return await self._call("page.accept_dialog", prompt_text=prompt_text)  # type: ignore[no-any-return]

    @validated("Page.dismiss_dialog")
    async def dismiss_dialog(self) -> bool:
        """Dismiss the open JS dialog; False if none was open."""
        return await self._call("page.dismiss_dialog")  # type: ignore[no-any-return]

    @validated("Page.webmcp_tools")
    async def webmcp_tools(self) -> dict[str, Any]:
        """The tools the page registers for agents through WebMCP (navigator.modelContext); [] when it registers
        none."""
        return await self._call("page.webmcp_tools")  # type: ignore[no-any-return]

    @validated("Page.call_webmcp_tool")
    async def call_webmcp_tool(
        self, name: str, args: dict[str, Any] | None = None, *, timeout: float = 30000,
    ) -> dict[str, Any]:
        """Run one of the page's WebMCP tools and return what it answered: result as the tool returned it, text
        its text content joined, data that text parsed when it is JSON."""
        return await self._call(  # type: ignore[no-any-return]
            "page.call_webmcp_tool", name=name, args=args, timeout=timeout,
        )

    @validated("Page.cdp")
    async def cdp(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30000) -> dict[str, Any]:
        """A raw CDP command on the Page's session; afterwards every ref is stale. Scoped to this tab: methods
        that reach other tabs or the whole browser are refused (CdpMethodRefused)."""
        return await self._call(  # type: ignore[no-any-return]
            "page.cdp", method=method, params=params, timeout=timeout,
        )

    @validated("Page.close")
    async def close(self) -> None:
        """Close the tab (confirmed gone), opening an unmanaged about:blank tab if it was the space's last; the
        label is retired."""
        await self._call("page.close")


class Mouse(MouseBase):
    """Trusted mouse input in viewport CSS px. Position and held buttons last one process (start (0, 0)); events
    carry keyboard.down modifiers."""

    @validated("Page.mouse.click")
    async def click(
        self, x: float, y: float, *, button: Literal["left", "middle", "right"] = "left", click_count: int = 1,
        delay: float = 0, label: str | None = None, no_wait_after: bool = False, note: str | None = None,
    ) -> ActionReceipt:
        """Move to (x, y), press and release; a navigation it starts is waited for until it commits."""
        return ActionReceipt.from_wire(await self._call(
            "mouse.click", x=x, y=y, button=button, click_count=click_count, delay=delay, label=label,
            no_wait_after=no_wait_after, note=note,
        ))

    @validated("Page.mouse.move")
    async def move(
        self, x: float, y: float, *, steps: int = 1, label: str | None = None, note: str | None = None,
    ) -> None:
        """Move the pointer from its current position in steps."""
        await self._call("mouse.move", x=x, y=y, steps=steps, label=label, note=note)

    @validated("Page.mouse.down")
    async def down(self, *, button: Literal["left", "middle", "right"] = "left", click_count: int = 1) -> None:
        """Press a button at the current position."""
        await self._call("mouse.down", button=button, click_count=click_count)

    @validated("Page.mouse.up")
    async def up(self, *, button: Literal["left", "middle", "right"] = "left", click_count: int = 1) -> None:
        """Release a button at the current position."""
        await self._call("mouse.up", button=button, click_count=click_count)

    @validated("Page.mouse.wheel")
    async def wheel(self, delta_x: float, delta_y: float, *, label: str | None = None, note: str | None = None) -> None:
        """Scroll with a wheel event at the current position (move over the scroll container first in each
        process)."""
        await self._call("mouse.wheel", delta_x=delta_x, delta_y=delta_y, label=label, note=note)


class Keyboard(KeyboardBase):
    """Trusted keyboard input. Key names follow Playwright ("a", "Enter", "Shift+Tab", "ControlOrMeta+A", "KeyA",
    "Numpad1"); named keys ignore case. An unknown key raises InvalidArgument with a hint."""

    @validated("Page.keyboard.down")
    async def down(self, key: str) -> None:
        """Hold a key down (it modifies later presses and mouse events)."""
        await self._call("keyboard.down", key=key)

    @validated("Page.keyboard.up")
    async def up(self, key: str) -> None:
        """Release a held key."""
        await self._call("keyboard.up", key=key)

    @validated("Page.keyboard.press")
    async def press(
        self, key: str, *, delay: float = 0, no_wait_after: bool = False, note: str | None = None,
    ) -> ActionReceipt:
        """Key down, then up after delay ms; a navigation it starts (Enter in a form) is waited for until it
        commits."""
        return ActionReceipt.from_wire(await self._call(
            "keyboard.press", key=key, delay=delay, no_wait_after=no_wait_after, note=note,
        ))

    @validated("Page.keyboard.type")
    async def type(self, text: str | dict[str, str], *, delay: float = 0, note: str | None = None) -> None:
        """One trusted keydown/keyup per character on the US layout (\\n is Enter, \\t is Tab); other characters
        are inserted as text."""
        await self._call("keyboard.type", text=text, delay=delay, note=note)

    @validated("Page.keyboard.insert_text")
    async def insert_text(self, text: str | dict[str, str]) -> None:
        """One native text insertion with no key events."""
        await self._call("keyboard.insert_text", text=text)

    @validated("Page.keyboard.paste")
    async def paste(self, content: str | dict[str, str | None]) -> ActionReceipt:
        """Paste through the clipboard with the platform shortcut (the clipboard is restored)."""
        return ActionReceipt.from_wire(await self._call("keyboard.paste", content=content))


class FileChooser(FileChooserBase["Page"]):
    """A native file chooser the page opened, intercepted (no system dialog): from wait_for_file_chooser() or
    expect_file_chooser()."""


class Download(DownloadBase["Page"]):
    """A download started by a Page, from wait_for_event("download"); its temp folder
    ($TMPDIR/ego-browser-download-*) is removed at process exit."""

    @validated("Download.path")
    async def path(self) -> str:
        """Wait for completion; the temp file of this process."""
        return await self._call("download.path")  # type: ignore[no-any-return]

    @validated("Download.failure")
    async def failure(self) -> str | None:
        """None, or why it failed ("canceled", "download did not start", ...)."""
        return await self._call("download.failure")  # type: ignore[no-any-return]

    @validated("Download.cancel")
    async def cancel(self) -> None:
        """Cancel the download if it is still running."""
        await self._call("download.cancel")
