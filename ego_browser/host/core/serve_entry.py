"""``ego-browser host serve``: the lock, then Chromium, then the host.

Kept apart from ``serve_early`` (which ``server`` imports) so that the entry may import the
server without a cycle, and from ``cli.commands`` so that a round's host reaches Chromium's launch
without the sub-command table's imports (~90 ms of a cold round).
"""

from __future__ import annotations

from . import serve_early

__all__ = ["main"]


def main(ready_fd: int | None) -> int:
    """The host's exit status. Chromium boots while the host's modules load."""
    lock = serve_early.begin(ready_fd)
    if lock is None:
        return 3
    import asyncio

    from ...browser import early
    from .server import serve

    try:
        return asyncio.run(serve(ready_fd, lock))
    finally:
        early.discard()  # a start that died before its browser's turn leaves no Chromium behind
