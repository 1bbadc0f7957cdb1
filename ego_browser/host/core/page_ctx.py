"""``PageCtx``: one page of one space, as a request that passed the ownership gate holds it.

It lives below ``core`` (which makes it, ``Host.page_ctx``) so that the modules given one
(the ledgers, the page site) need not import the ``Host``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...driver.page import PageDriver
from .store import PageRow, SpaceRow

__all__ = ["PageCtx"]


@dataclass
class PageCtx:
    space: SpaceRow
    page: PageRow
    driver: PageDriver
