"""``package-plugins`` (issue 13, point 2): nine artifacts, each unpacked here and checked as
its host would read it: manifest layout, a complete byte-identical copy of the skill, and a
README for that host alone. A failed build leaves the earlier artifacts as they were."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from ego_browser import plugins
from ego_browser._version import __version__
from ego_browser.learning.install import skill_source
from tests.conftest import ROOT

V = __version__
EXPECTED = {
    f"ego-browser-{k}-v{V}.{e}" for k, e in (
        ("claude-code", "zip"), ("codex", "zip"), ("cursor", "zip"), ("github-copilot", "zip"),
        ("grok-build", "zip"), ("workbuddy", "zip"), ("qwenwork", "zip"), ("opencode", "tgz"),
        ("deepseek-harness", "tgz"),
    )
}
# where each host finds its manifest(s), relative to the unpacked archive
MANIFESTS = {
    "claude-code": [".claude-plugin/plugin.json"],
    "codex": [".codex-plugin/plugin.json"],
    "cursor": [".cursor-plugin/plugin.json"],
    "github-copilot": [".claude-plugin/plugin.json"],
    "grok-build": ["plugin.json"],
    "workbuddy": [f"plugins/ego-browser/.{h}-plugin/plugin.json" for h in ("claude", "codebuddy", "workbuddy")],
    "qwenwork": [".claude-plugin/plugin.json"],
    "opencode": ["package/package.json"],
    "deepseek-harness": ["package/package.json"],
}
INSTALL_WORDS = {  # a word of each host's own install section, absent from every other README
    "claude-code": "claude --plugin-dir", "codex": "codex plugin marketplace add", "cursor": "cursor-agent",
    "github-copilot": "copilot --plugin-dir", "grok-build": "grok plugin install", "workbuddy": "workbuddy-local",
    "qwenwork": "expert kit", "opencode": "opencode plugin", "deepseek-harness": "dsh plugin",
}


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _unpack(artifact: Path, dest: Path) -> Path:
    if artifact.suffix == ".zip":
        with zipfile.ZipFile(artifact) as zf:
            assert all(not n.startswith("/") and ".." not in n.split("/") for n in zf.namelist())
            zf.extractall(dest)
    else:
        with tarfile.open(artifact) as tar:
            assert all(n == "package" or n.startswith("package/") for n in tar.getnames())
            tar.extractall(dest, filter="data")
    return dest


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
        declared = data.get("skills", "./skills/ego-browser")
        for entry in declared if isinstance(declared, list) else [declared]:
            assert (base / entry / "SKILL.md").is_file(), (rel, entry)
        assert _digests(base / "skills" / "ego-browser") == _digests(skill), "a full, unchanged copy of the skill"
    readme_path = root / ("package/README.md" if key in ("opencode", "deepseek-harness") else "README.md")
    readme = readme_path.read_text()
    assert readme.startswith("# ego-browser for ") and "## Requirements" in readme and "pip install ego_browser" in readme
    assert INSTALL_WORDS[key] in readme
    others = [w for k, w in INSTALL_WORDS.items() if k != key and w in readme]
    assert others == [], f"{key}'s README speaks of other hosts: {others}"
    assert not [p for p in root.rglob("*") if p.is_symlink()]


def test_codex_marketplace_points_at_the_archive_root(built, tmp_path):
    root = _unpack(built["codex"], tmp_path / "x")
    market = json.loads((root / ".agents" / "plugins" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    assert entry["name"] == "ego-browser" and entry["path"] == "./"
    assert (root / entry["path"] / ".codex-plugin" / "plugin.json").is_file()


def test_workbuddy_is_a_marketplace_root(built, tmp_path):
    root = _unpack(built["workbuddy"], tmp_path / "x")
    market = json.loads((root / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    assert market["name"] == "ego-browser-workbuddy-local"
    assert (root / entry["source"] / ".workbuddy-plugin" / "plugin.json").is_file()
    assert (root / entry["source"] / "skills" / "ego-browser" / "SKILL.md").is_file()


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the npm adapters")
def test_the_npm_adapters_load_and_point_at_the_packaged_skill(built, tmp_path):
    oc = _unpack(built["opencode"], tmp_path / "oc") / "package"
    pkg = json.loads((oc / "package.json").read_text())
    assert pkg["name"] == "ego-browser-opencode" and pkg["exports"]["./server"] == "./index.js"
    script = (
        f"const m = await import({json.dumps((oc / 'index.js').as_uri())});"
        "const hooks = await m.EgoBrowserPlugin({}); const cfg = {instructions: ['mine.md']};"
        "await hooks.config(cfg); console.log(JSON.stringify(cfg));"
    )
    proc = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    cfg = json.loads(proc.stdout)
    assert cfg["instructions"][0] == "mine.md" and Path(cfg["instructions"][1]).is_file()
    assert Path(cfg["instructions"][1]).is_relative_to(oc)
    assert "ego-browser skill" in cfg["command"]["ego-browser"]["template"]

    ds = _unpack(built["deepseek-harness"], tmp_path / "ds") / "package"
    script = (
        f"const m = await import({json.dumps((ds / 'dsh.js').as_uri())});"
        "const seen = []; m.register({skills: {register: (s) => seen.push(s)}});"
        "console.log(JSON.stringify(seen));"
    )
    proc = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    (registered,) = json.loads(proc.stdout)
    assert registered["name"] == "ego-browser" and (Path(registered["dir"]) / "SKILL.md").is_file()


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
