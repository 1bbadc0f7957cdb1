"""Where ego_browser keeps its state, and the knobs read from the environment.

Read lazily: a round that never touches the browser never builds these paths.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

__all__ = ["home", "run_dir", "socket_path", "page_budget", "ensure_home", "ensure_private_dir", "open_private"]


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


def ensure_home(path: Path | None = None) -> Path:
    """The data directory, ready to use; created 0700 (missing parents too) if missing.

    A directory that already exists is never chmod-ed: it may be a shared one the person
    pointed ``EGO_BROWSER_HOME`` at (a 1777 ``/tmp`` loses its sticky bit otherwise). One that
    another user owns, or that others may write into (they could plant files and links where
    ours go), is refused; one that others may only read is used as it is, since everything
    ego_browser creates inside it is private.
    """
    path = path or home()
    if not path.exists():
        _make_private_dirs(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise _home_error(path, f"cannot be used ({exc.strerror})") from exc
    import stat

    if not stat.S_ISDIR(st.st_mode):
        raise _home_error(path, "is not a directory")
    if st.st_uid != os.getuid():
        raise _home_error(path, "belongs to another user")
    if st.st_mode & 0o022:
        raise _home_error(
            path, f"is writable by other users (mode {stat.S_IMODE(st.st_mode):04o}), and ego_browser does not "
            "change the mode of a directory it did not create",
        )
    return path


def _home_error(path: Path, why: str) -> Exception:
    from .errors import BrowserUnavailable

    return BrowserUnavailable(
        f"the data directory {path} {why}; set EGO_BROWSER_HOME to a directory only you can write, or to a "
        "path that does not exist yet (it is then created private, mode 0700)",
        endpoint=str(path),
    )


def _make_private_dirs(path: Path) -> None:
    """``mkdir -p`` with every directory it creates 0700 (``mkdir``'s mode covers the last only)."""
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:
            pass
        os.chmod(p, 0o700)  # we just made it: the umask may have taken bits off, never added


def ensure_private_dir(path: Path) -> Path:
    """A directory of ours inside the data directory: created or made 0700; refused if it is
    another user's or a link (ego_browser makes none)."""
    if not path.exists():
        _make_private_dirs(path)
    st = path.lstat()
    import stat

    if not stat.S_ISDIR(st.st_mode):
        raise _home_error(path, "is not a directory (a link or a file where ego_browser keeps its state)")
    if st.st_uid != os.getuid():
        raise _home_error(path, "belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def open_private(
    path: Path | str, flags: int = os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode: str = "ab"
) -> IO[Any]:  # bytes or text, as ``mode`` says
    """Open (creating it 0600) a file of ours, whatever the process umask is."""
    fd = os.open(path, flags | os.O_CLOEXEC, 0o600)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)  # made by an older version, or by a wider umask
        return os.fdopen(fd, mode)
    except BaseException:
        os.close(fd)
        raise


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


def keeper_grace() -> float:
    """Seconds a browser keeper with no client and no live host waits before it stops Chromium
    and exits (a host killed by SIGKILL that nobody restarts); a host restarted sooner adopts it."""
    raw = os.environ.get("EGO_BROWSER_KEEPER_GRACE", "60")
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:
        from .errors import InvalidArgument

        raise InvalidArgument(
            f"EGO_BROWSER_KEEPER_GRACE must be a number of seconds >= 0 (got {raw!r})",
            api="environment", option="EGO_BROWSER_KEEPER_GRACE", expected="seconds",
        )
    return value


def idle_shutdown() -> float:
    """Seconds without requests after which the background host stops its browser and exits."""
    return float(os.environ.get("EGO_BROWSER_IDLE_SHUTDOWN", "3600"))


def _positive(name: str, default: str, *, zero_ok: bool = False) -> float:
    raw = os.environ.get(name, default)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value >= 0 if zero_ok else value > 0):
        from .errors import InvalidArgument

        raise InvalidArgument(
            f"{name} must be a number {'>= 0' if zero_ok else '> 0'} (got {raw!r})",
            api="environment", option=name, expected="a number",
        )
    return value


def max_active() -> int:
    """How many agent calls the host works on at once (the rest wait their turn in order): one
    more than the cores. A round's calls keep the machine's processes busy (host, browser, GPU,
    renderer); more of them at once only share the cores, each slower, and every running page's
    renderer competes for the caches: at 4 x cores, 50 agents on 2 cores spent 1.42x one agent's
    CPU per round (1.14x at 2 at once) and did fewer rounds per second (docs/scale-out.md)."""
    return int(_positive("EGO_BROWSER_MAX_ACTIVE", str(max(2, (os.cpu_count() or 1) + 1))))


def max_queued() -> int:
    """How many agent calls may wait for a turn before the next is refused (EGO_HOST_OVERLOADED)."""
    return int(_positive("EGO_BROWSER_MAX_QUEUED", "512"))


def queue_wait() -> float:
    """Seconds a call waits for its turn before it is refused (EGO_HOST_OVERLOADED); at most
    8 (the round waits its call's deadline plus 10 s for an answer)."""
    return _positive("EGO_BROWSER_QUEUE_WAIT", "8")


def freeze_idle() -> float:
    """Seconds without a call after which a space's tabs are frozen (0: never)."""
    return _positive("EGO_BROWSER_FREEZE_IDLE", "60", zero_ok=True)
