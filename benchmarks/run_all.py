"""Run every ``benchmarks/bench_*.py`` and write ``docs/benchmarks.md``.

    .venv/bin/python benchmarks/run_all.py [NAME ...] [--out PATH] [--timeout SECONDS]

``NAME`` picks modules (``transport``, ``bench_transport`` or a path to a .py file); default: all of them, in name
order. Each module is imported in a child process of its own and its ``run()`` called there;
``run()`` returns a list of markdown sections (a single string is accepted too, and so are rows
rendered by the module's ``table(rows)``). A module
that raises, crashes or overruns its deadline gets an error section and the others go on:
one failing bench never kills the report. The exit status is 1 if any module failed.

The report starts with the machine facts (CPUs, memory, Chromium, Python, peer versions,
commit) and the command that produced it: ``make bench`` when run from make (``MAKELEVEL``
is set) or ``BENCH_COMMAND`` if given, else the python command line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(HERE), str(ROOT)):
    if p not in sys.path:
        sys.path.insert(0, p)

import peers  # noqa: E402

DEFAULT_OUT = ROOT / "docs" / "benchmarks.md"
#: written by ``benchmarks/soak.py --write-docs`` (run separately: it takes most of an hour)
SOAK_LAST = HERE / "soak_last.md"
DEFAULT_TIMEOUT = float(os.environ.get("BENCH_MODULE_TIMEOUT", "1200"))


def discover(names: list[str]) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if not names:
        return found
    paths = [Path(n).resolve() for n in names if n.endswith(".py") and Path(n).is_file()]
    names = [n for n in names if not (n.endswith(".py") and Path(n).is_file())]
    if not names:
        return paths
    wanted = {n if n.startswith("bench_") else f"bench_{n}" for n in (Path(n).stem for n in names)}
    picked = [p for p in found if p.stem in wanted]
    unknown = wanted - {p.stem for p in picked}
    if unknown:
        raise SystemExit(f"no such bench module: {', '.join(sorted(unknown))} (have: "
                         + ", ".join(p.stem for p in found) + ")")
    return picked + paths


# -- child: import one module and call run() ------------------------------------------------


def run_one(path: Path, out_json: Path) -> int:
    """Import ``path``, call ``run()``, write ``{"sections": [...]}`` or ``{"error": ...}``."""
    result: dict = {}
    try:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        run = getattr(module, "run", None)
        if run is None:
            raise AttributeError(f"{path.name} has no run()")
        result["sections"] = _as_sections(module, run)
    except BaseException as exc:  # noqa: BLE001 (reported, never swallowed)
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["traceback"] = traceback.format_exc()[-4000:]
    out_json.write_text(json.dumps(result))
    return 0 if "sections" in result else 1


def _as_sections(module, run) -> list[str]:
    """Call ``run()`` and turn what it returns into markdown sections.

    The contract is ``run() -> list[str]``. Tolerated too: a single string, and rows (a dict
    or a list of dicts) rendered by the module's ``table(rows) -> str``; a ``run`` that takes a
    required ``results`` argument is called with ``{}``.
    """
    import inspect

    required = [
        p for p in inspect.signature(run).parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    out = run({}) if required else run()
    if isinstance(out, str):
        return [out]
    if isinstance(out, (list, tuple)) and all(isinstance(s, str) for s in out):
        return list(out)
    # rows (a dict, or a list of dicts): the module's own table() renders them if it has one
    table = getattr(module, "table", None)
    if callable(table):
        return [str(table(out))]
    return ["```json\n" + json.dumps(out, indent=1, default=str) + "\n```"]


# -- parent ---------------------------------------------------------------------------------


def run_module(path: Path, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="ego-bench-") as tmp:
        out_json = Path(tmp) / "result.json"
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(path), str(out_json)]
        t0 = time.perf_counter()
        print(f"== {path.stem} ...", file=sys.stderr, flush=True)
        # its own process group, so an overrun takes the module's helpers along
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, cwd=str(ROOT), start_new_session=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            output, _ = proc.communicate(timeout=timeout)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            output = _stop(proc)
            print(f"   {path.stem}: FAILED: timed out after {timeout:.0f}s", file=sys.stderr, flush=True)
            return {"error": f"timed out after {timeout:.0f}s", "log": output[-3000:],
                    "seconds": time.perf_counter() - t0}
        seconds = time.perf_counter() - t0
        if out_json.exists():
            result = json.loads(out_json.read_text())
        else:
            result = {"error": f"child exited {code} without a result (crash?)"}
        result["seconds"] = seconds
        result["log"] = output[-3000:]
        status = "ok" if "sections" in result else f"FAILED: {result['error']}"
        print(f"   {path.stem}: {status} ({seconds:.1f}s)", file=sys.stderr, flush=True)
        return result


def _stop(proc: subprocess.Popen) -> str:
    """End an overrunning child: SIGINT first (its ``finally`` blocks stop the browsers it
    launched), then SIGKILL to its process group. Returns what it printed."""
    for sig, grace in ((signal.SIGINT, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            output, _ = proc.communicate(timeout=grace)
            return output or ""
        except subprocess.TimeoutExpired:
            continue
    return ""


def _cmd(argv: list[str]) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=str(ROOT))
    except Exception:  # noqa: BLE001
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def machine_facts() -> list[tuple[str, str]]:
    cpu_model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    facts = [
        ("CPUs", f"{os.cpu_count()} ({cpu_model})"),
        ("memory", mem),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("Chromium", f"{peers.chromium_version()} ({peers.CHROMIUM})"),
    ]
    from importlib import metadata

    versions = []
    for dist in ("websockets", "orjson", "playwright"):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{dist} (not installed)")
    facts.append(("our venv", ", ".join(versions)))
    ab = _cmd([str(peers.AB_BIN), "--version"]) if not peers.missing("agent-browser") else None
    facts.append(("agent-browser", ab or f"not installed ({peers.missing('agent-browser')})"))
    bu = None
    if not peers.missing("browser-use"):
        bu = _cmd([str(peers.BU_PYTHON), "-c",
                   "import importlib.metadata as m; print(m.version('browser-use'))"])
    facts.append(("browser-use", f"browser-use {bu}" if bu else f"not installed ({peers.missing('browser-use')})"))
    head = _cmd(["git", "rev-parse", "--short", "HEAD"])
    if head:
        dirty = _cmd(["git", "status", "--porcelain", "--", "ego_browser"])
        facts.append(("commit", head + (" (ego_browser/ has uncommitted changes)" if dirty else "")))
    try:
        facts.append(("load average at the start", " ".join(f"{x:.2f}" for x in os.getloadavg())))
    except OSError:
        pass
    return facts


def command_line(argv: list[str]) -> str:
    if os.environ.get("BENCH_COMMAND"):
        return os.environ["BENCH_COMMAND"]
    if os.environ.get("MAKELEVEL"):
        return "make bench"
    try:
        exe = os.path.relpath(sys.executable, ROOT)
    except ValueError:
        exe = sys.executable
    script = os.path.relpath(Path(__file__).resolve(), ROOT)
    return " ".join([exe if not exe.startswith("..") else sys.executable, script, *argv])


def render(results: dict[str, dict], facts: list[tuple[str, str]], command: str, started: str) -> str:
    out = [
        "# Benchmarks",
        "",
        "Generated by `benchmarks/run_all.py`; do not edit by hand. Every figure is a median "
        "measured in this run, on this machine, against the peers on the same Chromium binary "
        "and the same pages (`benchmarks/pages.py`, served on 127.0.0.1). Compare ratios, not "
        "absolute times, across machines.",
        "",
        f"Command: `{command}`  ",
        f"Run: {started}",
        "",
        *_busy_warning(facts),
        "## Machine",
        "",
        peers.md_table(["", ""], facts),
        "",
        "## Modules",
        "",
        peers.md_table(
            ["module", "status", "seconds"],
            [
                [f"`{name}`", "ok" if "sections" in r else f"failed: {r['error'][:120]}", f"{r['seconds']:.1f}"]
                for name, r in results.items()
            ],
        ),
        "",
    ]
    for name, r in results.items():
        out.append(f"## {name}")
        out.append("")
        if "sections" in r:
            for section in r["sections"]:
                out.append(section.rstrip())
                out.append("")
        else:
            out.append(f"**Failed:** {r['error']}")
            out.append("")
            detail = (r.get("traceback") or r.get("log") or "").strip()
            if detail:
                out.append("```")
                out.append(detail[-2500:])
                out.append("```")
                out.append("")
    if SOAK_LAST.exists():  # the soak is too long for every run: its last figures are carried over
        out.append(SOAK_LAST.read_text().rstrip())
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _busy_warning(facts: list[tuple[str, str]]) -> list[str]:
    """A loud line when other work loaded the machine during the run (1-min load > CPUs)."""
    cpus = os.cpu_count() or 1
    loads = []
    for key, value in facts:
        if key.startswith("load average"):
            try:
                loads.append(float(value.split()[0]))
            except (ValueError, IndexError):
                pass
    if loads and max(loads) > cpus:
        return [
            f"> **Warning:** the machine was busy during this run (1-minute load up to {max(loads):.1f} on "
            f"{cpus} CPUs): other processes competed with the benchmarks, so absolute times and even "
            "ratios are noisy. Re-run on an idle machine before quoting these figures.",
            "",
        ]
    return []


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        return run_one(Path(argv[1]), Path(argv[2]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="modules to run (default: all bench_*.py)")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="report path (default docs/benchmarks.md)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per module")
    opts = ap.parse_args(argv)
    modules = discover(opts.names)
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    facts = machine_facts()
    results: dict[str, dict] = {}
    for path in modules:
        results[path.stem] = run_module(path, opts.timeout)
    try:
        facts.append(("load average at the end", " ".join(f"{x:.2f}" for x in os.getloadavg())))
    except OSError:
        pass
    report = render(results, facts, command_line(argv), started)
    out = Path(opts.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    failed = [n for n, r in results.items() if "sections" not in r]
    print(f"wrote {out} ({len(results) - len(failed)} ok, {len(failed)} failed)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
