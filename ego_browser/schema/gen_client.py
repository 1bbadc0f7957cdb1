"""Generate ``ego_browser/client/_generated.py``: the public classes, from the declarations.

Each class the schema declares (``Page``, ``TaskSpace``, ``Page.mouse`` ...) becomes a class
of the generated module that derives from a small hand-written base (``PageBase`` ...). Every
``async`` member the base does not define is generated: its real signature (``Literal`` for an
enumeration, ``X | None`` for an optional value), its doc, the schema's argument check, and a
body that sends the declared arguments to the host under the member's wire name and turns an
``ActionReceipt`` reply into one. What cannot be generated (context managers, file transfer,
results built in the round) stays in the base, which therefore decides what is generated.

``python -m ego_browser.schema.gen_client`` rewrites the module; ``tests/api/test_generated_client.py``
regenerates it and fails on any difference.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from .spec import CLASSES as SPEC_CLASSES
from .spec import FUNCTIONS, NOT_IN_ROUNDS, OBJECTS, OMIT, REQUIRED, ROUND_EXTRAS, Member, Param, members, signature_parts

__all__ = ["BASES", "GENERATED_PATH", "EXPORTS_PATH", "generate", "generate_exports", "annotation"]

GENERATED_PATH = Path(__file__).resolve().parent.parent / "client" / "_generated.py"

#: generated class -> the client module holding its hand-written base (``<class>Base``)
BASES: dict[str, str] = {
    "TaskSpace": "taskspace", "Page": "page", "Mouse": "input", "Keyboard": "input", "FileChooser": "files",
    "Download": "files",
}
#: generated class -> the classes it binds its generic base to (``ports``: the bases never import
#: this module, so the classes they hand out are type parameters bound here, at the top)
BASE_ARGS: dict[str, tuple[str, ...]] = {
    "TaskSpace": ("Page",), "Page": ("Download", "FileChooser"), "FileChooser": ("Page",), "Download": ("Page",),
}
#: the public names' table, generated from ``spec.CLASSES`` and ``spec.FUNCTIONS``
EXPORTS_PATH = GENERATED_PATH.parent.parent / "_exports.py"


def _generated_classes() -> dict[str, tuple[str, str, str]]:
    """schema class -> (generated class, module of its base, the base), in declaration order."""
    return {owner: (info.runtime, BASES[info.runtime], f"{info.runtime}Base")
            for owner, info in SPEC_CLASSES.items() if info.module == "ego_browser.client._generated"}


#: schema type name -> Python annotation
_ANNOTATIONS: dict[str, str] = {
    "any": "Any", "json": "Any", "str": "str", "str+": "str", "text500": "str", "selector": "str", "ref": "str",
    "key": "str", "js": "str", "bool": "bool", "int": "int", "int>0": "int", "str|int": "str | int",
    "number": "float", "ms>0": "float", "ms>=0": "float", "point": "dict[str, float]", "clip": "dict[str, float]",
    "dict": "dict[str, Any]", "list": "list[Any]", "headers": "dict[str, str]", "path": "str | os.PathLike[str]",
    "abspath": "str | os.PathLike[str]", "files": "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]",
    "matcher": "str | re.Pattern[str] | Callable[[str], bool]", "select_value": "Any",
    "paste": "str | dict[str, str | None]", "text|re": "str | re.Pattern[str]", "text|secret": "str | dict[str, str]",
    "typed|secret": "str | dict[str, str]", "keep": 'Literal["all"] | list[str]', "unmanaged": "UnmanagedPage",
    "Page": "Page", "clicks": "int", "steps": "int", "delay": "float", "wheel": "float", "typed": "str", "text": "str",
    "px": "int",
}

#: declared return shape -> Python annotation (anything else is a dict or a list of dicts)
_RETURNS: dict[str, str] = {
    "None": "None", "str": "str", "bool": "bool", "True": "bool", "int": "int", "dict": "dict[str, Any]",
    "list[str]": "list[str]", "ActionReceipt": "ActionReceipt", "str | None": "str | None", "JSON value": "Any",
}


def annotation(type_: Any) -> str:
    optional = isinstance(type_, str) and type_.endswith("?")
    base = type_[:-1] if optional else type_
    if isinstance(base, tuple):
        text = "Literal[" + ", ".join(_literal(v) for v in base) + "]"
    else:
        text = _ANNOTATIONS.get(base, "Any")  # a type with no Python spelling here is still checked at run time
    return f"{text} | None" if optional else text


def _literal(value: Any) -> str:
    return _q(value) if isinstance(value, str) else repr(value)


def _q(text: str) -> str:
    """A str literal in the project's style (double quotes)."""
    return json.dumps(text)


