"""Set-up and drivers for the peers we measure ourselves against (see shared PEERS.md).

Every bench module uses these so that all peers run on the same Chromium binary with the
same flags and see the same pages (``benchmarks/pages.py``). Install the peers with
``bash benchmarks/setup_peers.sh`` (into ``benchmarks/.peers/``, gitignored).

A peer that is not installed never raises: ``missing(name)`` gives the reason, and the
drivers return ``None`` (``playwright_page()`` yields ``None``) so a bench can record a
"skipped: <reason>" row and carry on.

- ``playwright_page()``      async context manager yielding a Playwright page
- ``agent_browser(cmd, *a)`` one CLI call of Vercel's agent-browser -> (stdout, seconds)
- ``browser_use_state(url)`` browser-use's DOM state text, no model -> (text, seconds)
- ``ego_chromium()``         a Chromium launched by our own launcher (for our side)

and small helpers for the tables: ``median``, ``ms``, ``ratio``, ``md_table``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEERS_DIR = HERE / ".peers"

if str(ROOT) not in sys.path:  # `import ego_browser` from a checkout, without installing
    sys.path.insert(0, str(ROOT))

CHROMIUM = os.environ.get("EGO_BROWSER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

#: what Chromium needs here (root, no network, no GPU); the same for every peer
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

AB_DIR = PEERS_DIR / "agent-browser"
AB_BIN = AB_DIR / "node_modules" / "agent-browser" / "bin" / "agent-browser-linux-x64"
BU_PYTHON = PEERS_DIR / "bu-venv" / "bin" / "python"
BU_HELPER = HERE / "_bu_state.py"

__all__ = [
    "CHROMIUM",
    "FLAGS",
    "ego_env",
    "agent_browser",
    "agent_browser_env",
    "browser_use_state",
    "browser_use_state_full",
    "chromium_version",
    "ego_chromium",
    "md_table",
    "median",
    "missing",
    "ms",
    "playwright_page",
    "ratio",
]


# -- availability ---------------------------------------------------------------------------


def missing(peer: str) -> str | None:
    """Why ``peer`` ("playwright", "agent-browser", "browser-use", "chromium") can't run, or None."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM}"
    if peer == "chromium":
        return None
    if peer == "playwright":
        try:
            import playwright.async_api  # noqa: F401
        except ImportError:
            return "playwright not installed in this venv (pip install -e '.[peers]')"
        return None
    if peer == "agent-browser":
        if not AB_BIN.is_file():
            return f"agent-browser not installed ({AB_BIN} missing; run benchmarks/setup_peers.sh)"
        if not os.access(AB_BIN, os.X_OK):
            return f"{AB_BIN} is not executable (run benchmarks/setup_peers.sh)"
        return None
    if peer == "browser-use":
        if not BU_PYTHON.is_file():
            return f"browser-use venv missing ({BU_PYTHON}; run benchmarks/setup_peers.sh)"
        return None
    return f"unknown peer {peer!r}"


def chromium_version() -> str:
    try:
        out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=20).stdout
    except Exception as exc:  # noqa: BLE001
        return f"unknown ({exc})"
    return out.strip() or "unknown"


# -- Playwright -----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def playwright_page(url: str | None = None, extra_args: Sequence[str] = (), **launch: Any) -> AsyncIterator[Any]:
    """Launch Playwright's Chromium on our binary and yield one page (``None`` if missing).

    ``url``, if given, is opened before yielding. ``extra_args`` are Chromium flags after ours;
    extra keyword arguments go to ``launch``.
    """
    if missing("playwright"):
        yield None
        return
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=[*FLAGS[1:], *extra_args], headless=True,
                                            **launch)
        try:
            page = await browser.new_page()
            if url:
                await page.goto(url)
            yield page
        finally:
            await browser.close()


# -- agent-browser --------------------------------------------------------------------------


def agent_browser_env(session: str | None = None) -> dict[str, str]:
    """The environment the native CLI needs here; everything it writes stays in .peers/."""
    for sub in ("home", "tmp", "sock"):
        (AB_DIR / sub).mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        AGENT_BROWSER_EXECUTABLE_PATH=CHROMIUM,
        AGENT_BROWSER_ARGS="\n".join(FLAGS),  # newline-separated; never --user-data-dir
        AGENT_BROWSER_NO_VERSION_CHECK="1",
        HOME=str(AB_DIR / "home"),
        TMPDIR=str(AB_DIR / "tmp"),
        AGENT_BROWSER_SOCKET_DIR=str(AB_DIR / "sock"),
    )
    if session:
        env["AGENT_BROWSER_SESSION"] = session
    return env


class AgentBrowserError(RuntimeError):
    def __init__(self, argv: Sequence[str], code: int, stdout: str, stderr: str) -> None:
        super().__init__(f"agent-browser {' '.join(argv)} exited {code}: {(stderr or stdout).strip()[:500]}")
        self.code = code
        self.stdout = stdout
        self.stderr = stderr


