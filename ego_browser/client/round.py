"""``Round``: what one round knows about its host, in one object instead of module globals.

A round is one run of an agent script (a ``ego-browser`` process, or one
``embedded()`` block): its channel to the host, its input token (mouse position and held
keys are the round's own on the host), the one ``Page`` object per tab it handed out, the
pages it touched and the spaces it used (the runner's end-of-round report skips what the
round touched), and the page it used last (``learn_context()`` defaults to its URL).

Each channel carries its round (``current_round()``); the runner reads the report from it.
The round is the top of the client package: it makes the generated objects, which reach it
back only through the Protocols of ``ports`` (``PageRound``, ``SpaceRound``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from ._generated import Download, FileChooser, Page, TaskSpace
from .channel import Channel, current_channel, peek_channel

__all__ = ["Round", "current_round", "last_page"]


class Round:
    def __init__(self, channel: Channel, token: str | None = None) -> None:
        self.channel = channel
        self.token = token if token is not None else f"{os.getpid()}-{time.time_ns()}"
        #: (space id, label) of every page this round used or asked for by name
        self.touched: set[tuple[int, str]] = set()
        #: spaces this round opened or claimed
        self.used_spaces: set[int] = set()
        self.last_page: Page | None = None
        self._pages: dict[tuple[int, str], Page] = {}
        self.calls: list[dict[str, Any]] | None = [] if os.environ.get("EGO_BROWSER_ROUND_REPORT") else None
        #: the round's handler routes (``client/routes.py``): removed when the round ends
        self.route_tasks: dict[int, Any] = {}

    def touch(self, page: Page) -> None:
        self.last_page = page
        self.touched.add((page.space_id, page.label))

    def page_for(self, space_id: int, info: dict[str, Any]) -> Page:
        """The one Page object of this round for a tab's label (updated from ``info``)."""
        key = (space_id, info["label"])
        page = self._pages.get(key)
        if page is None:
            page = self._pages[key] = Page(self, space_id, info["label"], info.get("target_id"),
                                           info.get("opened_by"))
        else:
            page._learn(info)
        return page

    def task_space(self, info: dict[str, Any]) -> TaskSpace:
        return TaskSpace(self, info)

    def download(self, page: Page, info: dict[str, Any]) -> Download:
        return Download(page, info)

    def file_chooser(self, page: Page, info: dict[str, Any]) -> FileChooser:
        return FileChooser(page, info)


def current_round() -> Round:
    """The round of the current channel (created with it)."""
    channel = current_channel()
    found = channel.round
    if not isinstance(found, Round):
        found = channel.round = Round(channel)
    return found


def last_page() -> Page | None:
    """The page the current round used last, if a round exists (creates nothing)."""
    found = getattr(peek_channel(), "round", None)
    return found.last_page if isinstance(found, Round) else None
