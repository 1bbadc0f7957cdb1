"""driver/network.py without a browser: the log's bounds, its stages and the actions' requests."""

from __future__ import annotations

from ego_browser.driver import network


class _Frames:
    main = None

    def get(self, _frame_id):
        return None


class _Page:
    def __init__(self) -> None:
        self.session = None
        self.sessions = {}
        self.frames = _Frames()
        self.network = network.NetworkLog(self)
        self.bumps = 0

    def _bump(self) -> None:
        self.bumps += 1


def _send(log, n, *, headers=None, url="https://example.com/x"):
    log._will_be_sent({"requestId": str(n), "request": {"url": f"{url}{n}", "method": "GET",
                                                        "headers": headers or {}},
                       "type": "Fetch", "timestamp": 1.0, "wallTime": 1.7e9}, "S")


def test_the_log_keeps_the_newest_within_its_count_and_bytes():
    page = _Page()
    log = page.network
    for n in range(network.REQUEST_CAP + 50):
        _send(log, n)
    assert len(log.records) == network.REQUEST_CAP
    assert next(iter(log.records.values()))["url"].endswith("x50")
    fat = {"x-fat": "y" * 50_000}
    for n in range(1000, 1100):
        _send(log, n, headers=fat)
    assert log._bytes <= network.REQUEST_BYTES + 60_000 and len(log.records) < 50
    assert all(r["url"].endswith(str(n)) for r, n in zip(reversed(log.records.values()), range(1099, 0, -1)))


def test_stages_and_the_action_that_started_each_request():
    page = _Page()
    log = page.network
    _send(log, 1)
    action = log.begin_action("page.click")
    _send(log, 2)
    log.end_action(action)
    _send(log, 3)
    log._response({"requestId": "2", "response": {"status": 200, "headers": {"a": "b"}}, "timestamp": 1.5}, "S")
    log._finished({"requestId": "2", "timestamp": 2.0, "encodedDataLength": 10}, "S")
    rec = log.records[2]
    assert rec["request_seq"] < rec["response_seq"] < rec["end_seq"] and rec["state"] == "finished"
    assert log.last_action_id == action
    [only] = network.requests_for_action(page, action)
    assert only["url"].endswith("x2") and only["action"] == {"id": action, "name": "page.click"}
    assert only["timing"]["duration_ms"] == 1000.0 and only["status"] == 200
    assert page.bumps >= 5  # every change wakes the page's waits
