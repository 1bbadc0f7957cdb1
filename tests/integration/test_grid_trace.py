"""Issue 33 §5 on a Grid space (issue 16): a video asked for before the space has any frame is
EGO_VIDEO_UNAVAILABLE (reason "no frames") and writes nothing; once its pages act, a Grid
space's trace has its pictures (taken over the Grid's CDP) and its video."""

from __future__ import annotations

import shutil

import pytest

import ego_browser
from ego_browser import VideoUnavailable


async def test_a_video_of_a_grid_space_without_frames(on_grid, server, tmp_path):
    t = await ego_browser.task_space("grid-video")
    try:
        out = tmp_path / "none.webm"
        with pytest.raises(VideoUnavailable) as err:
            await t.record_video(str(out))
        assert err.value.code == "EGO_VIDEO_UNAVAILABLE" and err.value.reason in ("no frames", "no encoder")
        assert not out.exists()
        page = t.page("p1")
        await page.goto(server.page("/grid-video", "<button onclick=\"this.textContent = 'done'\">go</button>"))
        await page.click("button")
        journal = await t.journal()
        actions = [a for r in journal["rounds"] for a in r["actions"]]
        assert [a["op"] for a in actions][-2:] == ["page.goto", "page.click"]
        assert all(a["picture_after"] for a in actions[-2:])
        if shutil.which("ffmpeg"):
            made = await t.record_video(str(tmp_path / "grid.webm"))
            assert made["frames"] >= 2 and (tmp_path / "grid.webm").stat().st_size > 0
    finally:
        await t.finish(keep=[])
