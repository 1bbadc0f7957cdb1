"""What an element action works with: the candidate elements (:class:`ElementHandle`, as
``driver/locate.py`` hands them over) and the action's :class:`ActionContext`.

Coordinates: the helpers in ``js/utility/actionability.js`` work in the element's frame
viewport; the handle's ``frame_offset`` (top-left of that frame's viewport in the top-level
viewport) turns them into the top-level coordinates that ``Input.dispatchMouseEvent`` on the top
page session expects.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Union

from ..cdp.connection import Session
from .keyboard import Keyboard
from .mouse import Mouse

__all__ = ["ElementHandle", "ActionContext", "Transient", "Resolve", "Offset"]

Offset = Union[tuple[float, float], Callable[[], Awaitable[tuple[float, float]]]]


@dataclass(slots=True)  # slots: what the pipeline records about a candidate must be a field here
class ElementHandle:
    """One candidate element, as the host's resolver hands it over.

    ``session``: the session of the element's frame (the page session, or the OOPIF's own
    session). ``context_id``: the isolated utility world in that frame. ``object_id``: the
    element in that world. ``frame_offset``: the frame viewport's top-left in top-level
    viewport coordinates, or an async callable giving it (called after scrolling, since
    scrolling an outer document moves the frame).
    """

    session: Session
    context_id: int
    object_id: str
    frame_offset: Offset = (0.0, 0.0)
    #: the page's input gate (``PageDriver.check_input``): checked before every in-page call
    #: of an action, since some of them edit the page (values, focus, selection)
    gate: Callable[[], None] | None = None
    #: strictness tier (API.md §9): 0 for a candidate in the top document, 1 in a frame
    tier: int = 0
    # what the action pipeline learns about the candidate it picked:
    #: (selector, candidates) it was picked from, for blocker messages after the checks
    matched: tuple[str | None, int] = (None, 1)
    #: frames' candidates to try when this top-document one turns out covered
    frame_candidates: int = 0
    #: the result of the helper fused into the check call (None when it did not run)
    fused: Any = None
    #: the last in-page call was ``afterMove`` (the pointer has not moved since)
    last_call_js: bool = False
    #: ``async () -> {ref, role, name, frame}``, given by the host's resolver: an ambiguity
    #: error lists up to 5 candidates so described
    describe: Callable[[], Awaitable[dict[str, Any]]] | None = None
    #: ``describe`` for another element of the same frame (by its objectId in this world)
    describe_object: Callable[[str], Callable[[], Awaitable[dict[str, Any]]]] | None = None
    #: a ref's liveness check, sent with the handle's first in-page call instead of before it
    #: (``Locator.handle_for_ref``): raises ``StaleRef`` for a detached element
    confirm: Callable[[], Awaitable[None]] | None = None

    async def confirmed(self) -> None:
        """Wait for the pending liveness check, if any (``StaleRef`` when the ref is gone)."""
        confirm, self.confirm = self.confirm, None
        if confirm is not None:
            await confirm()

    async def offset(self) -> tuple[float, float]:
        off = self.frame_offset
        if callable(off):
            x, y = await off()
            return x, y
        return off


@dataclass
class ActionContext:
    """What an action needs from its Page.

    ``viewport``: optional ``async () -> (w, h)``
    of the top-level viewport; when missing it is read through the mouse's session.
    """

    mouse: Mouse
    keyboard: Keyboard
    selector: str
    api: str = "page.click"
    viewport: Callable[[], Awaitable[tuple[float, float]]] | None = None
    #: the top page session (optional); with it, ``flushed`` can be told
    page_session: Any = None
    #: set by an action whose last call, after its last input, was a round trip to the
    #: renderer on ``page_session`` (so every event it caused has arrived: no flush needed)
    flushed: bool = False
    #: optional ``async ()`` making the tab the front one of its window: called when the
    #: element's document reports itself hidden, before any pointer input
    bring_to_front: Callable[[], Awaitable[Any]] | None = None
    #: optional ``() -> bool``: the page has started a navigation since the action began
    #: (Chromium holds every command to the renderer from then until the new document commits)
    navigation_started: Callable[[], bool] | None = None
    #: optional ``async (future) -> bool``: waits for the future unless the page starts a
    #: navigation first (False then: Chromium may hold the answer until the new document loads)
    answered_unless_navigating: Callable[[Any], Awaitable[bool]] | None = None
    #: optional ``async (seconds) -> watch``: arms a wait for the page's next change (DOM,
    #: frames, navigation) of at most ``seconds`` before a look (``waits.ChangeWatch``:
    #: ``await watch.wait()``, ``await watch.cancel()``): an action's retry pause ends early
    #: when the page moved, also while the look ran
    arm_change: Callable[[float], Awaitable[Any]] | None = None

    def _finished_on(self, h: ElementHandle) -> None:
        self.flushed = self.page_session is not None and h.session is self.page_session


class Transient(Exception):
    """Raised by a resolver (or internally) for a blocker worth retrying: frame not ready,
    page changed, element detached… ``reason`` is a NotActionable reason or ``not_found``."""

    def __init__(self, message: str, reason: str = "not_found") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


Resolve = Callable[[], Awaitable[list[ElementHandle]]]
