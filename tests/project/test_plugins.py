"""``package-plugins`` (issue 13, point 2; issue 34, point 4): nine artifacts, each unpacked here
and checked as its host would read it: one top-level folder, manifest layout and the host's
published manifest format (tests/project/plugin_schemas.py), a complete byte-identical copy of
the skill, and a README for that host alone. A failed build leaves the earlier artifacts as they
were. The hosts' own loaders run on the same artifacts in tests/integration/test_plugin_hosts.py."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from ego_browser.cli import plugins
from ego_browser._version import __version__
from ego_browser.learning.install import skill_source
from tests.conftest import ROOT
from tests.project import plugin_schemas as schemas

V = __version__
EXPECTED = {
    f"ego-browser-{k}-v{V}.{e}" for k, e in (
        ("claude-code", "zip"), ("codex", "zip"), ("cursor", "zip"), ("github-copilot", "zip"),
        ("grok-build", "zip"), ("workbuddy", "zip"), ("qwenwork", "zip"), ("opencode", "tgz"),
        ("deepseek-harness", "tgz"),
    )
}
# where each host finds its manifest(s), relative to the archive's one top-level folder
MANIFESTS = {
    "claude-code": [".claude-plugin/plugin.json"],
    "codex": [".codex-plugin/plugin.json"],
    "cursor": [".cursor-plugin/plugin.json"],
    "github-copilot": ["plugin.json"],
    "grok-build": ["plugin.json", ".claude-plugin/plugin.json"],
    "workbuddy": [f"plugins/ego-browser/.{h}-plugin/plugin.json" for h in ("claude", "codebuddy", "workbuddy")],
    "qwenwork": [".claude-plugin/plugin.json"],
    "opencode": ["package.json"],
    "deepseek-harness": ["package.json"],
}
INSTALL_WORDS = {  # a word of each host's own install section, absent from every other README
    "claude-code": "claude --plugin-dir", "codex": "codex plugin marketplace add", "cursor": "cursor-agent",
    "github-copilot": "copilot --plugin-dir", "grok-build": "grok --plugin-dir", "workbuddy": "workbuddy-local",
    "qwenwork": "expert kit", "opencode": "opencode plugin", "deepseek-harness": "dsh plugin",
}


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _unpack(artifact: Path, dest: Path) -> Path:
    """Extracts the artifact as a person would; returns its one top-level folder (``package/``
    for an npm archive, ``ego-browser-<host>/`` for a ZIP, so extracting never scatters files)."""
    if artifact.suffix == ".zip":
        with zipfile.ZipFile(artifact) as zf:
            names = zf.namelist()
            zf.extractall(dest)
    else:
        with tarfile.open(artifact) as tar:
            names = tar.getnames()
            tar.extractall(dest, filter="data")
    assert all(not n.startswith("/") and ".." not in n.split("/") for n in names)
    tops = {n.split("/", 1)[0] for n in names}
    key = artifact.name.removeprefix("ego-browser-").rsplit("-v", 1)[0]
    assert tops == {"package" if artifact.suffix == ".tgz" else f"ego-browser-{key}"}, tops
    assert all("/" in n for n in names), "every file sits inside the top-level folder"
    return dest / tops.pop()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("plugins")
    paths = plugins.package_plugins(out)
    assert {p.name for p in paths} == EXPECTED
    assert sorted(p.name for p in out.iterdir()) == [f"ego-browser-v{V}"], "no scratch folder left behind"
    return {p.name.removeprefix("ego-browser-").removesuffix(f"-v{V}{p.suffix if p.suffix == '.zip' else '.tgz'}"): p
            for p in paths}


@pytest.mark.parametrize("key", sorted(MANIFESTS))
def test_each_artifact_has_its_hosts_layout_the_whole_skill_and_its_own_readme(built, key, tmp_path):
    root = _unpack(built[key], tmp_path / "x")
    skill = skill_source()
    for rel in MANIFESTS[key]:
        data = json.loads((root / rel).read_text())
        name = data["name"]
        assert name in ("ego-browser", f"ego-browser-{key}"), (rel, name)
        assert data["version"] == V and data["description"].startswith("Drive a real Chromium")
        # a manifest in a .<host>-plugin/ folder describes the folder above it
        base = (root / rel).parent
        if base.name.startswith(".") and base.name.endswith("-plugin"):
            base = base.parent
        # skills live in a folder *of* skill folders: the host's default skills/, or one the
        # manifest names; a path to the skill folder itself finds no skill in some hosts
        declared = data.get("skills", "./skills/") if rel != "package.json" else "./skills/"
        for entry in declared if isinstance(declared, list) else [declared]:
            assert (base / entry / "ego-browser" / "SKILL.md").is_file(), (rel, entry)
            assert not (base / entry / "SKILL.md").exists(), f"{rel}: {entry} names the skill, not a skills folder"
        assert _digests(base / "skills" / "ego-browser") == _digests(skill), "a full, unchanged copy of the skill"
        assert schemas.skill_errors(base / "skills" / "ego-browser") == []
    readme = (root / "README.md").read_text()
    assert readme.startswith("# ego-browser for ") and "## Requirements" in readme and "pip install ego_browser" in readme
    assert INSTALL_WORDS[key] in readme
    others = [w for k, w in INSTALL_WORDS.items() if k != key and w in readme]
    assert others == [], f"{key}'s README speaks of other hosts: {others}"
    assert not [p for p in root.rglob("*") if p.is_symlink()]


def test_codex_manifest_and_marketplace_follow_codexs_format(built, tmp_path):
    root = _unpack(built["codex"], tmp_path / "x")
    manifest = json.loads((root / ".codex-plugin" / "plugin.json").read_text())
    assert re.fullmatch(schemas.KEBAB, manifest["name"])
    # component paths are plugin-relative, start with ./ and stay inside the plugin
    assert manifest["skills"].startswith("./") and ".." not in manifest["skills"].split("/")
    assert set(manifest["interface"]) <= {"displayName", "shortDescription", "longDescription", "developerName",
                                          "category", "capabilities", "websiteURL", "defaultPrompt", "brandColor"}
    assert os.listdir(root / ".codex-plugin") == ["plugin.json"], "only the manifest lives in .codex-plugin/"
    market = json.loads((root / ".agents" / "plugins" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    assert entry["name"] == manifest["name"] and entry["source"] == {"source": "local", "path": "./"}
    assert (root / entry["source"]["path"] / ".codex-plugin" / "plugin.json").is_file()
    assert entry["policy"] == {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}


def test_workbuddy_is_a_marketplace_root(built, tmp_path):
    root = _unpack(built["workbuddy"], tmp_path / "x")
    for folder in (".claude-plugin", ".codebuddy-plugin"):
        market = json.loads((root / folder / "marketplace.json").read_text())
        (entry,) = market["plugins"]
        assert market["name"] == "ego-browser-workbuddy-local" and market["owner"]["name"]
        assert (root / entry["source"] / ".workbuddy-plugin" / "plugin.json").is_file()
        assert (root / entry["source"] / "skills" / "ego-browser" / "SKILL.md").is_file()


def test_cursor_manifest_conforms_to_cursors_published_schema(built, tmp_path):
    root = _unpack(built["cursor"], tmp_path / "x")
    manifest = json.loads((root / ".cursor-plugin" / "plugin.json").read_text())
    assert schemas.errors(manifest, schemas.CURSOR_PLUGIN) == []
    # the checker itself refuses what Cursor's schema refuses
    assert schemas.errors({**manifest, "interface": {}}, schemas.CURSOR_PLUGIN)
    assert schemas.errors({**manifest, "name": "Ego Browser"}, schemas.CURSOR_PLUGIN)


@pytest.mark.parametrize("key", ["grok-build", "github-copilot"])
def test_root_manifest_is_an_agent_plugins_1_0_manifest(built, key, tmp_path):
    """Grok Build and Copilot CLI read a root plugin.json (Copilot ahead of any other manifest);
    Agent Plugins 1.0 closes its schema and finds skills only in skills/."""
    root = _unpack(built[key], tmp_path / "x")
    manifest = json.loads((root / "plugin.json").read_text())
    assert schemas.errors(manifest, schemas.AGENT_PLUGIN) == []
    assert schemas.errors({**manifest, "skills": "./skills/"}, schemas.AGENT_PLUGIN)
    assert [p.name for p in (root / "skills").iterdir()] == ["ego-browser"]


def _node(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the npm adapters")
def test_opencode_module_survives_opencodes_loader(built, tmp_path):
    """OpenCode imports the module and calls *every* export as a plugin: a string export threw
    "fn is not a function", and a named export beside the default one registered it twice."""
    oc = _unpack(built["opencode"], tmp_path / "oc")
    pkg = json.loads((oc / "package.json").read_text())
    assert pkg["name"] == "ego-browser-opencode" and pkg["type"] == "module"
    assert pkg["exports"]["./server"] == pkg["exports"]["."] == "./index.js"
    script = (
        f"const m = await import({json.dumps((oc / 'index.js').as_uri())});"
        "const fns = Object.entries(m).map(([name, fn]) => { if (typeof fn !== 'function')"
        " throw new Error(`export ${name} is a ${typeof fn}, not a plugin function`); return fn; });"
        "const cfg = {instructions: ['mine.md'], skills: {paths: ['/mine']}, command: {mine: {template: 'x'}}};"
        "const hooks = []; for (const fn of fns) hooks.push(await fn({directory: process.cwd()}));"
        "for (const h of hooks) await h.config?.(cfg);"
        "console.log(JSON.stringify({exports: Object.keys(m), distinct: new Set(fns).size, cfg}));"
    )
    proc = _node(script)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["exports"] == ["default"] and out["distinct"] == 1, "one plugin, registered once"
    cfg = out["cfg"]
    assert cfg["instructions"] == ["mine.md"] and cfg["command"]["mine"] == {"template": "x"}
    assert cfg["skills"]["paths"][0] == "/mine"
    (skills_dir,) = cfg["skills"]["paths"][1:]
    assert (Path(skills_dir) / "ego-browser" / "SKILL.md").is_file() and Path(skills_dir).is_relative_to(oc)
    assert "ego-browser skill" in cfg["command"]["ego-browser"]["template"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the npm adapters")
def test_deepseek_harness_package_is_a_bundle_whose_plugin_registers_the_skill(built, tmp_path):
    """A package joins a dsh profile only if package.json declares dsh.bundle.patch; the rows
    that patch inserts load Cordis plugins (name, inject, apply) by package name."""
    ds = _unpack(built["deepseek-harness"], tmp_path / "ds")
    pkg = json.loads((ds / "package.json").read_text())
    patch = (ds / pkg["dsh"]["bundle"]["patch"]).read_text()
    assert "- insert:" in patch and f"name: {pkg['name']}" in patch
    main = pkg["exports"]["."]
    script = (
        f"const m = await import({json.dumps((ds / main).as_uri())});"
        "const plugin = m.default ?? m; const seen = [];"  # what Cordis's loader unwraps
        "plugin.apply({skills: {register: (s) => seen.push(s)}});"
        "console.log(JSON.stringify({name: plugin.name, inject: plugin.inject, seen}));"
    )
    proc = _node(script)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["inject"] == ["skills"]
    (registered,) = out["seen"]
    assert registered["name"] == "ego-browser" and registered["description"].startswith("Drive a real Chromium")
    assert Path(registered["path"]) == ds / "skills" / "ego-browser" / "SKILL.md"
    assert registered["content"] == (ds / "skills" / "ego-browser" / "SKILL.md").read_text().split("---", 2)[2].lstrip("\n")


def test_a_failed_build_leaves_the_earlier_artifacts_intact(tmp_path, monkeypatch):
    first = plugins.package_plugins(tmp_path)
    before = {p.name: p.read_bytes() for p in first}

    def broken(root: Path, meta: dict) -> None:
        raise OSError("disk full while writing the manifest")

    hosts = list(plugins.HOSTS)
    hosts[6] = dataclasses.replace(hosts[6], layout=broken)  # after six built fine
    with pytest.raises(OSError, match="disk full"):
        plugins.package_plugins(tmp_path, hosts=tuple(hosts))
    after = {p.name: p.read_bytes() for p in plugins.artifact_dir(tmp_path).iterdir()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"ego-browser-v{V}"], "scratch removed"


def test_the_command_builds_all_nine(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "package-plugins", "--output", str(tmp_path), "--json"],
                          capture_output=True, text=True, timeout=120, cwd=str(ROOT), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert {Path(r["path"]).name for r in rows} == EXPECTED and all(r["bytes"] > 1000 for r in rows)
