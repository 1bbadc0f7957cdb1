"""Headed mode (issue 14, point 3): under a real X server (Xvfb) every space is a browser
window of its own titled with the space's name, the person's own browsing is in a space of
theirs, and taking a space over brings its window to the front.

The titles and the focus are read from the X server (x11-utils: xwininfo, xprop, xdpyinfo),
as a window manager or the person would see them; the window ids from the browser
(``Browser.getWindowForTarget``).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest

from ego_browser.browser.launcher import find_chromium, launch_chromium
from ego_browser.errors import BrowserUnavailable
from tests.conftest import Rounds
from tests.server import Response

BOUND = 120
_X11 = ("Xvfb", "xwininfo", "xprop", "xdpyinfo")


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    """A private Xvfb on a display number it picks itself (-displayfd: free, and ready when
    it writes the number), stopped by its pid."""
    missing = [t for t in _X11 if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} missing: `make setup` installs xvfb and x11-utils")
    r, w = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
        pass_fds=(w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(w)
    try:
        got = b""
        while not got.endswith(b"\n"):
            ready, _, _ = select.select([r], [], [], 30)
            assert ready, "Xvfb did not report its display within 30 s"
            chunk = os.read(r, 16)
            assert chunk, f"Xvfb exited (status {proc.poll()}) before reporting a display"
            got += chunk
        yield f":{int(got)}"
    finally:
        os.close(r)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture
def headed_rounds(display: str) -> Iterator[Rounds]:
    home = tempfile.mkdtemp(prefix="ego-test-headed-")
    r = Rounds(home)
    r.env.update({"DISPLAY": display, "EGO_BROWSER_HEADLESS": "0"})
    r.env.pop("WAYLAND_DISPLAY", None)
    try:
        yield r
    finally:
        r.stop()
        shutil.rmtree(home, ignore_errors=True)


def _x(display: str, *args: str) -> str:
    out = subprocess.run(list(args), env={**os.environ, "DISPLAY": display}, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _chromium_windows(display: str) -> list[str]:
    """Titles of the browser's windows, as the X server has them (a browser window's class
    names its profile: "chromium (DIR)"; Chromium's hidden helper windows' do not)."""
    tree = _x(display, "xwininfo", "-root", "-children")
    return re.findall(r'^\s+0x[0-9a-f]+ "([^"]*)": \("chromium \(', tree, flags=re.M)


def _focused_title(display: str) -> str:
    focus = re.search(r"focus:\s+window (0x[0-9a-f]+)", _x(display, "xdpyinfo"))
    assert focus, "the X server reports no focused window"
    name = _x(display, "xprop", "-id", focus.group(1), "WM_NAME")
    m = re.search(r'= "(.*)"', name)
    return m.group(1) if m else ""


SPACES = """
import json
a = await task_space('Alpha space')
b = await task_space('Beta space')
win = lambda t, p: t.cdp('Browser.getWindowForTarget', {'targetId': p.target_id})
wa = (await win(a, a.page('p1')))['windowId']
wb = (await win(b, b.page('p1')))['windowId']
p2 = await a.new_page()
w2 = (await win(a, p2))['windowId']
print(json.dumps({'alpha': a.space_id, 'beta': b.space_id, 'wa': wa, 'wb': wb, 'w2': w2}))
"""


def test_each_space_is_a_window_titled_with_its_name_and_take_over_focuses_it(headed_rounds, display):
    made = headed_rounds.run(SPACES, timeout=BOUND)
    assert made.returncode == 0, made.stderr
    ids = json.loads(made.stdout.strip().splitlines()[-1])
    # two spaces, two windows; a space's new page opens in its own window
    assert ids["wa"] != ids["wb"]
    assert ids["w2"] == ids["wa"]
    titles = _chromium_windows(display)
    assert sorted(titles) == ["Alpha space", "Beta space", "My browsing"], titles

    listed = json.loads(headed_rounds.cli("spaces", "--json", timeout=BOUND).stdout)["spaces"]
    mine = [s for s in listed if s["name"] == "My browsing"]
    assert [(s["ownership"], s["created_by"]) for s in mine] == [("user", "user")], listed

    # the round's last act activated Alpha's window: taking Beta over brings Beta forward
    assert _focused_title(display) == "Alpha space"
    taken = headed_rounds.cli("spaces", "take-over", str(ids["beta"]), "--json", timeout=BOUND)
    assert taken.returncode == 0, taken.stderr
    assert json.loads(taken.stdout)["ownership"] == "user"
    assert _focused_title(display) == "Beta space"
    assert headed_rounds.cli("spaces", "take-over", str(ids["alpha"]), timeout=BOUND).returncode == 0
    assert _focused_title(display) == "Alpha space"


def test_headed_without_a_display_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(BrowserUnavailable) as err:
        launch_chromium(tmp_path / "profile", headless=False, timeout=5)
    assert "DISPLAY" in err.value.message and "EGO_BROWSER_HEADLESS" in err.value.message


TABS = """
import json
out = {}
for s in await list_task_spaces():
    out[s['name']] = [[t['url'], t['label'], t['opened_by']] for t in await (await task_space(s['id'])).tabs()]
print(json.dumps(out))
"""


def _until_tab(rounds: Rounds, space: str, url: str) -> list[list]:
    """The space lists a tab at ``url`` (the host learns of the tab by an event; a new round
    asks again until it shows, within a bound)."""
    got: dict = {}
    for _ in range(60):
        out = rounds.run(TABS, timeout=BOUND)
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout.strip().splitlines()[-1])
        if any(t[0] == url for t in got.get(space, [])):
            return got[space]
        time.sleep(0.5)  # the rounds are other processes: nothing to wait on but their answer
    raise AssertionError(f"{space!r} never listed a tab at {url}: {got}")


def test_tabs_the_person_opens_join_the_space_of_their_window(headed_rounds, display, server):
    """A tab opened from the browser's own UI (here: a second `chromium` command line, which
    the running browser serves like the person's Ctrl+T / Ctrl+N) is the person's: in the
    window of a space it joins that space as an unmanaged tab, in a new window "My browsing"."""
    server.route("/person-tab", Response("<title>person tab</title><p>mine</p>"))
    server.route("/person-window", Response("<title>person window</title><p>mine too</p>"))
    made = headed_rounds.run("t = await task_space('Gamma space')\nprint(t.space_id)\n", timeout=BOUND)
    assert made.returncode == 0, made.stderr
    assert _focused_title(display) == "Gamma space"
    profile = os.path.join(headed_rounds.home, "profiles", "default")
    chromium = find_chromium()
    env = {**os.environ, "DISPLAY": display}
    for args in ([server.url("/person-tab")], ["--new-window", server.url("/person-window")]):
        out = subprocess.run([chromium, f"--user-data-dir={profile}", "--no-sandbox", *args], env=env,
                             capture_output=True, timeout=BOUND, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr[-2000:]
    gamma = _until_tab(headed_rounds, "Gamma space", server.url("/person-tab"))
    # the person's tab is an unmanaged tab of the space; the agent's page is unchanged
    assert sorted(gamma) == sorted([["about:blank", "p1", "agent"], [server.url("/person-tab"), None, "unknown"]])
    mine = _until_tab(headed_rounds, "My browsing", server.url("/person-window"))
    assert [server.url("/person-window"), None, "unknown"] in mine
