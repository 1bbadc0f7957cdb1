"""The error tree groups errors by what the caller can do next (issue 35, point 5).

Five intent classes, never raised themselves: ``PageGone``, ``TargetError``, ``HeldByPerson``,
``TimedOut``, ``BrowserFailed``. Every error keeps its own code and crosses the wire as itself;
a cause a developer needs is kept on ``__cause__`` and never printed to the agent.
"""

from __future__ import annotations

import pytest

import ego_browser
from ego_browser import errors
from ego_browser.errors_base import _all_classes
from ego_browser.round.script_errors import _failure

#: intent -> the classes it catches, with the code each keeps
INTENTS = {
    "PageGone": {"PageNotFound": "EGO_PAGE_NOT_FOUND", "PageClosed": "EGO_PAGE_CLOSED",
                 "PageReleased": "EGO_PAGE_RELEASED", "PageCrashed": "EGO_PAGE_CRASHED"},
    "TargetError": {"StaleRef": "EGO_STALE_REF", "UnknownRef": "EGO_UNKNOWN_REF",
                    "SelectorNotFound": "EGO_SELECTOR_NOT_FOUND", "SelectorAmbiguous": "EGO_SELECTOR_AMBIGUOUS",
                    "NotActionable": "EGO_NOT_ACTIONABLE"},
    "HeldByPerson": {"TaskSpaceUserInControl": "EGO_TASK_SPACE_USER_IN_CONTROL",
                     "ConsentRequired": "EGO_CONSENT_REQUIRED"},
    "TimedOut": {"EgoTimeout": "EGO_TIMEOUT", "NavigationTimeout": "EGO_NAVIGATION_TIMEOUT",
                 "PageEvaluationTimeout": "EGO_PAGE_EVALUATION_TIMED_OUT", "HostUnresponsive": "EGO_HOST_UNRESPONSIVE"},
    "BrowserFailed": {"CdpError": "EGO_CDP_ERROR", "CdpChannelUnavailable": "EGO_CDP_CHANNEL_UNAVAILABLE",
                      "BrowserUnavailable": "EGO_BROWSER_UNAVAILABLE", "BrowserLost": "EGO_BROWSER_LOST"},
}


@pytest.mark.parametrize("intent", sorted(INTENTS))
def test_each_intent_catches_its_errors_and_only_them(intent: str) -> None:
    catcher = getattr(ego_browser, intent)  # exported at the top level
    assert catcher is getattr(errors, intent) and issubclass(catcher, ego_browser.EgoError)
    for name, code in INTENTS[intent].items():
        cls = getattr(ego_browser, name)
        assert cls.code == code, f"{name} keeps its code"
        with pytest.raises(catcher) as info:
            raise cls(f"{name} raised", **dict.fromkeys(cls.fields))
        assert type(info.value) is cls and info.value.code == code
        # and it still crosses the host socket as itself
        back = errors.from_wire(errors.to_wire(info.value))
        assert type(back) is cls and isinstance(back, catcher)
    others = [c.__name__ for c in _all_classes().values() if c.__name__ not in INTENTS[intent]]
    assert [name for name in others if issubclass(getattr(errors, name, object), catcher)] == []


def test_the_intents_name_what_to_do_and_are_never_raised() -> None:
    for intent in INTENTS:
        cls = getattr(errors, intent)
        assert cls.code == "EGO_ERROR" and cls not in _all_classes().values()
        assert cls.__doc__ and intent in errors.__all__
    # the intents are disjoint: an error has one next step (HostUnresponsive is also a HostDisconnected)
    for cls in _all_classes().values():
        assert sum(issubclass(cls, getattr(errors, i)) for i in INTENTS) <= 1, cls
    assert issubclass(errors.TimedOut, TimeoutError) and issubclass(errors.HostUnresponsive, errors.HostDisconnected)
    from ego_browser.schema.topics import errors_topic

    topic = errors_topic()
    for intent, members in INTENTS.items():
        line = next(line for line in topic.splitlines() if line.startswith(f"- {intent}:"))
        assert all(name in line for name in members)


def test_except_target_error_catches_a_stale_ref() -> None:
    try:
        raise ego_browser.StaleRef("Stale ref: @5; take a new snapshot", ref="5")
    except ego_browser.TargetError as exc:
        assert exc.code == "EGO_STALE_REF" and exc.ref == "5"


def test_a_printed_error_shows_its_message_not_its_cause() -> None:
    """The round prints ``<code>: <message>`` and the script's line; the cause stays on the object."""
    source = "x = 1\nawait page.click('#b')\n"
    try:
        try:
            raise OSError(2, "internal detail of the host")
        except OSError as exc:
            raise ego_browser.InvalidArgument("page.click: bad", api="page.click") from exc
    except ego_browser.InvalidArgument as err:
        assert isinstance(err.__cause__, OSError)
        printed = _failure(err, "<round>", source)
    assert printed == "EGO_INVALID_ARGUMENT: page.click: bad"
    assert "internal detail" not in printed and "cause" not in printed
