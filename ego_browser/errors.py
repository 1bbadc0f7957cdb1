"""The one error tree of ego_browser.

Every error an agent can meet derives from :class:`EgoError` and carries a stable ``code``
(``EGO_*``) plus the attributes it needs to decide what to do next::

    EgoError
    ├── PageGone          the page is gone: open or pick another (reload a crashed one)
    │   └── PageNotFound / PageClosed / PageReleased / PageCrashed
    ├── TargetError       the element named is wrong: look again, name it anew
    │   └── SelectorNotFound / SelectorAmbiguous / StaleRef / UnknownRef / NotActionable
    ├── HeldByPerson      the person holds the space or must say yes: wait for them
    │   └── TaskSpaceUserInControl / ConsentRequired
    ├── TimedOut (also TimeoutError)   time ran out: look before repeating
    │   ├── EgoTimeout                           EGO_TIMEOUT
    │   │   ├── NavigationTimeout                EGO_NAVIGATION_TIMEOUT
    │   │   └── PageEvaluationTimeout            EGO_PAGE_EVALUATION_TIMED_OUT
    │   └── HostUnresponsive (also HostDisconnected)   EGO_HOST_UNRESPONSIVE
    ├── BrowserFailed     the browser failed the call: retry once it is back
    │   └── CdpError / CdpChannelUnavailable / BrowserUnavailable / BrowserLost
    ├── InvalidArgument (also ValueError)        EGO_INVALID_ARGUMENT
    ├── InvalidState                             EGO_INVALID_STATE
    ├── TaskSpaceNotFound / ProfileNotFound / PageBudgetReached
    ├── InvalidSelector / SnapshotFailed
    ├── NavigationFailed / UrlOpenedInPopup / FileChooserOpened / PageScriptError
    ├── NavigationBlocked                        EGO_NAVIGATION_BLOCKED (a beforeunload dialog stopped goto)
    ├── FetchFailed / DownloadFailed / HarUnwritable / BodyUnavailable / BodyTooLarge
    ├── InvalidRoutePattern (also ValueError)    EGO_INVALID_ROUTE_PATTERN
    ├── TraceUnwritable / VideoUnavailable       EGO_TRACE_UNWRITABLE / EGO_VIDEO_UNAVAILABLE
    ├── CdpMethodRefused                         raw CDP out of the caller's scope
    ├── HostDisconnected                         EGO_TASK_HOST_DISCONNECTED
    ├── HostOverloaded                           EGO_HOST_OVERLOADED (admission limit: retry later)
    ├── StateStoreUnwritable / MissingAwait      EGO_STATE_STORE_UNWRITABLE / EGO_MISSING_AWAIT
    ├── SiteNotFound / SiteToolNotFound / SitePackInvalid
    ├── LearnFailed / LearnedToolFailed / LearnedPackUntrusted   learned site tools (docs/learning.md)
    ├── SecretNotFound / NavigationNotAllowed    secrets, allowlists
    ├── ConsentRefused                           EGO_CONSENT_REFUSED (the person said no)
    └── AssertionFailed (also AssertionError)    EGO_ASSERTION_FAILED (expect())

The five intent classes (``PageGone``, ``TargetError``, ``HeldByPerson``, ``TimedOut``,
``BrowserFailed``) group the errors by what the caller can do next; they are never raised
themselves, and every class keeps its own code. ``except ego_browser.TargetError`` catches
a stale ref, a selector with no match or several, and an element that cannot take input.

Errors cross the host socket as ``{"code", "message", "attrs"}`` and are rebuilt on the
other side with :func:`from_wire`, so a round sees exactly the class the host raised.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every round imports this module, typing costs ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, ClassVar

from .errors_base import EgoError, _all_classes, from_wire, to_wire  # noqa: F401 - _all_classes: the tree, for docs tests
from .errors_learned import (
    LearnedPackUntrusted, LearnedPostconditionFailed, LearnedStepNotFound, LearnedToolFailed, LearnedToolInvalid,
    LearnedToolOffOrigin, LearnFailed, LearnJournalEmpty, LearnNameTaken, LearnRoundFailed, LearnUnknownParam,
    LearnVerifyFailed, WebMcpBadArguments, WebMcpToolFailed, WebMcpToolNotFound,
)

__all__ = [
    "EgoError", "PageGone", "TargetError", "HeldByPerson", "TimedOut", "BrowserFailed", "InvalidArgument", "InvalidState", "TaskSpaceNotFound", "ProfileNotFound",
    "TaskSpaceUserInControl", "PageBudgetReached", "PageNotFound", "PageClosed", "PageReleased", "PageCrashed",
    "StaleRef", "UnknownRef", "InvalidSelector", "SelectorAmbiguous", "SelectorNotFound", "NotActionable",
    "SnapshotFailed", "EgoTimeout", "NavigationTimeout", "PageEvaluationTimeout", "NavigationFailed",
    "NavigationBlocked", "UrlOpenedInPopup", "FileChooserOpened", "PageScriptError", "FetchFailed",
    "DownloadFailed", "BodyUnavailable", "BodyTooLarge", "InvalidRoutePattern", "HarUnwritable", "TraceUnwritable",
    "VideoUnavailable", "CdpError",
    "CDPError", "CdpMethodRefused", "CdpChannelUnavailable", "BrowserUnavailable", "BrowserLost",
    "HostDisconnected", "HostUnresponsive", "HostOverloaded", "StateStoreUnwritable", "MissingAwait", "SiteNotFound",
    "SiteToolNotFound", "SitePackInvalid", "LearnFailed", "LearnJournalEmpty", "LearnRoundFailed",
    "LearnNameTaken", "LearnUnknownParam", "LearnedToolInvalid", "LearnVerifyFailed", "LearnedToolFailed",
    "LearnedStepNotFound", "LearnedPostconditionFailed", "LearnedToolOffOrigin", "LearnedPackUntrusted",
    "WebMcpToolFailed", "WebMcpToolNotFound", "WebMcpBadArguments",
    "SecretNotFound", "NavigationNotAllowed", "ConsentRequired", "ConsentRefused", "AssertionFailed",
    "from_wire", "to_wire",
]


# -- what the caller can do: the intent classes ---------------------------------------------
# Never raised themselves (their code is the root's): every error below derives from one of
# them when the caller's next step is the same for the whole family.


class PageGone(EgoError):
    """The page (tab) is gone: closed, released, crashed or never there. Pick or open a page
    (``task.page(label)``, ``task.new_page()``); a crashed one comes back with ``reload()``."""


class TargetError(EgoError):
    """The element named is the wrong one: no match, several, a stale or unknown ref, or one
    that cannot take the input. Look again (``snapshot()``/``find()``) and name it anew."""


class HeldByPerson(EgoError):
    """The person holds the space, or must say yes first: wait for them
    (``task.wait_for_control()``), then repeat the call."""


class TimedOut(EgoError, TimeoutError):
    """Time ran out before the call was done (also a ``TimeoutError``). Look at the page before
    repeating it: what it had started may still land."""


class BrowserFailed(EgoError):
    """The browser failed the call: it refused a command, its connection dropped, it could not
    be reached, or it went away. The page or the space is worth a retry once it is back."""


class InvalidArgument(EgoError, ValueError):
    code = "EGO_INVALID_ARGUMENT"
    fields = ("api", "option", "expected")
    api: str | None
    option: str | None
    expected: str | None


class InvalidState(EgoError):
    code = "EGO_INVALID_STATE"
    fields = ("api",)
    api: str | None


class TaskSpaceNotFound(EgoError):
    code = "EGO_TASK_SPACE_NOT_FOUND"
    fields = ("space",)
    space: int | str | None


class ProfileNotFound(EgoError):
    code = "EGO_PROFILE_NOT_FOUND"
    fields = ("profile_id",)
    profile_id: str | None


class TaskSpaceUserInControl(HeldByPerson):
    code = "EGO_TASK_SPACE_USER_IN_CONTROL"
    fields = ("space_id", "reason")
    space_id: int | None
    reason: str | None


class PageBudgetReached(EgoError):
    code = "EGO_PAGE_BUDGET_REACHED"
    fields = ("space_id", "count", "limit", "pages")
    space_id: int | None
    count: int | None
    limit: int | None
    pages: list[Any] | None


class PageNotFound(PageGone):
    code = "EGO_PAGE_NOT_FOUND"
    fields = ("label",)
    label: str | None


class PageClosed(PageGone):
    code = "EGO_PAGE_CLOSED"
    fields = ("label",)
    label: str | None


class PageReleased(PageGone):
    code = "EGO_PAGE_RELEASED"
    fields = ("label",)
    label: str | None


class PageCrashed(PageGone):
    """The tab's renderer crashed (or was killed): nothing in the page answers until
    ``page.reload()`` or ``page.goto()`` loads a document in a new renderer."""

    code = "EGO_PAGE_CRASHED"
    fields = ("label",)
    label: str | None


class StaleRef(TargetError):
    code = "EGO_STALE_REF"
    fields = ("ref",)
    ref: int | str | None


class UnknownRef(TargetError):
    code = "EGO_UNKNOWN_REF"
    fields = ("ref",)
    ref: int | str | None


class InvalidSelector(EgoError):
    code = "EGO_INVALID_SELECTOR"
    fields = ("selector", "detail")
    selector: str | None
    detail: str | None


class SelectorAmbiguous(TargetError):
    """``candidates``: up to 5 of the matches (strict actions), each ``{ref, role, name, frame}``
    (``frame`` None for the top document); act on one by its ref."""

    code = "EGO_SELECTOR_AMBIGUOUS"
    fields = ("selector", "count", "candidates")
    selector: str | None
    count: int | None
    candidates: list[dict[str, Any]] | None


class SelectorNotFound(TargetError):
    code = "EGO_SELECTOR_NOT_FOUND"
    fields = ("selector", "timeout_ms")
    selector: str | None
    timeout_ms: int | float | None


class NotActionable(TargetError):
    code = "EGO_NOT_ACTIONABLE"
    fields = ("selector", "timeout_ms", "reason")
    selector: str | None
    timeout_ms: int | float | None
    reason: str | None


class SnapshotFailed(EgoError):
    code = "EGO_SNAPSHOT_FAILED"
    fields = ("label",)
    label: str | None


class EgoTimeout(TimedOut):
    """``input_dispatched``: for an input action (click, fill, press, mouse, keyboard, ...), True
    when input had already been sent to the page (its effects may land after this error: look
    before repeating), False when none had; None for calls that send no input."""

    code = "EGO_TIMEOUT"
    fields: ClassVar[tuple[str, ...]] = ("api", "timeout_ms", "input_dispatched")
    api: str | None
    timeout_ms: int | float | None
    input_dispatched: bool | None


class NavigationTimeout(EgoTimeout):
    code = "EGO_NAVIGATION_TIMEOUT"
    fields = ("api", "timeout_ms", "committed", "url", "ready_state")
    api: str | None
    timeout_ms: int | float | None
    committed: bool | None
    url: str | None
    ready_state: str | None


class PageEvaluationTimeout(EgoTimeout):
    code = "EGO_PAGE_EVALUATION_TIMED_OUT"
    fields = ("api", "timeout_ms", "execution_stopped", "may_have_late_effects", "page_responsive")
    api: str | None
    timeout_ms: int | float | None
    execution_stopped: bool | None
    may_have_late_effects: bool | None
    page_responsive: bool | None


class NavigationFailed(EgoError):
    code = "EGO_NAVIGATION_FAILED"
    fields = ("url", "error_text")
    url: str | None
    error_text: str | None


class NavigationBlocked(EgoError):
    """The page asked to confirm leaving (a ``beforeunload`` dialog, unsaved edits) and the
    navigation waits on the answer; the dialog stays open for the caller to answer."""

    code = "EGO_NAVIGATION_BLOCKED"
    fields = ("url", "dialog")
    url: str | None
    dialog: dict[str, Any] | None


class UrlOpenedInPopup(EgoError):
    code = "EGO_URL_OPENED_IN_POPUP"
    fields = ("popup_label", "url")
    popup_label: str | None
    url: str | None


class FileChooserOpened(EgoError):
    code = "EGO_FILE_CHOOSER_OPENED"
    fields = ("api",)
    api: str | None


class PageScriptError(EgoError):
    code = "EGO_PAGE_SCRIPT_ERROR"
    fields = ("js_name", "stack")
    js_name: str | None
    stack: str | None


class FetchFailed(EgoError):
    code = "EGO_FETCH_FAILED"
    fields = ("url",)
    url: str | None


class DownloadFailed(EgoError):
    code = "EGO_DOWNLOAD_FAILED"
    fields = ("reason",)
    reason: str | None


class BodyUnavailable(EgoError):
    """A request or response body Chromium cannot give (still loading, failed, evicted)."""

    code = "EGO_BODY_UNAVAILABLE"
    fields = ("api", "reason")
    api: str | None
    reason: str | None


class BodyTooLarge(EgoError):
    code = "EGO_BODY_TOO_LARGE"
    fields = ("api", "size", "limit")
    api: str | None
    size: int | None
    limit: int | None


class InvalidRoutePattern(EgoError, ValueError):
    code = "EGO_INVALID_ROUTE_PATTERN"
    fields = ("api", "pattern")
    api: str | None
    pattern: str | None


class HarUnwritable(EgoError):
    code = "EGO_HAR_UNWRITABLE"
    fields = ("api", "path")
    api: str | None
    path: str | None


class TraceUnwritable(EgoError):  # a trace or script file: no folder, read-only, a full disk
    code = "EGO_TRACE_UNWRITABLE"
    fields = ("api", "path", "reason")
    api: str | None
    path: str | None
    reason: str | None


class VideoUnavailable(EgoError):  # no frames (a Grid space, pictures off) or no encoder (Debian's ffmpeg)
    code = "EGO_VIDEO_UNAVAILABLE"
    fields = ("api", "reason")
    api: str | None
    reason: str | None


class CdpError(BrowserFailed):
    """The browser rejected a CDP command; keeps its code, message and the method.

    The host sees a subclass saying why (``ego_browser.cdp.errors``: ``ContextDestroyed``,
    ``NodeNotFound``, ...); rounds see this class, with the same fields either way.
    ``data`` (the reply's detail) and ``session_id`` stay on the host side.
    """

    code = "EGO_CDP_ERROR"
    fields = ("method", "cdp_code", "cdp_message")
    method: str | None
    cdp_code: int | None
    cdp_message: str | None

    def __init__(self, message: str, *, data: Any = None, session_id: str | None = None, **attrs: Any) -> None:
        super().__init__(message, **attrs)
        self.data = data
        self.session_id = session_id


#: the transport's historical spelling; the same class
CDPError = CdpError


class CdpMethodRefused(EgoError):
    """Raw CDP (``page.cdp``/``task.cdp``) refused before it reached the browser: the method acts
    beyond the caller's page or space, or an id argument names another space's target, session
    or browser context. ``argument`` names the offending parameter (None: the method itself);
    ``reason`` is one of ``browser_wide``, ``other_space``, ``not_allowed``, ``shared_context``."""

    code = "EGO_CDP_METHOD_REFUSED"
    fields = ("method", "argument", "reason")
    method: str | None
    argument: str | None
    reason: str | None


class CdpChannelUnavailable(BrowserFailed):
    code = "EGO_CDP_CHANNEL_UNAVAILABLE"
    fields = ("method",)
    method: str | None


class BrowserUnavailable(BrowserFailed):
    code = "EGO_BROWSER_UNAVAILABLE"
    fields = ("endpoint",)
    endpoint: str | None


class BrowserLost(BrowserFailed):
    """The browser a space lives on went away (a Grid node or session lost, a remote browser
    closed) while other spaces go on: the host is reopening the space's pages at their last
    URLs on another browser (labels kept, refs unknown). Repeat the call once it is back."""

    code = "EGO_BROWSER_LOST"
    fields = ("space_id", "where")
    space_id: int | None
    where: str | None


class HostDisconnected(EgoError):
    code = "EGO_TASK_HOST_DISCONNECTED"
    fields: ClassVar[tuple[str, ...]] = ("api",)
    api: str | None


class HostUnresponsive(HostDisconnected, TimedOut):
    """The host took the connection but did not answer by the call's deadline plus a margin
    (frozen, or stuck): the round stops waiting instead of hanging."""

    code = "EGO_HOST_UNRESPONSIVE"
    fields = ("api", "timeout_ms")
    api: str | None
    timeout_ms: int | float | None


class HostOverloaded(EgoError):
    """The host refused a call at its admission limit: ``active`` calls ran and ``queued``
    waited, and this one could not get a turn (the queue was full, or it waited ``waited_ms``).
    Nothing of the call ran: pause and repeat it, or run fewer agents on this host."""

    code = "EGO_HOST_OVERLOADED"
    fields = ("api", "active", "queued", "waited_ms")
    api: str | None
    active: int | None
    queued: int | None
    waited_ms: int | None


class StateStoreUnwritable(EgoError):
    """The host's state store could not record a change (disk full, read-only, damaged).

    ``reason`` is ``full``, ``read_only``, ``corrupt`` or ``io``. Nothing was half-done: a
    tab created for the change was closed again.
    """

    code = "EGO_STATE_STORE_UNWRITABLE"
    fields = ("path", "reason")
    path: str | None
    reason: str | None


class SiteNotFound(EgoError):
    code = "EGO_SITE_NOT_FOUND"
    fields = ("site_id",)
    site_id: str | None


class MissingAwait(EgoError):
    """A round's script called a coroutine (``page.click(...)``) without ``await``: the call
    never ran. ``line`` is the script line that made it, ``call`` the coroutine's name."""

    code = "EGO_MISSING_AWAIT"
    fields = ("line", "call")
    line: int | None
    call: str | None


class SiteToolNotFound(EgoError):
    code = "EGO_SITE_TOOL_NOT_FOUND"
    fields = ("site_id", "tool")
    site_id: str | None
    tool: str | None


class SitePackInvalid(EgoError):
    code = "EGO_SITE_PACK_INVALID"
    fields = ("site_id", "problems")
    site_id: str | None
    problems: list[str] | None


class SecretNotFound(EgoError):
    """``secret(name)`` names a secret the person has not stored, or its store cannot be read."""

    code = "EGO_SECRET_NOT_FOUND"
    fields = ("name",)
    name: str | None


class NavigationNotAllowed(EgoError):
    """A navigation (a tab's, a popup's, a redirect's) left the space's domain allowlist."""

    code = "EGO_NAVIGATION_NOT_ALLOWED"
    fields = ("url", "rule")
    url: str | None
    rule: str | None


class ConsentRequired(HeldByPerson):
    """The action is one the person marked as needing their yes; the space waits for their answer."""

    code = "EGO_CONSENT_REQUIRED"
    fields = ("action", "rule")
    action: str | None
    rule: str | None


class ConsentRefused(EgoError):
    """The person said no to an action that needed their consent (``action``); ``note`` is what
    they wrote. Raised by the wait for their answer (``task.wait_for_control()``)."""

    code = "EGO_CONSENT_REFUSED"
    fields = ("action", "note")
    action: str | None
    note: str | None


class AssertionFailed(EgoError, AssertionError):
    """An ``expect()`` assertion did not hold by its timeout: ``assertion`` names it
    (``to_have_text``, ``not_.to_be_visible``), ``expected`` and ``actual`` (None: no element
    matched) are what it wanted and what the page last showed."""

    code = "EGO_ASSERTION_FAILED"
    fields = ("assertion", "expected", "actual")
    assertion: str | None
    expected: Any
    actual: Any
