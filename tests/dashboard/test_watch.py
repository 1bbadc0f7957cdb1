"""What each cast is asked for, from what the open dashboards show (no browser: a recording
stand-in for the screencasts, the spaces as the host would list them).

A frame costs the agent's browser its capture and every view its decoding, so a cast is as large
as its largest view and no larger, a tab shown only as a thumbnail comes at the thumbnail rate
and size, and two or more live views of one page take fewer frames (docs/architecture.md,
"What watching costs").
"""

from __future__ import annotations

from typing import Any

import pytest

from ego_browser.dashboard import server
from ego_browser.dashboard.screencast import MAX_EDGE, MULTI_WATCH_INTERVAL, WATCH_INTERVAL
from ego_browser.dashboard.viewer import THUMB_INTERVAL, Viewer

SPACES = [
    {"id": 1, "ownership": "agent", "pages": [{"target_id": "A", "url": "http://x/a"}, {"target_id": "B", "url": "http://x/b"}]},
    {"id": 2, "ownership": "agent", "pages": [{"target_id": "C", "url": "http://x/c"}]},
]


class _Casts:
    def __init__(self) -> None:
        self.viewers: dict[str, set[Any]] = {}
        self.need: dict[str, tuple[float, tuple[int, int]]] = {}

    def watch(self, tid: str, viewer: Any) -> None:
        self.viewers.setdefault(tid, set()).add(viewer)

    def unwatch(self, tid: str, viewer: Any) -> None:
        self.viewers.get(tid, set()).discard(viewer)

    def watched(self, viewer: Any) -> set[str]:
        return {t for t, vs in self.viewers.items() if viewer in vs}

    def set_need(self, tid: str, seconds: float, size: tuple[int, int]) -> None:
        self.need[tid] = (seconds, size)

    def replay(self, tid: str, viewer: Any) -> None:
        pass


@pytest.fixture
def dash(monkeypatch: pytest.MonkeyPatch) -> server.Dashboard:
    monkeypatch.setattr(server, "overview", lambda _host, _activity: SPACES)
    d = server.Dashboard(host=None)
    d.casts = _Casts()  # type: ignore[assignment]
    return d


def _open(dash: server.Dashboard, **msg: Any) -> Viewer:
    viewer = Viewer(ws=None)
    dash.viewers.add(viewer)
    dash._watch(viewer, {"t": "watch", **msg})
    return viewer


def test_the_tab_in_the_live_view_is_cast_at_its_width_the_others_as_thumbnails(dash: server.Dashboard) -> None:
    viewer = _open(dash, space=1, target="B", live=894, thumb=[160, 100])
    assert dash.casts.need == {"B": (WATCH_INTERVAL, (894, MAX_EDGE)), "A": (THUMB_INTERVAL, (160, 100))}
    assert "A" in viewer.interval and "B" not in viewer.interval  # the viewer holds thumbnails back too
    # the person picks the other tab: the sizes and rates swap
    dash._watch(viewer, {"t": "watch", "space": 1, "target": "A", "live": 894, "thumb": [160, 100]})
    assert dash.casts.need == {"A": (WATCH_INTERVAL, (894, MAX_EDGE)), "B": (THUMB_INTERVAL, (160, 100))}


def test_the_list_casts_every_page_as_a_thumbnail(dash: server.Dashboard) -> None:
    _open(dash, space=None, thumb=[320, 200])
    assert dash.casts.need == {t: (THUMB_INTERVAL, (320, 200)) for t in "ABC"}


def test_a_cast_serves_its_largest_view_and_several_views_take_fewer_frames(dash: server.Dashboard) -> None:
    _open(dash, space=2, target="C", live=500, thumb=[160, 100])
    assert dash.casts.need["C"] == (WATCH_INTERVAL, (500, MAX_EDGE))
    _open(dash, space=2, target="C", live=700, thumb=[160, 100])
    assert dash.casts.need["C"] == (MULTI_WATCH_INTERVAL, (700, MAX_EDGE))
    # a list open as well neither shrinks the frames nor counts as a live view
    _open(dash, space=None, thumb=[160, 100])
    assert dash.casts.need["C"] == (MULTI_WATCH_INTERVAL, (700, MAX_EDGE))


def test_a_dashboard_that_says_nothing_of_its_size_gets_the_largest_frames(dash: server.Dashboard) -> None:
    _open(dash, space=2)
    assert dash.casts.need == {"C": (WATCH_INTERVAL, (MAX_EDGE, MAX_EDGE))}
    # a tab the space does not have (closed meanwhile): every tab of the space is live
    _open(dash, space=1, target="gone", live=400)
    assert dash.casts.need["A"][1] == dash.casts.need["B"][1] == (400, MAX_EDGE)
