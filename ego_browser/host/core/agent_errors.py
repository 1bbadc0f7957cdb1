"""A browser refusal an operation lets through, told in the agent's words (issue 31).

"Runtime.evaluate: Inspected target navigated or closed" names an internal CDP method the
agent never called and says nothing about what to do. Raw CDP (``page.cdp``, ``task.cdp``)
keeps the browser's own words: there the agent named the method. The class, the code
(``EGO_CDP_ERROR``) and the ``method``/``cdp_message`` fields stay as they were.
"""

from __future__ import annotations

from ...cdp.errors import ContextDestroyed, FrameNotFound, NodeDetached, NodeNotFound, ObjectNotFound, TargetClosed
from ...errors import CdpError

__all__ = ["in_agent_words"]

#: operations whose errors are the browser's own words (the agent named the method)
_RAW = frozenset({"page.cdp", "task.cdp"})

_WORDS: tuple[tuple[type[CdpError], str], ...] = (
    (ContextDestroyed, "the page navigated, reloaded or closed while {api} ran, so it did not complete; wait for "
                       "the new document (page.wait_for_load_state()) and run it again"),
    (ObjectNotFound, "{api} used a value of a document that is gone (the page navigated, or a ref is stale); take a "
                     "new snapshot and run it again"),
    (NodeNotFound, "the element {api} worked on left the page while it ran; take a new snapshot and run it again"),
    (NodeDetached, "the element {api} worked on left the page while it ran; take a new snapshot and run it again"),
    (FrameNotFound, "the frame {api} worked in went away while it ran; take a new snapshot and run it again"),
    (TargetClosed, "the page closed while {api} ran; see task.pages() for the pages still open"),
)


def in_agent_words(op: str, exc: CdpError) -> CdpError | None:
    """The same error with a message saying what happened and what to do, or None."""
    if op in _RAW:
        return None
    for kind, words in _WORDS:
        if isinstance(exc, kind):
            better = type(exc)(words.format(api=op), **exc.attrs())
            better.data, better.session_id = exc.data, exc.session_id
            return better
    return None