def agent_browser(
    cmd: str, *args: str, timeout: float = 60.0, session: str | None = None, check: bool = True
) -> tuple[str, float] | None:
    """Run one agent-browser CLI call; return ``(stdout, wall seconds)`` or None if missing.

    The wall time covers the whole process (start, talk to its daemon, print), which is what
    an agent pays per action. The first call of a session also starts the daemon and Chromium.
    ``check`` raises ``AgentBrowserError`` on a non-zero exit.
    """
    if missing("agent-browser"):
        return None
    argv = [cmd, *args]
    env = agent_browser_env(session)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(AB_BIN), *argv], env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - t0
    if check and proc.returncode != 0:
        raise AgentBrowserError(argv, proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout, seconds


def agent_browser_close(session: str | None = None) -> None:
    """Close a session's browser and daemon; never raises."""
    if missing("agent-browser"):
        return
    try:
        agent_browser("close", session=session, check=False, timeout=30)
    except Exception:  # noqa: BLE001
        pass


# -- browser-use ----------------------------------------------------------------------------


def browser_use_state_full(
    url: str, *, repeat: int = 3, full_page: bool = False, timeout: float = 300.0
) -> dict[str, Any] | None:
    """Run the bu-venv helper; returns its JSON (``seconds`` list, ``text``, sizes) or None.

    Timing is measured inside the helper around ``get_browser_state_summary`` +
    ``llm_representation`` only (no process start, browser launch or navigation).
    """
    if missing("browser-use"):
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".txt", delete=False) as fh:
        text_path = fh.name
    try:
        argv = [str(BU_PYTHON), str(BU_HELPER), url, "--repeat", str(repeat), "--text-out", text_path,
                *(f"--flag={flag}" for flag in FLAGS),
                "--executable", CHROMIUM]
        if full_page:
            argv.append("--full-page")
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # keep our packages out of its venv
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            raise RuntimeError(f"browser-use helper exited {proc.returncode}: {proc.stderr.strip()[-800:]}")
        data = json.loads(lines[-1])
        data["text"] = Path(text_path).read_text()
        return data
    finally:
        with contextlib.suppress(OSError):
            os.unlink(text_path)


def browser_use_state(url: str, *, repeat: int = 3, full_page: bool = False) -> tuple[str, float] | None:
    """browser-use's DOM state text for ``url`` and the median seconds to produce it (or None)."""
    data = browser_use_state_full(url, repeat=repeat, full_page=full_page)
    if data is None:
        return None
    return data["text"], median(data["seconds"])


# -- our side -------------------------------------------------------------------------------


@contextlib.contextmanager
def ego_chromium(extra_args: Sequence[str] = (), *, pipe: bool = False) -> Iterator[Any]:
    """A headless Chromium launched by ``ego_browser.browser.launcher`` in a throw-away profile.

    Yields the ``BrowserProcess``; stopped on exit. ``.ws_url`` is a loopback websocket (the
    other tools need one), or with ``pipe=True`` the keeper's Unix socket, as the host uses.
    """
    from ego_browser.browser.launcher import launch_chromium

    profile = tempfile.mkdtemp(prefix="ego-bench-")
    # die_with_parent: a bench killed mid-run (SIGKILL, a timeout) leaves no Chromium behind; the
    # benches call this from their main thread, which lives as long as the process
    proc = launch_chromium(profile, executable=CHROMIUM, headless=True, extra_args=list(extra_args),
                           debugging_port=not pipe, die_with_parent=True)
    try:
        yield proc
    finally:
        proc.terminate()
        shutil.rmtree(profile, ignore_errors=True)


async def settled(t: Any) -> None:
    """Until a ``CdpSnapshotTarget``'s document is complete (bounded: 5 s), then re-read its frames."""
    import asyncio

    for _ in range(100):
        r = await t.main_session.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        if r["result"].get("value") == "complete":
            break
        await asyncio.sleep(0.05)
    await t.refresh()


# -- numbers and tables ---------------------------------------------------------------------


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def ms(seconds: float | None, digits: int = 3) -> str:
    if seconds is None or seconds != seconds:
        return "—"
    return f"{seconds * 1000:.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    """``a / b`` as ``1.23×`` (— when either is missing)."""
    if not a or not b or a != a or b != b:
        return "—"
    return f"{a / b:.2f}×"


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


def ego_env(home: str) -> dict[str, str]:
    """Environment for ego_browser processes of a bench: a private home, our Chromium, this tree."""
    env = dict(os.environ)
    env["EGO_BROWSER_HOME"] = home
    env["EGO_BROWSER_CHROMIUM"] = CHROMIUM
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("EGO_BROWSER_CDP_URL", None)
    return env
