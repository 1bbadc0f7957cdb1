"""Our isolated worlds made and filled by Chromium as each new document starts.

Measured on the whole-task traces: the first action and the first snapshot in every new
document each paid a ``Page.createIsolatedWorld`` and an install of their helpers (the
selector engine and action helpers, the snapshot walker) before doing any work: +14 ms on the
first click and +8 ms on the first snapshot of a document, about 25 documents per five tasks.
``Page.addScriptToEvaluateOnNewDocument`` with a ``worldName`` has the renderer create the
world and run the install program at document start, before the page's own scripts, with no
round trip of ours; ``Runtime.executionContextCreated`` then names the world (see
``FrameTree.context_created``). Worlds made this way are granted universal access by Chromium
(as ``createIsolatedWorld(grantUniveralAccess=True)``); only our code runs in them.

What is preloaded is an optimisation, never relied on: every caller still detects a world
without its helpers (``__ego_missing``, the engine's ``_MISSING``, the walker's
``__egoSnap`` error) and installs them, as it did before (a document that existed before the
page was attached, a frame whose script did not run).
"""

from __future__ import annotations

from functools import lru_cache

from .. import jsbundle
from ..selectors._core import ENGINE_KEY, engine_source
from ..snapshot.capture import WORLD_NAME as SNAPSHOT_WORLD

__all__ = ["SNAPSHOT_WORLD", "UTILITY_WORLD", "UTILITY_KEYS", "actions_install", "scripts"]

UTILITY_WORLD = "__ego_util"
#: what a preloaded utility world holds, under the keys the selector layer records it by
UTILITY_KEYS = frozenset({ENGINE_KEY})


@lru_cache(maxsize=None)
def actions_install() -> str:
    """The expression that installs the action helpers (``globalThis.__egoActions``) and yields them."""
    return "globalThis.__egoActions = " + jsbundle.program("utility", "actionability")


@lru_cache(maxsize=None)
def scripts() -> tuple[tuple[str, str], ...]:
    """(world name, source) of each new-document script a page session registers."""
    # (and a caret that does not blink: js/utility/steady_caret.js says why)
    utility = engine_source() + ";\n" + actions_install() + ";\n" + jsbundle.program("utility", "steady_caret") + ";"
    return ((UTILITY_WORLD, utility), (SNAPSHOT_WORLD, jsbundle.program("snapshot", "snapshot_walker")))
