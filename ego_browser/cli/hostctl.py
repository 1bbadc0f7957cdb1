"""Talking to the background host from the CLI without starting one by accident.

``call(op, args, start=False)`` returns ``None`` when no host socket exists instead of
launching a host (and its browser) as a round would.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import config

__all__ = ["call", "host_answers", "host_pid"]


async def call(op: str, args: dict[str, Any], *, start: bool = True) -> Any:
    from ..client.channel import SocketChannel

    channel = SocketChannel(role="person")  # the CLI's own commands: the person's
    channel.loop = asyncio.get_running_loop()
    try:
        if not start and not config.socket_path().exists():
            return None
        return await channel.call(op, args)
    finally:
        await channel.aclose()


def host_pid() -> int | None:
    try:
        return int((config.run_dir() / "host.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def host_answers() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(str(config.socket_path()))
        return True
    except OSError:
        return False
