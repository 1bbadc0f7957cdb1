"""Find site-learning packs, match them to URLs and read their notes.

Nothing is cached: every call re-reads the folders, so an edit to a manifest, a note or a
tool applies to the very next call. Packs are small (a manifest and a few notes), so this
costs well under a millisecond per pack.

Paths inside a manifest are relative to the pack and must stay inside it after resolving
symlinks (:func:`resolve_in_pack`); anything else is a :class:`SitePackInvalid`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from ..errors import InvalidArgument, SiteNotFound, SitePackInvalid

if TYPE_CHECKING:  # pydantic is imported only when a manifest is read
    from .models import Manifest

__all__ = [
    "Pack",
    "host_of",
    "host_matches",
    "iter_pack_dirs",
    "learn_context_for",
    "learnings_root",
    "load_pack",
    "load_packs",
    "find_pack",
    "resolve_in_pack",
    "site_skills_for",
]

ENV_LEARNINGS_DIR = "EGO_BROWSER_LEARNINGS_DIR"
ENV_AGENT_WORKSPACE = "EGO_BROWSER_AGENT_WORKSPACE"

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # .../ego_browser


def bundled_learnings_dir() -> Path:
    """The learnings shipped with ego_browser.

    Looked up next to the package: first as package data (``ego_browser/_skill/ego-browser``,
    for a wheel that bundles the entry skill), then in the source tree
    (``<repo>/skills/ego-browser``, for the editable install).
    """
    for skill in (_PACKAGE_DIR / "_skill" / "ego-browser", _PACKAGE_DIR.parent / "skills" / "ego-browser"):
        if (skill / "learnings").is_dir():
            return skill / "learnings"
    return _PACKAGE_DIR.parent / "skills" / "ego-browser" / "learnings"


def learnings_root() -> Path:
    """Where packs live: ``EGO_BROWSER_LEARNINGS_DIR`` (the folder itself), else
    ``$EGO_BROWSER_AGENT_WORKSPACE/learnings`` (a skill folder), else the bundled skill's."""
    explicit = os.environ.get(ENV_LEARNINGS_DIR, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    workspace = os.environ.get(ENV_AGENT_WORKSPACE, "").strip()
    if workspace:
        return Path(workspace).expanduser() / "learnings"
    return bundled_learnings_dir()


# -- hosts and domains -----------------------------------------------------------------------


def host_of(url: str) -> str | None:
    """The lower-case host of ``url`` without port or trailing dot; ``None`` if it has none.

    A bare host (``www.shop.example``) or a scheme-less ``host/path`` is accepted too.
    """
    if not isinstance(url, str):
        raise InvalidArgument(
            f"site_skills: url must be a str (got {type(url).__name__})", api="site_skills", option="url",
            expected="str",
        )
    text = url.strip()
    if not text:
        return None
    if "://" not in text and not text.startswith("//"):
        scheme, sep, rest = text.partition(":")
        # about:blank, data:, javascript: have no host; "shop.example:8080" is a host with a port
        if sep and not rest[:1].isdigit():
            return None
        text = "//" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host:
        return None
    return host.rstrip(".").lower() or None


def host_matches(pattern: str, host: str) -> bool:
    """``shop.example`` matches only that host; ``*.shop.example`` matches its subdomains at
    any depth but not ``shop.example``. Case, port and a trailing dot are ignored."""
    pattern = pattern.strip().lower().rstrip(".")
    host = host.strip().lower().rstrip(".")
    if ":" in host and not host.startswith("["):
        host = host.split(":", 1)[0]
    if pattern.startswith("*."):
        suffix = pattern[1:]  # ".shop.example"
        return host.endswith(suffix) and len(host) > len(suffix)
    return host == pattern


# -- packs -----------------------------------------------------------------------------------


@dataclass
class Pack:
    """One loaded pack: its folder (resolved), its validated manifest and the raw JSON."""

    id: str
    dir: Path
    manifest: Manifest
    raw: dict[str, Any] = field(repr=False)

    @property
    def name(self) -> str:
        return self.manifest.name

    def matches(self, host: str) -> bool:
        return any(host_matches(d, host) for d in self.manifest.domains)

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "domains": list(self.manifest.domains), "dir": str(self.dir)}


