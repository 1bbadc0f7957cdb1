"""The site-learnings validator (B187-B189)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ego_browser.learning import validate
from ego_browser.learning.validate import main, validate_skills

REPO = Path(__file__).resolve().parent.parent.parent
BUNDLED = REPO / "skills" / "ego-browser" / "learnings"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def good_manifest(pack_id: str = "shop") -> dict:
    return {
        "id": pack_id,
        "name": "Example Shop",
        "domains": ["shop.example", "*.shop.example"],
        "notes": ["notes/checkout.md"],
        "node_tools": {
            "search": {
                "file": "tools/search.py",
                "callable": "search",
                "description": "Search the shop",
                "args": {"query": "str", "limit": {"type": "int", "required": False}},
                "returns": "list",
                "example": "await run_site_tool('shop', 'search', query='x')",
            }
        },
        "browser_tools": {"read_cart": {"file": "browser-tools/read_cart.js", "description": "Read the cart", "args": {}}},
    }


def make_pack(root: Path, pack_id: str = "shop", manifest: dict | str | None = None, folder: str | None = None) -> Path:
    pack = root / (folder or pack_id)
    write(pack / "notes" / "checkout.md", "Checkout needs a login.")
    write(pack / "tools" / "search.py", "async def search(ctx, query, limit=10):\n    return []\n")
    write(pack / "browser-tools" / "read_cart.js", "return [];")
    data = good_manifest(pack_id) if manifest is None else manifest
    write(pack / "manifest.json", data if isinstance(data, str) else json.dumps(data))
    return pack


def run_main(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


# -- B187 ------------------------------------------------------------------------------------


def test_b187_valid_packs_pass(tmp_path, capsys):
    make_pack(tmp_path, "shop")
    make_pack(tmp_path, "blog", manifest={"id": "blog", "name": "Blog", "domains": ["blog.example"]})
    assert validate_skills(tmp_path) == []
    code, lines, _ = run_main([str(tmp_path)], capsys)
    assert code == 0
    assert lines == [f"validate-skills: 2 pack(s) OK in {tmp_path}"]


def test_b187_the_bundled_packs_are_valid(capsys):
    assert validate_skills(BUNDLED) == []
    code, lines, _ = run_main([str(BUNDLED)], capsys)
    assert code == 0
    assert "pack(s) OK" in lines[-1]


def test_default_root_follows_the_environment(tmp_path, monkeypatch, capsys):
    make_pack(tmp_path, "shop", manifest={**good_manifest(), "id": "wrong"})
    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(tmp_path))
    code, lines, _ = run_main([], capsys)
    assert code == 1
    assert lines[0].startswith("shop: id:")


# -- B188: one line per problem --------------------------------------------------------------


def mutate(change):
    data = good_manifest()
    change(data)
    return data


CASES = {
    "id_mismatch": (
        lambda d: d.update(id="shop2"),
        "shop: id: expected the folder name 'shop' (got 'shop2')",
    ),
    "scheme": (lambda d: d.update(domains=["https://shop.example"]), "shop: domains[0]: expected a host name without a scheme"),
    "path": (lambda d: d.update(domains=["shop.example/cart"]), "shop: domains[0]: expected a host name without a path"),
    "port": (lambda d: d.update(domains=["shop.example:8080"]), "shop: domains[0]: expected a host name without a port"),
    "missing_note": (lambda d: d.update(notes=["notes/missing.md"]), "shop: notes[0]: file not found: 'notes/missing.md'"),
    "missing_tool": (
        lambda d: d["node_tools"]["search"].update(file="tools/nothere.py"),
        "shop: node_tools.search.file: file not found: 'tools/nothere.py'",
    ),
    "missing_js": (
        lambda d: d["browser_tools"]["read_cart"].update(file="browser-tools/nothere.js"),
        "shop: browser_tools.read_cart.file: file not found",
    ),
    "outside_dotdot": (
        lambda d: d.update(notes=["../other/notes/checkout.md"]),
        "shop: notes[0]: path leaves the pack: '../other/notes/checkout.md'",
    ),
    "outside_absolute": (
        lambda d: d["node_tools"]["search"].update(file="/etc/hostname.py"),
        "shop: node_tools.search.file: path leaves the pack: '/etc/hostname.py' is absolute",
    ),
    "callable_missing": (
        lambda d: d["node_tools"]["search"].update(callable="find"),
        "shop: node_tools.search.callable: 'find' is not defined at the top level of search.py",
    ),
    "camel_case_key": (
        lambda d: d.update(nodeTools=d.pop("node_tools")),
        "shop: nodeTools: unknown key (expected one of: id, name, domains, notes, node_tools, browser_tools)",
    ),
    "unknown_tool_key": (
        lambda d: d["node_tools"]["search"].update(callableName="search"),
        "shop: node_tools.search.callableName: unknown key",
    ),
    "bad_arg_type": (
        lambda d: d["node_tools"]["search"]["args"].update(query="text"),
        "shop: node_tools.search.args.query: expected a type name",
    ),
    "missing_field": (lambda d: d.pop("name"), "shop: name: required field missing"),
    "wrong_ext": (
        lambda d: d["browser_tools"]["read_cart"].update(file="tools/search.py"),
        "shop: browser_tools.read_cart.file: expected a .js file",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_b188_each_problem_gives_one_line_and_exit_1(tmp_path, capsys, case):
    change, expected = CASES[case]
    write(tmp_path / "other" / "notes" / "checkout.md", "outside")  # target of the '..' case
    make_pack(tmp_path, "shop", manifest=mutate(change))
    problems = validate_skills(tmp_path)
    matching = [p for p in problems if p.startswith(expected)]
    assert len(matching) == 1, problems
    # the sibling folder "other" has no manifest and is reported on its own line
    assert [p for p in problems if not p.startswith("shop: ")] == ["other: manifest.json: file not found"]
    code, lines, _ = run_main([str(tmp_path)], capsys)
    assert code == 1
    assert expected in "\n".join(lines)
    assert lines[-1].startswith(f"validate-skills: {len(problems)} problem(s)")


def test_b188_symlink_out_of_the_pack(tmp_path):
    pack = make_pack(tmp_path / "root", "shop")
    secret = write(tmp_path / "secret.py", "def search(ctx, query, limit=1):\n    return 1\n")
    (pack / "tools" / "search.py").unlink()
    (pack / "tools" / "search.py").symlink_to(secret)
    problems = validate_skills(tmp_path / "root")
    assert len(problems) == 1
    assert problems[0].startswith("shop: node_tools.search.file: path leaves the pack: 'tools/search.py' is a symlink")


def test_several_problems_are_all_reported(tmp_path):
    data = good_manifest()
    data["id"] = "nope"
    data["domains"] = ["http://shop.example", "ok.example"]
    data["nodeTools"] = {}
    data["notes"] = ["notes/missing.md"]
    make_pack(tmp_path, "shop", manifest=data)
    problems = validate_skills(tmp_path)
    assert len(problems) == 4, problems
    assert all(p.startswith("shop: ") for p in problems)


def test_invalid_json_and_non_object(tmp_path):
    make_pack(tmp_path, "broken", manifest='{"id": "broken",')
    make_pack(tmp_path, "listy", manifest="[1, 2]")
    problems = validate_skills(tmp_path)
    assert problems[0].startswith("broken: manifest.json: not valid JSON")
    assert problems[1] == "listy: manifest: expected a JSON object (got list)"


def test_callable_shapes(tmp_path):
    cases = {
        "noctx": ("def search():\n    pass\n", "search() must take ctx as its first parameter"),
        "noargs": ("def search(ctx):\n    pass\n", "does not accept the declared argument(s) query, limit"),
        "syntax": ("def search(ctx, query:\n", "does not parse"),
        "kwargs": ("def search(ctx, **kw):\n    pass\n", None),
        "kwonly": ("async def search(ctx, *, query, limit=3):\n    pass\n", None),
        "assigned": ("def _impl(ctx, **kw):\n    pass\nsearch = _impl\n", None),
        "imported": ("from os.path import join as search\n", None),
        "conditional": ("try:\n    import fast\nexcept ImportError:\n    def search(ctx, query, limit=1):\n        pass\n", None),
        "class_attr": ("class Tools:\n    def search(self, ctx):\n        pass\n", "is not defined at the top level"),
    }
    for folder, (source, expected) in cases.items():
        root = tmp_path / folder
        pack = make_pack(root, "shop")
        (pack / "tools" / "search.py").write_text(source)
        problems = validate_skills(root)
        if expected is None:
            assert problems == [], (folder, problems)
        else:
            assert len(problems) == 1 and expected in problems[0], (folder, problems)
            assert problems[0].startswith("shop: node_tools.search.callable: ")


def test_missing_root(tmp_path, capsys):
    code, lines, _ = run_main([str(tmp_path / "nope")], capsys)
    assert code == 1
    assert "learnings folder not found" in lines[0]


def test_usage_errors(capsys):
    assert main(["a", "b"]) == 2
    assert "usage" in capsys.readouterr().err
    assert main(["--bogus"]) == 2


# -- B189 ------------------------------------------------------------------------------------


def test_b189_tool_modules_are_never_imported(tmp_path):
    marker = tmp_path / "marker.txt"
    pack = make_pack(tmp_path / "root", "shop")
    (pack / "tools" / "search.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
        "def search(ctx, query, limit=1):\n    return 1\n"
    )
    before = set(sys.modules)
    assert validate_skills(tmp_path / "root") == []
    assert not marker.exists()
    assert not (pack / "tools" / "__pycache__").exists()
    assert not any("search" in name for name in set(sys.modules) - before)
    # also when the callable is missing (the validator still only reads the source)
    data = good_manifest()
    data["node_tools"]["search"]["callable"] = "other"
    (pack / "manifest.json").write_text(json.dumps(data))
    assert len(validate_skills(tmp_path / "root")) == 1
    assert not marker.exists()


def test_module_entry_point_runs_as_a_script(tmp_path):
    make_pack(tmp_path, "shop", manifest={**good_manifest(), "id": "x"})
    out = subprocess.run(
        [sys.executable, "-m", "ego_browser.learning.validate", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True,
    )
    assert out.returncode == 1
    assert out.stdout.splitlines()[0] == "shop: id: expected the folder name 'shop' (got 'x')"
    assert validate.__name__ == "ego_browser.learning.validate"
