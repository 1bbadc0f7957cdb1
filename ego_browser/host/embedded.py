"""``ego_browser.embedded()``: the host inside the caller's process for the duration of a block.

It lives in ``host/`` (not in ``client/api.py`` with the other top-level functions) because it
builds a ``Host``: the client package never imports the host, and a round never loads it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from ..client.channel import InProcessChannel, reset_channel, use_channel

__all__ = ["embedded"]


@contextlib.asynccontextmanager
async def embedded() -> AsyncIterator[Any]:
    """Run the host inside this process for the duration of the block (no daemon)."""
    from .core import features
    from .core.host import Host
    from .core.dispatch import load_all

    load_all()
    import fcntl
    import os

    from .. import config

    config.ensure_home()
    run_dir = config.ensure_private_dir(config.run_dir())
    lock = config.open_private(run_dir / "host.lock", os.O_RDWR | os.O_CREAT, "r+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        from ..errors import BrowserUnavailable

        raise BrowserUnavailable(
            f"a background host already runs for {config.home()}; stop it (ego-browser host stop) "
            "or set EGO_BROWSER_HOME to another directory for embedded use",
            endpoint=str(config.socket_path()),
        ) from None
    host = Host(features=features.build, embedded=True)
    try:
        await host.start()
        token = use_channel(InProcessChannel(host))
        try:
            yield host
        finally:
            reset_channel(token)
    finally:
        try:
            await host.stop(kill_browser=True)
        finally:
            lock.close()
