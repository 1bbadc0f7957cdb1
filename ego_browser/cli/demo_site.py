"""``ego-browser demo-site``: serve the bundled demo shop on 127.0.0.1, for the tutorial.

The tutorial needs a site a reader can reach with nothing but the install: the shop the demo
and the docs' examples use (``demo/site`` in a checkout, ``ego_browser/_demo_site`` in a
wheel). ``ego-browser demo-site`` serves it in the foreground and prints its URL first, alone
on stdout, so ``--detach`` (a server in its own session, for ``SHOP=$(ego-browser demo-site
--detach)``) can hand that line on and leave. The server records itself in
``<home>/demo-site.json`` so ``--stop`` finds it and a second ``--detach`` reuses it.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from .. import config
from ..browser.launcher import pid_alive
from ..errors import BrowserUnavailable, InvalidArgument, InvalidState

__all__ = ["SUMMARY", "SYNOPSIS", "LocalHTTPServer", "configure", "run", "site_dir"]

SUMMARY = "serve the bundled demo shop on 127.0.0.1 (the tutorial's site); prints its URL"
SYNOPSIS = "[--port N] [--detach | --stop]"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent
#: how long --detach waits for the server it started to print its URL
START_LIMIT_S = 30.0


def site_dir() -> Path:
    """The demo shop's files: package data in a wheel, ``demo/site`` in a checkout."""
    for path in (_PACKAGE_DIR / "_demo_site", _PACKAGE_DIR.parent / "demo" / "site"):
        if (path / "index.html").is_file():
            return path
    raise InvalidState("the demo site is not in this install (an incomplete source tree?); reinstall ego_browser")


def _state_file() -> Path:
    return config.home() / "demo-site.json"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--detach", action="store_true",
                      help="serve in the background, print the URL and return (reuses one already running)")
    mode.add_argument("--stop", action="store_true", help="stop the demo site started with --detach")


def run(ns: argparse.Namespace) -> int:
    if ns.stop:
        return _stop()
    if ns.detach:
        return _detach(ns.port)
    return _serve(ns.port)


class LocalHTTPServer(http.server.ThreadingHTTPServer):
    """A threaded HTTP server for pages a browser loads (the demo shop; the tests' and the
    benchmarks' servers use it too). socketserver listens with a backlog of 5: a browser opens
    several connections at once, and while the accept loop waits for the GIL the kernel drops
    the SYNs past the backlog, which the browser retries only after 1, 3, 7, 15 s (a goto then
    "does not commit"; 4 drops in one second measured in a whole-suite run, 280 in a benchmark)."""

    request_queue_size = 1024
    daemon_threads = True


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def _serve(port: int) -> int:
    handler = functools.partial(_Quiet, directory=str(site_dir()))
    try:
        httpd = LocalHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise InvalidArgument(f"demo-site: cannot listen on 127.0.0.1:{port} ({exc.strerror}); "
                              "leave --port out to take a free port") from exc
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    state = {"pid": os.getpid(), "url": url}
    _write_state(state)
    # SIGTERM (--stop) ends the loop like Ctrl-C does, so the state file goes with the server
    signal.signal(signal.SIGTERM, _interrupt)
    print(url, flush=True)
    sys.stderr.write(f"serving the demo shop ({site_dir()}) on {url}; Ctrl-C or "
                     "`ego-browser demo-site --stop` stops it\n")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
        if _read_state() == state:
            with contextlib.suppress(OSError):
                _state_file().unlink()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _write_state(state: dict[str, Any]) -> None:
    config.ensure_home()
    path = _state_file()
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path)


def _read_state() -> dict[str, Any] | None:
    try:
        state = json.loads(_state_file().read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and isinstance(state.get("pid"), int) else None


def _running() -> dict[str, Any] | None:
    """The recorded server, if it still answers at its URL."""
    state = _read_state()
    if not state:
        return None
    try:
        with urllib.request.urlopen(f"{state['url']}/index.html", timeout=2) as resp:  # noqa: S310 - our loopback URL
            return state if resp.status == 200 else None
    except (OSError, ValueError):
        return None


def _detach(port: int) -> int:
    running = _running()
    if running and port in (0, int(running["url"].rsplit(":", 1)[1])):
        print(running["url"])
        return 0
    proc = subprocess.Popen([sys.executable, "-m", "ego_browser", "demo-site", "--port", str(port)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], START_LIMIT_S)
    line = proc.stdout.readline().decode().strip() if ready else ""
    proc.stdout.close()  # the server prints nothing after its URL
    if not line.startswith("http://"):
        proc.kill()
        proc.wait()
        raise BrowserUnavailable(f"demo-site: the server did not start within {START_LIMIT_S:.0f} s; run "
                                 "`ego-browser demo-site` in the foreground to see why")
    print(line)
    return 0


def _stop() -> int:
    state = _read_state()
    if not state or not _running():
        with contextlib.suppress(OSError):
            _state_file().unlink()
        print("no demo site was running")
        return 0
    pid = state["pid"]
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.05)
    with contextlib.suppress(OSError):
        if _read_state() == state:
            _state_file().unlink()
    print(f"stopped the demo site on {state['url']}")
    return 0
