"""The page driver is below the host (issue 10 point 2): no module of ``ego_browser/driver``
imports ``ego_browser.host`` or ``ego_browser.client``, not even for type checking. What a
driver part needs from the host comes in through ``driver/sites.py``'s interfaces."""

from __future__ import annotations

import ast
from pathlib import Path

from ego_browser.pysource import parse

DRIVER = Path(__file__).resolve().parent.parent.parent / "ego_browser" / "driver"
ABOVE = ("ego_browser.host", "ego_browser.client")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["ego_browser", "driver"][: 2 - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.add(prefix)
            names.update(f"{prefix}.{a.name}" for a in node.names)
    return names


def test_driver_modules_import_nothing_above_them() -> None:
    offenders = {
        f"{path.name}: {name}"
        for path in sorted(DRIVER.glob("*.py"))
        for name in _imported(path)
        if any(name == top or name.startswith(top + ".") for top in ABOVE)
    }
    assert not offenders, f"driver modules importing the host or the client: {sorted(offenders)}"


def test_the_check_sees_a_host_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..host.core.host import Host\n")
    assert "ego_browser.host.core.host" in _imported(probe)
