"""Issue 33 §3: a space's trace as a captioned video (task.record_video, trace export --video)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import zipfile

import pytest

from tests.integration.test_trace import _two_rounds
from tests.learning_app import LibraryApp

pytestmark = pytest.mark.skipif(shutil.which("ffprobe") is None or shutil.which("ffmpeg") is None,
                                reason="Debian's ffmpeg is missing (scripts/setup.sh installs it)")

_apps = itertools.count(1)


@pytest.fixture
def app(server):
    return LibraryApp(server, f"/video{next(_apps)}")


def _probe(path):
    proc = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                           "stream=codec_name,nb_read_frames,width,height:format=duration,format_name", "-of", "json",
                           str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_record_video_writes_a_webm_ffprobe_reads(rounds, app, tmp_path):
    space = f"video-{app.prefix.strip('/')}"
    _two_rounds(rounds, app, space)
    out = tmp_path / "space.webm"
    proc = rounds.run(f"task = await task_space({space!r})\nprint(json.dumps(await task.record_video({str(out)!r})))\n",
                      timeout=300)
    assert proc.returncode == 0, proc.stderr
    made = json.loads(proc.stdout.strip().splitlines()[-1])
    assert made["frames"] >= 2 and made["path"] == str(out)
    probe = _probe(out)
    stream = probe["streams"][0]
    assert stream["codec_name"] == "vp8" and (stream["width"], stream["height"]) == (960, 540)
    assert "webm" in probe["format"]["format_name"]
    duration = float(probe["format"]["duration"])
    assert abs(duration - made["seconds"]) < 1.0  # 1.5 s a frame of the trace
    assert int(stream["nb_read_frames"]) >= made["frames"]  # a video frame per picture, each shown 1.5 s


async def test_trace_export_with_video_plays_in_chromium(rounds, app, tmp_path):
    pytest.importorskip("playwright.async_api")
    from playwright.async_api import async_playwright

    from tests.selector_cases import CHROMIUM, PW_ARGS

    space_id = _two_rounds(rounds, app, f"video-zip-{app.prefix.strip('/')}")
    out = tmp_path / "trace.zip"
    proc = rounds.cli("trace", "export", space_id, "--output", str(out), "--video", "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as z:
        assert "video.webm" in z.namelist()
        z.extractall(tmp_path / "unzipped")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
        try:
            page = await browser.new_page()
            await page.goto((tmp_path / "unzipped" / "index.html").as_uri())
            await page.wait_for_selector("video#video")
            # the browser decodes it: its metadata gives a duration, and it plays to its end
            await page.wait_for_function("document.getElementById('video').readyState >= 1")
            duration = await page.evaluate("document.getElementById('video').duration")
            assert duration > 1.0
            await page.evaluate("() => { const v = document.getElementById('video'); v.muted = true; "
                                "v.playbackRate = 16; return v.play(); }")
            await page.wait_for_function("document.getElementById('video').ended", timeout=60_000)
        finally:
            await browser.close()


def test_a_video_of_a_space_without_frames_is_a_clear_error(rounds, tmp_path):
    """A space whose pages took no pictures (a Grid space's browser, pictures off, nothing done yet)."""
    out = tmp_path / "none.webm"
    proc = rounds.run(f"task = await task_space('video-empty')\nawait task.record_video({str(out)!r})\n")
    assert proc.returncode == 1 and "EGO_VIDEO_UNAVAILABLE" in proc.stderr and "no frames" in proc.stderr
    assert not out.exists()