def _returns(shape: str) -> str:
    if shape in _RETURNS:
        return _RETURNS[shape]
    return "list[dict[str, Any]]" if shape.startswith("list[") else "dict[str, Any]"


def _default(value: Any) -> str:
    if value is OMIT:
        return "_UNSET"
    return _q(value) if isinstance(value, str) else repr(value)


def _params(m: Member) -> list[str]:
    def text(p: Param) -> str:
        if p.kind == "var_kw":
            return f"{p.name}: Any"
        out = f"{p.name}: {annotation(p.type)}"
        return out if p.default is REQUIRED else f"{out} = {_default(p.default)}"

    return ["self", *signature_parts(m.params, text)]


def _pack(items: list[str], indent: str, width: int = 118, sep: str = ",") -> list[str]:
    """``items`` (each followed by ``sep``) on as few lines as fit, never breaking inside one."""
    lines: list[str] = []
    line = ""
    for item in items:
        piece = item + sep
        if line and len(indent) + len(line) + 1 + len(piece) > width:
            lines.append(indent + line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    if line:
        lines.append(indent + line)
    return lines


def _wrap(text: str, indent: str, width: int = 110) -> list[str]:
    return _pack(text.split(), indent, width, sep="")


def _docstring(text: str, indent: str) -> list[str]:
    lines = _wrap(text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"'), indent)
    lines[0] = indent + '"""' + lines[0].lstrip()
    lines[-1] += '"""'
    return lines


def _method(m: Member) -> list[str]:
    returns = _returns(m.returns)
    params = _params(m)
    head = f"    async def {m.short}({', '.join(params)}) -> {returns}:"
    out = [f"    @validated({_q(m.name)})"]
    if len(head) <= 120:
        out.append(head)
    else:
        out += [f"    async def {m.short}(", *_pack(params, "        "), f"    ) -> {returns}:"]
    out += _docstring(m.doc, "        ")
    args = [_q(m.api)] + [f"{p.name}={p.name}" for p in m.params if p.kind != "var_kw" and p.default is not OMIT]
    omitted = [p.name for p in m.params if p.default is OMIT]
    if omitted:
        pairs = ", ".join(f"({_q(n)}, {n})" for n in omitted)
        out.append(f"        extra = {{k: v for k, v in ({pairs},) if v is not _UNSET}}")
        args.append("**extra")
    if returns == "ActionReceipt":
        before, after = "return ActionReceipt.from_wire(await self._call(", "))"
    elif returns == "None":
        before, after = "await self._call(", ")"
    else:
        before, after = "return await self._call(", ")"
    ignore = "  # type: ignore[no-any-return]" if before.startswith("return await") else ""
    one = f"        {before}{', '.join(args)}{after}{ignore}"
    if len(one) <= 120:
        out.append(one)
    else:
        out += [f"        {before}{ignore}", *_pack(args, "            "), f"        {after}"]
    return out


def _base(owner: str) -> type:
    _name, module, base = _generated_classes()[owner]
    cls: type = getattr(importlib.import_module(f"ego_browser.client.{module}"), base)
    return cls


def generate() -> str:
    """The text of ``client/_generated.py`` for the current declarations and bases."""
    out = [
        '"""The public classes of ego_browser, generated from the declarations. Do not edit.',
        "",
        "Regenerate with ``python -m ego_browser.schema.gen_client`` after changing ``schema/spec*.py`` or a",
        "hand-written base (``client/page.py`` ...): a member the base defines is not generated.",
        "",
        "``# type: ignore[no-any-return]``: the host's answer is Any to mypy; the host built it as the",
        "declaration's return type says (and a test holds both to the schema).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import os",
        "import re",
        "from collections.abc import Callable, Sequence",
        "from typing import Any, Literal",
        "",
        "from ..schema import validated",
    ]
    imports: dict[str, list[str]] = {}
    classes = _generated_classes()
    for _owner, (_cls, module, base) in classes.items():
        imports.setdefault(module, []).append(base)
    imports["models"] = ["ActionReceipt", "UnmanagedPage"]
    for module in sorted(imports):
        out.append(f"from .{module} import {', '.join(sorted(imports[module]))}")
    names = ", ".join(_q(c[0]) for c in classes.values())
    out += ["", f"__all__ = [{names}]",
            "", "_UNSET: Any = object()", ""]
    every = members()
    for owner, (name, _module, base) in classes.items():
        cls_member = every[owner]
        base_cls = _base(owner)
        args = "".join(f", {_q(a)}" for a in BASE_ARGS.get(name, ()))[2:]
        out += ["", f"class {name}({base}[{args}]):" if args else f"class {name}({base}):"]
        out += _docstring(cls_member.doc, "    ")
        for part, info in SPEC_CLASSES.items():
            if part.rpartition(".")[0] == owner:  # page.mouse, page.keyboard: made once per page
                short = part.rpartition(".")[2]
                out += ["", "    @property", f"    def {short}(self) -> {info.runtime}:"]
                out += _docstring(every[part].doc, "        ")
                out.append(f"        return self._part({_q(short)}, {info.runtime})")
        for m in every.values():
            if m.owner != owner or m.call != "async" or hasattr(base_cls, m.short):
                continue
            out.append("")
            out.extend(_method(m))
        out.append("")
    while out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def generate_exports() -> str:
    """The text of ``ego_browser/_exports.py``: where each public name lives, and a round's globals.

    A separate data-only module because ``import ego_browser`` must stay cheap: it reads this
    table, never the schema."""
    from .. import errors

    lazy = {name: module for name, module in FUNCTIONS.items()}
    lazy.update(OBJECTS)  # learned tools: ``await tools.NAME(page, ...)``
    lazy.update({info.runtime: info.module for owner, info in SPEC_CLASSES.items() if "." not in owner})
    # the error classes too: importing them cost every round's process ~1 ms, and a round that
    # ends well never names one (the worker's child has them all preloaded)
    lazy.update({name: errors.__name__ for name in errors.__all__})
    rounds = [name for name in FUNCTIONS if name not in NOT_IN_ROUNDS] + list(ROUND_EXTRAS)
    out = ['"""Where each public name of ego_browser lives, and what a round finds preloaded. Generated',
           'from ``schema/spec.py`` (``CLASSES``, ``FUNCTIONS``) by ``python -m ego_browser.schema.gen_client``."""',
           "", "LAZY = {"]
    out += [f"    {_q(name)}: {_q(module)}," for name, module in lazy.items()]
    out += ["}", "", "RUNNER_GLOBALS = ("]
    out += _pack([_q(n) for n in rounds], "    ")
    out += [")"]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    outputs = {GENERATED_PATH: generate(), EXPORTS_PATH: generate_exports()}
    if argv[1:] == ["--check"]:
        stale = [p for p, text in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path} is stale: run python -m ego_browser.schema.gen_client")
        return 1 if stale else 0
    for path, text in outputs.items():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)  # atomic: a reader never sees half a module
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
