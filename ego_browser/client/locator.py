"""``Locator``: Playwright's locator, as a selector string bound to its Page.

A Locator *is* the selector string it compiles to (a ``str`` subclass): every Page method that
takes a selector takes it unchanged, ``print(loc)`` shows the selector, and nothing new crosses
the wire. Building one (``page.locator``, ``get_by_*``, ``.locator``, ``.filter``, ``.nth``,
``.first``) never touches the page; each action or read resolves it afresh, as Playwright's do.

Strictness is Playwright's because the Page's is: actions and reads on a Locator matching two
or more elements raise ``SelectorAmbiguous``; ``count``, ``all``, ``nth``, ``first``, ``last``
are not strict. ``filter(has_text=, has_not_text=, has=, has_not=)`` compiles to the engine's
``has-text=`` / ``has-not-text=`` / ``has=`` / ``has-not=`` chain steps.

``str.count`` is replaced by Playwright's ``count()`` (the only name the two share); ``loc + "
>> ..."`` still gives a plain selector string, as the ``get_by_*`` strings always did, and
``repr()`` stays the string's (an in-process host sees the Locator itself and quotes it in its
messages exactly as it quotes the string a round sends).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Literal, cast

from ..errors import InvalidArgument, InvalidSelector

if TYPE_CHECKING:
    from .models import ActionReceipt

__all__ = ["Locator", "compose"]


def _bad(api: str, option: str, expected: str, value: Any, hint: str = "") -> InvalidArgument:
    return InvalidArgument(f"{api}: {option} must be {expected}, got {value!r}" + (f"; {hint}" if hint else ""),
                           api=api, option=option, expected=expected)


def _text_filter(engine: str, value: Any, api: str, option: str) -> str:
    """``has-text="..."i`` (substring, any case, as Playwright's filter(has_text=str)) or ``/re/flags``."""
    from ..selectors.locators import _regex

    if isinstance(value, re.Pattern):
        return f"{engine}={_regex(value)}"
    if isinstance(value, str):
        return f"{engine}={json.dumps(value, ensure_ascii=False)}i"
    raise _bad(api, option, "a str or a compiled re.Pattern", value)


def _inner(page: Any, value: Any, api: str, option: str) -> str:
    if isinstance(value, Locator):
        if value._page is not page:
            raise _bad(api, option, "a Locator of the same Page", value,
                       "build the inner locator from the same page (or from this locator)")
        return str.__str__(value)
    if isinstance(value, str) and value.strip():
        return value
    raise _bad(api, option, "a Locator (or a selector str)", value)


def _scoped(selector: str) -> bool:
    """Whether ``selector`` has a step that acts on the set found so far (nth=, and=, or=), so
    it means something else run per element than appended to a chain."""
    from ..selectors.parse import RefSelector, parse_selector

    try:
        parsed = parse_selector(selector)
    except InvalidSelector:  # it fails where it is used, with its own error
        return False
    if isinstance(parsed, RefSelector):
        return False
    steps = parsed.steps or (parsed,)
    return parsed.nth is not None or any(s.kind == "nth" or (s.kind == "filter" and s.text in ("and", "or"))
                                         for s in steps)


def compose(page: Any, base: str | None, selector: Any = None, *, has_text: Any = None, has_not_text: Any = None,
            has: Any = None, has_not: Any = None, visible: Any = None, api: str = "locator") -> str:
    """The selector string of ``base >> selector`` with Playwright's filter options applied."""
    parts: list[str] = [base] if base else []
    if selector is not None:
        inner = _inner(page, selector, api, "selector")
        if base and isinstance(selector, Locator) and _scoped(inner):
            # Playwright runs a Locator argument from each element (internal:chain): its nth=
            # picks per element, where "base >> inner" would pick once among them all
            inner = "chain=" + json.dumps(inner, ensure_ascii=False)
        parts.append(inner)
    if has_text is not None:
        parts.append(_text_filter("has-text", has_text, api, "has_text"))
    if has_not_text is not None:
        parts.append(_text_filter("has-not-text", has_not_text, api, "has_not_text"))
    if has is not None:
        parts.append("has=" + json.dumps(_inner(page, has, api, "has"), ensure_ascii=False))
    if has_not is not None:
        parts.append("has-not=" + json.dumps(_inner(page, has_not, api, "has_not"), ensure_ascii=False))
    if visible is not None:
        if visible is not True and visible is not False:
            raise _bad(api, "visible", "True or False", visible)
        parts.append(f"visible={'true' if visible else 'false'}")
    return " >> ".join(parts)


class Locator(str):
    """Elements of a Page found by a selector, resolved afresh on each use (Playwright's Locator)."""

    #: the generated Page (typed Any here: that module imports this one's importers)
    _page: Any

    def __new__(cls, page: Any, selector: str) -> Locator:
        self = super().__new__(cls, selector)
        self._page = page
        return self

    def __reduce__(self) -> Any:  # a plain selector string outside its round
        return (str, (str.__str__(self),))

    @property
    def page(self) -> Any:
        return self._page

    def _sel(self) -> str:
        return str.__str__(self)

    def _new(self, selector: str) -> Locator:
        return Locator(self._page, selector)

    # -- building (no page access) -----------------------------------------------------------

    def locator(self, selector: Any, *, has_text: Any = None, has_not_text: Any = None, has: Any = None,
                has_not: Any = None) -> Locator:
        """The elements ``selector`` finds inside each element of this locator."""
        return self._new(compose(self._page, self._sel(), selector, has_text=has_text, has_not_text=has_not_text,
                                 has=has, has_not=has_not, api="locator.locator"))

    def filter(self, *, has_text: Any = None, has_not_text: Any = None, has: Any = None, has_not: Any = None,
               visible: Any = None) -> Locator:
        """Keep the elements whose text contains has_text (any case; or matches a re.Pattern),
        that hold a match of has, and not those of has_not_text / has_not."""
        return self._new(compose(self._page, self._sel(), has_text=has_text, has_not_text=has_not_text, has=has,
                                 has_not=has_not, visible=visible, api="locator.filter"))

    def and_(self, locator: Any) -> Locator:
        """The elements that match this locator and also ``locator``."""
        inner = _inner(self._page, locator, "locator.and_", "locator")
        return self._new(f"{self._sel()} >> and={json.dumps(inner, ensure_ascii=False)}")

    def or_(self, locator: Any) -> Locator:
        """The elements that match this locator or ``locator`` (in document order)."""
        inner = _inner(self._page, locator, "locator.or_", "locator")
        return self._new(f"{self._sel()} >> or={json.dumps(inner, ensure_ascii=False)}")

    def nth(self, index: int) -> Locator:
        """The index-th match (0-based; -1 the last); not strict."""
        if not isinstance(index, int) or isinstance(index, bool) or index < -1:
            raise _bad("locator.nth", "index", "an int >= 0 (or -1 for the last)", index)
        return self._new(f"{self._sel()} >> nth={index}")

    @property
    def first(self) -> Locator:
        return self.nth(0)

    @property
    def last(self) -> Locator:
        return self.nth(-1)

    # the Page's builders check their arguments against the schema; the result is chained here
    def get_by_role(self, role: str, **kwargs: Any) -> Locator:
        return self.locator(self._page.get_by_role(role, **kwargs))

    def get_by_text(self, text: Any, **kwargs: Any) -> Locator:
        return self.locator(self._page.get_by_text(text, **kwargs))

    def get_by_label(self, text: Any, **kwargs: Any) -> Locator:
        return self.locator(self._page.get_by_label(text, **kwargs))

    def get_by_placeholder(self, text: Any, **kwargs: Any) -> Locator:
        return self.locator(self._page.get_by_placeholder(text, **kwargs))

    def get_by_test_id(self, test_id: Any) -> Locator:
        return self.locator(self._page.get_by_test_id(test_id))

    def get_by_title(self, text: Any, **kwargs: Any) -> Locator:
        return self.locator(self._page.get_by_title(text, **kwargs))

    def get_by_alt_text(self, text: Any, **kwargs: Any) -> Locator:
        return self.locator(self._page.get_by_alt_text(text, **kwargs))

    # -- many elements (not strict) ----------------------------------------------------------

    async def count(self) -> int:  # type: ignore[override]  # Playwright's count(), not str.count
        """How many elements match now (no waiting)."""
        return cast("int", await self._page.count(self._sel()))

    async def all(self) -> list[Locator]:
        """One locator per current match (``nth(i)``); no waiting."""
        return [self.nth(i) for i in range(await self.count())]

    async def all_text_contents(self) -> list[str]:
        return [(await loc.text_content()) or "" for loc in await self.all()]

    async def all_inner_texts(self) -> list[str]:
        return [await loc.inner_text() for loc in await self.all()]

    # -- one element (strict): the Page's own actions and reads ------------------------------

    async def click(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.click(self._sel(), **kwargs))

    async def dblclick(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.dblclick(self._sel(), **kwargs))

    async def hover(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.hover(self._sel(), **kwargs))

    async def fill(self, value: str, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.fill(self._sel(), value, **kwargs))

    async def clear(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.fill(self._sel(), "", **kwargs))

    async def press(self, key: str, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.press(self._sel(), key, **kwargs))

    async def press_sequentially(self, text: str, *, delay: float = 0, timeout: float = 3000) -> None:
        """Focus the element, then one trusted key press per character (keyboard.type)."""
        if not isinstance(text, str):
            raise _bad("locator.press_sequentially", "text", "a str", text)
        await self._page.focus(self._sel(), timeout=timeout)
        await self._page.keyboard.type(text, delay=delay)

    async def type(self, text: str, *, delay: float = 0, timeout: float = 3000) -> None:
        """As press_sequentially (Playwright's older name)."""
        await self.press_sequentially(text, delay=delay, timeout=timeout)

    async def check(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.check(self._sel(), **kwargs))

    async def uncheck(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.uncheck(self._sel(), **kwargs))

    async def set_checked(self, checked: bool, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.set_checked(self._sel(), checked, **kwargs))

    async def select_option(self, value: Any, **kwargs: Any) -> list[str]:
        return cast("list[str]", await self._page.select_option(self._sel(), value, **kwargs))

    async def focus(self, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.focus(self._sel(), **kwargs))

    async def set_input_files(self, files: Any, **kwargs: Any) -> ActionReceipt:
        return cast("ActionReceipt", await self._page.set_input_files(self._sel(), files, **kwargs))

    async def drag_to(self, target: Any, **kwargs: Any) -> ActionReceipt:
        target_sel = _inner(self._page, target, "locator.drag_to", "target")
        return cast("ActionReceipt", await self._page.drag_and_drop(self._sel(), target_sel, **kwargs))

    async def inner_text(self, **kwargs: Any) -> str:
        return cast("str", await self._page.inner_text(self._sel(), **kwargs))

    async def text_content(self, **kwargs: Any) -> str | None:
        return cast("str | None", await self._page.text_content(self._sel(), **kwargs))

    async def input_value(self, **kwargs: Any) -> str:
        return cast("str", await self._page.input_value(self._sel(), **kwargs))

    async def get_attribute(self, name: str, **kwargs: Any) -> str | None:
        return cast("str | None", await self._page.get_attribute(self._sel(), name, **kwargs))

    async def is_visible(self) -> bool:
        return cast("bool", await self._page.is_visible(self._sel()))

    async def is_hidden(self) -> bool:
        return not await self.is_visible()

    async def is_enabled(self, **kwargs: Any) -> bool:
        return cast("bool", await self._page.is_enabled(self._sel(), **kwargs))

    async def is_disabled(self, **kwargs: Any) -> bool:
        return not await self.is_enabled(**kwargs)

    async def is_checked(self, **kwargs: Any) -> bool:
        return cast("bool", await self._page.is_checked(self._sel(), **kwargs))

    async def wait_for(self, *, state: Literal["attached", "detached", "visible", "hidden"] = "visible", timeout: float = 10000) -> None:
        """Wait until the (strict) locator is attached, detached, visible or hidden."""
        await self._page.wait_for_selector(self._sel(), state=state, timeout=timeout)

    async def snapshot(self, **kwargs: Any) -> str:
        """The snapshot of this element's subtree (page.snapshot(scope="subtree", root=...))."""
        return cast("str", await self._page.snapshot(scope="subtree", root=self._sel(), **kwargs))
