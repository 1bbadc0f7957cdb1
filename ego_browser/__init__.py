"""ego_browser: a fast, safe runtime for AI agents driving a real Chromium.

Names are imported lazily (PEP 562) so that ``import ego_browser`` and a trivial round stay
cheap; see ``help()`` or ``ego-browser skill`` for the guide.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: a trivial round must stay cheap

from ._version import __version__

from ._exports import LAZY as _LAZY  # generated from the schema and errors.py (schema/gen_client.py)

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None and name != "errors":  # ego_browser.errors was bound here when it was imported eagerly
        raise AttributeError(f"module 'ego_browser' has no attribute {name!r}")
    import importlib

    value = importlib.import_module(f"{__name__}.errors") if module is None else getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .client.api import (  # noqa: F401
        claim_task_space,
        list_task_spaces,
        profiles,
        take_over_task_space,
        task_space,
    )
    from .client.models import ActionReceipt, UnmanagedPage  # noqa: F401
    from .host.embedded import embedded  # noqa: F401
    from .client._generated import Download, FileChooser, Page, TaskSpace  # noqa: F401
    from .errors import *  # noqa: F403
