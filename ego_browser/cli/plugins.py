"""``ego-browser package-plugins``: the entry skill packaged for nine agent hosts.

Every artifact holds its host's manifest layout, a full copy of the skill (real files, never a
link to this checkout) and a README for that host alone, all inside one top-level folder
(``ego-browser-<host>/`` in a ZIP, ``package/`` in an npm archive), so extracting it never
scatters files. The nine are built in a scratch folder next to the output; only when all nine
are built are they moved into ``<output>/ego-browser-v<version>/`` (one ``os.replace`` each, on
the same file system), so a failed build leaves the artifacts of an earlier build as they were.

Each layout follows its host's published format and is loaded by the host's own loader where one
installs (tests/integration/test_plugin_hosts.py: Claude Code's validator, Codex, Copilot CLI,
OpenCode, DeepSeek Harness's bundle loading); Cursor's and Agent Plugins 1.0 (Grok Build) are
checked against their published schemas (tests/project/test_plugins.py).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._version import __version__
from ..learning.install import MANIFEST, skill_source

__all__ = ["HOSTS", "Host", "package_plugins", "artifact_dir"]

NAME = "ego-browser"
SKILL_DIR = f"skills/{NAME}"
_SKIP_DIRS = {"__pycache__", ".git"}
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same sources give the same archives

REQUIREMENTS = f"""\
## Requirements

- Python 3.11 or newer with ego_browser installed: `pip install ego_browser` (see
  `{SKILL_DIR}/references/install.md`), so that `ego-browser` runs in the agent's shell.
- A Chromium or Google Chrome ego_browser can launch (`ego-browser doctor` checks).
- An agent host that reads Skills and can run local shell commands.

