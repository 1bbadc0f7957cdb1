"""Progress lines (issue 34 point 7): a slow step says what it does after 2 s; a quick one is silent."""

from __future__ import annotations

import io
import threading

from ego_browser.progress import PREFIX, Progress


class _Stream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.wrote = threading.Event()

    def write(self, text: str) -> int:
        n = super().write(text)
        self.wrote.set()
        return n


def test_a_slow_step_says_what_it_does_and_when_it_ends() -> None:
    stream = _Stream()
    with Progress("importing the profile", after=0.01, every=3600, stream=stream):
        assert stream.wrote.wait(60)  # the step is "slow": it ends only once the line was written
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith(f"{PREFIX} importing the profile (")
    assert lines[-1].startswith(f"{PREFIX} done: importing the profile after ")


def test_a_quick_step_prints_nothing() -> None:
    stream = _Stream()
    with Progress("doctor", after=3600, stream=stream):
        pass
    assert stream.getvalue() == ""


def test_a_step_that_fails_says_it_stopped() -> None:
    stream = _Stream()
    try:
        with Progress("starting the host", after=0.01, every=3600, stream=stream):
            assert stream.wrote.wait(60)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert stream.getvalue().splitlines()[-1].startswith(f"{PREFIX} stopped: starting the host after ")
