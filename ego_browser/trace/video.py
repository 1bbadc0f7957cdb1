"""A space's trace as a video with captions: ``task.record_video`` and ``trace export --video``.

Frames: the trace's pictures (one after each journaled action, ``host/features/trace_pictures.py``),
each shown :data:`SECONDS` seconds under a caption that names the round (and the agent's last
status note in it, ``task.set_status``), the action, its target and value (or its error). Encoder: Debian's ``ffmpeg`` program (docs/architecture.md,
"Video", says why), run as a child with a deadline: WebM (VP8), which every Chromium plays,
the captions burnt in with libass (``subtitles`` filter) so they show in any player, at a
variable frame rate: one video frame per picture, shown for its 1.5 s (a still needs no more,
and the encoding costs a frame per action, not 15).

The file is written next to its destination and renamed into place: a failed encoding (a full
disk, a killed encoder) leaves no half-written file, and the trace it was made from is untouched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ..errors import TraceUnwritable, VideoUnavailable
from .bundle import check_writable

__all__ = ["SECONDS", "WIDTH", "HEIGHT", "MAX_FRAMES", "captions", "encoder", "write_video"]

SECONDS = 1.5
WIDTH, HEIGHT = 960, 540
#: the newest pictures only, past this many (a host request has a deadline: 600 frames encode in
#: well under a minute on one core)
MAX_FRAMES = 600
#: at most this many seconds of encoding (a space's whole trace: about 500 frames a minute)
DEADLINE = 600.0


def encoder() -> str | None:
    return shutil.which("ffmpeg")


def _target(a: dict[str, Any]) -> str:
    t = a.get("target") or {}
    said = t.get("locator") or t.get("given") or ""
    return f" {said}" if said else ""


def captions(journal: dict[str, Any], pictures: dict[str, Path]) -> list[tuple[Path, str]]:
    """(picture, caption) per action that has a picture after it, oldest first."""
    out: list[tuple[Path, str]] = []
    for r in journal.get("rounds") or ():
        note = ""
        for a in r.get("actions") or ():
            if a.get("op") == "task.set_status":
                note = f" — {str(a.get('value') or '')[:80]}" if a.get("value") else ""
            file = pictures.get(a.get("picture_after") or "")
            if file is None:
                continue
            value = a.get("value")
            shown = f' = {str(value)[:60]}' if isinstance(value, (str, int, float)) and not isinstance(value, bool) \
                else ""
            outcome = "" if a.get("outcome") == "ok" else f" [error: {a.get('error')}]"
            said = f" — {str(a['note'])[:80]}" if a.get("note") else ""
            out.append((file, f"round {r['n']}{note}\n{a['op']}{_target(a)[:90]}{shown}{outcome}{said}"))
    return out


def _srt_time(t: float) -> str:
    ms = int(round(t * 1000))
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def write_video(path: Path, journal: dict[str, Any], pictures: dict[str, Path], *,
                api: str = "task.record_video") -> dict[str, Any]:
    check_writable(path, api)
    program = encoder()
    if program is None:
        raise VideoUnavailable(f"{api}: no video encoder: install Debian's ffmpeg (apt-get install ffmpeg), then "
                               "ask again; the trace itself is kept", api=api, reason="no encoder")
    frames = captions(journal, pictures)[-MAX_FRAMES:]
    if not frames:
        raise VideoUnavailable(f"{api}: the space has no frames to make a video of: its pages took no pictures "
                               "(a Grid space's browser, EGO_BROWSER_TRACE_PICTURES=0, or no action yet); act "
                               "first, or export the trace without video", api=api, reason="no frames")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.webm")
    with tempfile.TemporaryDirectory(prefix="ego-video-") as work:
        listing, subs = Path(work) / "frames.txt", Path(work) / "captions.srt"
        lines, cues = [], []
        for i, (file, caption) in enumerate(frames):
            lines += [f"file '{str(file).replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'",
                      f"duration {SECONDS}"]
            cues.append(f"{i + 1}\n{_srt_time(i * SECONDS)} --> {_srt_time((i + 1) * SECONDS)}\n{caption}\n")
        lines.append(lines[-2])  # the concat demuxer shows the last file for its duration only if it is repeated
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
        subs.write_text("\n".join(cues), encoding="utf-8")
        fit = (f"scale={WIDTH}:{HEIGHT}:force_original_aspect_ratio=decrease,"
               f"pad={WIDTH}:{HEIGHT}:(ow-iw)/2:(oh-ih)/2,subtitles=captions.srt:force_style='FontSize=16'")
        cmd = [program, "-nostdin", "-y", "-v", "error", "-f", "concat", "-safe", "0", "-i", str(listing),
               "-vf", fit, "-c:v", "libvpx", "-b:v", "800k",
               # the encoder's fastest settings: a trace's pictures are still, quality holds
               "-deadline", "realtime", "-cpu-used", "8", "-threads", "2", "-pix_fmt", "yuv420p", "-f", "webm", str(tmp)]
        try:
            proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=DEADLINE, check=False)
            if proc.returncode != 0:
                reason = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
                raise TraceUnwritable(f"{api}: encoding {path} failed ({reason}); nothing was written and the trace "
                                      "is kept: free some space or choose another path, then ask again",
                                      api=api, path=str(path), reason=reason)
            size = tmp.stat().st_size
            os.replace(tmp, path)
        except subprocess.TimeoutExpired:
            raise TraceUnwritable(f"{api}: encoding {path} took over {DEADLINE:.0f} s; nothing was written",
                                  api=api, path=str(path), reason="deadline") from None
        except OSError as exc:
            raise TraceUnwritable(f"{api}: writing {path} failed ({exc.strerror or exc}); nothing was written",
                                  api=api, path=str(path), reason=exc.strerror or str(exc)) from None
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
    return {"path": str(path), "bytes": size, "frames": len(frames), "seconds": round(len(frames) * SECONDS, 3)}
