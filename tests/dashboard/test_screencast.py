"""The live views' capture limits (no browser: a recording stand-in for the cast's CDP session).

Chromium captures every compositor frame of a cast page whatever the acks say, so watching an
agent that changes its page quickly cost the agent's actions (issue 14, "cost of watching"). The
cast therefore pauses on a burst and starts again when its interval has passed, and acks a frame
only once a viewer has taken it. Intervals here are an hour long, so nothing depends on timing:
the test resumes a paused cast itself.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from ego_browser.cdp.errors import TargetClosed
from ego_browser.dashboard import screencast
from ego_browser.dashboard.screencast import FRAME_FORMAT, MAX_EDGE, Frame, Screencasts, _Cast, frame_size

HOUR = 3600.0


class _Session:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any] | None]] = []
        self.changed = asyncio.Event()

    async def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float) -> dict[str, Any]:
        self.sent.append((method, params))
        self.changed.set()
        return {}

    def methods(self) -> list[str]:
        return [m for m, _ in self.sent]


class _Viewer:
    def __init__(self) -> None:
        self.frames: list[Frame] = []

    def offer_frame(self, target_id: str, frame: Frame) -> None:
        self.frames.append(frame)


def _params(n: int, data: str | None = None) -> dict[str, Any]:
    return {"data": data or f"frame-{n}", "sessionId": n,
            "metadata": {"deviceWidth": 1280, "deviceHeight": 720, "timestamp": n}}


async def _settle(session: _Session, count: int) -> None:
    """Until the session has seen ``count`` commands (they are sent from tasks)."""
    async with asyncio.timeout(10):
        while len(session.sent) < count:
            session.changed.clear()
            await session.changed.wait()


def _cast(casts: Screencasts, viewer: _Viewer) -> _Cast:
    cast = _Cast("T1")
    cast.viewers.add(viewer)
    cast.interval = HOUR
    casts.casts["T1"] = cast
    return cast


async def test_a_burst_pauses_the_cast_and_it_resumes_with_the_page_as_it_is_then() -> None:
    casts, viewer, session = Screencasts(host=None), _Viewer(), _Session()
    cast = _cast(casts, viewer)
    casts._frame(cast, session, _params(1))
    assert cast.resume is None  # one frame: no burst
    casts._frame(cast, session, _params(2))  # the next one within the interval: a burst
    await _settle(session, 1)
    assert session.methods() == ["Page.stopScreencast"]
    assert cast.resume is not None and cast.pauses == 1
    # both frames reached the viewer (the newer one is the page's state when the cast paused)
    assert [orjson.loads(f.message)["data"] for f in viewer.frames] == ["frame-1", "frame-2"]
    cast.resume.cancel()
    casts._resume(cast, session)
    await _settle(session, 2)
    assert session.sent[-1] == ("Page.startScreencast", FRAME_FORMAT)
    # the page changed while paused: its first frame is shown, and the cast pauses again at once
    casts._frame(cast, session, _params(3))
    await _settle(session, 3)
    assert session.methods()[-1] == "Page.stopScreencast" and cast.pauses == 2
    assert orjson.loads(viewer.frames[-1].message)["data"] == "frame-3"
    cast.resume.cancel()
    casts._resume(cast, session)
    await _settle(session, 4)
    # it did not change while paused: the cast keeps running (the next change is captured when it
    # happens), and the picture the viewers already show is acked, not sent to them again
    shown = len(viewer.frames)
    casts._frame(cast, session, _params(4, data="frame-3"))
    await _settle(session, 5)
    assert cast.resume is None and cast.pauses == 2
    assert session.sent[-1] == ("Page.screencastFrameAck", {"sessionId": 4})
    assert len(viewer.frames) == shown


async def test_a_frame_is_acked_once_a_viewer_has_taken_it() -> None:
    casts, viewer, session = Screencasts(host=None), _Viewer(), _Session()
    cast = _cast(casts, viewer)
    casts._frame(cast, session, _params(7))
    await asyncio.sleep(0)
    assert "Page.screencastFrameAck" not in session.methods()  # nobody took it yet
    viewer.frames[0].taken()
    await _settle(session, 1)
    assert session.sent == [("Page.screencastFrameAck", {"sessionId": 7})]
    viewer.frames[0].taken()  # a second viewer sending the same frame acks nothing more
    await asyncio.sleep(0)
    assert len(session.sent) == 1


async def test_a_stopped_cast_neither_acks_nor_resumes() -> None:
    casts, viewer, session = Screencasts(host=None), _Viewer(), _Session()
    cast = _cast(casts, viewer)
    casts._frame(cast, session, _params(1))
    casts._frame(cast, session, _params(2))
    await _settle(session, 1)
    cast.live = False
    assert cast.resume is not None
    cast.resume.cancel()
    casts._resume(cast, session)
    viewer.frames[-1].taken()
    await asyncio.sleep(0)
    assert session.methods() == ["Page.stopScreencast"]


def test_a_frame_is_the_size_of_its_view_within_limits() -> None:
    assert frame_size(894, 1024) == (894, 1024)
    assert frame_size(3000, 2000) == (MAX_EDGE, MAX_EDGE)
    assert frame_size(10, 10) == (64, 64)
    # a view not laid out yet, or a message without a size: the largest frames
    assert frame_size(0, None) == (MAX_EDGE, MAX_EDGE)
    assert frame_size(True, "320") == (MAX_EDGE, MAX_EDGE)


class _Conn:
    def __init__(self, session: _Session) -> None:
        self._session = session

    def session(self, _sid: str) -> _Session:
        return self._session


async def test_a_cast_starts_again_at_its_views_new_size_and_a_paused_one_resumes_at_it() -> None:
    session = _Session()
    host = type("H", (), {"browser": type("B", (), {"conn": _Conn(session)})()})()
    casts, viewer = Screencasts(host=host), _Viewer()
    cast = _cast(casts, viewer)
    cast.session_id = "S"
    cast.starting = asyncio.get_running_loop().create_future()
    cast.starting.set_result(None)
    casts.set_need("T1", HOUR, (640, 1024))
    await _settle(session, 2)
    assert session.sent == [("Page.stopScreencast", None),
                            ("Page.startScreencast", {**FRAME_FORMAT, "maxWidth": 640, "maxHeight": 1024})]
    casts.set_need("T1", HOUR, (640, 1024))  # the same size again: nothing to do
    await asyncio.sleep(0)
    assert len(session.sent) == 2
    # paused (a burst): the new size waits for the resume, which starts the cast at it
    casts._frame(cast, session, _params(1))
    casts._frame(cast, session, _params(2))
    await _settle(session, 3)
    casts.set_need("T1", HOUR, (320, 200))
    await asyncio.sleep(0)
    assert session.methods()[-1] == "Page.stopScreencast"
    cast.resume.cancel()
    casts._resume(cast, session)
    await _settle(session, 4)
    assert session.sent[-1] == ("Page.startScreencast", {**FRAME_FORMAT, "maxWidth": 320, "maxHeight": 200})


class _Refusing(_Session):
    """Refuses the first ``Page.startScreencast`` the way Chromium does while the page is
    between two documents."""

    async def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float) -> dict[str, Any]:
        await super().send(method, params, timeout=timeout)
        if method == "Page.startScreencast" and self.methods().count(method) == 1:
            raise TargetClosed("Page.startScreencast: Not attached to an active page")
        return {}

    def on(self, method: str, handler: Any) -> Any:
        return lambda: None


class _AttachingConn(_Conn):
    async def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float) -> dict[str, Any]:
        assert method == "Target.attachToTarget"
        return {"sessionId": "S"}


def _host(conn: Any, url: str = "about:blank", pictures: Any = None) -> Any:
    browser = type("B", (), {"conn": conn, "targets": {"T1": {"targetId": "T1", "url": url}}})()
    return type("H", (), {"browser": browser, "pictures": pictures})()


async def test_a_cast_the_page_refused_while_it_navigated_starts_again(monkeypatch) -> None:
    monkeypatch.setattr(screencast, "_NO_FRAME_AFTER", 0.0)  # the check runs at the next turn of the loop
    session = _Refusing()
    casts, viewer = Screencasts(host=_host(_AttachingConn(session))), _Viewer()
    casts.watch("T1", viewer)
    await _settle(session, 3)
    assert session.methods() == ["Page.startScreencast", "Page.stopScreencast", "Page.startScreencast"]
    casts._frame(casts.casts["T1"], session, _params(1))  # it captures now: no more restarts
    await asyncio.sleep(0.05)
    assert len(session.sent) == 3
    await casts.close()


async def test_a_cast_that_started_on_its_second_try_gives_the_trace_its_frames(monkeypatch, tmp_path) -> None:
    """The trace's pictures take a watched page's frames once its cast runs, also when the page
    refused the first start (CI, loaded: every picture of a watched space was captured instead)."""
    from ego_browser.host.features.trace_pictures import Pictures

    monkeypatch.setattr(screencast, "_NO_FRAME_AFTER", 0.0)
    session, pictures = _Refusing(), Pictures(tmp_path)
    casts, viewer = Screencasts(host=_host(_AttachingConn(session), pictures=pictures)), _Viewer()
    casts.watch("T1", viewer)
    await _settle(session, 3)
    assert "T1" in pictures._casts
    casts._frame(casts.casts["T1"], session, {**_params(1), "data": "AAAA"})
    assert pictures._casts["T1"].data == "AAAA"
    await casts.close()
    assert "T1" not in pictures._casts


async def test_a_cast_whose_page_navigated_without_a_frame_starts_again(monkeypatch) -> None:
    monkeypatch.setattr(screencast, "_NO_FRAME_AFTER", 3600.0)  # only the navigation restarts it here
    session = _Session()
    session.on = lambda method, handler: (lambda: None)  # type: ignore[attr-defined]
    casts, viewer = Screencasts(host=_host(_AttachingConn(session))), _Viewer()
    casts.watch("T1", viewer)
    await _settle(session, 1)
    await casts.casts["T1"].starting
    casts.navigated("T1", "about:blank")  # not a new document
    await asyncio.sleep(0)
    assert session.methods() == ["Page.startScreencast"]
    casts.navigated("T1", "http://127.0.0.1/kettles")
    await _settle(session, 3)
    assert session.methods() == ["Page.startScreencast", "Page.stopScreencast", "Page.startScreencast"]
    await casts.close()


class _RefusingAfterPause(_Refusing):
    """Refuses the start that resumes a paused cast (the page navigated during the pause)."""

    async def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float) -> dict[str, Any]:
        await _Session.send(self, method, params, timeout=timeout)
        if method == "Page.startScreencast" and self.methods().count(method) == 2:
            raise TargetClosed("Page.startScreencast: Not attached to an active page")
        return {}


async def _paused(session: _Session) -> tuple[Screencasts, _Cast]:
    """A cast started on T1 and paused by a burst of two frames (its resume left to the test)."""
    casts = Screencasts(host=_host(_AttachingConn(session)))
    casts.watch("T1", _Viewer())
    await _settle(session, 1)
    cast = casts.casts["T1"]
    await cast.starting
    cast.interval = HOUR
    casts._frame(cast, session, _params(1))
    casts._frame(cast, session, _params(2))  # a burst: paused
    await _settle(session, 2)
    cast.resume.cancel()
    return casts, cast


async def test_a_paused_cast_the_page_refused_to_resume_starts_again(monkeypatch) -> None:
    """A cast paused by a burst resumes into a navigation: the page refuses the start, or the
    capturer misses the new document. Either way no frame comes, and the cast starts again
    (CI, loaded: a watched page sent no frame after its goto, and every picture of its trace was
    captured)."""
    monkeypatch.setattr(screencast, "_NO_FRAME_AFTER", 0.0)
    session = _RefusingAfterPause()
    casts, cast = await _paused(session)
    casts._resume(cast, session)  # refused
    await _settle(session, 5)
    assert session.methods()[1:] == ["Page.stopScreencast", "Page.startScreencast", "Page.stopScreencast",
                                     "Page.startScreencast"]
    casts._frame(cast, session, _params(3))  # it captures now: no more restarts
    await asyncio.sleep(0.05)
    assert session.methods().count("Page.startScreencast") == 3
    await casts.close()


async def test_a_resumed_cast_whose_page_did_not_change_is_not_started_again(monkeypatch) -> None:
    """The first frame after a pause that shows what the viewers show is dropped, but it is a
    frame: the cast captures, and the check leaves it alone."""
    monkeypatch.setattr(screencast, "_NO_FRAME_AFTER", 0.0)
    session = _Session()
    session.on = lambda method, handler: (lambda: None)  # type: ignore[attr-defined]
    casts, cast = await _paused(session)
    casts._resume(cast, session)
    casts._frame(cast, session, _params(3, data="frame-2"))  # unchanged: acked and dropped
    await asyncio.sleep(0.05)
    assert session.methods()[1:] == ["Page.stopScreencast", "Page.startScreencast", "Page.screencastFrameAck"]
    await casts.close()
