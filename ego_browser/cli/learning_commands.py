"""``ego-browser learnings``: the learned packs in the user's home (issue 28 §6).

    learnings list [--json]                         every learned tool: site, name, params, state
    learnings show SITE [TOOL] [--json]             a pack, or one tool's provenance and source
    learnings rm SITE [TOOL]                        remove a tool (or a whole pack)
    learnings export SITE FILE                      write the pack to FILE (JSON; no trust goes with it)
    learnings import FILE [--replace]               copy a pack in: it does not run until trusted
    learnings trust SITE                            approve a pack's tools as they are now
    learnings make SPACE NAME [--rounds N ...] [--param OLD=NEW ...] [--args JSON] [--skip-verify REASON] [--no-levers]
                                                    learn a tool from a space's journal, verify, save
"""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any

from ..errors import InvalidArgument, SitePackInvalid

__all__ = ["SUMMARY", "SYNOPSIS", "configure", "run"]

SUMMARY = "the tools learned from your own runs: list, show, rm, export, import, trust, make"
SYNOPSIS = "{list|show|rm|export|import|trust|make} ... [--json]"


def configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="{list,show,rm,export,import,trust,make}")

    def add(name: str, text: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=text, description=text)
        q.add_argument("--json", action="store_true", help="print one JSON document instead of text")
        return q

    add("list", "every learned tool: site, name, parameters, verified, trusted, stale")
    q = add("show", "a pack's tools, or one tool's provenance and source")
    q.add_argument("site")
    q.add_argument("tool", nargs="?")
    q = add("rm", "remove a tool (its versions too) or, without TOOL, the whole pack")
    q.add_argument("site")
    q.add_argument("tool", nargs="?")
    q = add("export", "write a pack to a JSON file (trust does not go with it)")
    q.add_argument("site")
    q.add_argument("file")
    q = add("import", "copy a pack in from a file; its tools do not run until `learnings trust SITE`")
    q.add_argument("file")
    q.add_argument("--replace", action="store_true", help="replace a pack of the same site that exists")
    q = add("trust", "approve a pack's tools as their files are now (read them first: learnings show)")
    q.add_argument("site")
    q = add("make", "learn a tool from a task space's journal, verify it in a fresh space, save it")
    q.add_argument("space", type=int, help="the task space's id")
    q.add_argument("name", help="the tool's name (a Python identifier)")
    q.add_argument("--rounds", type=int, nargs="+", help="the rounds to learn from (default: all)")
    q.add_argument("--param", action="append", default=[], metavar="OLD=NEW", help="rename a parameter")
    q.add_argument("--args", default=None, metavar="JSON", help="values for the verifying run (a JSON object)")
    q.add_argument("--skip-verify", default=None, metavar="REASON", help="save without a verifying run (kept)")
    q.add_argument("--no-levers", action="store_true",
                   help="keep the steps the run took on the page (no GET-form URL, no JSON API calls)")


def _print(ns: argparse.Namespace, data: Any, text: str) -> None:
    print(json.dumps(data, indent=1, sort_keys=True, default=str) if ns.json else text)


