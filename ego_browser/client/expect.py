"""``expect(locator | page)``: the entry point of Playwright's web-first assertions.

A round finds ``expect`` preloaded, so this module stays light: the assertions themselves
(``client/assertions.py``) load on the first call.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgument
from ..schema import validated

__all__ = ["expect"]


@validated("expect")
def expect(actual: Any, message: str | None = None) -> Any:
    """Web-first assertions on a Locator (``expect(page.get_by_role(...)).to_be_visible()``) or a
    Page (``expect(page).to_have_url(...)``), retried until they hold (timeout= ms, default 5000)."""
    from .assertions import LocatorAssertions, PageAssertions
    from .locator import Locator
    from .page import PageBase

    if isinstance(actual, Locator):
        return LocatorAssertions(actual, message=message)
    if isinstance(actual, PageBase):
        return PageAssertions(actual, message=message)
    hint = (f"; wrap a selector string in page.locator({actual!r})" if isinstance(actual, str)
            else "; pass page.locator(selector), a page.get_by_*() result or a Page")
    raise InvalidArgument(f"expect: actual must be a Locator or a Page, got {type(actual).__name__} {actual!r:.60}"
                          + hint, api="expect", option="actual", expected="Locator | Page")