def iter_pack_dirs(root: Path) -> list[Path]:
    """Candidate pack folders under ``root``, sorted by name (hidden folders and caches skipped)."""
    try:
        entries = sorted(root.iterdir(), key=lambda p: p.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [p for p in entries if p.is_dir() and not p.name.startswith((".", "_"))]


def pack_dir_problem(pack_dir: Path) -> str | None:
    """Why the folder itself is not a pack of its learnings root, or ``None``.

    A pack folder (or its manifest) that is a symlink resolving outside the root would let
    anyone who can write the root point it at files elsewhere: every later path check is
    made against the pack's resolved folder, so it must be checked here first.
    """
    pack_dir = Path(pack_dir).absolute()
    root = pack_dir.parent.resolve()
    real = pack_dir.resolve()
    if root not in real.parents:
        return (
            f"the pack folder is a symlink out of the learnings root ({pack_dir} -> {real}); "
            "copy the pack into the root instead"
        )
    manifest = (pack_dir / "manifest.json").resolve()
    if (pack_dir / "manifest.json").is_symlink() and real not in manifest.parents:
        return f"manifest.json: path leaves the pack: it is a symlink to {manifest}"
    return None


def read_manifest_json(pack_dir: Path) -> Any:
    """The decoded ``manifest.json``; raises :class:`SitePackInvalid` when missing or not JSON."""
    site_id = pack_dir.name
    escape = pack_dir_problem(pack_dir)
    if escape:
        raise SitePackInvalid(f"site pack {site_id!r}: {escape}", site_id=site_id, problems=[escape])
    path = pack_dir / "manifest.json"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SitePackInvalid(
            f"site pack {site_id!r}: manifest.json not found in {pack_dir}",
            site_id=site_id, problems=["manifest.json: file not found"],
        ) from None
    except OSError as exc:
        raise SitePackInvalid(
            f"site pack {site_id!r}: cannot read manifest.json: {exc}",
            site_id=site_id, problems=[f"manifest.json: cannot read ({exc.strerror or exc})"],
        ) from exc
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        problem = f"manifest.json: not valid JSON ({exc})"
        raise SitePackInvalid(f"site pack {site_id!r}: {problem}", site_id=site_id, problems=[problem]) from exc


def load_pack(pack_dir: str | os.PathLike[str]) -> Pack:
    """Read and validate one pack; :class:`SitePackInvalid` names the pack and every problem."""
    from .models import ManifestError, parse_manifest

    pack_dir = Path(pack_dir)
    site_id = pack_dir.name
    data = read_manifest_json(pack_dir)
    try:
        manifest = parse_manifest(data)
    except ManifestError as exc:
        raise SitePackInvalid(
            f"site pack {site_id!r} has an invalid manifest.json: " + "; ".join(exc.problems),
            site_id=site_id, problems=list(exc.problems),
        ) from exc
    if manifest.id != site_id:
        problem = f"id: expected the folder name {site_id!r} (got {manifest.id!r})"
        raise SitePackInvalid(f"site pack {site_id!r}: {problem}", site_id=site_id, problems=[problem])
    return Pack(id=site_id, dir=pack_dir.absolute(), manifest=manifest, raw=data)


def load_packs(root: Path | None = None) -> tuple[list[Pack], list[str]]:
    """Every valid pack under ``root`` (sorted by id) and one ``"<id>: <problem>"`` line per
    problem of the packs that could not be loaded."""
    root = learnings_root() if root is None else Path(root)
    packs: list[Pack] = []
    problems: list[str] = []
    for pack_dir in iter_pack_dirs(root):
        try:
            packs.append(load_pack(pack_dir))
        except SitePackInvalid as exc:
            problems.extend(f"{pack_dir.name}: {p}" for p in (exc.problems or [exc.message]))
    return packs, problems


def find_pack(site_id: str, root: Path | None = None, *, api: str = "run_site_tool") -> Pack:
    """The pack ``site_id``: :class:`SiteNotFound` if there is no such folder, or
    :class:`SitePackInvalid` if it does not load."""
    if not isinstance(site_id, str) or not site_id:
        raise InvalidArgument(
            f"{api}: site_id must be a non-empty str (got {site_id!r})", api=api, option="site_id", expected="str"
        )
    root = learnings_root() if root is None else Path(root)
    if "/" in site_id or "\\" in site_id or site_id.startswith(".") or site_id.startswith("_"):
        raise SiteNotFound(f"site pack not found: {site_id!r} (learnings root {root})", site_id=site_id)
    pack_dir = root / site_id
    if not pack_dir.is_dir():
        known = ", ".join(p.name for p in iter_pack_dirs(root)) or "none"
        raise SiteNotFound(
            f"site pack not found: {site_id!r} (learnings root {root}; packs: {known})", site_id=site_id
        )
    return load_pack(pack_dir)


def resolve_in_pack(pack: Pack, rel: str, *, what: str) -> Path:
    """``rel`` resolved inside ``pack.dir``; :class:`SitePackInvalid` if it is absolute, leaves the
    pack (``..``, a symlink pointing out) or does not name an existing file."""
    problem = path_problem(pack.dir, rel)
    if problem:
        text = f"{what}: {problem}"
        raise SitePackInvalid(f"site pack {pack.id!r}: {text}", site_id=pack.id, problems=[text])
    return (pack.dir / rel).resolve()


def path_problem(pack_dir: Path, rel: str) -> str | None:
    """Why ``rel`` is not a usable file path inside ``pack_dir``, or ``None``."""
    if not isinstance(rel, str) or not rel:
        return "expected a relative path inside the pack (got an empty path)"
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or PureWindowsPath(rel).drive:
        return f"path leaves the pack: {rel!r} is absolute; use a path relative to the pack folder"
    base = pack_dir.resolve()
    target = (base / rel).resolve()
    if target != base and base not in target.parents:
        how = "goes through '..'" if ".." in PurePosixPath(rel.replace("\\", "/")).parts else "is a symlink"
        return f"path leaves the pack: {rel!r} {how} to {target}"
    if not target.is_file():
        return f"file not found: {rel!r} (expected {target})"
    return None


# -- the two read calls --------------------------------------------------------------------


def site_skills_for(url: str, root: Path | None = None) -> list[dict[str, Any]]:
    """``[{id, name, domains, dir}]`` of every valid pack matching ``url``'s host, sorted by id."""
    host = host_of(url)
    if host is None:
        return []
    packs, _ = load_packs(root)
    return [p.summary() for p in packs if p.matches(host)]


def learn_context_for(url: str, root: Path | None = None) -> dict[str, Any]:
    """Notes and tool signatures of the packs matching ``url``; broken packs and unreadable
    notes are skipped and described in ``problems``."""
    host = host_of(url)
    packs, problems = load_packs(root)
    matched = [p for p in packs if host is not None and p.matches(host)]
    knowledge: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    for pack in matched:
        for rel in pack.manifest.notes:
            problem = path_problem(pack.dir, rel)
            if problem:
                problems.append(f"{pack.id}: notes: {problem}")
                continue
            try:
                content = (pack.dir / rel).resolve().read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"{pack.id}: notes: cannot read {rel!r}: {exc}")
                continue
            knowledge.append({"site_id": pack.id, "file": rel, "content": content})
        for kind, table in (("node", pack.manifest.node_tools), ("browser", pack.manifest.browser_tools)):
            for name, tool in table.items():
                tools.append(
                    {
                        "site_id": pack.id,
                        "name": name,
                        "kind": kind,
                        "description": tool.description,
                        "args": tool.args_as_written(),
                        "returns": tool.returns,
                        "example": tool.example,
                    }
                )
    return {
        "url": url,
        "sites": [{"id": p.id, "name": p.name} for p in matched],
        "knowledge": knowledge,
        "tools": tools,
        "problems": problems,
    }
