"""The browser: a system Chromium we launch, or any CDP endpoint through EGO_BROWSER_CDP_URL."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap

import pytest

from ego_browser.browser.launcher import (
    DISABLED_FEATURES,
    REQUIRED_FLAGS,
    extra_args_from_env,
    launch_chromium,
    merge_feature_switches,
    pid_alive,
    resolve_cdp_url,
)
from ego_browser.cdp import Connection
from ego_browser.errors import BrowserUnavailable
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def separate_chromium(tmp_path_factory):
    proc = launch_chromium(tmp_path_factory.mktemp("separate-profile"), debugging_port=True)
    yield proc
    proc.terminate()


def _drive(env: dict[str, str], url: str) -> subprocess.CompletedProcess:
    script = textwrap.dedent(f"""
        import asyncio, ego_browser
        async def main():
            async with ego_browser.embedded() as host:
                t = await ego_browser.task_space("remote")
                await t.page("p1").goto({url!r})
                print(await t.page("p1").title(), t.page("p1").target_id, host.browser.owned, sep="|")
        asyncio.run(main())
    """)
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)


@pytest.mark.parametrize("form", ["ws", "http"])
def test_cdp_url_attaches_to_a_running_browser(separate_chromium, server, tmp_path, form):
    url = server.page(f"/remote-{form}", "remote", title=f"Remote {form}")
    port = separate_chromium.ws_url.split(":")[2].split("/")[0]
    endpoint = separate_chromium.ws_url if form == "ws" else f"http://127.0.0.1:{port}"
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"), "EGO_BROWSER_CDP_URL": endpoint,
           "PYTHONPATH": str(ROOT)}
    proc = _drive(env, url)
    assert proc.returncode == 0, proc.stderr
    title, target_id, owned = proc.stdout.strip().split("|")
    assert title == f"Remote {form}"
    assert owned == "False"

    async def check() -> list[str]:
        conn = await Connection.connect(separate_chromium.ws_url)
        try:
            infos = (await conn.send("Target.getTargets"))["targetInfos"]
        finally:
            await conn.close()
        return [i["targetId"] for i in infos]

    # the page was opened in the separate browser, which is still running (not ours to stop);
    # the space's tab is closed by nobody, so it is still listed there
    assert separate_chromium.alive()
    assert target_id in asyncio.run(check())


def test_resolve_cdp_url_forms(separate_chromium):
    port = separate_chromium.ws_url.split(":")[2].split("/")[0]
    assert resolve_cdp_url(f"http://127.0.0.1:{port}") == separate_chromium.ws_url
    assert resolve_cdp_url(f"127.0.0.1:{port}") == separate_chromium.ws_url
    assert resolve_cdp_url(separate_chromium.ws_url) == separate_chromium.ws_url
    with pytest.raises(BrowserUnavailable, match="EGO_BROWSER_CDP_URL"):
        resolve_cdp_url("http://127.0.0.1:9", timeout=1)


def test_embedded_host_leaves_no_chromium_behind(tmp_path, server):
    url = server.page("/embedded-exit", "x")
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("EGO_BROWSER_CDP_URL", None)
    script = textwrap.dedent(f"""
        import asyncio, ego_browser
        async def main():
            async with ego_browser.embedded() as host:
                await (await ego_browser.task_space("x")).page("p1").goto({url!r})
                print(host.browser.process.pid)
        asyncio.run(main())
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not pid_alive(int(proc.stdout.strip()))


def test_missing_chromium_is_a_clear_error(tmp_path):
    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"), "EGO_BROWSER_CHROMIUM": "/nonexistent/chrome",
           "PYTHONPATH": str(ROOT)}
    env.pop("EGO_BROWSER_CDP_URL", None)
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "-e", "await task_space('x')"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "EGO_BROWSER_UNAVAILABLE" in proc.stderr and "EGO_BROWSER_CHROMIUM" in proc.stderr


def test_killed_embedded_host_takes_its_chromium_along(tmp_path):
    """A test or library process killed with SIGKILL leaves no Chromium running."""
    import signal
    import time

    env = {**os.environ, "EGO_BROWSER_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("EGO_BROWSER_CDP_URL", None)
    script = textwrap.dedent("""
        import asyncio, ego_browser
        async def main():
            async with ego_browser.embedded() as host:
                await ego_browser.task_space("x")
                print(host.browser.process.pid, flush=True)
                await asyncio.sleep(60)
        asyncio.run(main())
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
    try:
        browser_pid = int(proc.stdout.readline())
        assert pid_alive(browser_pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while pid_alive(browser_pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # waiting for another process to exit: there is no event for it
        assert not pid_alive(browser_pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        proc.stdout.close()  # filterwarnings = error: an unclosed pipe fails the test


async def test_space_windows_preload_no_webui_popups(task, host):
    """Every space has its own window; each window used to preload the address bar's popups as
    WebUI pages (~600 ms of Chromium CPU per new space, docs/architecture.md "Rounds")."""
    await task.page("p1").goto("about:blank")
    res = await host.browser.conn.send("Target.getTargets", {"filter": [{}]})
    webui = [t["url"] for t in res["targetInfos"] if t["url"].startswith("chrome://omnibox-popup")]
    assert webui == []


def test_feature_switches_from_the_environment_add_to_ours(monkeypatch):
    """Chromium keeps only the last --disable-features: one from EGO_BROWSER_ARGS must not undo ours."""
    monkeypatch.setenv("EGO_BROWSER_ARGS", "--disable-features=Foo,Translate\n--enable-features=Bar\n--mute-audio")
    args = merge_feature_switches([*REQUIRED_FLAGS, *extra_args_from_env()])
    disabled = [a for a in args if a.startswith("--disable-features")]
    assert len(disabled) == 1
    assert disabled[0].split("=", 1)[1].split(",") == [*DISABLED_FEATURES, "Foo"]
    assert [a for a in args if a.startswith("--enable-features")] == ["--enable-features=Bar"]
    assert args.count("--mute-audio") == 2  # other switches pass through as given