After installing, ask the agent to use the ego-browser skill; its first step is
`ego-browser skill`, which prints the usage guide of the installed version.
"""


@dataclass(frozen=True)
class Host:
    key: str  # the artifact's name part: ego-browser-<key>-v<version>.<ext>
    title: str
    ext: str  # "zip" or "tgz" (an npm archive: everything under package/)
    layout: Callable[[Path, dict[str, Any]], None]  # writes the host's files into the plugin root
    install: str  # the host-specific README section (markdown)

    def artifact(self, version: str = __version__) -> str:
        return f"{NAME}-{self.key}-v{version}.{self.ext}"

    @property
    def folder(self) -> str:
        """The archive's one top-level folder: what extracting it creates (npm's is package/)."""
        return "package" if self.ext == "tgz" else f"{NAME}-{self.key}"


def _meta(skill: Path) -> dict[str, Any]:
    text = (skill / "SKILL.md").read_text(encoding="utf-8")
    description = ""
    if text.startswith("---"):
        for line in text.split("---", 2)[1].splitlines():
            if line.startswith("description:"):
                description = line.split(":", 1)[1].strip()
    if not description:
        raise ValueError(f"{skill / 'SKILL.md'} has no description in its front matter")
    return {
        "name": NAME,
        "version": __version__,
        "description": description,
        "author": {"name": "The ego_browser authors"},
        "license": "MIT",
        "keywords": ["browser", "automation", "chromium", "web"],
    }


def _json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# Agent Plugins 1.0.0 (agent-plugins.org, an open standard Cursor, Copilot CLI and Codex read): a
# closed manifest schema at the plugin root, with skills found in the fixed skills/ folder.
AGENT_PLUGINS_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"


def _common(meta: dict[str, Any]) -> dict[str, Any]:
    """The manifest fields every host reads the same way; skills sit in each host's default
    skills/ folder, so no host needs a path to them (a path naming the skill folder itself is
    read by some hosts as a folder *of* skills, and finds none)."""
    return {k: meta[k] for k in ("name", "version", "description", "author", "license", "keywords")}


def _claude(root: Path, meta: dict[str, Any]) -> None:
    _json(root / ".claude-plugin" / "plugin.json", _common(meta))


def _codex(root: Path, meta: dict[str, Any]) -> None:
    _json(root / ".codex-plugin" / "plugin.json", {
        **_common(meta), "skills": "./skills/",
        "interface": {"displayName": "ego-browser", "shortDescription": "Drive a real Chromium from Python",
                      "developerName": meta["author"]["name"], "category": "Productivity"},
    })
    # the marketplace points at the plugin folder itself, so one ZIP serves both install routes
    _json(root / ".agents" / "plugins" / "marketplace.json", {
        "name": f"{NAME}-codex-local",
        "interface": {"displayName": "ego-browser (local)"},
        "plugins": [{"name": NAME, "source": {"source": "local", "path": "./"},
                     "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                     "category": "Productivity"}],
    })


def _cursor(root: Path, meta: dict[str, Any]) -> None:
    _json(root / ".cursor-plugin" / "plugin.json", {**_common(meta), "displayName": "ego-browser"})


def _agent_plugin(root: Path, meta: dict[str, Any]) -> None:
    _json(root / "plugin.json", {"$schema": AGENT_PLUGINS_SCHEMA, **_common(meta)})


def _grok(root: Path, meta: dict[str, Any]) -> None:
    # Grok Build loads Agent Plugins packages and, its docs say, Claude Code plugins as they are
    _agent_plugin(root, meta)
    _claude(root, meta)


def _copilot(root: Path, meta: dict[str, Any]) -> None:
    # Copilot CLI reads a root plugin.json first; the same file is a valid Agent Plugins manifest
    _agent_plugin(root, meta)


def _workbuddy(plugin_root: Path, meta: dict[str, Any]) -> None:
    for folder in (".claude-plugin", ".codebuddy-plugin", ".workbuddy-plugin"):
        _json(plugin_root / folder / "plugin.json", _common(meta))


def _npm_package(root: Path, meta: dict[str, Any], package: str, exports: dict[str, str],
                 extra: dict[str, Any] | None = None) -> None:
    _json(root / "package.json", {
        "name": package, "version": meta["version"], "description": meta["description"], "license": "MIT",
        "type": "module", "main": "./index.js", "exports": exports,
        "files": ["*.js", "README.md", "skills/"], "keywords": meta["keywords"], **(extra or {}),
    })


# OpenCode calls every export of a plugin module as a plugin function: this module exports one
# function, once (a named export next to the default one would register it twice).
_OPENCODE_JS = """\
// OpenCode plugin: adds the packaged skills folder (skills/ego-browser) to OpenCode's skill
// paths and an /ego-browser command. Only the plugin function is exported: OpenCode calls
// every export of this module.
import { fileURLToPath } from "node:url";
import path from "node:path";

const skillsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "skills");

export default async function EgoBrowserPlugin() {
  return {
    config: async (config) => {
      const skills = config.skills ?? {};
      const paths = skills.paths ?? [];
      if (!paths.includes(skillsDir)) config.skills = { ...skills, paths: [...paths, skillsDir] };
      config.command = {
        ...(config.command ?? {}),
        "ego-browser": {
          description: "Drive a real Chromium with ego_browser (Python)",
          template: "Use the ego-browser skill. Start with: ego-browser skill\\n\\n$ARGUMENTS",
        },
      };
    },
  };
}
"""

# A DeepSeek Harness plugin is a Cordis plugin module (name, inject, apply); a package becomes a
# profile layer only when its package.json declares dsh.bundle.patch, a YAML list of loader
# patches (here: one inserted row that loads this package).
_DSH_JS = """\
// DeepSeek Harness plugin (a Cordis plugin): registers the packaged ego-browser skill
// (skills/ego-browser/SKILL.md) in the harness's skill registry, ctx.skills.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const name = "ego-browser";
export const inject = ["skills"];

const skillDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "skills", "ego-browser");

