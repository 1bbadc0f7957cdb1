"""The plugin manifest formats of the hosts whose own loader does not install here, written
from their published references (no schema is fetched at test time), with a small checker for
the JSON Schema subset they use.

- Cursor: the Cursor plugin reference and its ``schemas/plugin.schema.json`` (draft-07, closed).
- Agent Plugins 1.0.0 (agent-plugins.org; read by Cursor, Copilot CLI, Codex and Grok Build):
  spec section 5 (a closed root ``plugin.json`` with a required ``$schema``; skills are only ever
  found in the fixed ``skills/`` folder, section 6).
- Agent Skills (agentskills.io): a skill folder's SKILL.md front matter; every host above loads
  the skill with these rules.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

KEBAB = r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$"
_STR: dict[str, Any] = {"type": "string"}
_STRS: dict[str, Any] = {"type": "array", "items": _STR}
_STR_OR_STRS: dict[str, Any] = {"oneOf": [_STR, _STRS]}

CURSOR_PLUGIN: dict[str, Any] = {
    "type": "object", "required": ["name"], "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "pattern": KEBAB},
        "displayName": _STR, "description": _STR, "version": _STR,
        "author": {"type": "object", "required": ["name"], "additionalProperties": False,
                   "properties": {"name": {"type": "string", "minLength": 1}, "email": _STR}},
        "publisher": {"type": "string", "minLength": 1}, "homepage": _STR, "repository": _STR,
        "license": _STR, "logo": _STR, "keywords": _STRS, "category": _STR, "tags": _STRS,
        "commands": _STR_OR_STRS, "agents": _STR_OR_STRS, "skills": _STR_OR_STRS, "rules": _STR_OR_STRS,
        "hooks": {"oneOf": [_STR, {"type": "object"}]},
        "variables": {"type": "object"}, "mcpServers": {"oneOf": [_STR, {"type": "object"}, {"type": "array"}]},
    },
}

AGENT_PLUGINS_SCHEMA_ID = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
AGENT_PLUGIN: dict[str, Any] = {
    "type": "object", "required": ["$schema", "name"], "additionalProperties": False,
    "properties": {
        "$schema": {"const": AGENT_PLUGINS_SCHEMA_ID},
        "name": {"type": "string", "minLength": 1, "maxLength": 64,
                 "pattern": r"^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$"},
        "version": _STR, "description": _STR, "homepage": _STR, "repository": _STR, "license": _STR,
        "author": {"type": "object", "additionalProperties": False,
                   "properties": {"name": _STR, "email": _STR, "url": _STR}},
        "keywords": _STRS,
        "extensions": {"type": "object"},
    },
}

_TYPES = {"object": dict, "array": list, "string": str}


def errors(data: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way ``data`` breaks ``schema`` (type, const, required, closed objects, string limits,
    pattern, items, oneOf): an empty list when it conforms."""
    out: list[str] = []
    if "oneOf" in schema:
        if sum(not errors(data, option, where) for option in schema["oneOf"]) != 1:
            out.append(f"{where}: matches none (or several) of {schema['oneOf']}")
        return out
    if "const" in schema and data != schema["const"]:
        out.append(f"{where}: must be {schema['const']!r}, is {data!r}")
    kind = schema.get("type")
    if kind and not isinstance(data, _TYPES[kind]):
        return [*out, f"{where}: must be a {kind}, is {type(data).__name__}"]
    if isinstance(data, str):
        if len(data) < schema.get("minLength", 0) or len(data) > schema.get("maxLength", len(data)):
            out.append(f"{where}: length {len(data)} out of bounds")
        if "pattern" in schema and not re.search(schema["pattern"], data):
            out.append(f"{where}: {data!r} does not match {schema['pattern']}")
    if isinstance(data, list) and "items" in schema:
        for i, item in enumerate(data):
            out += errors(item, schema["items"], f"{where}[{i}]")
    if isinstance(data, dict):
        out += [f"{where}: {key!r} is required" for key in schema.get("required", []) if key not in data]
        props = schema.get("properties", {})
        for key, value in data.items():
            if key in props:
                out += errors(value, props[key], f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{where}: {key!r} is not a field of this manifest")
    return out


def skill_errors(folder: Path) -> list[str]:
    """An Agent Skills folder: SKILL.md whose front matter names the folder (lowercase letters,
    digits and single hyphens, at most 64) and describes it in 1 to 1024 characters."""
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return [f"{folder}: SKILL.md has no front matter"]
    fields = dict(line.split(":", 1) for line in text.split("---", 2)[1].strip().splitlines() if ":" in line)
    name, description = fields.get("name", "").strip(), fields.get("description", "").strip()
    out = []
    if name != folder.name or not re.fullmatch(r"(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?", name):
        out.append(f"{folder}: name {name!r} must match its folder and be lowercase-hyphenated")
    if not 1 <= len(description) <= 1024:
        out.append(f"{folder}: description must be 1 to 1024 characters (is {len(description)})")
    return out
