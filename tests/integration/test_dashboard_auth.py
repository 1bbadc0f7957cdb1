"""The dashboard's token stays off command lines and out of the agent's reach (issue 31,
points 2 and 8).

``dashboard --open`` once gave the browser it started the tokenised URL, readable by every
local user in ``/proc/PID/cmdline``; now that browser gets a one-time code. A navigation with
``Sec-Fetch-Site: none`` (what a tab the agent drives sends) needs a secret in the request
itself, and a malformed ``Host`` is a 400, not a traceback.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import ego_browser
from tests.conftest import ROOT
from tests.integration.test_dashboard import _get, dash, viewer  # noqa: F401 - fixtures

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def test_dashboard_open_puts_no_token_on_the_browsers_command_line(fresh_rounds, tmp_path: Path):
    seen = tmp_path / "cmdline"
    fake_browser = tmp_path / "browser.sh"
    # the "browser" records its own command line, as any local user could read it
    fake_browser.write_text(f"#!/bin/sh\ncat /proc/$$/cmdline > {seen}\n")
    fake_browser.chmod(0o755)
    env = {**fresh_rounds.env, "BROWSER": str(fake_browser)}
    run = subprocess.run([sys.executable, "-m", "ego_browser", "dashboard", "--open", "--json"], env=env,
                         capture_output=True, text=True, timeout=120, cwd=str(ROOT), stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    info = json.loads(run.stdout)
    token = info["url"].split("token=", 1)[1]
    assert "once_url" not in info  # the one-time URL went to the browser only
    argv = seen.read_bytes().split(b"\0")
    assert argv[-1] == b"" and len(argv) >= 3, argv
    assert not any(token.encode() in a for a in argv), argv
    opened = argv[-2].decode()
    assert opened.startswith(f"http://127.0.0.1:{info['port']}/?code="), opened
    # the code opens the dashboard once: the answer sets the cookie ...
    status, headers, _b = _get(opened, {"Sec-Fetch-Site": "none"})
    assert status == 303 and headers["Location"] == "/"
    assert headers["Set-Cookie"].startswith(f"ego_dashboard_{info['port']}={token};")
    # ... and then it is dead
    status, _h, _b = _get(opened, {"Sec-Fetch-Site": "none"})
    assert status == 403
    # a made-up code never worked
    status, _h, _b = _get(opened.split("code=")[0] + "code=" + "A" * 32, {"Sec-Fetch-Site": "none"})
    assert status == 403


async def test_a_navigation_with_the_cookie_alone_is_refused(dash):
    base = f"http://127.0.0.1:{dash.port}/"
    none = {"Sec-Fetch-Site": "none"}
    raw = await asyncio.to_thread(_set_cookies, dash.url)
    assert len(raw) == 2 and raw[0].startswith(f"ego_dashboard_{dash.port}=")
    token_cookie, fresh_cookie = (c.split(";")[0] for c in raw)
    both = {"Cookie": f"{token_cookie}; {fresh_cookie}"}
    # the person's own redirect: the one-time cookie lets it in, once
    status, _h, body = await asyncio.to_thread(_get, base, {**none, **both})
    assert status == 200 and b"<title>ego_browser dashboard</title>" in body
    status, _h, _b = await asyncio.to_thread(_get, base, {**none, **both})
    assert status == 403
    # the long-lived cookie alone, on a navigation nobody's page started: refused
    status, _h, _b = await asyncio.to_thread(_get, base, {**none, "Cookie": token_cookie})
    assert status == 403
    # the dashboard's own pages (same-origin) still load with the cookie
    status, _h, _b = await asyncio.to_thread(_get, base + "static/app.js",
                                             {"Sec-Fetch-Site": "same-origin", "Cookie": token_cookie})
    assert status == 200


def _set_cookies(url: str) -> list[str]:
    from tests.integration.test_dashboard import _NoRedirect

    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(urllib.request.Request(url, headers={"Sec-Fetch-Site": "none"}), timeout=10)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.headers.get_all("Set-Cookie") or []
    return []


async def test_the_agents_tab_sent_to_the_dashboard_gets_nothing(dash, viewer):
    """The viewer's visit left the cookie in the browser; an agent's tab of that browser,
    navigated straight to the dashboard (Sec-Fetch-Site: none), is refused by the server."""
    refused = dash.refused
    probe = await ego_browser.task_space("dashboard-none-probe")
    try:
        page = probe.page("p1")
        await page.goto(f"http://127.0.0.1:{dash.port}/")
        assert "Forbidden" in await page.evaluate("document.body.innerText")
        assert dash.refused > refused
    finally:
        await probe.finish(keep=[])


@pytest.mark.parametrize("host_header", ["[::1", "127.0.0.1:notaport", "127.0.0.1/x?y", "user@127.0.0.1"])
async def test_a_malformed_host_header_is_a_400(dash, host_header):
    status, _h, body = await asyncio.to_thread(_get, dash.url, {"Host": host_header})
    assert status == 400 and b"Host" in body
