"""Find, launch and reach Chromium.

The embedded default launches a system Chromium headless with a persistent profile and
``--remote-debugging-port=0``; the port is read back from ``DevToolsActivePort`` in the
profile. ``EGO_BROWSER_CDP_URL`` attaches to a running endpoint instead, given either as a
``ws://`` URL or as ``http://host:port`` (resolved through ``/json/version``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..errors import BrowserUnavailable

__all__ = [
    "REQUIRED_FLAGS",
    "BrowserProcess",
    "find_chromium",
    "launch_chromium",
    "resolve_cdp_url",
]

#: flags Chromium needs here (root, no network, no GPU); see DESIGN.md "The browser"
REQUIRED_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    "--hide-scrollbars",
)

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str:
    """``EGO_BROWSER_CHROMIUM``, then the usual executable names on ``PATH``."""
    explicit = os.environ.get("EGO_BROWSER_CHROMIUM")
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        found = shutil.which(explicit)
        if found:
            return found
        raise BrowserUnavailable(
            f"EGO_BROWSER_CHROMIUM={explicit!r} is not an executable; point it at a Chromium binary",
            endpoint=explicit,
        )
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserUnavailable(
        "no Chromium found (tried EGO_BROWSER_CHROMIUM, " + ", ".join(_CANDIDATES) + "); "
        "install one (Debian: apt-get install -y chromium, or `make setup`) or set EGO_BROWSER_CDP_URL",
        endpoint=None,
    )


@dataclass
class BrowserProcess:
    """A Chromium we launched: its pid, its browser websocket URL and its profile."""

    pid: int
    ws_url: str
    user_data_dir: str
    proc: subprocess.Popen | None = None

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        return pid_alive(self.pid)

    def terminate(self, timeout: float = 5.0) -> None:
        """Stop Chromium and its helpers; escalate to SIGKILL at the deadline."""
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None:
                try:
                    self.proc.wait(timeout=0.05)
                    break
                except subprocess.TimeoutExpired:
                    continue
            elif not pid_alive(self.pid):
                break
            time.sleep(0.05)
        else:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if self.proc is not None:
                self.proc.wait(timeout=2)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child still answers kill(0); look at its state
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().split(b") ", 1)[1][:1] != b"Z"
    except OSError:
        return True


def headless_enabled() -> bool:
    return os.environ.get("EGO_BROWSER_HEADLESS", "1").strip().lower() not in ("0", "false", "no")


def extra_args_from_env() -> list[str]:
    raw = os.environ.get("EGO_BROWSER_ARGS", "")
    return [line.strip() for line in raw.splitlines() if line.strip()]


def launch_chromium(
    user_data_dir: str | os.PathLike,
    *,
    executable: str | None = None,
    extra_args: list[str] | None = None,
    headless: bool | None = None,
    timeout: float = 30.0,
    log_path: str | os.PathLike | None = None,
    die_with_parent: bool = False,
) -> BrowserProcess:
    """Launch Chromium on a free port and wait for its DevTools endpoint.

    Chromium runs in its own process group so that stopping it takes its helpers along.
    ``die_with_parent`` (Linux): the kernel kills Chromium if the launching thread's process
    dies, even by SIGKILL; call it from a thread that lives as long as the process.
    """
    executable = executable or find_chromium()
    profile = Path(user_data_dir)
    profile.mkdir(parents=True, exist_ok=True, mode=0o700)
    port_file = profile / "DevToolsActivePort"
    try:
        port_file.unlink()
    except FileNotFoundError:
        pass
    if headless is None:
        headless = headless_enabled()
    args = [
        executable,
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        "--remote-allow-origins=*",
        *REQUIRED_FLAGS,
        *(["--headless"] if headless else []),
        *extra_args_from_env(),
        *(extra_args or []),
        "about:blank",
    ]
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            preexec_fn=_die_with_parent if die_with_parent else None,
        )
    finally:
        if log_path:
            log.close()
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise BrowserUnavailable(
                f"Chromium ({executable}) exited with status {proc.returncode} before opening its "
                f"DevTools port; run `python -m ego_browser doctor`",
                endpoint=executable,
            )
        try:
            text = port_file.read_text()
        except FileNotFoundError:
            text = ""
        lines = text.splitlines()
        if len(lines) >= 2:
            ws_url = f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
            return BrowserProcess(pid=proc.pid, ws_url=ws_url, user_data_dir=str(profile), proc=proc)
        if time.monotonic() > deadline:
            BrowserProcess(proc.pid, "", str(profile), proc).terminate()
            raise BrowserUnavailable(
                f"Chromium did not open its DevTools port within {timeout:.0f}s", endpoint=executable
            )
        # The port file appears once; a short sleep keeps this start-up loop cheap. It only
        # runs while Chromium boots, never on a page action.
        time.sleep(0.02)


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the parent goes (prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the host's stop() still ends Chromium
        pass


def resolve_cdp_url(url: str, *, timeout: float = 5.0) -> str:
    """Turn ``http://host:port`` (or a bare ``host:port``) into the browser websocket URL."""
    url = url.strip()
    if url.startswith(("ws://", "wss://")):
        return url
    if not url.startswith(("http://", "https://")):
        url = "http://" + url
    version_url = url.rstrip("/") + "/json/version"
    try:
        with urllib.request.urlopen(version_url, timeout=timeout) as resp:  # noqa: S310 (local endpoint)
            info = orjson.loads(resp.read())
    except Exception as exc:
        raise BrowserUnavailable(
            f"cannot reach the CDP endpoint {url} ({exc}); check EGO_BROWSER_CDP_URL", endpoint=url
        ) from exc
    ws = info.get("webSocketDebuggerUrl")
    if not ws:
        raise BrowserUnavailable(f"{version_url} has no webSocketDebuggerUrl", endpoint=url)
    return ws


async def resolve_cdp_url_async(url: str, *, timeout: float = 5.0) -> str:
    if url.strip().startswith(("ws://", "wss://")):
        return url.strip()
    return await asyncio.to_thread(resolve_cdp_url, url, timeout=timeout)
