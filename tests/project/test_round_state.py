"""Per-round and per-host state only (issue 10, point 4).

What a round knows (its Page objects, the pages it touched, its input token) lives on its
``Round``; the packages that handle rounds, hosts and pages keep no module-level caches of
sessions, worlds or pages.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ego_browser.pysource import parse
from ego_browser.client.channel import InProcessChannel
from ego_browser.client.round import Round

ROOT = Path(__file__).resolve().parent.parent.parent / "ego_browser"
#: module-level mutable values that are not per-round or per-host state: registries filled once
#: at import (upper case), and the temp folders this process must remove when it exits
ALLOWED = {
    ("client/files.py", "_dirs"),
    # what the runner injects once per process for learned tools (configuration, not a cache)
    ("learning/__init__.py", "_api_functions"),
}


def _mutable(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp, ast.ListComp)):
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in (
        "dict", "set", "list", "OrderedDict", "defaultdict", "WeakValueDictionary", "WeakKeyDictionary")


#: the packages whose state belongs to a round, a host or a page
STATEFUL = ("client", "host", "driver", "cdp", "selectors", "snapshot", "browser", "dashboard", "learning")


def test_no_module_level_caches():
    found = []
    for package in STATEFUL:
        for path in sorted((ROOT / package).glob("*.py")):
            for node in parse(path.read_text(encoding="utf-8")).body:
                targets = node.targets if isinstance(node, ast.Assign) else (
                    [node.target] if isinstance(node, ast.AnnAssign) else [])
                for target in targets:
                    if not isinstance(target, ast.Name) or target.id.isupper() or target.id == "__all__":
                        continue
                    where = (f"{package}/{path.name}", target.id)
                    if _mutable(node.value) and where not in ALLOWED:
                        found.append(f"{where[0]}: {where[1]}")
    assert not found, "module-level state (put it on the Round, the Host or the page driver): " + ", ".join(found)


def test_each_round_has_its_own_pages_and_token():
    one, two = Round(None), Round(None)
    page = one.page_for(1, {"label": "p1"})
    assert one.page_for(1, {"label": "p1", "target_id": "T"}) is page and page.target_id == "T"
    assert two.page_for(1, {"label": "p1"}) is not page
    assert one.token != two.token
    one.touch(page)
    assert one.touched == {(1, "p1")} and one.last_page is page and not two.touched


async def test_a_channel_carries_its_round():
    from ego_browser.client.channel import reset_channel, use_channel
    from ego_browser.client.round import current_round

    channel = InProcessChannel(host=None)
    token = use_channel(channel)
    try:
        assert current_round() is current_round() and current_round().channel is channel
    finally:
        reset_channel(token)