function readSkill() {
  const file = path.join(skillDir, "SKILL.md");
  const text = readFileSync(file, "utf8");
  const match = /^---\\r?\\n([\\s\\S]*?)\\r?\\n---\\r?\\n?/.exec(text);
  if (!match) throw new Error(`${file} has no front matter`);
  const field = (key) => (new RegExp(`^${key}:\\\\s*(.*)$`, "m").exec(match[1]) ?? [])[1]?.trim();
  return { name: field("name"), description: field("description"), content: text.slice(match[0].length).trimStart(), path: file };
}

export function apply(ctx) {
  ctx.skills.register({ ...readSkill(), source: "runtime", resourceBase: { kind: "directory", path: skillDir } });
}
"""

_DSH_PATCH = """\
# DeepSeek Harness profile layer: one plugin row that loads this package (dsh.js), which
# registers the packaged ego-browser skill.
- insert:
    - id: ego-browser
      name: ego-browser-deepseek-harness
"""


def _opencode(root: Path, meta: dict[str, Any]) -> None:
    _npm_package(root, meta, "ego-browser-opencode", {".": "./index.js", "./server": "./index.js"})
    (root / "index.js").write_text(_OPENCODE_JS, encoding="utf-8")


def _deepseek(root: Path, meta: dict[str, Any]) -> None:
    _npm_package(root, meta, "ego-browser-deepseek-harness", {".": "./dsh.js", "./dsh": "./dsh.js"},
                 {"main": "./dsh.js", "files": ["*.js", "cordis.patch.yml", "README.md", "skills/"],
                  "dsh": {"bundle": {"patch": "./cordis.patch.yml"}}})
    (root / "dsh.js").write_text(_DSH_JS, encoding="utf-8")
    (root / "cordis.patch.yml").write_text(_DSH_PATCH, encoding="utf-8")


# Each README's install section; every ZIP extracts to one folder, ego-browser-<host>/.
HOSTS: tuple[Host, ...] = (
    Host("claude-code", "Claude Code", "zip", _claude, """\
Load the ZIP for a session as it is, or extract it into a persistent folder (it creates
`ego-browser-claude-code/`) and load that:

```bash
claude --plugin-dir /absolute/path/to/ego-browser-claude-code-v{version}.zip
unzip ego-browser-claude-code-v{version}.zip -d /absolute/path/to
claude --plugin-dir /absolute/path/to/ego-browser-claude-code
```

Use `/ego-browser:ego-browser` (or ask for the ego-browser skill). `claude plugin validate
/absolute/path/to/ego-browser-claude-code` checks the folder. For a persistent install, add the
folder to a plugin marketplace. `ego-browser install-skill` installs the same skill
into `~/.claude/skills` without a plugin.
"""),
    Host("codex", "Codex", "zip", _codex, """\
The ZIP extracts to `ego-browser-codex/`, which holds `.codex-plugin/plugin.json`, `skills/` and
`.agents/plugins/marketplace.json`, a local marketplace whose one entry is that same folder
(`"path": "./"`). Add the folder as a marketplace and install the plugin:

```bash
unzip ego-browser-codex-v{version}.zip -d /absolute/path/to
codex plugin marketplace add /absolute/path/to/ego-browser-codex
codex plugin add ego-browser@ego-browser-codex-local
```

Start a new Codex session and ask it to use `$ego-browser`. Remove it with
`codex plugin remove ego-browser@ego-browser-codex-local`.
"""),
    Host("cursor", "Cursor", "zip", _cursor, """\
Extract the ZIP (it creates `ego-browser-cursor/`) and load it with the Cursor CLI:

```bash
unzip ego-browser-cursor-v{version}.zip -d /absolute/path/to
cursor-agent --plugin-dir /absolute/path/to/ego-browser-cursor
```

The manifest is `.cursor-plugin/plugin.json`; the skill is found in the plugin's `skills/`
folder. Use `/ego-browser` in the session.
"""),
    Host("github-copilot", "GitHub Copilot CLI", "zip", _copilot, """\
