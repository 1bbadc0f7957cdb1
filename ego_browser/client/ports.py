"""What the hand-written bases need from the layer above them, as small Protocols.

The client package is layered: ``channel`` at the bottom, then the hand-written bases
(``page``, ``page_nav``, ``taskspace``, ``files``, ``input``), then the classes generated from
the declarations (``_generated``), and ``round`` on top, which makes the generated objects.
A base never imports the generated classes or the round: it names what it needs of them here,
and is generic in the classes it hands out (``TaskSpaceBase[Page]``), which the generated module
binds (``class TaskSpace(TaskSpaceBase["Page"])``), so a type checker still sees ``task.page()``
return a ``Page``.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from .channel import Channel

__all__ = ["PageT", "DownloadT", "ChooserT", "PageCalls", "SpaceRound", "PageRound"]

#: the classes the bases hand out (bound by the generated subclasses)
PageT = TypeVar("PageT")
DownloadT = TypeVar("DownloadT")
ChooserT = TypeVar("ChooserT")
# the same in the Protocols, where what is only handed out is covariant
_PageT_co = TypeVar("_PageT_co", covariant=True)
_DownloadT_co = TypeVar("_DownloadT_co", covariant=True)
_ChooserT_co = TypeVar("_ChooserT_co", covariant=True)


class PageCalls(Protocol):
    """What a ``FileChooser`` or ``Download`` needs of the page it came from."""

    _channel: Channel

    @property
    def label(self) -> str: ...

    async def _call(self, op: str, **args: Any) -> Any: ...


class SpaceRound(Protocol[_PageT_co]):
    """What a ``TaskSpace`` needs of its round: the channel, its token and the round's one Page per tab."""

    channel: Channel
    token: str  # the journal files task calls (a status note) under their round
    touched: set[tuple[int, str]]
    used_spaces: set[int]
    #: route id -> (its Page or TaskSpace, its pattern, the task serving its handler: client/routes.py)
    route_tasks: dict[int, Any]

    def page_for(self, space_id: int, info: dict[str, Any]) -> _PageT_co: ...


class PageRound(SpaceRound[PageT], Protocol[PageT, _DownloadT_co, _ChooserT_co]):
    """What a ``Page`` needs of its round: its input token, and the objects its waiters resolve to."""

    #: the page calls of this round, kept only for ``ego-browser --json`` (else None)
    calls: list[dict[str, Any]] | None

    def touch(self, page: PageT) -> None: ...

    def download(self, page: PageT, info: dict[str, Any]) -> _DownloadT_co: ...

    def file_chooser(self, page: PageT, info: dict[str, Any]) -> _ChooserT_co: ...
