"""The file-list rule, applied on both sides of the wire.

A round turns what the agent passed (one path or a list of paths) into absolute paths of
existing files before sending them (``FileChooser.set_files``, ``Page.set_input_files``); the
host applies the same rule again to what arrives, because it distrusts rounds
(``host/ops/file_ops.py``).
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import InvalidArgument

__all__ = ["file_list"]


def file_list(api: str, files: Any) -> list[str]:
    """One path or a list of paths, made absolute here (the host may run elsewhere in the tree)."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    if not isinstance(files, (list, tuple)) or not files or not all(isinstance(f, (str, os.PathLike)) for f in files):
        raise InvalidArgument(
            f"{api}: files must be a path or a non-empty list of paths", api=api, option="files",
            expected="str, os.PathLike or a list of them",
        )
    out = []
    for f in files:
        path = os.path.abspath(os.fspath(f))
        if not os.path.isfile(path):
            raise InvalidArgument(f"{api}: file not found: {path}", api=api, option="files", expected="existing files")
        out.append(path)
    return out