Extract the ZIP (it creates `ego-browser-github-copilot/`, with Copilot's root `plugin.json`)
and load it for a session, or install it:

```bash
unzip ego-browser-github-copilot-v{version}.zip -d /absolute/path/to
copilot --plugin-dir /absolute/path/to/ego-browser-github-copilot
copilot plugin install /absolute/path/to/ego-browser-github-copilot   # or: a persistent install
```

`copilot skill list` then lists ego-browser under "Plugin skills"; use `/ego-browser`. A
personal `ego-browser` skill (from `install-skill`) takes precedence over the plugin's copy:
remove one of the two so the version you expect is the one used. Remove the install with
`copilot plugin uninstall ego-browser`.
"""),
    Host("grok-build", "Grok Build", "zip", _grok, """\
Extract the ZIP (it creates `ego-browser-grok-build/`, an Agent Plugins 1.0 package: the root
`plugin.json` and `skills/ego-browser/`, with the Claude-compatible manifest beside it), then
load it for a session or keep it in Grok's plugin folder:

```bash
unzip ego-browser-grok-build-v{version}.zip -d /absolute/path/to
grok --plugin-dir /absolute/path/to/ego-browser-grok-build
unzip ego-browser-grok-build-v{version}.zip -d ~/.grok/plugins   # or: for every session
```

Use `/ego-browser`; `/plugins` in the TUI lists and toggles it.
"""),
    Host("workbuddy", "WorkBuddy", "zip", _workbuddy, """\
The ZIP extracts to `ego-browser-workbuddy/`, a marketplace root: `.codebuddy-plugin/` and
`.claude-plugin/` hold its `marketplace.json`, and `plugins/ego-browser/` the plugin, with
`.codebuddy-plugin/plugin.json`, `.workbuddy-plugin/plugin.json` and the Claude-compatible
manifest. In WorkBuddy, add the extracted folder as a local marketplace, select
**ego-browser-workbuddy-local** and install **ego-browser**; then start a new task and ask it to
use the ego-browser skill.
"""),
    Host("qwenwork", "QwenWork Desktop", "zip", _claude, """\
Upload the ZIP as an expert kit (Extensions → Expert kits → Add → Upload kit), then install it.
The kit is the folder `ego-browser-qwenwork/` with the Claude-compatible
`.claude-plugin/plugin.json` and `skills/ego-browser/`. Start a new task and ask it to use
ego-browser.
"""),
    Host("opencode", "OpenCode", "tgz", _opencode, """\
Extract the npm archive into a persistent folder and register its entry point:

```bash
mkdir -p /absolute/path/to/ego-browser-opencode
tar -xzf ego-browser-opencode-v{version}.tgz -C /absolute/path/to/ego-browser-opencode
opencode plugin "file:///absolute/path/to/ego-browser-opencode/package/index.js" -g
```

The package `ego-browser-opencode` exports `index.js` (as `.` and `./server`), whose one export
is the plugin: it adds the packaged `skills/` folder to OpenCode's skill paths and an
`/ego-browser` command. `opencode debug skill` then lists ego-browser. Remove its entry from the
`plugin` array of `opencode.json` to uninstall.
"""),
    Host("deepseek-harness", "DeepSeek Harness", "tgz", _deepseek, """\
Extract the npm archive into a persistent folder and add its `package/` folder to a profile:

```bash
mkdir -p /absolute/path/to/ego-browser-deepseek-harness
tar -xzf ego-browser-deepseek-harness-v{version}.tgz -C /absolute/path/to/ego-browser-deepseek-harness
dsh plugin --profile web add /absolute/path/to/ego-browser-deepseek-harness/package
```

The package `ego-browser-deepseek-harness` is a dsh bundle: its `package.json` declares the
profile layer `cordis.patch.yml`, whose one row loads the package's plugin (`dsh.js`), which
registers the packaged skill in the harness's skill catalog. Restart the profile, then use
`/ego-browser`; remove it with `dsh plugin --profile web remove ego-browser-deepseek-harness`.
"""),
)


def _copy_skill(skill: Path, dest: Path) -> None:
    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _SKIP_DIRS or n == MANIFEST or n.endswith(".pyc")}

    for path in skill.rglob("*"):
        if path.is_symlink() and not path.resolve().is_relative_to(skill.resolve()):
            raise ValueError(f"{path} links out of the skill ({path.resolve()}); a plugin must hold real files")
    shutil.copytree(skill, dest, ignore=ignore, symlinks=False)


def _readme(host: Host, version: str) -> str:
    return (f"# ego-browser for {host.title}\n\nThe ego-browser skill (ego_browser {version}) packaged for "
            f"{host.title}: drive a real Chromium from Python, in the agent's own task space.\n\n"
            f"{REQUIREMENTS}\n## Install in {host.title}\n\n{host.install.replace('{version}', version)}")


def _stage(host: Host, skill: Path, meta: dict[str, Any], scratch: Path) -> Path:
    """The plugin tree of one host, ready to archive; returns the folder the archive holds,
    which has exactly one entry: the host's top-level folder (``package/`` for npm)."""
    top = scratch / host.key
    root = top / host.folder
    if host.key == "workbuddy":  # a marketplace root with the plugin under plugins/
        plugin = root / "plugins" / NAME
        market = {
            "name": f"{NAME}-workbuddy-local", "owner": meta["author"],
            "metadata": {"description": f"The {NAME} plugin, for a local install", "version": meta["version"]},
            "plugins": [{"name": NAME, "source": f"./plugins/{NAME}", "description": meta["description"],
                         "version": meta["version"]}],
        }
        # CodeBuddy's own marketplace file, and the Claude-compatible one it also reads
        for folder in (".codebuddy-plugin", ".claude-plugin"):
            _json(root / folder / "marketplace.json", market)
    else:
        plugin = root
    plugin.mkdir(parents=True)
    _copy_skill(skill, plugin / SKILL_DIR)
    host.layout(plugin, meta)
    readme = _readme(host, meta["version"])
    (root / "README.md").write_text(readme, encoding="utf-8")
    if plugin != root:
        (plugin / "README.md").write_text(readme, encoding="utf-8")
    return top


def _files(top: Path) -> list[Path]:
    return sorted((p for p in top.rglob("*") if p.is_file()), key=lambda p: p.relative_to(top).as_posix())


def _archive(host: Host, top: Path, dest: Path) -> None:
    if host.ext == "zip":
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in _files(top):
                info = zipfile.ZipInfo(path.relative_to(top).as_posix(), _EPOCH)
                info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())
        return
    with tarfile.open(dest, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for path in _files(top):
            data = path.read_bytes()
            member = tarfile.TarInfo(path.relative_to(top).as_posix())
            member.size, member.mtime, member.mode = len(data), 0, 0o755 if os.access(path, os.X_OK) else 0o644
            tar.addfile(member, io.BytesIO(data))


def artifact_dir(output: Path, version: str = __version__) -> Path:
    return Path(output) / f"{NAME}-v{version}"


def package_plugins(output: str | os.PathLike[str], *, skill: Path | None = None,
                    hosts: tuple[Host, ...] = HOSTS) -> list[Path]:
    """Build every host's artifact; returns their paths. Nothing is replaced unless all build."""
    skill = Path(skill) if skill is not None else skill_source()
    meta = _meta(skill)
    final = artifact_dir(Path(output), meta["version"])
    final.parent.mkdir(parents=True, exist_ok=True)
    # the scratch folder sits beside the output so the final moves are renames, not copies
    scratch = Path(tempfile.mkdtemp(prefix=f".{NAME}-plugins-", dir=final.parent))
    try:
        built = []
        for host in hosts:
            top = _stage(host, skill, meta, scratch / "trees")
            dest = scratch / host.artifact(meta["version"])
            _archive(host, top, dest)
            built.append(dest)
        final.mkdir(exist_ok=True)
        out = []
        for path in built:
            os.replace(path, final / path.name)
            out.append(final / path.name)
        return out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
