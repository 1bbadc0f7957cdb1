"""The spare tab is made when the host is quiet, not while a new space's first round runs
(host/spaces/warm_tab.py): without a browser, the maker is replaced by an event."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from ego_browser.host.spaces import warm_tab


class QuietHost:
    """What WarmTab reads of the host; counts the looks at ``last_request``."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self._last = time.monotonic() - 60.0  # the last request began long ago
        self.looks = 0
        self.looked = asyncio.Event()
        self.spare_tab = None

        class Browser:
            owned = True
            headed = False

        self.browser = Browser()

    @property
    def last_request(self) -> float:
        self.looks += 1
        if self.looks >= 3:
            self.looked.set()
        return self._last


def _warm(host: QuietHost) -> tuple[warm_tab.WarmTab, asyncio.Event]:
    warm = warm_tab.WarmTab(host)  # type: ignore[arg-type]
    made = asyncio.Event()

    async def make() -> None:
        made.set()

    warm._make = make  # type: ignore[method-assign]
    return warm, made


@pytest.fixture
def quick(monkeypatch: Any) -> None:
    monkeypatch.setattr(warm_tab, "QUIET", 0.01)


async def test_not_made_while_a_request_runs_then_made_once_quiet(quick: None) -> None:
    host = QuietHost(busy=1)
    warm, made = _warm(host)
    warm.refill()
    await asyncio.wait_for(host.looked.wait(), 10)  # it looked three times and held back
    assert not made.is_set()
    host.busy = 0
    await asyncio.wait_for(made.wait(), 10)
    await asyncio.wait_for(warm.task, 10)  # type: ignore[arg-type]


async def test_a_new_space_that_needs_it_has_it_made_at_once(quick: None) -> None:
    host = QuietHost(busy=1)
    warm, made = _warm(host)
    warm.refill()
    await asyncio.wait_for(warm.wait_ready(), 10)
    assert made.is_set() and warm.task is not None and warm.task.done()


async def test_a_finished_space_has_the_next_spare_made_without_waiting_for_quiet(quick: None) -> None:
    host = QuietHost(busy=1)  # requests keep running: the quiet rule alone would hold it back
    warm, made = _warm(host)
    warm.soon()
    await asyncio.wait_for(made.wait(), 10)
    await asyncio.wait_for(warm.task, 10)  # type: ignore[arg-type]
    host.spare_tab = "spare"
    warm.soon()  # there is one already: nothing more is made
    assert warm.task.done()  # type: ignore[union-attr]


class _Sent:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def send(self, method: str, params: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        self.calls.append((method, params))
        if method == "Target.createTarget":
            return {"targetId": f"T{sum(m == method for m, _ in self.calls)}"}
        return {}


class MakingHost:
    """A host whose first new tab never answers its attach (the whole-suite run's hang)."""

    def __init__(self) -> None:
        self.spare_tab: str | None = None
        self.conn = _Sent()
        self.attached: list[tuple[str, float | None]] = []
        conn = self.conn

        class Browser:
            owned = True
            headed = False
            targets: dict[str, Any] = {}

        Browser.conn = conn  # type: ignore[attr-defined]
        self.browser = Browser()

    async def driver(self, target_id: str, attach_timeout: float | None = None) -> Any:
        from ego_browser.host.core.agent_errors import tab_not_answering

        self.attached.append((target_id, attach_timeout))
        if target_id == "T1":
            raise tab_not_answering("", "", attach_timeout or 0)

        class Driver:
            session = _Sent()

        return Driver()


async def test_a_spare_that_does_not_answer_its_attach_is_closed_and_another_made() -> None:
    host = MakingHost()
    warm = warm_tab.WarmTab(host)  # type: ignore[arg-type]
    await asyncio.wait_for(warm._make(), 10)
    assert host.spare_tab == "T2"  # never the tab that did not answer
    assert ("Target.closeTarget", {"targetId": "T1"}) in host.conn.calls
    assert [t for t, _ in host.attached] == ["T1", "T2"]
    assert all(limit == warm_tab.ATTACH_WAIT for _, limit in host.attached)  # not the 120 s of an agent's tab
