"""What a learned tool's steps run on (issue 28 §5): never silently wrong.

Each step first checks that its locator still names exactly one element; when it names none
(the page changed) or several, the tool stops with :class:`LearnedStepNotFound` naming the
tool, the step, what it expected (role, name, locator) and the candidates the page has now
(compact: ``@ref role "name"``), so one repair round can fix the step. Every step keeps the
tool on its origin (:class:`LearnedToolOffOrigin`). ``done`` checks the post-condition (the
URL, the message, the heading the first run ended on) and raises
:class:`LearnedPostconditionFailed` when it does not hold: a tool never reports success on a
page that does not show it.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any
from urllib.parse import urlencode, urlsplit

from ..errors import EgoTimeout, LearnedPostconditionFailed, LearnedStepNotFound, LearnedToolOffOrigin, StaleRef

__all__ = ["Steps", "STEP_WAIT_MS"]

#: how long a step waits for its element to appear (the page may still be loading)
STEP_WAIT_MS = 5000
#: a step that fetched waits for DOM and network to be quiet this long, at most SETTLE_MS
SETTLE_QUIET_MS = 300
SETTLE_MS = 15000
#: candidates an error lists
_SHOWN = 8


#: roles where the element's name says which one was chosen: a locator that still matches one
#: element of another name (a list's first option, now another customer) would act on the wrong one
_CHOICES = {"option", "link", "button", "menuitem", "menuitemradio", "menuitemcheckbox", "tab", "radio", "checkbox",
            "treeitem", "gridcell", "row"}


def _norm(text: Any) -> str:
    # words only: the journal's name and find's may differ in icons and marks (an aria-hidden 🔍)
    return " ".join(re.findall(r"\w+", str(text or "").casefold()))


def _same_choice(found: dict[str, Any], expect: dict[str, Any]) -> bool:
    """Whether the element found is the one the run chose: for a choice (option, link, button ...)
    whose expected name is known and whose locator does not itself name it, the names agree."""
    name, role = expect.get("name"), expect.get("role")
    if not name or role not in _CHOICES or found.get("role") != role or found.get("name") is None:
        return True
    got, want = _norm(found.get("name")), _norm(name)
    return got == want or bool(got and want and (got in want or want in got))


def _unmet(seen: dict[str, Any], url: str | None, message: str | None, heading: str | None) -> list[str]:
    """What of the post-condition the page read (``learned_page_read``) does not show."""
    problems = []
    if url and not re.search(url, seen.get("url") or ""):
        problems.append(f"the URL is {seen.get('url')!r}, expected one matching {url!r}")
    if message and message.lower() not in (seen.get("message") or "").lower() and \
            " ".join(message.split()).lower() not in (seen.get("text") or "").lower():
        problems.append(f"the page does not show {message!r} (its message: {seen.get('message')!r})")
    if heading and heading.lower() != (seen.get("heading") or "").lower():
        problems.append(f"the heading is {seen.get('heading')!r}, expected {heading!r}")
    return problems


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class Steps:
    def __init__(self, page: Any, *, tool: str, origin: str) -> None:
        self.page = page
        self.tool = tool
        self.origin = origin
        #: the step running now (the error of a failed run names it)
        self.step: int | None = None
        #: the last API call's response (fetch_json)
        self.answer: dict[str, Any] | None = None
        #: the page may have left the URL last checked (a click that was not seen navigating):
        #: the next step checks the origin again (a fill or a navigation waited for leaves it False)
        self._moved = True

    # -- checks ------------------------------------------------------------------------------

    async def _on_origin(self, step: int | None) -> str:
        url: str = await self.page.url()
        self._moved = False
        if _origin(url) != self.origin:
            raise LearnedToolOffOrigin(
                f"learned tool {self.tool}: step {step} left its site: the page is on {_origin(url)}, the tool "
                f"runs only on {self.origin}", tool=self.tool, step=step, expected={"origin": self.origin},
                candidates=[])
        return url

    async def candidates(self, expect: dict[str, Any]) -> list[str]:
        """What the page offers instead, compact: elements of the expected role, else every control."""
        role = expect.get("role")
        selector = f"role={role}" if role else "button, a[href], input, select, textarea"
        try:
            found = await self.page.find(selector, limit=_SHOWN)
        except Exception:  # noqa: BLE001 - the listing is a courtesy inside an error already raised
            return []
        return [f'{f["ref"]} {f.get("role") or f.get("tag")} "{(f.get("name") or f.get("text") or "")[:60]}"'
                for f in found]

    async def _target(self, step: int, locator: str, expect: dict[str, Any]) -> str:
        self.step = step
        if self._moved:
            await self._on_origin(step)
        # one call when the element is there (the usual case); a wait only when it is not yet
        found: list[Any] = await self.page.find(locator, limit=3)
        if not found:
            try:
                await self.page.wait_for_selector(locator, state="attached", timeout=STEP_WAIT_MS)
            except EgoTimeout:
                pass
            else:
                found = await self.page.find(locator, limit=3)
        if len(found) == 1 and not _same_choice(found[0], expect):
            how = f"names {found[0].get('role')} {found[0].get('name')!r}, another one than the run chose"
        elif len(found) != 1:
            how = "matches nothing" if not found else f"matches {len(found)} elements"
        else:
            how = ""
        if how:
            cands = await self.candidates(expect)
            want = ", ".join(f"{k} {v!r}" for k, v in expect.items() if v) or repr(locator)
            raise LearnedStepNotFound(
                f"learned tool {self.tool}: step {step} expected {want} but {locator!r} {how} now; the page "
                f"offers: {'; '.join(cands) or 'nothing like it'}. Repair the step (act on a candidate in a round, "
                f"then task.learn again) or edit the tool", tool=self.tool, step=step,
                expected={"role": expect.get("role"), "name": expect.get("name"), "locator": locator},
                candidates=cands)
        # act on the element just checked, by its ref: the action does not look for it again
        # (a role+name locator costs the page an accessible name per candidate), and no other
        # element can take its place between the check and the input
        ref: str = found[0].get("ref") or locator
        return ref

    async def _act(self, step: int, locator: str, expect: dict[str, Any], act: Any) -> Any:
        """``act(target)`` on the element the step's check found; when the page drew that element
        again between the check and the action (its ref went stale: nothing was sent to it), the
        step checks once more and acts on the element found then."""
        try:
            return await act(await self._target(step, locator, expect))
        except StaleRef:
            return await act(await self._target(step, locator, expect))

    async def _after(self, step: int, wait_url: str | None, receipt: Any = None, *, may_move: bool = True,
                     settle: bool = False) -> None:
        if settle:
            # the run saw this step fetch and the page redraw without navigating: the next step
            # acts on what the redraw left (never raises: a page that does not settle goes on)
            await self.page.wait_for_settled(quiet_ms=SETTLE_QUIET_MS, timeout=SETTLE_MS)
        if wait_url:
            # the navigation the action made, as its receipt saw it committed: no second look at
            # the URL; then the document's own scripts have run (DOMContentLoaded), not its last
            # image (load): the next step waits for its element as it always does
            nav = getattr(receipt, "navigation", None) or {}
            url = nav.get("url") if nav.get("committed") else None
            if isinstance(url, str) and re.search(wait_url, url):
                await self.page.wait_for_load_state("domcontentloaded", timeout=10000)
            else:
                await self.page.wait_for_url(re.compile(wait_url), timeout=10000, wait_until="domcontentloaded")
            await self._on_origin(step)
        elif may_move:
            self._moved = True  # checked by the next step (or done) before it acts

    # -- steps ---------------------------------------------------------------------------------

    async def goto(self, step: int, url: str, *, settle: bool = False) -> None:
        self.step = step
        if _origin(url) != self.origin:
            raise LearnedToolOffOrigin(f"learned tool {self.tool}: step {step} would open {url}, off its site "
                                       f"{self.origin}", tool=self.tool, step=step,
                                       expected={"origin": self.origin}, candidates=[])
        # its scripts have run (DOMContentLoaded); the next step waits for its own element
        await self.page.goto(url, wait_until="domcontentloaded")
        if settle:  # a single-page app draws after load (chunks, then its data)
            await self.page.wait_for_settled(quiet_ms=SETTLE_QUIET_MS, timeout=SETTLE_MS)
        await self._on_origin(step)

    async def goto_query(self, step: int, base: str, query: list[tuple[str, Any]]) -> None:
        """The site's own lever: a GET form's result URL with the parameters filled in."""
        await self.goto(step, base + ("?" + urlencode([(k, str(v)) for k, v in query]) if query else ""))

    async def fetch_json(self, step: int, method: str, base: str, *, query: list[tuple[str, Any]],
                         body: Any) -> None:
        """The site's own lever: the JSON API the page called, called with ``page.fetch`` from the
        site's page (its cookies, its origin); the answer is kept for :meth:`done_api`. A call made
        after another (a single-page app's new, save, run) is made only when that one answered
        2xx: the tool stops at the call that failed, and says so."""
        prev, before = self.answer, self.step
        if prev is not None and not (isinstance(prev.get("status"), int) and 200 <= prev["status"] < 300):
            raise LearnedPostconditionFailed(
                f"learned tool {self.tool}: step {before} (a call to the site's API) answered {prev.get('status')} "
                f"({str(prev.get('body') or '')[:200]!r}), so step {step} and the rest were not made. It did NOT "
                "succeed: look at the page before trying again", tool=self.tool, step=before,
                expected={"status": "2xx"}, candidates=[])
        self.step = step
        url = base + ("?" + urlencode([(k, str(v)) for k, v in query]) if query else "")
        if _origin(url) != self.origin:
            raise LearnedToolOffOrigin(f"learned tool {self.tool}: step {step} would call {url}, off its site "
                                       f"{self.origin}", tool=self.tool, step=step,
                                       expected={"origin": self.origin}, candidates=[])
        await self._on_origin(step)
        self.answer = await self.page.fetch(
            url, method=method, body=None if body is None else json.dumps(body),
            headers={"content-type": "application/json", "accept": "application/json"} if body is not None
            else {"accept": "application/json"})

    async def fill(self, step: int, locator: str, value: Any, *, expect: dict[str, Any],
                   wait_url: str | None = None) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.fill(t, value))
        await self._after(step, wait_url, receipt, may_move=False)

    async def type(self, step: int, locator: str, value: Any, *, expect: dict[str, Any],
                   wait_url: str | None = None) -> None:
        await self.fill(step, locator, value, expect=expect, wait_url=wait_url)

    async def select_option(self, step: int, locator: str, value: Any, *, expect: dict[str, Any],
                            wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.select_option(t, value))
        await self._after(step, wait_url, receipt, may_move=False, settle=settle)

    async def click(self, step: int, locator: str, *, expect: dict[str, Any], button: str | None = None,
                    wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect,
                                  lambda t: self.page.click(t, button=button) if button else self.page.click(t))
        await self._after(step, wait_url, receipt, settle=settle)

    async def dblclick(self, step: int, locator: str, *, expect: dict[str, Any], button: str | None = None,
                       wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect,
                                  lambda t: self.page.dblclick(t, button=button) if button else self.page.dblclick(t))
        await self._after(step, wait_url, receipt, settle=settle)

    async def hover(self, step: int, locator: str, *, expect: dict[str, Any],
                    wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.hover(t))
        await self._after(step, wait_url, receipt, settle=settle)

    async def press(self, step: int, locator: str, key: str, *, expect: dict[str, Any],
                    wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.press(t, key))
        await self._after(step, wait_url, receipt, settle=settle)

    async def check(self, step: int, locator: str, *, expect: dict[str, Any],
                    wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.check(t))
        await self._after(step, wait_url, receipt, settle=settle)

    async def uncheck(self, step: int, locator: str, *, expect: dict[str, Any],
                      wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.uncheck(t))
        await self._after(step, wait_url, receipt, settle=settle)

    async def set_input_files(self, step: int, locator: str, files: Any, *, expect: dict[str, Any],
                              wait_url: str | None = None) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.set_input_files(t, files))
        await self._after(step, wait_url, receipt, may_move=False)

    async def set_checked(self, step: int, locator: str, checked: bool, *, expect: dict[str, Any],
                          wait_url: str | None = None, settle: bool = False) -> None:
        receipt = await self._act(step, locator, expect, lambda t: self.page.set_checked(t, checked))
        await self._after(step, wait_url, receipt, settle=settle)

    async def key_type(self, step: int, text: Any) -> None:
        """Keyboard input where the focus is (the previous step put it there)."""
        self.step = step
        await self._on_origin(step)
        await self.page.keyboard.type(text)

    async def key_insert_text(self, step: int, text: Any) -> None:
        self.step = step
        await self._on_origin(step)
        await self.page.keyboard.insert_text(text)

    async def key_press(self, step: int, key: str, *, wait_url: str | None = None, settle: bool = False) -> None:
        self.step = step
        await self._on_origin(step)
        receipt = await self.page.keyboard.press(key)
        await self._after(step, wait_url, receipt, settle=settle)

    async def wait(self, step: int, locator: str, *, state: str = "visible", expect: dict[str, Any]) -> None:
        self.step = step
        try:
            await self.page.wait_for_selector(locator, state=state, timeout=10000)
        except EgoTimeout:
            # what the step waited for never came: the step's own error, with what the page has
            cands = await self.candidates(expect)
            raise LearnedStepNotFound(
                f"learned tool {self.tool}: step {step} waited for {locator!r} ({state}) and the page never showed "
                f"it; the page offers: {'; '.join(cands) or 'nothing like it'}. Repair the step or edit the tool",
                tool=self.tool, step=step, expected={"role": expect.get("role"), "name": expect.get("name"),
                                                     "locator": locator}, candidates=cands) from None

    # -- the post-condition ----------------------------------------------------------------------

    async def read(self) -> dict[str, Any]:
        """What the page shows now: its heading, its status message, its URL."""
        from .. import jsbundle

        seen: dict[str, Any] = await self.page.evaluate(jsbundle.function("main", "learned_page_read"))
        return seen

    async def done_api(self, *, status: int | str = "2xx") -> dict[str, Any]:
        """The post-condition of an API call: the status the first run got (any 2xx when it was not
        seen); the tool's result carries the answer's JSON (its text when it is not JSON)."""
        self.step = None
        res = self.answer or {}
        got = res.get("status")
        ok = isinstance(got, int) and (got == status if isinstance(status, int) else 200 <= got < 300)
        text = res.get("body") or ""
        try:
            answer: Any = json.loads(text)
        except ValueError:
            answer = text[:2000]
        if not ok:
            raise LearnedPostconditionFailed(
                f"learned tool {self.tool}: its post-condition does not hold: the API answered {got} "
                f"({str(text)[:200]!r}), expected {status}. It did NOT succeed: look at the page before trying "
                "again", tool=self.tool, step=None, expected={"status": status}, candidates=[])
        return {"ok": True, "tool": self.tool, "status": got, "answer": answer}

    async def done(self, *, url: str | None = None, message: str | None = None,
                   heading: str | None = None, element: str | None = None) -> dict[str, Any]:
        """Check the post-condition; the tool's result (with what it read off the page) when it holds.
        ``element``: a locator of what the page shows once the task is done when no navigation,
        message or heading says so (a single-page app's redrawn list: the renamed file's row)."""
        self.step = None
        await self._on_origin(None)
        problems: list[str] = []
        if element:
            try:  # the redraw may still be on its way: a bounded wait, never a guess
                await self.page.wait_for_selector(element, state="visible", timeout=STEP_WAIT_MS)
            except EgoTimeout:
                problems.append(f"the page shows nothing matching {element!r}")
        # a single-page app shows its result a while after the step's answer, with no navigation:
        # the post-condition is read again until it holds or STEP_WAIT_MS have passed
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STEP_WAIT_MS / 1000
        while True:
            seen = await self.read()
            failed = _unmet(seen, url, message, heading)
            if not failed or loop.time() >= deadline:
                break
            await self.page.wait_for_timeout(250)
        problems += failed
        if problems:
            raise LearnedPostconditionFailed(
                f"learned tool {self.tool}: its post-condition does not hold: {'; '.join(problems)}. It did NOT "
                "succeed: look at the page (snapshot) before trying again", tool=self.tool, step=None,
                expected={"url": url, "message": message, "heading": heading, "element": element}, candidates=[])
        return {"ok": True, "tool": self.tool, "url": seen.get("url"),
                "read": {"heading": seen.get("heading"), "message": seen.get("message")}}
