"""Whether the request being served has sent input to its page yet.

A host-deadline timeout can strike while input is in flight: a click whose handler blocks, a
20 MB ``fill`` still being inserted. The input then lands after the error, so the agent must
know whether to look at the page before repeating the action. The host opens a
:class:`Progress` per request (``begin``); the action pipeline calls ``expect_input`` when it
starts an input action and ``mark`` right before each command that delivers input (trusted
events, text insertion, a value set by script, files set on an input). The host copies the
flag to the timeout's ``input_dispatched``: True (input was sent: effects may land late),
False (an input action that sent nothing), None (not an input action).

A context variable, so concurrent requests never see each other's flag; the object is shared
by the tasks a request spawns, so a mark from any of them counts.
"""

from __future__ import annotations

import contextvars

__all__ = ["Progress", "begin", "end", "expect_input", "mark", "current"]


class Progress:
    __slots__ = ("input_dispatched",)

    def __init__(self) -> None:
        self.input_dispatched: bool | None = None


_current: contextvars.ContextVar[Progress | None] = contextvars.ContextVar("ego_request_progress", default=None)


def begin() -> tuple[Progress, contextvars.Token[Progress | None]]:
    progress = Progress()
    return progress, _current.set(progress)


def end(token: contextvars.Token[Progress | None]) -> None:
    _current.reset(token)


def current() -> Progress | None:
    return _current.get()


def expect_input() -> None:
    progress = _current.get()
    if progress is not None and progress.input_dispatched is None:
        progress.input_dispatched = False


def mark() -> None:
    progress = _current.get()
    if progress is not None:
        progress.input_dispatched = True
