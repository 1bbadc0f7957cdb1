"""The page driver is below the host (issue 10 point 2): no module of ``ego_browser.driver``
imports ``ego_browser.host`` or anything above it, not even for type checking (a part gets what
it needs from the host as a value or a small callable)."""

from __future__ import annotations

import ast
from pathlib import Path

DRIVER = Path(__file__).resolve().parent.parent.parent / "ego_browser" / "driver"
ABOVE = ("ego_browser.host", "ego_browser.dashboard", "ego_browser.client", "ego_browser.runner")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:  # relative to ego_browser.driver: one dot is the package itself
                parts = ["ego_browser", "driver"][: 2 - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


def test_the_driver_imports_nothing_of_the_host():
    found = {
        f"{path.name}: {name}"
        for path in sorted(DRIVER.rglob("*.py"))
        for name in _imported(path)
        if any(name == up or name.startswith(up + ".") for up in ABOVE)
    }
    assert not found, "driver modules import the layers above them: " + ", ".join(sorted(found))


def test_the_check_sees_a_relative_import_of_the_host(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..host.core import Host\n")
    assert "ego_browser.host.core" in _imported(probe)
