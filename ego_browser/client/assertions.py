"""What ``expect()`` returns: Playwright's web-first assertions, retried until they hold or time out.

``await expect(locator).to_have_text("Done")`` reads the element again and again (back-off
0.1, 0.25, 0.5, then 1 s, as Playwright's) until the text is right or ``timeout`` ms (default
5000) have passed; then it raises :class:`~ego_browser.errors.AssertionFailed` (an
``AssertionError`` and an ``EgoError``, code ``EGO_ASSERTION_FAILED``) saying what was expected
and what the page last showed. Visibility waits on the page itself (``wait_for_selector``).
``.not_`` turns each into its negation. A Locator matching several elements raises
``SelectorAmbiguous`` at once, as Playwright's strict assertions do (``to_have_count`` and the
list forms of ``to_have_text`` / ``to_contain_text`` are not strict).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import AssertionFailed, EgoTimeout, InvalidArgument, SelectorNotFound
from .locator import Locator

__all__ = ["LocatorAssertions", "PageAssertions", "DEFAULT_TIMEOUT"]

#: Playwright's default for expect()
DEFAULT_TIMEOUT = 5000.0
_BACKOFF = (0.1, 0.25, 0.5, 1.0)
_MISSING: Any = object()  # no element matched (yet)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _expected_text(api: str, value: Any, *, allow_list: bool) -> None:
    ok = isinstance(value, (str, re.Pattern)) or (
        allow_list and isinstance(value, list) and all(isinstance(v, (str, re.Pattern)) for v in value))
    if not ok:
        want = "a str, a re.Pattern" + (" or a list of these" if allow_list else "")
        raise InvalidArgument(f"{api}: expected must be {want}, got {value!r}", api=api, option="expected",
                              expected=want)


def _text_matches(expected: str | re.Pattern[str], actual: str, *, contain: bool, ignore_case: bool) -> bool:
    actual = _norm(actual)
    if isinstance(expected, re.Pattern):
        flags = expected.flags | (re.IGNORECASE if ignore_case else 0)
        return re.search(expected.pattern, actual, flags) is not None
    want = _norm(expected)
    if ignore_case:
        want, actual = want.lower(), actual.lower()
    return want in actual if contain else want == actual


def _show(value: Any) -> str:
    if value is _MISSING:
        return "no element matched"
    if isinstance(value, re.Pattern):
        return f"re.compile({value.pattern!r})"
    return repr(value)


class _Assertions:
    def __init__(self, subject: Any, *, is_not: bool = False, message: str | None = None) -> None:
        self._subject = subject
        self._is_not = is_not
        self._message = message

    def _describe(self) -> str:
        raise NotImplementedError

    def _timeout(self, api: str, timeout: Any) -> float:
        if timeout is None:
            return DEFAULT_TIMEOUT
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < 2**31:
            raise InvalidArgument(f"{api}: timeout must be a positive number of milliseconds, got {timeout!r}",
                                  api=api, option="timeout", expected="ms > 0")
        return float(timeout)

    def _fail(self, name: str, expected: Any, actual: Any, timeout: float) -> AssertionFailed:
        neg = "not_." if self._is_not else ""
        head = f"{self._message}: " if self._message else ""
        expected_text = ("not " if self._is_not else "") + _show(expected)
        return AssertionFailed(
            f"{head}expect({self._describe()}).{neg}{name} failed after {timeout:g} ms: expected {expected_text}, "
            f"actual {_show(actual)} (the assertion retried until timeout=; pass a longer timeout= if the page is "
            "slow, or check the selector with page.find())",
            assertion=f"{neg}{name}", expected=_plain(expected), actual=None if actual is _MISSING else _plain(actual),
        )

    async def _retry(self, name: str, expected: Any, probe: Callable[[float], Awaitable[Any]],
                     ok: Callable[[Any], bool], timeout: float, *, missing_ok: bool = False) -> None:
        """Probe until ``ok(actual) != is_not`` (a missing element never passes, as in Playwright,
        unless ``missing_ok``), or raise AssertionFailed at the deadline."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout / 1000
        step = 0
        while True:
            remaining_ms = max((deadline - loop.time()) * 1000, 1.0)
            try:
                actual = await probe(remaining_ms)
            except (SelectorNotFound, EgoTimeout):
                actual = _MISSING
            if actual is _MISSING:
                if missing_ok:
                    return
            elif ok(actual) != self._is_not:
                return
            left = deadline - loop.time()
            if left <= 0:
                raise self._fail(name, expected, actual, timeout)
            await asyncio.sleep(min(_BACKOFF[min(step, len(_BACKOFF) - 1)], left))
            step += 1


