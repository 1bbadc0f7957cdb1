"""Text derived from the declarations: ``help()``, the usage guide and ``docs/api.md``.

``python -m ego_browser.schema.render docs`` rewrites ``docs/api.md``;
``python -m ego_browser.schema.render docs --check`` exits 1 if it is out of date;
``python -m ego_browser.schema.render guide`` prints the guide.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

from .spec import CLASSES, OMIT, REQUIRED, Member, lookup, members, signature_parts
from .topics import GUIDE, TOPICS, errors_topic
from .validate import TYPES

__all__ = ["signature", "help_text", "overview", "guide", "api_markdown", "topic_names", "DOCS_PATH"]

DOCS_PATH = Path(__file__).resolve().parents[2] / "docs" / "api.md"

#: the groups of the overview, in order: (title, owner)
GROUPS = (("Top-level functions (module ego_browser; preloaded in rounds)", None),
          *((info.title, owner) for owner, info in CLASSES.items()))
_CALL_NOTE = {"sync": " (sync)", "asynccm": "", "async": "", "property": "", "class": "  (help(\"{name}\"))"}


def _default(value: Any) -> str:
    if value is OMIT or value is None:
        return "None"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def type_text(type_: Any) -> str:
    optional = isinstance(type_, str) and type_.endswith("?")
    base = type_[:-1] if optional else type_
    text = " | ".join(json.dumps(c) for c in base) if isinstance(base, tuple) else TYPES[base][2]
    return text + " | None" if optional else text


def signature(m: Member) -> str:
    """``Page.click(selector, *, button="left", ...) -> ActionReceipt``; properties ``Page.label: str``."""
    if m.call == "property":
        return f"{m.name}: {m.returns}"
    if m.call == "class":
        return f"{m.name}: {m.returns}" if m.owner else m.name
    parts = signature_parts(m.params, lambda p: p.name if p.default is REQUIRED or p.kind == "var_kw"
                            else f"{p.name}={_default(p.default)}")
    prefix = "await " if m.call == "async" else ("async with " if m.call == "asynccm" else "")
    return f"{prefix}{m.name}({', '.join(parts)}) -> {m.returns}"


def _group(owner: str | None) -> list[Member]:
    return [m for m in members().values() if m.owner == owner and (m.call != "class" or owner is not None)]


def _line(m: Member) -> str:
    return signature(m) + _CALL_NOTE[m.call].replace("{name}", m.name)


def topic_names() -> list[str]:
    return ["conventions", "selectors", "locators", "snapshot", "errors", "learnings", "runner"]


def _topic(name: str) -> str:
    return errors_topic() if name == "errors" else TOPICS[name]


def overview(*, docs: bool = False) -> str:
    from .._version import __version__

    lines = [f"ego_browser {__version__}: drive a real Chromium from agent scripts.",
             'help("<name>") shows one member or topic, e.g. help("Page.click"), help("selectors").', ""]
    for title, owner in GROUPS:
        lines.append(title + ":")
        for m in _group(owner):
            text = _line(m)
            if docs:
                text += "  — " + _first_sentence(m.doc)
            lines.append("  " + text)
        lines.append("")
    lines.append("Topics: " + ", ".join(topic_names()))
    return "\n".join(lines) + "\n"


def _first_sentence(doc: str) -> str:
    head, dot, _rest = doc.partition(". ")
    return head + ("." if dot or not head.endswith(".") else "")


def member_text(m: Member) -> str:
    if m.call == "class":
        lines = [m.name, "  " + m.doc, ""]
        inner = _group(m.name)
        if inner:
            lines.append("Members:")
            lines += ["  " + _line(x) for x in inner]
        if m.example:
            lines.append("Example:")
            lines += ["  " + ln if ln else "" for ln in m.example.splitlines()]
        return "\n".join(lines).rstrip() + "\n"
    kind = {"async": "coroutine: await it", "sync": "sync", "asynccm": "async context manager",
            "property": "property"}[m.call]
    lines = [f"{signature(m)}    ({kind})", "  " + m.doc]
    if m.details:
        lines.append("  " + m.details)
    params = [p for p in m.params if p.kind != "var_kw"]
    if params:
        lines.append("Parameters:")
        width = max(len(p.name) for p in params)
        for p in params:
            default = "" if p.default is REQUIRED else f" = {_default(p.default)}"
            doc = f"  — {p.doc}" if p.doc else ""
            kw = "" if p.kind != "kw" else " (keyword-only)"
            lines.append(f"  {p.name.ljust(width)}  {type_text(p.type)}{default}{kw}{doc}")
    if any(p.kind == "var_kw" for p in m.params):
        lines.append("  **args   keyword arguments passed on to the tool")
    lines.append(f"Returns: {m.returns}")
    if m.errors:
        lines.append("Errors: " + ", ".join(m.errors))
    if m.example:
        lines.append("Example:")
        lines += ["  " + ln if ln else "" for ln in m.example.splitlines()]
    return "\n".join(lines) + "\n"


#: classes documented by a topic rather than member by member
_TOPIC_ALIASES = {"locator": "locators", "locatorassertions": "locators", "pageassertions": "locators"}


def help_text(name: object = None) -> str:
    """The text ``help(name)`` prints (``name``: a member or topic name, or the object itself)."""
    if name is None:
        return overview()
    if isinstance(name, str) and type(name) is not str:  # a Locator (a str subclass): its class
        name = type(name)
    text: str = name if isinstance(name, str) else (
        getattr(name, "__schema_name__", "") or getattr(name, "__name__", str(name)))
    key = text.strip()
    key = _TOPIC_ALIASES.get(key.lower(), key)
    if key.lower() in topic_names():
        return _topic(key.lower())
    m = lookup(key)
    if m is None and key.lower().startswith(("page.", "task.", "taskspace.")):
        # "page.mouse.click" style is covered by lookup; "task.finish" is TaskSpace.finish
        head, _, rest = key.partition(".")
        if head.lower() == "task":
            m = lookup("TaskSpace." + rest)
    if m is not None:
        return member_text(m)
    return _unknown(key)


def _unknown(name: str) -> str:
    names = list(members()) + topic_names()
    lowered = {n.lower(): n for n in names}
    close = [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered), n=5, cutoff=0.5)]
    tail = name.rpartition(".")[2].lower()
    for n in names:  # the same member name on another class, or a name containing the last part
        short = n.rpartition(".")[2].lower()
        if n not in close and len(close) < 8 and tail and (short == tail or (len(tail) > 3 and tail in short)):
            close.append(n)
    for part in tail.split("_"):
        for n in names:
            if n not in close and len(close) < 8 and len(part) > 3 and n.lower().endswith("." + part):
                close.append(n)
    out = f"Unknown help topic: {name}\n"
    if close:
        out += "Closest: " + ", ".join(close) + "\n"
    return out + 'help() lists every member and topic.\n'


def guide() -> str:
    """The usage guide printed by ``ego-browser skill``."""
    from .._version import __version__

    glance = ["## API at a glance", "", "```text", overview().rstrip("\n"), "```", ""]
    return (f"[ego-browser:skill] ego-browser usage guide v{__version__}\n" + GUIDE + "\n" + "\n".join(glance)
            + f"[ego-browser:skill] end of guide v{__version__}\n")


def _md_member(m: Member) -> list[str]:
    out = [f"### `{m.name}`", "", "```text", _line(m), "```", "", m.doc]
    if m.details:
        out += ["", m.details]
    params = [p for p in m.params if p.kind != "var_kw"]
    if params:
        out += ["", "| Parameter | Type | Default | |", "|---|---|---|---|"]
        for p in params:
            default = "required" if p.default is REQUIRED else f"`{_default(p.default)}`"
            kind = "keyword-only. " if p.kind == "kw" else ""
            cells = [f"`{p.name}`", f"`{type_text(p.type)}`", default, f"{kind}{p.doc}".strip()]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if m.call not in ("class",):
        out += ["", f"Returns `{m.returns}`." + (" Errors: " + ", ".join(f"`{e}`" for e in m.errors) + "."
                                                 if m.errors else "")]
    if m.example:
        out += ["", "```python", m.example, "```"]
    return out + [""]


def api_markdown() -> str:
    """``docs/api.md``: generated from the declarations; do not edit by hand."""
    from .._version import __version__

    out = ["# ego_browser API reference", "",
           f"<!-- Generated from ego_browser/schema (v{__version__}) by `python -m ego_browser.schema.render docs`;"
           " do not edit. -->", "",
           "Examples run against the demo shop (`demo/site`, served as `https://shop.example`) with `task` (a "
           "TaskSpace) and `page` (its `p1`, on the home page) defined; `tests/integration/test_docs_examples.py` runs each.",
           "", "## Conventions", "", TOPICS["conventions"].rstrip("\n"), ""]
    for title, owner in GROUPS:
        out += [f"## {title}", ""]
        if owner is not None:
            cls_member = members().get(owner)
            if cls_member is not None:
                out += [cls_member.doc, ""]
                if cls_member.example and owner not in ("Page.mouse", "Page.keyboard"):
                    out += ["```python", cls_member.example, "```", ""]
        for m in _group(owner):
            out += _md_member(m)
    for name in topic_names():
        if name == "conventions":
            continue
        out += [f"## Topic: {name}", "", "```text", _topic(name).rstrip("\n"), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["docs"] and argv[1:] in ([], ["--check"]):
        text = api_markdown()
        if argv[1:] == ["--check"]:
            current = DOCS_PATH.read_text() if DOCS_PATH.exists() else ""
            if current != text:
                print(f"{DOCS_PATH} is out of date: run python -m ego_browser.schema.render docs", file=sys.stderr)
                return 1
            return 0
        DOCS_PATH.write_text(text)
        print(f"wrote {DOCS_PATH}")
        return 0
    if argv == ["guide"]:
        sys.stdout.write(guide())
        return 0
    print("usage: python -m ego_browser.schema.render docs [--check] | guide", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
