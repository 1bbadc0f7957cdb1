"""Issue 33 §5: a full disk while recording (a small tmpfs, where this machine lets the tests mount
one): each failure is an error with a code, the round goes on, and the trace so far is kept."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import zipfile

import pytest

from ego_browser import HarUnwritable, TraceUnwritable
from tests.server import Response


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs at ``tmp_path/small`` (skipped where mounting is not allowed)."""
    where = tmp_path / "small"
    where.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount here")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True,
                          text=True, timeout=30)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.strip()}")
    try:
        yield where
    finally:
        with contextlib.suppress(Exception):
            subprocess.run(["umount", str(where)], capture_output=True, timeout=30)


def _serve(server) -> str:
    server.route("/full/big.json", Response(json.dumps({"rows": ["x" * 100] * 2000}), content_type="application/json"))
    return server.page("/full/page.html", "<p id=out>waiting</p><script>fetch('/full/big.json').then(r => r.json())"
                                          ".then(d => { document.getElementById('out').textContent = d.rows.length; })"
                                          "</script>")


async def test_a_har_recording_on_a_full_disk(task, server, small_disk):
    url = _serve(server)
    page = task.page("p1")
    har = small_disk / "space.har"
    await task.record_har(str(har), content="attach")
    await page.goto(url)
    await page.wait_for_function("document.getElementById('out').textContent === '2000'")
    await page.click("#out")  # the round goes on while its bodies find no room
    with pytest.raises(HarUnwritable) as err:
        await task.stop_har()
    assert err.value.code == "EGO_HAR_UNWRITABLE" and "free some space" in str(err.value)
    assert not [p for p in small_disk.iterdir() if ".tmp-" in p.name]  # nothing half-written left behind
    if har.exists():  # the HAR itself fitted: its entries are there, the bodies that did not fit are said so
        entries = json.loads(har.read_text())["log"]["entries"]
        big = next(e for e in entries if e["request"]["url"].endswith("/full/big.json"))
        assert "_file" not in big["response"]["content"] and "not written" in big["response"]["content"]["comment"]
    journal = await task.journal()
    assert [a["op"] for r in journal["rounds"] for a in r["actions"]][-2:] == ["page.goto", "page.click"]


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="Debian's ffmpeg is missing")
async def test_a_video_on_a_full_disk_keeps_the_trace(task, server, small_disk, tmp_path):
    page = task.page("p1")
    await page.goto(server.page("/full/v.html", "<h1>" + "video " * 200 + "</h1><button>b</button>"))
    await page.click("button")
    filler = small_disk / "filler"
    with contextlib.suppress(OSError):
        filler.write_bytes(b"\0" * 1_000_000)  # the disk is full
    with pytest.raises(TraceUnwritable) as err:
        await task.record_video(str(small_disk / "space.webm"))
    assert err.value.code == "EGO_TRACE_UNWRITABLE" and "nothing was written" in str(err.value)
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]
    out = tmp_path / "trace.zip"
    await task.export_trace(str(out))  # the trace is whole: export it elsewhere
    with zipfile.ZipFile(out) as z:
        actions = [a["op"] for r in json.loads(z.read("trace.json"))["rounds"] for a in r["actions"]]
    assert actions[-2:] == ["page.goto", "page.click"]
