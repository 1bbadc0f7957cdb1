"""The errors of learned site tools and of pages' own WebMCP tools (issue 28, docs/learning.md),
a branch of the tree drawn in ``ego_browser/errors.py``, which re-exports every class."""

from __future__ import annotations

from .errors_base import EgoError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "LearnFailed", "LearnJournalEmpty", "LearnRoundFailed", "LearnNameTaken", "LearnUnknownParam",
    "LearnedToolInvalid", "LearnVerifyFailed", "LearnedToolFailed", "LearnedStepNotFound",
    "LearnedPostconditionFailed", "LearnedToolOffOrigin", "LearnedPackUntrusted", "WebMcpToolFailed",
    "WebMcpToolNotFound", "WebMcpBadArguments",
]


# -- learned site tools (issue 28, docs/learning.md) ------------------------------------------


class LearnFailed(EgoError):
    """``task.learn``/``task.save_tool`` refused: nothing was written and no tool was replaced.
    Each reason has its own code (the subclasses below)."""

    code = "EGO_LEARN_FAILED"
    fields = ("tool", "reason")
    tool: str | None
    reason: str | None


class LearnJournalEmpty(LearnFailed):
    code = "EGO_LEARN_JOURNAL_EMPTY"


class LearnRoundFailed(LearnFailed):
    code = "EGO_LEARN_ROUND_FAILED"


class LearnNameTaken(LearnFailed):
    code = "EGO_LEARN_NAME_TAKEN"


class LearnUnknownParam(LearnFailed):
    code = "EGO_LEARN_UNKNOWN_PARAM"


class LearnedToolInvalid(LearnFailed):
    code = "EGO_LEARNED_TOOL_INVALID"


class LearnVerifyFailed(LearnFailed):
    code = "EGO_LEARN_VERIFY_FAILED"


class LearnedToolFailed(EgoError):
    """A learned tool's run failed; it never reports success. ``step``: the step number (None
    for the post-condition); ``expected``: {role, name, locator}; ``candidates``: what the
    page has now, compact (``@ref role "name"``)."""

    code = "EGO_LEARNED_TOOL_FAILED"
    fields = ("tool", "step", "expected", "candidates")
    tool: str | None
    step: int | None
    expected: dict[str, Any] | None
    candidates: list[str] | None


class LearnedStepNotFound(LearnedToolFailed):
    code = "EGO_LEARNED_STEP_NOT_FOUND"


class LearnedPostconditionFailed(LearnedToolFailed):
    code = "EGO_LEARNED_POSTCONDITION_FAILED"


class LearnedToolOffOrigin(LearnedToolFailed):
    code = "EGO_LEARNED_TOOL_OFF_ORIGIN"


class WebMcpToolFailed(EgoError):
    """A page's WebMCP tool threw or reported an error (``isError``). ``available``: the page's
    tool names, for a tool it does not have."""

    code = "EGO_WEBMCP_TOOL_FAILED"
    fields = ("tool", "available")
    tool: str | None
    available: list[str] | None


class WebMcpToolNotFound(WebMcpToolFailed):
    code = "EGO_WEBMCP_TOOL_NOT_FOUND"


class WebMcpBadArguments(WebMcpToolFailed):
    code = "EGO_WEBMCP_BAD_ARGUMENTS"


class LearnedPackUntrusted(EgoError):
    code = "EGO_LEARNED_PACK_UNTRUSTED"
    fields = ("site_id",)
    site_id: str | None
