"""``ego-browser trace export SPACE --output FILE [--as zip|playwright] [--video] [--rounds N ...]``:
a task space's trace as a zip that opens offline, or as a Playwright script (``task.export_trace``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

__all__ = ["SUMMARY", "SYNOPSIS", "configure", "run"]

SUMMARY = "export a task space's trace: a zip with an offline viewer, or a Playwright replay script"
SYNOPSIS = "export SPACE --output FILE [--as zip|playwright] [--video] [--rounds N ...] [--json]"


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="{export}")
    text = "write a space's trace (its journal, pictures and requests) to a file"
    q = sub.add_parser("export", help=text, description=text)
    q.add_argument("space", help="the task space's id or name")
    q.add_argument("--output", "-o", required=True, help="the file to write (trace.zip, replay.py)")
    q.add_argument("--as", dest="format", choices=("zip", "playwright"), default="zip",
                   help="zip: index.html opens offline (default); playwright: a Python script that replays it")
    q.add_argument("--rounds", type=int, nargs="+", help="the rounds to export (default: all kept)")
    q.add_argument("--video", action="store_true", help="put a captioned video (video.webm) in the zip too")
    q.add_argument("--json", action="store_true", help="print one JSON document instead of text")


def run(ns: argparse.Namespace) -> int:
    space: int | str = int(ns.space) if ns.space.isdigit() else ns.space
    path = os.path.abspath(ns.output)

    async def export() -> dict[str, Any]:
        from ..client.api import task_space
        from ..client.channel import process_channel

        try:
            task = await task_space(space)
            out: dict[str, Any] = await task.export_trace(path, format=ns.format, rounds=ns.rounds,
                                                              video=ns.video)
            return out
        finally:
            channel = process_channel()
            if channel is not None:
                await channel.aclose()

    out = asyncio.run(export())
    if ns.json:
        print(json.dumps(out, indent=1, sort_keys=True))
    else:
        what = "a Playwright script" if ns.format == "playwright" else "a trace (open index.html inside it)"
        print(f"wrote {out['path']}: {what}, {out['rounds']} rounds, {out['actions']} actions, "
              f"{out['pictures']} pictures, {out['bytes']} bytes")
    return 0