def run(ns: argparse.Namespace) -> int:
    from ..learning import learned

    root = learned.learned_root()
    action = ns.action
    if action == "list":
        found, problems = learned.packs(root)
        rows = []
        for pack in found:
            for name, tool in sorted(pack["tools"].items()):
                rows.append({"site": pack["id"], "origin": pack["origin"], "name": name, "params": tool["params"],
                             "version": tool["version"], "verified": bool(tool["provenance"].get("verified")),
                             "trusted": learned.trusted(pack, name, root),
                             "stale": int(tool.get("failures_in_row") or 0) >= learned.STALE_AFTER,
                             "runs": tool.get("runs", 0), "successes": tool.get("successes", 0)})
        text = "\n".join(f"{r['site']}  {r['name']}({', '.join(r['params'])})  v{r['version']}"
                         f"{'' if r['verified'] else ' unverified'}{'' if r['trusted'] else ' UNTRUSTED'}"
                         f"{' stale' if r['stale'] else ''}  {r['successes']}/{r['runs']} runs" for r in rows)
        _print(ns, {"tools": rows, "problems": problems, "root": str(root)},
               (text or f"no learned tools in {root}") + "".join(f"\nproblem: {p}" for p in problems))
        return 0
    if action == "show":
        pack = learned.read_pack(ns.site, root)
        if ns.tool:
            path = learned.tool_path(pack, ns.tool, root)
            data = {**pack["tools"][ns.tool], "name": ns.tool, "source": path.read_text(encoding="utf-8"),
                    "trusted": learned.trusted(pack, ns.tool, root)}
            _print(ns, data, json.dumps({k: v for k, v in data.items() if k != "source"}, indent=1, default=str)
                   + "\n\n" + data["source"])
        else:
            _print(ns, pack, json.dumps(pack, indent=1, default=str))
        return 0
    if action == "rm":
        pack = learned.read_pack(ns.site, root)
        if ns.tool:
            learned.tool_path(pack, ns.tool, root)  # an unknown tool fails here, naming the known ones
            tool = pack["tools"].pop(ns.tool)
            for v in [tool["file"], *(x["file"] for x in tool.get("versions") or ())]:
                (root / ns.site / v).unlink(missing_ok=True)
            learned.write_pack(pack, root)
        else:
            shutil.rmtree(root / ns.site)
            learned.untrust(ns.site, root)
        _print(ns, {"removed": {"site": ns.site, "tool": ns.tool}}, f"removed {ns.site}{'/' + ns.tool if ns.tool else ''}")
        return 0
    if action == "export":
        pack = learned.read_pack(ns.site, root)
        files = {}
        for path in sorted((root / ns.site).rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                files[str(path.relative_to(root / ns.site))] = path.read_text(encoding="utf-8")
        learned.write_atomic(__import__("pathlib").Path(ns.file), json.dumps(
            {"format": learned.FORMAT, "site": ns.site, "files": files}, indent=1).encode())
        _print(ns, {"exported": ns.site, "file": ns.file, "files": sorted(files)}, f"wrote {ns.file}")
        return 0
    if action == "import":
        return _import(ns, root)
    if action == "trust":
        pack = learned.read_pack(ns.site, root)
        hashes = {name: learned.file_hash(learned.tool_path(pack, name, root)) for name in pack["tools"]}
        learned.trust(ns.site, hashes, root, replace=True)
        _print(ns, {"trusted": ns.site, "tools": sorted(hashes)}, f"trusted {ns.site}: {', '.join(sorted(hashes))}")
        return 0
    return _make(ns)


def _import(ns: argparse.Namespace, root: Any) -> int:
    from pathlib import Path

    from ..learning import learned

    try:
        bundle = json.loads(Path(ns.file).read_text(encoding="utf-8"))
        site, files = bundle["site"], bundle["files"]
        pack = json.loads(files["pack.json"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SitePackInvalid(f"learnings import: {ns.file} is not a pack export ({exc})", site_id=None,
                              problems=[str(exc)]) from exc
    problems = learned.pack_problems(pack)
    if not problems and pack["id"] != site:
        problems.append(f"id: expected {site!r} (got {pack['id']!r})")
    for rel in files:
        if rel.startswith(("/", "\\")) or ".." in Path(rel).parts:
            problems.append(f"{rel}: path leaves the pack")
    for name, tool in pack.get("tools", {}).items() if not problems else ():
        problem = learned.tool_source_problem(files.get(tool["file"], ""), tool["file"])
        if problem:
            problems.append(f"tools.{name}: {problem}")
    if problems:
        raise SitePackInvalid(f"learnings import: the pack in {ns.file} is invalid: {'; '.join(problems)}; "
                              "nothing was imported", site_id=str(site), problems=problems)
    target = root / site
    if target.exists() and not ns.replace:
        raise InvalidArgument(f"learnings import: a pack for {site} exists already ({target}); pass --replace to "
                              "replace it (its tools then need trusting again)", api="learnings import",
                              option="--replace", expected="--replace")
    staging = root / f".import-{site}"
    shutil.rmtree(staging, ignore_errors=True)
    for rel, text in files.items():
        learned.write_atomic(staging / rel, text.encode())
    learned.untrust(site, root)  # what was copied in runs only once the person approves it
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    _print(ns, {"imported": site, "trusted": False, "tools": sorted(pack["tools"])},
           f"imported {site} ({', '.join(sorted(pack['tools']))}); it does not run until you read it and run: "
           f"ego-browser learnings trust {site}")
    return 0


def _make(ns: argparse.Namespace) -> int:
    import asyncio

    renames = {}
    for item in ns.param:
        old, sep, new = item.partition("=")
        if not sep:
            raise InvalidArgument(f"learnings make: --param takes OLD=NEW (got {item!r})", api="learnings make",
                                  option="--param", expected="OLD=NEW")
        renames[old] = new
    args = json.loads(ns.args) if ns.args else None

    async def make() -> dict[str, Any]:
        from ..client.api import task_space
        from ..client.channel import process_channel

        try:
            task = await task_space(ns.space)
            draft = await task.learn(ns.name, rounds=ns.rounds, params=renames or None, levers=not ns.no_levers)
            saved = await task.save_tool(ns.name, args=args, skip_verify=ns.skip_verify)
            return {"draft": draft, "saved": saved}
        finally:
            channel = process_channel()
            if channel is not None:
                await channel.aclose()

    out = asyncio.run(make())
    _print(ns, out, out["draft"]["source"] + f"\nsaved {out['saved']['site_id']}/{ns.name} v{out['saved']['version']}"
           f" ({'verified' if out['saved']['verified'] else 'unverified: ' + str(ns.skip_verify)})")
    return 0
