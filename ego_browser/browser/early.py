"""Chromium started before the host has loaded itself (the round that starts the host waits less).

A background host's start went: the interpreter, the host's imports (≈0.1-0.2 s, more under
load), the store, then Chromium's launch (the bulk: ≈0.4 s quiet, over 1 s under load), one
after the other. The launch needs none of the host's code, so ``host serve`` starts the keeper
and its Chromium as soon as it holds the host lock (:func:`start`), imports the rest while
Chromium boots, and ``LocalProvider.open`` takes that launch (:func:`take`) where it would
have launched one. docs/architecture.md ("A learned tool's round and the host's start") has
the measurements.

Only where the provider would launch exactly this browser: no ``EGO_BROWSER_GRID_URL`` or
``EGO_BROWSER_CDP_URL``, no browser recorded to reattach to (``run/browser.json``), headless
(a headed launch titles its window after the person's space, which the host names). Anything
else leaves it to the provider as before.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import config
from .launcher import KeeperLaunch, headless_enabled, start_keeper

__all__ = ["discard", "start", "take"]

#: the launch started by ``start`` and not yet taken: (profile, socket path, launch)
_early: tuple[Path, str, KeeperLaunch] | None = None


def profile_dir(home: Path) -> Path:
    """The default profile's directory (``LocalProvider._profile``)."""
    return home / "profiles" / "default"


def start(home: Path, run_dir: Path) -> bool:
    """Start the keeper and Chromium of a host about to start, when its provider would launch
    exactly this one; whether it did. The caller holds the host lock (no other host launches)."""
    global _early
    if _early is not None or not headless_enabled():
        return False
    if os.environ.get("EGO_BROWSER_GRID_URL", "").strip() or os.environ.get("EGO_BROWSER_CDP_URL", "").strip():
        return False
    if (run_dir / "browser.json").exists():
        return False  # a browser to reattach to (or a record the provider replaces itself)
    profile = profile_dir(home)
    config.ensure_private_dir(profile.parent)
    config.ensure_private_dir(profile)
    socket_path = str(run_dir / "browser.sock")
    _early = (profile, socket_path, start_keeper(profile, log_path=run_dir / "chromium.log",
                                                  socket_path=socket_path))
    return True


def take(profile: Path, socket_path: str) -> KeeperLaunch | None:
    """The launch :func:`start` made for this profile and socket (handed over once), or None."""
    global _early
    if _early is None:
        return None
    made_for, made_socket, launch = _early
    if made_for != profile or made_socket != socket_path:
        return None
    _early = None
    return launch


def discard() -> None:
    """Stop a launch nobody took (the host failed before its browser's turn)."""
    global _early
    found, _early = _early, None
    if found is not None:
        found[2].abandon()
