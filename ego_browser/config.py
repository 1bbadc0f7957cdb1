"""Where ego_browser keeps its state, and the knobs read from the environment.

Read lazily: a round that never touches the browser never builds these paths.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["home", "run_dir", "socket_path", "page_budget", "ensure_private_dir"]


def home() -> Path:
    """``EGO_BROWSER_HOME`` or ``~/.local/share/ego-browser``."""
    raw = os.environ.get("EGO_BROWSER_HOME")
    if raw:
        return Path(raw).expanduser().absolute()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "ego-browser"


def run_dir() -> Path:
    """The private directory holding the host's socket, lock and pid files."""
    return home() / "run"


def socket_path() -> Path:
    return run_dir() / "host.sock"


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make it 0700; refuse one owned by another user."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = path.stat()
    if st.st_uid != os.getuid():
        from .errors import BrowserUnavailable

        raise BrowserUnavailable(
            f"{path} belongs to another user; set EGO_BROWSER_HOME to a directory you own",
            endpoint=str(path),
        )
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def page_budget() -> int:
    raw = os.environ.get("EGO_BROWSER_PAGE_BUDGET", "8")
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        from .errors import InvalidArgument

        raise InvalidArgument(
            f"EGO_BROWSER_PAGE_BUDGET must be a positive integer (got {raw!r})",
            api="environment",
            option="EGO_BROWSER_PAGE_BUDGET",
            expected="positive integer",
        )
    return value


def request_deadline() -> float:
    """Seconds after which the host gives up on any one request (the backstop)."""
    return float(os.environ.get("EGO_BROWSER_REQUEST_DEADLINE", "120"))


def idle_shutdown() -> float:
    """Seconds without requests after which the background host stops its browser and exits."""
    return float(os.environ.get("EGO_BROWSER_IDLE_SHUTDOWN", "3600"))
