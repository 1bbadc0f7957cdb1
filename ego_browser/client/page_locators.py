"""``page.locator`` and ``get_by_*`` on ``Page``: Playwright's locator builders.

They return a :class:`~.locator.Locator`: the selector string they build (``role=``, ``text=``,
``label=``, CSS, from ``ego_browser/selectors/locators.py``) bound to this Page, so
``page.get_by_role("button", name="Save").click()`` works, and so does passing it to any action
(``page.click(page.get_by_role(...))``), printing it, or ``+ " >> role=button"``. Building one
never touches the page (no host call, no waiting).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..schema import validated

if TYPE_CHECKING:
    from .locator import Locator

__all__ = ["LocatorsMixin"]


def _bind(page: Any, selector: str) -> Locator:
    from .locator import Locator

    return Locator(page, selector)


class LocatorsMixin:
    @validated("Page.locator")
    def locator(self, selector: str, *, has_text: Any = None, has_not_text: Any = None, has: Any = None,
                has_not: Any = None) -> Locator:
        from .locator import compose

        return _bind(self, compose(self, None, selector, has_text=has_text, has_not_text=has_not_text, has=has,
                                   has_not=has_not, api="page.locator"))

    @validated("Page.get_by_role")
    def get_by_role(self, role: str, *, name: Any = None, exact: bool = False, checked: bool | None = None,
                    disabled: bool | None = None, expanded: bool | None = None, level: int | None = None,
                    pressed: bool | None = None, selected: bool | None = None) -> Locator:
        from ..selectors.locators import by_role

        return _bind(self, by_role(role, name=name, exact=exact, checked=checked, disabled=disabled,
                                   expanded=expanded, level=level, pressed=pressed, selected=selected))

    @validated("Page.get_by_text")
    def get_by_text(self, text: Any, *, exact: bool = False) -> Locator:
        from ..selectors.locators import by_text

        return _bind(self, by_text(text, exact=exact))

    @validated("Page.get_by_label")
    def get_by_label(self, text: Any, *, exact: bool = False) -> Locator:
        from ..selectors.locators import by_label

        return _bind(self, by_label(text, exact=exact))

    @validated("Page.get_by_placeholder")
    def get_by_placeholder(self, text: str, *, exact: bool = False) -> Locator:
        from ..selectors.locators import by_placeholder

        return _bind(self, by_placeholder(text, exact=exact))

    @validated("Page.get_by_test_id")
    def get_by_test_id(self, test_id: str) -> Locator:
        from ..selectors.locators import by_test_id

        return _bind(self, by_test_id(test_id))

    @validated("Page.get_by_title")
    def get_by_title(self, text: str, *, exact: bool = False) -> Locator:
        from ..selectors.locators import by_title

        return _bind(self, by_title(text, exact=exact))

    @validated("Page.get_by_alt_text")
    def get_by_alt_text(self, text: str, *, exact: bool = False) -> Locator:
        from ..selectors.locators import by_alt_text

        return _bind(self, by_alt_text(text, exact=exact))
