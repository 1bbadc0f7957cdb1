"""``task.export_trace``: a space's journal and pictures as a zip with an offline viewer (with a
captioned video inside on request), or as a Playwright script; ``task.record_video``: the video
alone (``ego_browser/trace/``). The host writes the files: the pictures are its own."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from ...trace.bundle import check_writable, write_text, write_zip
from ...trace.playwright_script import playwright_script
from ...trace.video import write_video
from ..core.host import Host
from ..core.dispatch import op

__all__: list[str] = []

API = "task.export_trace"


@op("TaskSpace.export_trace", deadline=900.0)
async def export_trace(host: Host, at: dict[str, Any], *, path: str, format: str, rounds: list[int] | None,
                       video: bool) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    target = Path(path)
    check_writable(target, API)  # before any wait: a bad path fails at once
    assert host.store is not None
    journal = {**host.store.journal.read(space.id, rounds), "space_name": space.name}
    if format == "playwright":
        out = await asyncio.to_thread(write_text, target, playwright_script(journal, space_name=space.name), api=API)
        actions = sum(len(r["actions"]) for r in journal["rounds"])
        return {**out, "rounds": len(journal["rounds"]), "actions": actions, "pictures": 0}
    await host.pictures.settle()  # the last action's picture may still be on its way
    pictures = host.pictures.files(space.id)
    if not video:
        return await asyncio.to_thread(write_zip, target, journal, pictures, api=API)
    with tempfile.TemporaryDirectory(prefix="ego-trace-") as work:
        clip = Path(work) / "video.webm"
        await asyncio.to_thread(write_video, clip, journal, pictures, api=API)
        return await asyncio.to_thread(write_zip, target, {**journal, "video": "video.webm"}, pictures, api=API,
                                       extra={"video.webm": clip})


@op("TaskSpace.record_video", deadline=900.0)
async def record_video(host: Host, at: dict[str, Any], *, path: str, rounds: list[int] | None) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    target = Path(path)
    check_writable(target, "task.record_video")
    assert host.store is not None
    journal = host.store.journal.read(space.id, rounds)
    await host.pictures.settle()
    return await asyncio.to_thread(write_video, target, journal, host.pictures.files(space.id))
