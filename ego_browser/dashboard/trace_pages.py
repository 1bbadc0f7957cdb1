"""The dashboard's timeline of a space: ``/trace/ID/`` serves the trace viewer (the one the
exported zip holds, ``static/trace.html``) over the space's live journal and pictures."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import orjson

__all__ = ["trace_page"]

_PATH = re.compile(r"^/trace/(\d+)/(|trace\.js|trace\.css|trace-data\.js|pictures/(a\d+\.jpg))$")
_TYPES = {"": ("trace.html", "text/html; charset=utf-8"), "trace.js": ("trace.js", "text/javascript; charset=utf-8"),
          "trace.css": ("trace.css", "text/css; charset=utf-8")}


def trace_page(host: Any, path: str) -> tuple[bytes, str] | None:
    """(body, content type) for a path under /trace/, or None (not found)."""
    m = _PATH.match(path)
    store = getattr(host, "store", None)
    if m is None or store is None:
        return None
    space_id, part, picture = int(m.group(1)), m.group(2), m.group(3)
    if store.space(space_id) is None:
        return None
    if picture:
        file = host.pictures.files(space_id).get(picture)
        return (file.read_bytes(), "image/jpeg") if file is not None else None
    if part == "trace-data.js":
        journal = {**store.journal.read(space_id), "space_name": store.space(space_id).name,
                   "pictures_base": "pictures/"}
        # a picture still being made (or skipped) is not named: the page would show it broken
        kept = host.pictures.files(space_id)
        for r in journal["rounds"]:
            for a in r["actions"]:
                for key in ("picture_before", "picture_after"):
                    if a.get(key) and a[key] not in kept:
                        a[key] = None
        blob = orjson.dumps(journal).replace(b"</", b"<\\/")
        return b"window.EGO_TRACE = " + blob + b";\n", "text/javascript; charset=utf-8"
    name, ctype = _TYPES[part]
    return resources.files(__package__).joinpath("static", name).read_bytes(), ctype
