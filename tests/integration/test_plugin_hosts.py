"""Each ``package-plugins`` artifact loaded by its host's own loader or validator (issue 34,
point 4): Claude Code's ``claude plugin validate`` and its ``--plugin-dir`` on the ZIP itself
(Claude Code, QwenWork's Claude-compatible kit, WorkBuddy's marketplace, Grok Build's Claude
manifest), Codex's marketplace install and the prompt it shows the model, Copilot
CLI's install and skill list, OpenCode's plugin loader and skill list, DeepSeek Harness's bundle
loading parts (its patch layer, plugin loader and skill registry: its CLI itself does not install).
They come from the npm registry through scripts/setup_plugin_hosts.sh (``make test`` runs it)
into .deps/plugin-hosts/; every run here is offline, in a throwaway home. Hosts with no
installable loader (Cursor; Grok Build, whose Claude-compatible manifest Claude Code's validator
checks here) are checked against their published formats in tests/project/test_plugins.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from ego_browser.cli import plugins
from tests.conftest import ROOT

BIN = ROOT / ".deps" / "plugin-hosts" / "node_modules" / ".bin"


def _tool(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed: run scripts/setup_plugin_hosts.sh (make test runs it)")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """Every artifact, by host key."""
    out = tmp_path_factory.mktemp("dist")
    return {next(h.key for h in plugins.HOSTS if p.name == h.artifact()): p for p in plugins.package_plugins(out)}


@pytest.fixture(scope="module")
def unpacked(built, tmp_path_factory) -> dict[str, Path]:
    """Every artifact extracted as a person would; host key -> its top-level folder."""
    out = tmp_path_factory.mktemp("plugins")
    found = {}
    for key, path in built.items():
        dest = out / key
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as zf:
                zf.extractall(dest)
        else:
            with tarfile.open(path) as tar:
                tar.extractall(dest, filter="data")
        (top,) = dest.iterdir()  # one top-level folder (tests/project/test_plugins.py checks its name)
        found[key] = top
    return found


@pytest.fixture()
def home(tmp_path) -> dict[str, str]:
    """An environment whose home and XDG folders are empty and throwaway, with the hosts' update
    checks and other network calls off (nothing here needs the network)."""
    h = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CODEX_", "COPILOT_", "OPENCODE_"))}
    (tmp_path / "tmp").mkdir()
    env.update(HOME=str(h), TMPDIR=str(tmp_path / "tmp"), XDG_CONFIG_HOME=str(h / ".config"), XDG_DATA_HOME=str(h / ".local/share"),
               XDG_CACHE_HOME=str(h / ".cache"), XDG_STATE_HOME=str(h / ".local/state"),
               DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               OPENCODE_DISABLE_AUTOUPDATE="1", OPENCODE_DISABLE_MODELS_FETCH="1",
               OPENCODE_DISABLE_DEFAULT_PLUGINS="1", NO_COLOR="1")
    (h / "project").mkdir(parents=True)
    return env


def _run(env: dict[str, str], *args: str | Path, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=str(cwd or Path(env["HOME"]) / "project"), stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("key, folder", [
    ("claude-code", "."), ("qwenwork", "."), ("workbuddy", "plugins/ego-browser"), ("grok-build", "."),
])
def test_claude_code_validates_the_plugin_and_finds_the_skill(unpacked, home, key, folder):
    proc = _run(home, _tool("claude"), "plugin", "validate", "--json", "--strict", unpacked[key] / folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["success"] and report["manifest"]["type"] == "plugin"
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []
    assert report["provides"]["skills"] == ["ego-browser:ego-browser"]


@pytest.mark.parametrize("key", ["claude-code", "qwenwork", "grok-build"])
def test_claude_code_loads_the_zip_itself_for_a_session(built, home, key):
    """`claude --plugin-dir` takes the ZIP as it is (QwenWork's kit upload takes the same ZIP):
    the plugin in its one top-level folder loads, with its skill."""
    claude = _tool("claude")
    proc = _run(home, claude, "--plugin-dir", built[key], "plugin", "list", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (session,) = [p for p in json.loads(proc.stdout) if p.get("scope") == "session"]
    assert session["id"] == "ego-browser@inline" and session["enabled"] and session["version"] == plugins.__version__
    assert Path(session["installPath"]).name == f"ego-browser-{key}"
    proc = _run(home, claude, "--plugin-dir", built[key], "plugin", "details", "ego-browser")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"Skills \(1\)\s+ego-browser\n", proc.stdout), proc.stdout


def test_claude_code_validates_the_workbuddy_marketplace(unpacked, home):
    proc = _run(home, _tool("claude"), "plugin", "validate", "--json", "--strict", unpacked["workbuddy"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["success"] and report["manifest"]["type"] == "marketplace"
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []


def test_codex_installs_from_the_zip_and_shows_the_skill_to_the_model(unpacked, home):
    codex = _tool("codex")
    root = unpacked["codex"]
    proc = _run(home, codex, "plugin", "marketplace", "add", root)
    assert proc.returncode == 0 and "ego-browser-codex-local" in proc.stdout, proc.stdout + proc.stderr
    proc = _run(home, codex, "plugin", "add", "ego-browser@ego-browser-codex-local")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # what the model is shown at the start of a turn: the plugin's skill, from Codex's cache
    proc = _run(home, codex, "debug", "prompt-input", "open example.com")
    assert proc.returncode == 0, proc.stderr
    prompt = proc.stdout
    assert "ego-browser:ego-browser: Drive a real Chromium" in prompt
    installed = Path(home["HOME"]) / ".codex" / "plugins" / "cache" / "ego-browser-codex-local" / "ego-browser"
    # the skill's file, as the prompt names it (under an alias for the cache root), is the installed copy
    assert f"ego-browser/{plugins.__version__}/skills/ego-browser/SKILL.md)" in prompt
    assert (installed / plugins.__version__ / "skills" / "ego-browser" / "SKILL.md").is_file()


@pytest.mark.parametrize("route", ["install", "plugin-dir"])
def test_copilot_cli_loads_the_plugin_and_lists_the_skill(unpacked, home, route):
    copilot = _tool("copilot")
    root = unpacked["github-copilot"]
    if route == "install":
        proc = _run(home, copilot, "plugin", "install", root)
        assert proc.returncode == 0 and "Installed 1 skill" in proc.stdout, proc.stdout + proc.stderr
        flags: list[str | Path] = []
    else:
        flags = ["--plugin-dir", root]
    proc = _run(home, copilot, *flags, "plugin", "list")
    assert proc.returncode == 0 and f"ego-browser (v{plugins.__version__})" in proc.stdout, proc.stdout + proc.stderr
    proc = _run(home, copilot, *flags, "skill", "list")
    assert proc.returncode == 0, proc.stderr
    plugin_skills = proc.stdout.split("Plugin skills:", 1)[1].split("\n\n", 1)[0]
    assert "ego-browser - Drive a real Chromium" in plugin_skills


def test_opencode_loads_the_plugin_and_registers_the_skill(unpacked, home):
    opencode = _tool("opencode")
    package = unpacked["opencode"]
    # OpenCode installs @opencode-ai/plugin from npm into each config folder (for TypeScript
    # plugins kept there; this plugin imports nothing) unless the folder's lock file lists it:
    # list it, so the run stays offline
    config_dir = Path(home["XDG_CONFIG_HOME"]) / "opencode"
    (config_dir / "node_modules").mkdir(parents=True)
    (config_dir / "package-lock.json").write_text(json.dumps(
        {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}))
    # the README's route: register the entry point in the global config, then start OpenCode
    proc = _run(home, opencode, "plugin", (package / "index.js").as_uri(), "-g")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (config,) = config_dir.glob("opencode.json*")
    assert (package / "index.js").as_uri() in config.read_text()
    proc = _run(home, opencode, "debug", "skill", "--print-logs", "--log-level", "WARN")
    assert proc.returncode == 0, proc.stderr
    assert "failed to load plugin" not in proc.stderr, proc.stderr
    skills = {s["name"]: s for s in json.loads(proc.stdout[proc.stdout.index("["):])}
    assert Path(skills["ego-browser"]["location"]) == package / "skills" / "ego-browser" / "SKILL.md"
    assert skills["ego-browser"]["description"].startswith("Drive a real Chromium")


def test_deepseek_harness_composes_the_bundle_and_registers_the_skill(unpacked, home):
    """`dsh plugin add` installs the package into the profile and keeps it as a layer only if it
    declares dsh.bundle.patch; the profile then loads the rows that patch inserts."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node runs DeepSeek Harness")
    modules = BIN.parent
    if not (modules / "@deepseek-ai" / "dsh-skill").is_dir():
        pytest.skip("DeepSeek Harness's packages are not installed: run scripts/setup_plugin_hosts.sh")
    package = unpacked["deepseek-harness"]
    profile = Path(home["HOME"]) / ".dsh" / "profiles" / "web"
    (profile / "node_modules").mkdir(parents=True)
    for name in ("@deepseek-ai", "js-yaml"):
        (profile / "node_modules" / name).symlink_to(modules / name)
    (profile / "node_modules" / "ego-browser-deepseek-harness").symlink_to(package)
    shutil.copy(Path(__file__).with_name("dsh_bundle_load.js"), profile / "load.mjs")  # .mjs: an ES module
    proc = _run(home, node, "load.mjs", "ego-browser-deepseek-harness", cwd=profile)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [e["name"] for e in out["entries"]] == ["ego-browser-deepseek-harness"]
    (skill,) = out["skills"]
    assert skill["name"] == "ego-browser" and skill["description"].startswith("Drive a real Chromium")
    assert Path(skill["path"]) == package / "skills" / "ego-browser" / "SKILL.md"
    assert skill["content"].lstrip().startswith("# ego-browser") and "---" not in skill["content"][:10]
