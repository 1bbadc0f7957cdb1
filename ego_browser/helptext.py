"""``help()`` and the usage guide, read off the public classes.

Provisional: the one-schema work (issue 6) replaces the introspection below with the
declared schema; the output format stays.
"""

from __future__ import annotations

import difflib
import inspect
from typing import Any

__all__ = ["help", "guide", "topics"]


def _members() -> dict[str, Any]:
    from .client import api
    from .client.page import Page
    from .client.taskspace import TaskSpace

    found: dict[str, Any] = {}
    for name in ("task_space", "list_task_spaces", "claim_task_space", "take_over_task_space", "profiles"):
        found[name] = getattr(api, name)
    for cls in (TaskSpace, Page):
        found[cls.__name__] = cls
        for name, member in vars(cls).items():
            if not name.startswith("_"):
                found[f"{cls.__name__}.{name}"] = member
    return found


def topics() -> list[str]:
    return sorted(_members())


def _signature(name: str, obj: Any) -> str:
    target = obj.fget if isinstance(obj, property) else obj
    try:
        sig = str(inspect.signature(target)).replace("(self, ", "(").replace("(self)", "()")
    except (TypeError, ValueError):
        sig = ""
    return f"{name}{sig}" if not isinstance(obj, property) else f"{name} (property)"


def help(name: str | None = None) -> None:  # noqa: A001 - the documented API name
    members = _members()
    if name is None:
        print("ego_browser: drive a real Chromium from agent scripts. Topics:")
        for key in sorted(members):
            print("  " + _signature(key, members[key]))
        print('help("Page.click") shows one topic.')
        return
    lookup = {k.lower(): k for k in members}
    key = lookup.get(name.lower())
    if key is None:
        close = difflib.get_close_matches(name, list(members), n=5)
        print(f"Unknown help topic: {name}" + (f" (did you mean: {', '.join(close)})" if close else ""))
        return
    obj = members[key]
    print(_signature(key, obj))
    doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj)
    if doc:
        print(doc)


def guide() -> str:
    from ._version import __version__

    return (
        f"[ego-browser:skill] ego-browser usage guide v{__version__}\n"
        "Run one script per round with `python -m ego_browser <<'EOF' ... EOF`.\n"
        f"[ego-browser:skill] end of guide v{__version__}\n"
    )
