"""``snapshot(changes=True)`` on the whole-task traces: what the looks after actions would cost.

    .venv/bin/python benchmarks/tasks/changes.py [--tasks orders,booking] [--no-docs]

Runs every ego trace of ``trace_ego`` once, as ``run.py`` does, with one difference inside each
round: every ``page.snapshot(...)`` the trace prints is preceded by the same call with
``changes=True``, whose size is recorded (the trace still reads the full snapshot, so it parses
the refs it always parsed). ``changes=True`` compares with the page's previous snapshot *with
the same options*, and the full snapshot taken right after it becomes the next baseline, so
each recorded figure is exactly what that look would have printed had the agent asked for the
changes instead. Looks with no earlier snapshot of the same options print the whole snapshot
either way (``[changes: no previous snapshot ...]``) and are reported apart.

Bytes do not depend on the machine's load. Writes the ``bench_tasks_changes`` section of
docs/benchmarks.md (unless ``--no-docs``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import agents  # noqa: E402  (puts benchmarks/ and the checkout on sys.path)
import registry  # noqa: E402
import run as task_run  # noqa: E402
import trace_ego  # noqa: E402

DOC = agents.ROOT / "docs" / "benchmarks.md"
MARK = "@@changes"

#: defined in each round right after the trace's head; the marker goes to stderr on its own line
MEASURE = f'''
import sys as _sys
_full_snapshot = page.snapshot
async def _measured_snapshot(**kw):
    if kw.get("changes"):
        return await _full_snapshot(**kw)
    delta = await _full_snapshot(changes=True, **kw)
    full = await _full_snapshot(**kw)
    note = delta.split("\\n", 2)[1] if delta.count("\\n") >= 1 else ""
    kind = 1 if note.startswith("[changes: no previous snapshot") else 2 if note.startswith(("[changes: most of the page", "[changes: a new document, no")) else 0
    # bodies only: the second look of a round prints its unchanged header as "[p1]" (issue 30)
    print("{MARK}", len(delta.split("\\n", 1)[-1].encode()), len(full.split("\\n", 1)[-1].encode()), kind,
          file=_sys.stderr, flush=True)
    return full
page.snapshot = _measured_snapshot
'''


class MeasuringAgent(agents.EgoAgent):
    """An EgoAgent whose rounds record ``changes=True`` next to every full snapshot."""

    def __init__(self, home: str) -> None:
        super().__init__(home)
        #: (changes bytes, full bytes, kind): 0 a diff, 1 no earlier snapshot with these options,
        #: 2 most of the page changed (a new document: every ref is new), both printing it whole
        self.looks: list[tuple[int, int, int]] = []

    def round(self, script: str, timeout: float = 120) -> str:
        head_end = script.index('page = task.page("p1")\n') + len('page = task.page("p1")\n')
        out = super().round(script[:head_end] + MEASURE + script[head_end:], timeout)
        kept = []
        for line in out.splitlines(keepends=True):
            m = re.match(rf"^{MARK} (\d+) (\d+) ([012])$", line.strip())
            if m:
                self.looks.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
            else:
                kept.append(line)
        return "".join(kept)


def measure(keys: list[str]) -> list[dict]:
    home = tempfile.mkdtemp(prefix="ego-changes-home-")
    rows = []
    agent = MeasuringAgent(home)
    try:
        agent.start()
        for key in keys:
            task = registry.TASKS[key]
            app, tmp = task.app(), tempfile.mkdtemp(prefix="ego-task-")
            agent.looks = []
            try:
                data = task_run.task_data(task, tmp)
                with app.serve() as srv:
                    answer = trace_ego.TRACES[key](agent, srv.url(task.start), f"{key}-changes-{time.time_ns()}", data)
                    ok, why = app.check(answer)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            later = [(c, f, k) for c, f, k in agent.looks if k != 1]
            rows.append({
                "task": task.title, "success": bool(ok), "why": why, "looks": len(agent.looks),
                "later_looks": len(later), "diffs": sum(1 for *_, k in later if k == 0),
                "full": sum(f for _, f, _k in later), "changes": sum(c for c, _f, _k in later),
                "first_full": sum(f for _, f, k in agent.looks if k == 1),
            })
    finally:
        agent.stop()
        shutil.rmtree(home, ignore_errors=True)
    return rows


def render(rows: list[dict], command: str) -> str:
    load = os.getloadavg()[0]
    out = [
        "### snapshot(changes=True) on the whole-task traces", "",
        f"Command: `{command}` · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · bytes only (independent "
        f"of the machine's load, {load:.1f} at the end)", "",
        "Every snapshot each ego trace prints, measured twice in the same round: as printed (full) and as "
        "`changes=True` would have printed it (compared with that page's previous snapshot with the same "
        "options). *Later looks* have such a previous snapshot; the first look with a set of options prints "
        "the whole snapshot either way. *Diffs*: later looks where `changes=True` printed less than the whole "
        "(the changed lines of the same document, or after a navigation the new document with the landmarks "
        "printed as before as one line each); the others print the whole snapshot with a note. Bytes of the "
        "text after the header.", "",
        "| task | success | looks | later looks | diffs | full KB | changes KB | ratio | first looks KB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r['changes'] / r['full']:.2f}×" if r["full"] else "–"
        out.append(f"| {r['task']} | {'yes' if r['success'] else 'no: ' + r['why']} | {r['looks']} | {r['later_looks']} | "
                   f"{r['diffs']} | {r['full'] / 1024:.1f} | {r['changes'] / 1024:.1f} | {ratio} | {r['first_full'] / 1024:.1f} |")
    full, changes = sum(r["full"] for r in rows), sum(r["changes"] for r in rows)
    first = sum(r["first_full"] for r in rows)
    out.append(f"| **total** | {sum(r['success'] for r in rows)}/{len(rows)} | {sum(r['looks'] for r in rows)} | "
               f"{sum(r['later_looks'] for r in rows)} | {sum(r['diffs'] for r in rows)} | {full / 1024:.1f} | {changes / 1024:.1f} | "
               f"{(changes / full if full else 0):.2f}× | {first / 1024:.1f} |")
    if full:
        out += ["", f"All looks together: {(full + first) / 1024:.1f} KB as printed, "
                    f"{(changes + first) / 1024:.1f} KB with `changes=True` after the first look "
                    f"({(changes + first) / (full + first):.2f}×)."]
    return "\n".join(out) + "\n"


def update_doc(section: str) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    block = "## bench_tasks_changes\n\n" + section.rstrip() + "\n"
    start = text.find("\n## bench_tasks_changes\n")
    if start == -1:
        text = text.rstrip() + "\n\n" + block
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start + 1] + block + (text[end:] if end != -1 else "")
    tmp = DOC.with_suffix(".md.tmp")
    tmp.write_text(text)
    os.replace(tmp, DOC)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default="", help="comma-separated task keys (default: all)")
    ap.add_argument("--no-docs", action="store_true")
    args = ap.parse_args()
    keys = [k for k in args.tasks.split(",") if k] or list(registry.TASKS)
    rows = measure(keys)
    section = render(rows, "python " + " ".join(sys.argv))
    print(section)
    if not args.no_docs:
        update_doc(section)
    return 0 if all(r["success"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