def _plain(value: Any) -> Any:
    """A JSON-able form of a value for the error's attributes."""
    if isinstance(value, re.Pattern):
        return f"/{value.pattern}/"
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class LocatorAssertions(_Assertions):
    """``expect(locator)``: each method retries until the locator's element(s) satisfy it."""

    _subject: Locator

    def _describe(self) -> str:
        return f"locator({str.__repr__(self._subject)})"

    @property
    def not_(self) -> LocatorAssertions:
        return LocatorAssertions(self._subject, is_not=not self._is_not, message=self._message)

    async def to_be_visible(self, *, visible: bool = True, timeout: float | None = None) -> None:
        ms = self._timeout("expect.to_be_visible", timeout)
        want_visible = bool(visible) != self._is_not
        try:
            await self._subject._page.wait_for_selector(str.__str__(self._subject),
                                                        state="visible" if want_visible else "hidden", timeout=ms)
        except EgoTimeout:
            count = await self._subject.count()
            actual = _MISSING if not count else ("visible" if await self._subject.is_visible() else "hidden")
            raise self._fail("to_be_visible" if visible else "to_be_hidden", "visible" if visible else "hidden",
                             actual, ms) from None

    async def to_be_hidden(self, *, timeout: float | None = None) -> None:
        await self.to_be_visible(visible=False, timeout=timeout)

    async def to_have_text(self, expected: Any, *, use_inner_text: bool = False, ignore_case: bool = False,
                           timeout: float | None = None) -> None:
        await self._text("to_have_text", expected, contain=False, use_inner_text=use_inner_text,
                         ignore_case=ignore_case, timeout=timeout)

    async def to_contain_text(self, expected: Any, *, use_inner_text: bool = False, ignore_case: bool = False,
                              timeout: float | None = None) -> None:
        await self._text("to_contain_text", expected, contain=True, use_inner_text=use_inner_text,
                         ignore_case=ignore_case, timeout=timeout)

    async def _text(self, name: str, expected: Any, *, contain: bool, use_inner_text: bool, ignore_case: bool,
                    timeout: float | None) -> None:
        _expected_text(f"expect.{name}", expected, allow_list=True)
        ms = self._timeout(f"expect.{name}", timeout)
        loc = self._subject
        if isinstance(expected, list):
            async def texts(_ms: float) -> list[str]:
                return await (loc.all_inner_texts() if use_inner_text else loc.all_text_contents())

            def ok_list(actual: list[str]) -> bool:
                if not contain:
                    return len(actual) == len(expected) and all(
                        _text_matches(e, a, contain=False, ignore_case=ignore_case) for e, a in zip(expected, actual))
                it = iter(actual)  # each expected in order, in some element
                return all(any(_text_matches(e, a, contain=True, ignore_case=ignore_case) for a in it)
                           for e in expected)

            await self._retry(name, expected, texts, ok_list, ms)
            return

        async def text(probe_ms: float) -> str:
            if use_inner_text:
                return await loc.inner_text(timeout=probe_ms)
            return (await loc.text_content(timeout=probe_ms)) or ""

        await self._retry(name, expected, text,
                          lambda actual: _text_matches(expected, actual, contain=contain, ignore_case=ignore_case), ms)

    async def to_have_value(self, value: Any, *, timeout: float | None = None) -> None:
        _expected_text("expect.to_have_value", value, allow_list=False)
        ms = self._timeout("expect.to_have_value", timeout)

        def ok(actual: str) -> bool:
            return (re.search(value, actual) is not None) if isinstance(value, re.Pattern) else actual == value

        await self._retry("to_have_value", value, lambda t: self._subject.input_value(timeout=t), ok, ms)

    async def to_be_checked(self, *, checked: bool = True, timeout: float | None = None) -> None:
        ms = self._timeout("expect.to_be_checked", timeout)
        await self._retry("to_be_checked", "checked" if checked else "unchecked",
                          lambda t: self._subject.is_checked(timeout=t), lambda actual: actual == bool(checked), ms)

    async def to_be_enabled(self, *, enabled: bool = True, timeout: float | None = None) -> None:
        ms = self._timeout("expect.to_be_enabled", timeout)
        await self._retry("to_be_enabled", "enabled" if enabled else "disabled",
                          lambda t: self._subject.is_enabled(timeout=t), lambda actual: actual == bool(enabled), ms)

    async def to_be_disabled(self, *, timeout: float | None = None) -> None:
        await self.to_be_enabled(enabled=False, timeout=timeout)

    async def to_have_attribute(self, name: str, value: Any, *, timeout: float | None = None) -> None:
        _expected_text("expect.to_have_attribute", value, allow_list=False)
        ms = self._timeout("expect.to_have_attribute", timeout)

        def ok(actual: str | None) -> bool:
            if actual is None:
                return False
            return (re.search(value, actual) is not None) if isinstance(value, re.Pattern) else actual == value

        await self._retry("to_have_attribute", value, lambda t: self._subject.get_attribute(name, timeout=t), ok, ms)

    async def to_have_count(self, count: int, *, timeout: float | None = None) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InvalidArgument(f"expect.to_have_count: count must be an int >= 0, got {count!r}",
                                  api="expect.to_have_count", option="count", expected="int >= 0")
        ms = self._timeout("expect.to_have_count", timeout)

        async def probe(_ms: float) -> int:
            return await self._subject.count()

        await self._retry("to_have_count", count, probe, lambda actual: actual == count, ms)


class PageAssertions(_Assertions):
    """``expect(page)``: the page's URL and title, retried."""

    def _describe(self) -> str:
        return f"page {getattr(self._subject, 'label', '?')}"

    @property
    def not_(self) -> PageAssertions:
        return PageAssertions(self._subject, is_not=not self._is_not, message=self._message)

    async def to_have_url(self, url: Any, *, ignore_case: bool = False, timeout: float | None = None) -> None:
        await self._page_value("to_have_url", url, self._subject.url, ignore_case, timeout, normalize=False)

    async def to_have_title(self, title: Any, *, timeout: float | None = None) -> None:
        await self._page_value("to_have_title", title, self._subject.title, False, timeout, normalize=True)

    async def _page_value(self, name: str, expected: Any, read: Callable[[], Awaitable[str]], ignore_case: bool,
                          timeout: float | None, *, normalize: bool) -> None:
        _expected_text(f"expect.{name}", expected, allow_list=False)
        ms = self._timeout(f"expect.{name}", timeout)

        def ok(actual: str) -> bool:
            if isinstance(expected, re.Pattern):
                return re.search(expected.pattern, actual, expected.flags | (re.I if ignore_case else 0)) is not None
            a, e = (_norm(actual), _norm(expected)) if normalize else (actual, expected)
            return a.lower() == e.lower() if ignore_case else a == e

        async def probe(_ms: float) -> str:
            return await read()

        await self._retry(name, expected, probe, ok, ms)
