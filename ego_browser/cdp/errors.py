"""The browser's error replies, mapped once into types.

Chromium answers a failed command with ``{"code", "message", "data"}``; the message is the
only thing that says *why* (a document went away, a node is gone, the session closed), and
its wording is an implementation detail of Chromium. So it is read here, in one table, and
nowhere else: the protocol core (``cdp/protocol.py``) builds the subclass of
:class:`~ego_browser.errors.CdpError` that the reply means, and callers write
``except ContextDestroyed`` instead of matching text.

Every class keeps the wire code ``EGO_CDP_ERROR`` and the documented fields (``method``,
``cdp_code``, ``cdp_message``), so what a round sees does not change: the types are for the
host and the driver. ``data`` and ``session_id`` stay on the host side.

The messages below were read from a real Chromium; ``tests/integration/test_cdp_errors.py`` provokes each
situation there and fails, naming the new wording, if Chromium changes one. A message this
table does not know stays a plain ``CdpError`` (its JSON-RPC code may still say more).
"""

from __future__ import annotations

from typing import Any

from ..errors import CdpError

__all__ = [
    "CdpError",
    "ContextDestroyed",
    "NavigatedAway",
    "ObjectNotFound",
    "NodeNotFound",
    "NodeDetached",
    "FrameNotFound",
    "TargetClosed",
    "SessionNotFound",
    "TargetNotFound",
    "NoDialog",
    "InvalidUrl",
    "InvalidReferrer",
    "ScriptTerminated",
    "CdpInternalError",
    "MethodNotFound",
    "InvalidParams",
    "error_type",
    "error_type_in",
    "from_reply",
]


class ContextDestroyed(CdpError):
    """The JavaScript execution context the command named or ran in is gone: its document was
    replaced or its frame removed. Resolve the world again (a new document has a new one)."""


class NavigatedAway(ContextDestroyed):
    """A command still waiting (``awaitPromise``) when its document was replaced or closed."""


class ObjectNotFound(CdpError):
    """A remote object id that was released (its object group, or the object itself)."""


class NodeNotFound(CdpError):
    """A DOM node id (``nodeId``/``backendNodeId``) the document no longer has."""


class NodeDetached(CdpError):
    """The node exists but is not in the document, or has no layout (nothing to measure)."""


class FrameNotFound(CdpError):
    """A frame id the page no longer has (the frame was removed or its document replaced)."""


class TargetClosed(CdpError):
    """The tab, worker or frame process the command was for is gone."""


class SessionNotFound(TargetClosed):
    """The flat session was detached (its target closed or swapped process)."""


class TargetNotFound(TargetClosed):
    """A target id the browser does not know (closed already)."""


class NoDialog(CdpError):
    """``Page.handleJavaScriptDialog`` with no dialog showing (it closed by itself first)."""


class InvalidUrl(CdpError):
    """``Page.navigate`` refused the URL before any request was made."""


class InvalidReferrer(InvalidUrl):
    """``Page.navigate`` refused the referrer."""


class ScriptTerminated(CdpError):
    """V8 stopped the script (its ``timeout`` elapsed, or ``Runtime.terminateExecution``)."""


class CdpInternalError(CdpError):
    """JSON-RPC -32603: the browser failed inside the command (V8 interrupted, usually)."""


class MethodNotFound(CdpError):
    """JSON-RPC -32601: no such method (a typo, or a domain this browser does not have)."""


class InvalidParams(CdpError):
    """JSON-RPC -32602 with no more specific meaning: the parameters did not deserialize."""


#: Chromium's exact messages (as of the probe). Exact lookup for replies; a substring scan
#: for text that quotes them (a script's exception description).
MESSAGES: dict[str, type[CdpError]] = {
    "Cannot find context with specified id": ContextDestroyed,
    "Cannot find default execution context": ContextDestroyed,
    "Execution context was destroyed.": ContextDestroyed,
    "Execution context with given id not found.": ContextDestroyed,
    "uniqueContextId not found": ContextDestroyed,
    "Inspected target navigated or closed": NavigatedAway,
    "Could not find object with given id": ObjectNotFound,
    "No node with given id found": NodeNotFound,
    "No node found for given backend id": NodeNotFound,
    "Could not find node with given id": NodeNotFound,
    # resolveNode into a context of another document: the node is not in this one any more
    "Node with given id does not belong to the document": NodeNotFound,
    "Node is detached from document": NodeDetached,
    "Could not compute box model.": NodeDetached,
    "No frame for given id found": FrameNotFound,
    "No frame with given id found": FrameNotFound,
    "Frame with the given id was not found.": FrameNotFound,
    "Session with given id not found.": SessionNotFound,
    "No target with given id found": TargetNotFound,
    "Not attached to an active page": TargetClosed,
    "Target closed": TargetClosed,
    "No dialog is showing": NoDialog,
    "Cannot navigate to invalid URL": InvalidUrl,
    "Invalid referrer": InvalidReferrer,
    "Execution was terminated": ScriptTerminated,
    "Internal error": CdpInternalError,
}

#: what the JSON-RPC code alone says, when the message is not in the table
CODES: dict[int, type[CdpError]] = {
    -32001: SessionNotFound,
    -32601: MethodNotFound,
    -32602: InvalidParams,
    -32603: CdpInternalError,
}


def error_type(message: str | None, code: int | None = None) -> type[CdpError]:
    """The class an error reply with this ``message`` (and JSON-RPC ``code``) means."""
    found = MESSAGES.get(message) if message else None
    if found is None and code is not None:
        found = CODES.get(code)
    return found or CdpError


def error_type_in(text: str) -> type[CdpError]:
    """The class of the first known message quoted in ``text`` (a script's exception
    description repeats the browser's words), or ``CdpError``. Ignores case."""
    low = text.lower()
    for message, cls in _QUOTED:
        if message in low:
            return cls
    return CdpError


# quoted text may differ in case or lose the final full stop
_QUOTED = tuple((message.lower().rstrip("."), cls) for message, cls in MESSAGES.items())


def from_reply(method: str, session_id: str | None, error: Any) -> CdpError:
    """The typed error for one error reply (``error`` as the browser sent it)."""
    if not isinstance(error, dict):
        error = {"message": str(error)}
    message = error.get("message")
    code = error.get("code")
    data = error.get("data")
    text = message if isinstance(message, str) else "CDP error"
    cls = error_type(message if isinstance(message, str) else None, code if isinstance(code, int) else None)
    return cls(
        f"{method}: {text}" + (f" ({data})" if data else ""),
        method=method,
        cdp_code=code,
        cdp_message=message,
        data=data,
        session_id=session_id,
    )
