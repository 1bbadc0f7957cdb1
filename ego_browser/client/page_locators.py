"""``get_by_*`` on ``Page``: Playwright's locator builders, returning selector strings.

They are plain strings (no host call, no waiting): pass them to any action, print them, or chain
them with ``>>`` (``page.get_by_role("row", name="Tea") + " >> role=button"``). The strings are
public selector forms (``role=``, ``text=``, ``label=``, CSS), built in
``ego_browser/selectors/locators.py``.
"""

from __future__ import annotations

from typing import Any

from ..schema import validated

__all__ = ["LocatorsMixin"]


class LocatorsMixin:
    @validated("Page.get_by_role")
    def get_by_role(self, role: str, *, name: Any = None, exact: bool = False, checked: bool | None = None,
                    disabled: bool | None = None, expanded: bool | None = None, level: int | None = None,
                    pressed: bool | None = None, selected: bool | None = None) -> str:
        from ..selectors.locators import by_role

        return by_role(role, name=name, exact=exact, checked=checked, disabled=disabled, expanded=expanded,
                       level=level, pressed=pressed, selected=selected)

    @validated("Page.get_by_text")
    def get_by_text(self, text: Any, *, exact: bool = False) -> str:
        from ..selectors.locators import by_text

        return by_text(text, exact=exact)

    @validated("Page.get_by_label")
    def get_by_label(self, text: Any, *, exact: bool = False) -> str:
        from ..selectors.locators import by_label

        return by_label(text, exact=exact)

    @validated("Page.get_by_placeholder")
    def get_by_placeholder(self, text: str, *, exact: bool = False) -> str:
        from ..selectors.locators import by_placeholder

        return by_placeholder(text, exact=exact)

    @validated("Page.get_by_test_id")
    def get_by_test_id(self, test_id: str) -> str:
        from ..selectors.locators import by_test_id

        return by_test_id(test_id)
