"""Find, launch and reach Chromium.

The default launches a system Chromium headless with a persistent profile and
``--remote-debugging-pipe``: no TCP port, the pipe held by a keeper process that serves it on
a 0600 Unix socket (``keeper.py``; docs/security.md says why). ``EGO_BROWSER_CDP_URL``
attaches to a running endpoint instead, given either as a ``ws://`` URL or as
``http://host:port`` (resolved through ``/json/version``).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import BrowserUnavailable

__all__ = [
    "DISABLED_FEATURES",
    "REQUIRED_FLAGS",
    "BrowserProcess",
    "KeeperLaunch",
    "check_display",
    "find_chromium",
    "headless_enabled",
    "launched_headless",
    "launch_chromium",
    "pid_alive",
    "process_matches",
    "resolve_cdp_url",
    "start_keeper",
    "start_time",
]

#: Chromium features we turn off. ``WebUIOmnibox*Popup``: every browser window (each task space
#: has its own) preloads the address bar's popups as WebUI pages, ~600 ms of CPU per window in
#: a ``--top-chrome-webui`` renderer, for a popup nobody opens in headless use (headful windows
#: fall back to the classic popup); docs/architecture.md, "Rounds"
DISABLED_FEATURES = (
    "Translate", "MediaRouter", "OptimizationHints",
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup",
)

#: flags Chromium needs here (root, no network, no GPU); see DESIGN.md "The browser".
#: ``--disable-back-forward-cache``: a page left by a navigation is not kept alive for a back
#: button nobody presses. Each kept page held ~5 MB of every tab that navigated (browser and
#: renderer: 26.9 against 22.0 MB per idle tab after ten navigations, docs/architecture.md),
#: and a back navigation that loads again is seen by the network log, the routes and the
#: journal like any other (Playwright passes the same flag for that reason)
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
    "--disable-features=" + ",".join(DISABLED_FEATURES),
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-back-forward-cache",
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
    """A Chromium we launched: its pid, its CDP endpoint and its profile.

    ``ws_url`` is what ``Connection.connect`` takes: ``unix:PATH`` (the keeper's socket, the
    default) or ``ws://127.0.0.1:PORT/...`` (``debugging_port=True``). ``leader`` is the process
    whose group holds Chromium and its helpers (the keeper, or Chromium itself), and
    ``leader_start`` its start time, so that a record read back from disk signals nothing but
    the process it describes.
    """

    pid: int
    ws_url: str
    user_data_dir: str
    proc: subprocess.Popen[bytes] | None = None
    leader: int = 0
    leader_start: int | None = None
    instance: str = ""
    #: a socket directory we made for this launch (removed with the browser)
    own_dir: str | None = None

    def __post_init__(self) -> None:
        if not self.leader:
            self.leader = self.pid

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        return pid_alive(self.pid)

    def is_ours(self) -> bool:
        """The group leader is still the process we launched (not a reused pid)."""
        if self.proc is not None:
            return self.proc.poll() is None
        return process_matches(self.leader, self.leader_start, self.user_data_dir)

    def terminate(self, timeout: float = 5.0) -> None:
        """Stop Chromium and its helpers; escalate to SIGKILL at the deadline.

        A process we did not start in this process (read back from ``browser.json``) is
        signalled only after its start time and its ``--user-data-dir`` are checked: a pid
        reused by an unrelated process is left alone.
        """
        try:
            if not self.is_ours():
                return
            try:
                os.killpg(self.leader, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                try:
                    os.kill(self.leader, signal.SIGTERM)
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
                elif not pid_alive(self.leader):
                    break
                time.sleep(0.05)  # another process's exit has no event to wait on
            else:
                if self.is_ours():
                    try:
                        os.killpg(self.leader, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                if self.proc is not None:
                    self.proc.wait(timeout=2)
        finally:
            if self.own_dir:
                shutil.rmtree(self.own_dir, ignore_errors=True)


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
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


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b") ", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def process_matches(pid: int, started: int | None, user_data_dir: str) -> bool:
    """``pid`` is alive, started when recorded, and runs with this ``--user-data-dir``."""
    if pid <= 0 or not user_data_dir or not pid_alive(pid):
        return False
    if started is not None and start_time(pid) != started:
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return False
    return os.fsencode(f"--user-data-dir={user_data_dir}") in argv


def headless_enabled() -> bool:
    return os.environ.get("EGO_BROWSER_HEADLESS", "1").strip().lower() not in ("0", "false", "no")


def launched_headless(pid: int) -> bool:
    """The Chromium of ``pid`` runs headless (its command line says so; unknown: headless)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return True
    return any(a == b"--headless" or a.startswith(b"--headless=") for a in argv)


