"""Learned tool packs from hostile input (issue 31 §3): an imported pack export whose site, file
names or tool paths try to leave the learnings root is refused whole, and nothing is written,
moved or removed outside it."""

from __future__ import annotations

import json

import pytest

from ego_browser.errors import SitePackInvalid
from ego_browser.learning import learned
from tests.learning.test_learned import cli, root, save  # noqa: F401 - the fixture

SOURCE = "async def run(page):\n    return {'ok': True}\n"


def _bundle(site: str, files: dict[str, str] | None = None, tool_file: str = "tools/t.py") -> dict:
    pack = {"format": 1, "id": site, "origin": "http://evil.test", "tools": {
        "t": {"file": tool_file, "version": 1, "params": {}, "path_prefix": "/", "postcondition": {}, "provenance": {}}}}
    return {"format": 1, "site": site, "files": {"pack.json": json.dumps(pack), "tools/t.py": SOURCE, **(files or {})}}


@pytest.mark.parametrize("case", ["dotdot-site", "absolute-site", "dotdot-file", "absolute-file", "dotdot-tool"])
def test_an_import_that_leaves_the_root_writes_and_removes_nothing(root, tmp_path, case):  # noqa: F811
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("the person's file")
    bundle = {
        "dotdot-site": _bundle("../escaped"),
        "absolute-site": _bundle(str(victim)),
        "dotdot-file": _bundle("evil.test", {"../../escaped.py": SOURCE}),
        "absolute-file": _bundle("evil.test", {str(tmp_path / "escaped.py"): SOURCE}),
        "dotdot-tool": _bundle("evil.test", {"../escaped.py": SOURCE}, tool_file="../escaped.py"),
    }[case]
    (tmp_path / "evil.json").write_text(json.dumps(bundle))
    root.mkdir(parents=True, exist_ok=True)
    bad = cli(root, "import", str(tmp_path / "evil.json"), "--replace", check=False)
    assert bad.returncode == 1 and "EGO_SITE_PACK_INVALID" in bad.stderr, bad.stderr
    assert "nothing was imported" in bad.stderr
    assert (victim / "keep.txt").read_text() == "the person's file"  # --replace removed nothing outside
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.json", "learned", "victim"]
    assert list(root.iterdir()) == []


def test_a_pack_edited_to_point_its_tool_outside_is_refused_before_it_runs(root, tmp_path):  # noqa: F811
    saved = save(root, SOURCE)
    site = saved["site_id"]
    outside = tmp_path / "outside.py"
    outside.write_text(SOURCE)
    pack_path = root / site / "pack.json"
    pack = json.loads(pack_path.read_text())
    for escaping in ("../../outside.py", str(outside)):
        pack["tools"]["add_book"]["file"] = escaping
        pack_path.write_text(json.dumps(pack))
        with pytest.raises(SitePackInvalid, match="leaves the pack"):
            learned.load_run(learned.read_pack(site, root), "add_book", root)
    pack["id"] = "../elsewhere"
    pack_path.write_text(json.dumps(pack))
    with pytest.raises(SitePackInvalid, match="not a site folder name"):
        learned.read_pack(site, root)
