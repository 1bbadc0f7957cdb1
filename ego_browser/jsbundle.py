"""The one way Python gets at in-page JavaScript: every program lives in ``ego_browser/js/``.

The files are grouped by the world they run in (one directory each), because a world decides
what the code may touch and what it can rely on being installed:

* ``main/``: the page's own world (``Runtime.evaluate`` without a context, or
  ``Page.addScriptToEvaluateOnNewDocument``): what must see the page's own globals (its
  ``fetch``, its clipboard, its permission APIs).
* ``utility/``: our isolated world ``__ego_util`` (``driver.frames.UTILITY_WORLD``), where the
  selector engine (``__egoSel``) and the action helpers (``__egoActions``) are installed once
  per execution context and where element handles of actions live.
* ``snapshot/``: the snapshot walker's isolated world ``ego_snapshot``.
* ``fidelity/``: the snapshot fidelity oracle's isolated world ``fidelity`` (benchmarks, tests).
* ``shared/``: pieces pasted into programs of several worlds (``__EGO_ELEMENT_STATE__`` in a
  source is replaced by ``shared/element_state.js``), so the snapshot and ``page.find`` report
  element state in the same words.

A file is either a **function** (``function name(...) {...}`` or ``async function name``, the
name being the file's stem: :func:`function` gives its source for ``Runtime.callFunctionOn``,
:func:`call` an expression that calls it with JSON arguments) or a **program** (an expression
that installs helpers in its world and yields a value: :func:`program`). Files are read once
per process, on first use, so importing this module costs nothing on the round start-up path.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Final

__all__ = ["WORLDS", "Raw", "call", "function", "program", "names"]

_ROOT: Final = Path(__file__).resolve().parent / "js"

#: the directories of js/ that hold code of one world (``shared`` only holds includes)
WORLDS: Final = ("main", "utility", "snapshot", "fidelity")

_INCLUDE = re.compile(r"__EGO_([A-Z_]+)__")
_HEADER = re.compile(r"\A(?:[ \t]*(?://[^\n]*)?\n)+")


class Raw(str):
    """An argument of :func:`call` that is JavaScript source (e.g. a caller's function), pasted as is."""


def _path(world: str, name: str) -> Path:
    if world not in WORLDS and world != "shared":
        raise ValueError(f"unknown JS world {world!r} (one of {', '.join(WORLDS)})")
    path = _ROOT / world / f"{name}.js"
    if not path.is_file():
        raise ValueError(f"no JS {name!r} in world {world!r} (expected {path})")
    return path


@lru_cache(maxsize=None)
def _text(world: str, name: str) -> str:
    # the header comment is for readers of the file, not for the page: it is not sent
    source = _HEADER.sub("", _path(world, name).read_text(encoding="utf-8")).rstrip()
    return _INCLUDE.sub(lambda m: _text("shared", m.group(1).lower()).rstrip(";"), source)


@lru_cache(maxsize=None)
def function(world: str, name: str) -> str:
    """The source of the function ``name`` of ``world`` (a ``functionDeclaration``)."""
    source = _text(world, name)
    if not re.match(rf"(?:async\s+)?function\s+{re.escape(name)}\s*\(", source):
        raise ValueError(f"js/{world}/{name}.js must hold one function named {name} (it is not one)")
    return source


@lru_cache(maxsize=None)
def program(world: str, name: str) -> str:
    """The source of the install program ``name`` of ``world`` (an expression), includes pasted in."""
    source = _text(world, name)
    if re.match(r"(?:async\s+)?function\b", source):
        raise ValueError(f"js/{world}/{name}.js is a function: use jsbundle.function or jsbundle.call")
    return source.rstrip(";")


def call(world: str, name: str, *args: object) -> str:
    """An expression calling ``name`` of ``world`` with ``args`` (JSON; :class:`Raw` pasted as JS)."""
    from . import jsonsafe  # orjson: not needed by rounds that never call in-page code

    parts = [a if isinstance(a, Raw) else jsonsafe.dumps(a).decode() for a in args]
    return f"({function(world, name)})({', '.join(parts)})"


def names(world: str) -> list[str]:
    """The files of ``world`` (stems), for tests and tools."""
    if world not in WORLDS and world != "shared":
        raise ValueError(f"unknown JS world {world!r}")
    return sorted(p.stem for p in (_ROOT / world).glob("*.js"))