def check_display() -> None:
    """Headed Chromium needs a display; without one it exits with an X11 error in its log."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise BrowserUnavailable(
            "EGO_BROWSER_HEADLESS=0 asks for browser windows but no display is set (DISPLAY or "
            "WAYLAND_DISPLAY); start one (e.g. `Xvfb :99 &` then DISPLAY=:99) or unset EGO_BROWSER_HEADLESS",
            endpoint=os.environ.get("DISPLAY") or None,
        )


def extra_args_from_env() -> list[str]:
    raw = os.environ.get("EGO_BROWSER_ARGS", "")
    return [line.strip() for line in raw.splitlines() if line.strip()]


def merge_feature_switches(args: list[str]) -> list[str]:
    """One ``--disable-features``/``--enable-features`` each, listing every feature given.

    Chromium keeps only the last of a repeated switch, so a ``--disable-features`` in
    ``EGO_BROWSER_ARGS`` would silently turn our ``DISABLED_FEATURES`` back on.
    """
    merged: dict[str, list[str]] = {}
    out: list[str] = []
    for arg in args:
        name, sep, value = arg.partition("=")
        if sep and name in ("--disable-features", "--enable-features"):
            if name not in merged:
                merged[name] = []
                out.append(name)
            merged[name].extend(f for f in value.split(",") if f and f not in merged[name])
        else:
            out.append(arg)
    return [f"{a}={','.join(merged[a])}" if a in merged else a for a in out]


def launch_chromium(
    user_data_dir: str | os.PathLike[str],
    *,
    executable: str | None = None,
    extra_args: list[str] | None = None,
    headless: bool | None = None,
    timeout: float = 30.0,
    log_path: str | os.PathLike[str] | None = None,
    die_with_parent: bool = False,
    socket_path: str | os.PathLike[str] | None = None,
    debugging_port: bool = False,
) -> BrowserProcess:
    """Launch Chromium and wait until its DevTools endpoint answers.

    By default Chromium speaks CDP only on ``--remote-debugging-pipe``, held by a keeper
    process (``keeper.py``) that serves it on ``socket_path`` (default: a fresh private temp
    directory); no TCP port is opened. A keeper left with no client and no live host for
    ``EGO_BROWSER_KEEPER_GRACE`` seconds (60) stops its Chromium and exits. ``debugging_port=True`` opens a loopback port instead,
    for tools that need one (benchmarks against other libraries, ``EGO_BROWSER_CDP_URL``
    tests): any local user can drive such a browser, so the host never asks for it.

    Chromium (with the keeper) runs in its own process group so that stopping it takes its
    helpers along. ``die_with_parent`` (Linux): the kernel kills the keeper, and with it
    Chromium, if the launching thread's process dies, even by SIGKILL; call it from a thread
    that lives as long as the process.
    """
    if debugging_port:
        profile, browser_args = _browser_args(user_data_dir, executable, extra_args, headless)
        return _launch_with_port(profile, browser_args, timeout, log_path, die_with_parent)
    return start_keeper(user_data_dir, executable=executable, extra_args=extra_args, headless=headless,
                        log_path=log_path, die_with_parent=die_with_parent, socket_path=socket_path).ready(timeout)


def _browser_args(user_data_dir: str | os.PathLike[str], executable: str | None, extra_args: list[str] | None,
                  headless: bool | None) -> tuple[Path, list[str]]:
    executable = executable or find_chromium()
    profile = Path(user_data_dir).absolute()
    _private_dirs(profile)
    if headless is None:
        headless = headless_enabled()
    if not headless:
        check_display()
    return profile, [
        executable,
        f"--user-data-dir={profile}",
        *merge_feature_switches([*REQUIRED_FLAGS, *(["--headless"] if headless else []),
                                 *extra_args_from_env(), *(extra_args or [])]),
        "about:blank",
    ]


@dataclass
class KeeperLaunch:
    """A keeper and its Chromium on their way up: :meth:`ready` waits for the keeper's word.

    Split from the wait so that a host can start Chromium first and load itself while it boots
    (``browser/early.py``)."""

    proc: subprocess.Popen[bytes]
    profile: Path
    executable: str
    socket_path: str
    own_dir: str | None
    log_path: str | os.PathLike[str] | None

    def ready(self, timeout: float = 30.0) -> BrowserProcess:
        """The launched browser once its keeper serves it; BrowserUnavailable if it did not start."""
        proc = self.proc
        assert proc.stdout is not None
        line = b""
        try:
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            line = proc.stdout.readline() if ready else b""
        finally:
            proc.stdout.close()
        import orjson

        info = None
        with contextlib.suppress(ValueError):
            info = orjson.loads(line)
        if not isinstance(info, dict) or "pid" not in info:
            self.abandon()
            why = info.get("error") if isinstance(info, dict) else (
                f"no answer within {timeout:.0f}s" if not line else line[:200].decode(errors="replace"))
            raise BrowserUnavailable(
                f"Chromium ({self.executable}) did not start: {why or 'exited with status %s' % proc.poll()}"
                + (f"; see {self.log_path}" if self.log_path else "") + "; run `ego-browser doctor`",
                endpoint=self.executable,
            )
        return BrowserProcess(
            pid=int(info["pid"]), ws_url="unix:" + self.socket_path, user_data_dir=str(self.profile), proc=proc,
            leader=proc.pid, leader_start=start_time(proc.pid), instance=str(info.get("instance") or ""),
            own_dir=self.own_dir,
        )

    def abandon(self) -> None:
        """Stop the keeper and its Chromium (a launch nobody will use)."""
        if self.proc.stdout is not None and not self.proc.stdout.closed:
            self.proc.stdout.close()
        BrowserProcess(self.proc.pid, "", str(self.profile), self.proc, own_dir=self.own_dir).terminate(timeout=2)


def start_keeper(
    user_data_dir: str | os.PathLike[str],
    *,
    executable: str | None = None,
    extra_args: list[str] | None = None,
    headless: bool | None = None,
    log_path: str | os.PathLike[str] | None = None,
    die_with_parent: bool = False,
    socket_path: str | os.PathLike[str] | None = None,
) -> KeeperLaunch:
    """Start the keeper and its Chromium (``launch_chromium`` without the wait)."""
    profile, browser_args = _browser_args(user_data_dir, executable, extra_args, headless)
    own_dir = None
    if socket_path is None:
        own_dir = tempfile.mkdtemp(prefix="ego-keeper-")
        socket_path = os.path.join(own_dir, "browser.sock")
    socket_path = os.fspath(Path(socket_path).absolute())
    _private_dirs(Path(socket_path).parent)
    from ..config import keeper_grace

    args = [sys.executable, "-I", "-S", _KEEPER, "--socket", socket_path, "--grace", repr(keeper_grace()),
            *(["--own-dir", own_dir] if own_dir else []), f"--user-data-dir={profile}",
            "--", browser_args[0], "--remote-debugging-pipe", *browser_args[1:]]
    log = _open_log(log_path)
    try:
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
            start_new_session=True, close_fds=True,
            preexec_fn=_die_with_parent if die_with_parent else None,
        )
    finally:
        if not isinstance(log, int):  # a file of ours (log_path given), not DEVNULL
            log.close()
    return KeeperLaunch(proc, profile, browser_args[0], socket_path, own_dir, log_path)


_KEEPER = str(Path(__file__).with_name("keeper.py"))


def _private_dirs(path: Path) -> None:
    """Make ``path`` and every missing parent 0700 (mkdir's mode covers only the last one)."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        with contextlib.suppress(FileExistsError):
            p.mkdir(mode=0o700)


def _open_log(log_path: str | os.PathLike[str] | None) -> int | BinaryIO:
    if not log_path:
        return subprocess.DEVNULL
    return os.fdopen(os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")


def _launch_with_port(
    profile: Path, browser_args: list[str], timeout: float, log_path: str | os.PathLike[str] | None,
    die_with_parent: bool,
) -> BrowserProcess:
    port_file = profile / "DevToolsActivePort"
    with contextlib.suppress(FileNotFoundError):
        port_file.unlink()
    args = [browser_args[0], "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
            *browser_args[1:]]
    log = _open_log(log_path)
    try:
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, close_fds=True,
            preexec_fn=_die_with_parent if die_with_parent else _private_umask,
        )
    finally:
        if not isinstance(log, int):  # a file of ours (log_path given), not DEVNULL
            log.close()
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise BrowserUnavailable(
                f"Chromium ({args[0]}) exited with status {proc.returncode} before opening its "
                f"DevTools port; run `ego-browser doctor`",
                endpoint=args[0],
            )
        try:
            text = port_file.read_text()
        except FileNotFoundError:
            text = ""
        lines = text.splitlines()
        if len(lines) >= 2:
            ws_url = f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
            return BrowserProcess(pid=proc.pid, ws_url=ws_url, user_data_dir=str(profile), proc=proc,
                                  leader_start=start_time(proc.pid))
        if time.monotonic() > deadline:
            BrowserProcess(proc.pid, "", str(profile), proc).terminate()
            raise BrowserUnavailable(
                f"Chromium did not open its DevTools port within {timeout:.0f}s", endpoint=args[0]
            )
        # The port file appears once; a short sleep keeps this start-up loop cheap. It only
        # runs while Chromium boots, never on a page action.
        time.sleep(0.02)


def _private_umask() -> None:
    os.umask(0o077)


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the parent goes (prctl PR_SET_PDEATHSIG)."""
    os.umask(0o077)
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
    import urllib.request  # only for a CDP URL given by address (http.client is no light import)

    import orjson

    try:
        with urllib.request.urlopen(version_url, timeout=timeout) as resp:  # noqa: S310 (local endpoint)
            info = orjson.loads(resp.read())
    except Exception as exc:  # noqa: BLE001 - any failure to read it (refused, bad JSON, HTTP error) means no endpoint
        raise BrowserUnavailable(
            f"cannot reach the CDP endpoint {url} ({exc}); check EGO_BROWSER_CDP_URL", endpoint=url
        ) from exc
    ws: str | None = info.get("webSocketDebuggerUrl")
    if not ws:
        raise BrowserUnavailable(f"{version_url} has no webSocketDebuggerUrl", endpoint=url)
    return ws


async def resolve_cdp_url_async(url: str, *, timeout: float = 5.0) -> str:
    if url.strip().startswith(("ws://", "wss://")):
        return url.strip()
    import asyncio

    return await asyncio.to_thread(resolve_cdp_url, url, timeout=timeout)
