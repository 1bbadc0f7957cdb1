"""``trace export``: a space's trace as one self-contained zip that opens offline.

The zip holds ``index.html`` (the viewer, ``dashboard/static/trace.html``), ``trace.js`` and
``trace.css`` next to it, ``trace-data.js`` (the journal as ``window.EGO_TRACE``: a script, not
JSON, because a page opened from a file may not fetch its neighbours), ``trace.json`` (the same
data for programs) and ``pictures/`` (the JPEGs the host took after each action). Unzip it and
open ``index.html``: nothing is loaded from the network.

The file is written next to its destination and renamed into place, so a failed export (a
full disk) leaves no half-written zip and the previous file, if any, stays as it was.
"""

from __future__ import annotations

import contextlib
import os
import time
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from ..errors import TraceUnwritable

__all__ = ["write_zip", "write_text", "VIEWER_FILES", "check_writable"]

#: name in the zip -> name under dashboard/static
VIEWER_FILES = {"index.html": "trace.html", "trace.js": "trace.js", "trace.css": "trace.css"}


def _static(name: str) -> bytes:
    return resources.files("ego_browser.dashboard").joinpath("static", name).read_bytes()


def check_writable(path: Path, api: str) -> None:
    """Fail early, before any work, when ``path`` cannot be written (no folder, read-only)."""
    folder = path.parent
    if path.is_dir():
        raise TraceUnwritable(f"{api}: {path} is a folder; give a file path (trace.zip)", api=api, path=str(path),
                              reason="is a folder")
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise TraceUnwritable(f"{api}: cannot write {path}: its folder {folder} does not exist or is not writable; "
                              "choose a writable folder", api=api, path=str(path), reason="folder not writable")


def _atomic(path: Path, api: str, write: Any) -> int:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        size = tmp.stat().st_size
        os.replace(tmp, path)
        return size
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise TraceUnwritable(f"{api}: writing {path} failed ({exc.strerror or exc}); nothing was written and the "
                              "trace is still in the host: free some space or choose another path, then export again",
                              api=api, path=str(path), reason=exc.strerror or str(exc)) from exc


def write_zip(path: Path, journal: dict[str, Any], pictures: dict[str, Path], *, api: str = "trace export",
              extra: dict[str, Path] | None = None) -> dict[str, Any]:
    """Write the trace zip; ``pictures``: file name -> file (only those the journal names go in)."""
    check_writable(path, api)
    named = {a.get(k) for r in journal.get("rounds") or () for a in r.get("actions") or ()
             for k in ("picture_before", "picture_after")}
    present = {n: p for n, p in pictures.items() if n in named and p.is_file()}
    # a picture that was rotated out (or never written) is dropped from the record, not shown broken
    for r in journal.get("rounds") or ():
        for a in r.get("actions") or ():
            for k in ("picture_before", "picture_after"):
                if a.get(k) and a[k] not in present:
                    a[k] = None
    data = {**journal, "exported": time.time(), "pictures_base": "pictures/"}
    blob = orjson.dumps(data)

    def write(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
            for inside, name in VIEWER_FILES.items():
                z.writestr(inside, _static(name))
            # "</" cannot end the script early: the JSON's slashes before a letter are escaped
            z.writestr("trace-data.js", b"window.EGO_TRACE = " + blob.replace(b"</", b"<\\/") + b";\n")
            z.writestr("trace.json", blob)
            for name, file in sorted(present.items()):
                with contextlib.suppress(FileNotFoundError):  # rotated out meanwhile
                    z.write(file, f"pictures/{name}", compress_type=zipfile.ZIP_STORED)
            for name, file in (extra or {}).items():
                z.write(file, name, compress_type=zipfile.ZIP_STORED)

    size = _atomic(path, api, write)
    actions = sum(len(r.get("actions") or ()) for r in journal.get("rounds") or ())
    return {"path": str(path), "bytes": size, "rounds": len(journal.get("rounds") or ()), "actions": actions,
            "pictures": len(present)}


def write_text(path: Path, text: str, *, api: str = "trace export") -> dict[str, Any]:
    check_writable(path, api)
    size = _atomic(path, api, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return {"path": str(path), "bytes": size}
