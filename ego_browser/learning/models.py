"""Pydantic models of a site-learning pack's ``manifest.json``.

This module imports pydantic at the top, so nothing imports it until a manifest is read
(``import ego_browser`` stays light). :func:`parse_manifest` is the single entry point: it
returns a :class:`Manifest` or raises :class:`ManifestError` whose ``problems`` are plain
strings ``"<field>: <what was expected>"`` (the caller prefixes the pack id).

Argument specs come in two spellings, both kept as written so ``learn_context`` shows the
manifest's own form::

    "args": {"query": "str"}                                    # required, type str
    "args": {"limit": {"type": "int", "required": false, "default": 10,
                       "description": "how many stories"}}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "ARG_TYPES",
    "ArgSpec",
    "BrowserTool",
    "Manifest",
    "ManifestError",
    "NodeTool",
    "domain_problem",
    "normalize_arg",
    "parse_manifest",
]

#: simple type names a tool argument may declare, with accepted aliases
ARG_TYPES: dict[str, str] = {
    "str": "str",
    "string": "str",
    "int": "int",
    "integer": "int",
    "float": "float",
    "number": "float",
    "bool": "bool",
    "boolean": "bool",
    "list": "list",
    "array": "list",
    "dict": "dict",
    "object": "dict",
    "any": "any",
}
_TYPE_NAMES = "str, int, float, bool, list, dict or any"

_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def domain_problem(domain: str) -> str | None:
    """Why ``domain`` is not a valid manifest domain, or ``None`` if it is.

    Valid: a host name (``shop.example``, ``localhost``) or a wildcard ``*.shop.example``;
    no scheme, path, port, query or other ``*``. Case is ignored; a trailing dot is allowed.
    """
    if not isinstance(domain, str) or not domain.strip():
        return "expected a host name like shop.example or *.shop.example (got an empty string)"
    d = domain.strip()
    if d != domain:
        return f"expected no surrounding spaces (got {domain!r})"
    if "://" in d or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:(?!\d+$)", d):
        return f"expected a host name without a scheme (got {domain!r}); write it like shop.example"
    if "/" in d or "?" in d or "#" in d:
        return f"expected a host name without a path (got {domain!r}); write it like shop.example"
    if ":" in d:
        return f"expected a host name without a port (got {domain!r}); ports are ignored when matching"
    host = d.lower().rstrip(".")
    if host.startswith("*."):
        host = host[2:]
    if "*" in host:
        return f"expected '*.' only as a prefix, as in *.shop.example (got {domain!r})"
    labels = host.split(".")
    if not host or any(not _LABEL.match(label) for label in labels):
        return (
            f"expected a host name of letters, digits and hyphens separated by dots "
            f"(got {domain!r})"
        )
    return None


def normalize_arg(spec: str | ArgSpec | dict[str, Any]) -> dict[str, Any]:
    """``"str"`` or a rich spec -> ``{"type", "required", "default", "description"}``."""
    if isinstance(spec, str):
        return {"type": ARG_TYPES[spec.lower()], "required": True, "default": None, "description": None}
    if isinstance(spec, dict):
        spec = ArgSpec.model_validate(spec)
    required = spec.required if spec.required is not None else "default" not in spec.model_fields_set
    return {
        "type": ARG_TYPES[spec.type.lower()],
        "required": required,
        "default": spec.default,
        "description": spec.description,
    }


def _domain(value: str) -> str:
    problem = domain_problem(value)
    if problem:
        raise ValueError(problem)
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ArgSpec(_Strict):
    """The rich form of one argument. ``required`` defaults to true unless a default is given."""

    type: str
    required: bool | None = None
    default: Any = None
    description: str | None = None

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        return _type_name(value)


def _type_name(value: str) -> str:
    if value.lower() not in ARG_TYPES:
        raise ValueError(f"expected a type name ({_TYPE_NAMES}), got {value!r}")
    return value


ArgValue = Union[Annotated[str, AfterValidator(_type_name)], ArgSpec]


def _check_args(args: dict[str, ArgValue]) -> dict[str, ArgValue]:
    for name in args:
        if not _IDENT.match(name):
            raise ValueError(f"argument name {name!r} must be a Python identifier")
    return args


class _Tool(_Strict):
    file: str
    description: str = Field(min_length=1)
    args: dict[str, ArgValue] = Field(default_factory=dict)
    returns: str | None = None
    example: str | None = None

    @field_validator("args")
    @classmethod
    def _args(cls, value: dict[str, ArgValue]) -> dict[str, ArgValue]:
        return _check_args(value)

    def args_as_written(self) -> dict[str, Any]:
        return {
            name: spec if isinstance(spec, str) else spec.model_dump(exclude_unset=True)
            for name, spec in self.args.items()
        }

    def normalized_args(self) -> dict[str, dict[str, Any]]:
        return {name: normalize_arg(spec) for name, spec in self.args.items()}


class NodeTool(_Tool):
    """A Python tool: ``callable(ctx, **args)`` defined in ``file`` (a ``.py`` in the pack)."""

    callable: str

    @field_validator("file")
    @classmethod
    def _py(cls, value: str) -> str:
        if not value.endswith(".py"):
            raise ValueError(f"expected a .py file (got {value!r})")
        return value

    @field_validator("callable")
    @classmethod
    def _ident(cls, value: str) -> str:
        if not _IDENT.match(value):
            raise ValueError(f"expected a Python identifier (got {value!r})")
        return value


class BrowserTool(_Tool):
    """An in-page tool: ``file`` (a ``.js`` in the pack) is the body of ``async (args) => {...}``."""

    @field_validator("file")
    @classmethod
    def _js(cls, value: str) -> str:
        if not value.endswith(".js"):
            raise ValueError(f"expected a .js file (got {value!r})")
        return value


class Manifest(_Strict):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    domains: list[Annotated[str, AfterValidator(_domain)]] = Field(min_length=1)
    notes: list[str] = Field(default_factory=list)
    node_tools: dict[str, NodeTool] = Field(default_factory=dict)
    browser_tools: dict[str, BrowserTool] = Field(default_factory=dict)

    @field_validator("node_tools", "browser_tools")
    @classmethod
    def _tool_names(cls, value: dict[str, Any]) -> dict[str, Any]:
        for name in value:
            if not _NAME.match(name):
                raise ValueError(f"tool name {name!r} must start with a letter or _ and use letters, digits, _ or -")
        return value


class ManifestError(Exception):
    """The manifest did not validate; ``problems`` are ``"<field>: <expected>"`` strings."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _allowed_keys(loc: tuple[Any, ...]) -> str:
    """The keys allowed where an unknown key was found, for the error text."""
    if len(loc) <= 1:
        model: type[BaseModel] = Manifest
    elif len(loc) == 3:
        model = NodeTool if loc[0] == "node_tools" else BrowserTool
    else:
        model = ArgSpec
    return ", ".join(model.model_fields)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(loc: list[Any]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "manifest"


def _describe(err: Mapping[str, Any], data: Any) -> str | None:
    """One readable problem for a pydantic error, or ``None`` to drop it (the other union arm)."""
    loc = list(err.get("loc", ()))
    # an argument spec is "str" or an object: pydantic reports both arms of the union
    if len(loc) >= 5 and loc[0] in ("node_tools", "browser_tools") and loc[2] == "args":
        arm = loc[4]
        value = data
        for part in loc[:4]:
            value = value.get(part) if isinstance(value, dict) else None
        where = _where(loc[:4])
        if not isinstance(value, (str, dict)):
            if arm != "ArgSpec":
                return None
            return (
                f'{where}: expected a type name such as "str" or an object such as '
                f'{{"type": "str", "required": true}} (got {_short(value)})'
            )
        if (arm == "ArgSpec") != isinstance(value, dict):
            return None
        loc = loc[:4] + loc[5:]
    where = _where(loc)
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return f"{where}: unknown key (expected one of: {_allowed_keys(tuple(loc[:-1]))})"
    if kind == "missing":
        return f"{where}: required field missing"
    msg = str(err.get("msg", "invalid"))
    if msg.startswith("Value error, "):
        return f"{where}: {msg[len('Value error, '):]}"
    msg = msg[0].lower() + msg[1:]
    if msg.startswith("input should be"):
        msg = "expected" + msg[len("input should be"):]
    return f"{where}: {msg} (got {_short(err.get('input'))})"


def parse_manifest(data: Any) -> Manifest:
    """Validate decoded JSON; raise :class:`ManifestError` listing every problem."""
    if not isinstance(data, dict):
        raise ManifestError([f"manifest: expected a JSON object (got {type(data).__name__})"])
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        problems: list[str] = []
        for err in exc.errors():
            text = _describe(err, data)
            if text is not None and text not in problems:
                problems.append(text)
        raise ManifestError(problems or [str(exc)]) from exc
