"""What the trace costs on whole tasks (issue 33 §4): the admin tasks of ``make bench-tasks``
(``benchmarks/tasks/``, the same agent traces), each under four settings, one background host
per setting (a private home each), settings rotated from task to task:

- ``off``: no journal, no pictures (``EGO_BROWSER_JOURNAL=0``, a switch for this measure only);
- ``trace``: the journal and the requests each action started (always on for users);
- ``pictures``: the trace with a picture after each action (the default);
- ``video``: the pictures, and each task's space encoded as a captioned video before it finishes
  (``task.record_video``). The video is made from the pictures when asked, so the rounds pay
  the pictures; the encoding is timed apart and reported as its own line.

Per setting: the rounds' time (the agent's wall time per task, summed over tasks; the in-round
reading below is taken out), its overhead against ``off`` with pass/fail per target (trace ≤ 3%,
pictures ≤ 10%, video ≤ 15% and no dropped action: every journaled action has a frame and a
caption), the disk a space's trace took (its pictures folder and its journal rows, read in the
task's last round before the space finishes) against the documented caps, and the host's
resident memory after the tasks.

    .venv/bin/python benchmarks/bench_trace.py [--runs 2] [--tasks orders,catalog]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tasks"))

import agents  # noqa: E402  (puts benchmarks/ and the checkout on sys.path)
import registry  # noqa: E402
from measure_pictures import tree_cpu  # noqa: E402
import trace_ego  # noqa: E402

from ego_browser.host.core import journal as journal_caps  # noqa: E402
from ego_browser.host.features import trace_pictures  # noqa: E402

SETTINGS = {
    "off": {"EGO_BROWSER_JOURNAL": "0", "EGO_BROWSER_TRACE_PICTURES": "0"},
    "trace": {"EGO_BROWSER_JOURNAL": "1", "EGO_BROWSER_TRACE_PICTURES": "0"},
    "pictures": {"EGO_BROWSER_JOURNAL": "1", "EGO_BROWSER_TRACE_PICTURES": "1"},
    "video": {"EGO_BROWSER_JOURNAL": "1", "EGO_BROWSER_TRACE_PICTURES": "1"},
}
TARGETS = {"trace": 0.03, "pictures": 0.10, "video": 0.15}
FINISH = "await task.finish(keep=[])"
#: what the task's last round reads before its space finishes (timed, and taken out of the rounds)
PROBE = '''
import json as _json, os as _os, sqlite3 as _sqlite3, time as _time
from pathlib import Path as _Path
_t0 = _time.perf_counter()
_video = None
if {video!r}:
    _video = await task.record_video({video!r} + "/" + str(task.space_id) + ".webm")
_encode = _time.perf_counter() - _t0
_journal = await task.journal()
_acts = [a for r in _journal["rounds"] for a in r["actions"] if a["op"] not in ("page.snapshot", "task.set_status")]
_home = _Path(_os.environ["EGO_BROWSER_HOME"])
_pics = _home / "traces" / str(task.space_id)
_pic_bytes = sum(p.stat().st_size for p in _pics.glob("*.jpg")) if _pics.is_dir() else 0
_db = _sqlite3.connect(f"file:{{_home / 'state.sqlite3'}}?mode=ro", uri=True) if (_home / "state.sqlite3").exists() else None
_rows = 0
if _db is not None:
    for _t in ("journal_rounds", "journal_actions"):
        try:
            _rows += _db.execute(f"SELECT COALESCE(SUM(LENGTH(data)), 0) FROM {{_t}} WHERE space_id=?",
                                 (task.space_id,)).fetchone()[0]
        except _sqlite3.Error:
            pass
print("TRACE-BENCH " + _json.dumps({{"encode": _encode, "frames": (_video or {{}}).get("frames"),
      "video_bytes": (_video or {{}}).get("bytes"), "actions": len(_acts),
      "with_picture": sum(1 for a in _acts if a.get("picture_after")), "picture_bytes": _pic_bytes,
      "journal_bytes": _rows, "probe": _time.perf_counter() - _t0}}))
'''


class TracedAgent(agents.EgoAgent):
    """The bench-tasks agent, with the probe run in the task's last round, before its finish."""

    def __init__(self, home: str, setting: str, video_dir: str) -> None:
        super().__init__(home)
        self.env.update(SETTINGS[setting])
        self.video_dir = video_dir if setting == "video" else ""
        self.probes: list[dict] = []

    def round(self, script: str, timeout: float = 300) -> str:
        probe = FINISH in script
        if probe:
            script = script.replace(FINISH, PROBE.format(video=self.video_dir) + FINISH)
        out = super().round(script, timeout)
        if probe:
            line = [ln for ln in out.splitlines() if ln.startswith("TRACE-BENCH ")][-1]
            got = json.loads(line.split(" ", 1)[1])
            self.cost.seconds -= got["probe"]  # the probe is the bench's reading, not the task's work
            self.probes.append(got)
        return out


def _host_pid(home: str) -> int:
    try:
        return int((Path(home) / "run" / "host.pid").read_text().strip())
    except (OSError, ValueError):
        return 0


def _host_rss(home: str) -> int:
    try:
        pid = _host_pid(home)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def run_task(key: str, setting: str, home: str, video_dir: str, run: int) -> dict:
    task = registry.TASKS[key]
    app = task.app()
    tmp = tempfile.mkdtemp(prefix="ego-trace-task-")
    agent = TracedAgent(home, setting, video_dir)
    rec: dict = {"task": key, "setting": setting, "run": run, "ok": False}
    host = _host_pid(home)
    cpu0 = tree_cpu(host) if host else 0.0
    try:
        data = dict(task.data)
        if "file_name" in data:
            path = os.path.join(tmp, data["file_name"])
            Path(path).write_bytes(data.pop("file_body"))
            data["file_path"] = path
        with app.serve() as srv:
            answer = trace_ego.TRACES[key](agent, srv.url(task.start), f"{key}-{setting}-{time.time_ns()}", data)
            ok, why = app.check(answer)
            rec.update(ok=bool(ok), why=why)
    except Exception as exc:  # noqa: BLE001 - a failed task is reported, its time is not compared
        rec["why"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # the CPU the host, its browser and its round worker spent on the task: a figure a loaded
    # machine inflates less than wall time (the encoder, a child that has exited, is not in it)
    probe = agent.probes[-1] if agent.probes else {}
    rec.update(seconds=agent.cost.seconds, rounds=agent.cost.turns, probe=probe,
               cpu=(tree_cpu(host) - cpu0) if host else 0.0)
    return rec


def _pf(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(records: list[dict], rss: dict[str, int], load: tuple[float, float]) -> list[str]:
    lines = [f"bench_trace: {len({r['run'] for r in records})} run(s) of {len({r['task'] for r in records})} "
             f"admin task(s) per setting; load average {load[0]:.1f} at the start, {load[1]:.1f} at the end"]
    ok_keys = {(r["task"], r["run"]) for r in records if r["setting"] == "off" and r["ok"]}
    ran = sorted({r["setting"] for r in records})
    for s in ran:
        ok_keys &= {(r["task"], r["run"]) for r in records if r["setting"] == s and r["ok"]}
    failed = [r for r in records if not r["ok"]]
    for r in failed:
        lines.append(f"  failed: {r['task']} under {r['setting']} (run {r['run']}): {r.get('why')}")

    def total(setting: str) -> float:
        return sum(r["seconds"] for r in records if r["setting"] == setting and (r["task"], r["run"]) in ok_keys)

    def per_task(setting: str) -> list[float]:
        off = {(r["task"], r["run"]): r["seconds"] for r in records if r["setting"] == "off"}
        return [r["seconds"] / off[(r["task"], r["run"])] - 1 for r in records
                if r["setting"] == setting and (r["task"], r["run"]) in ok_keys]

    def cpu(setting: str) -> float:
        return sum(r["cpu"] for r in records if r["setting"] == setting and (r["task"], r["run"]) in ok_keys)

    off, off_cpu = total("off"), cpu("off")
    lines.append(f"  off: {off:.2f} s of rounds over {len(ok_keys)} task runs (every setting succeeded on these); "
                 f"CPU of the host, its browser and round worker {off_cpu:.2f} s")
    for s, target in TARGETS.items():
        if s not in ran:
            continue
        t = total(s)
        over = t / off - 1 if off else float("nan")
        med = statistics.median(per_task(s)) if per_task(s) else float("nan")
        c = cpu(s)
        lines.append(f"  {s}: {t:.2f} s, {over:+.1%} vs off (median per task {med:+.1%}); target <= {target:.0%}: "
                     f"{_pf(over <= target)}; CPU {c:.2f} s, {c / off_cpu - 1 if off_cpu else float('nan'):+.1%}"
                     + (" (the encoding not counted: a finished child)" if s == "video" else ""))
    vids = [r for r in records if r["setting"] == "video" and r["probe"]]
    if vids:
        dropped = sum((r["probe"]["actions"] or 0) - (r["probe"]["frames"] or 0) for r in vids)
        without = sum(r["probe"]["actions"] - r["probe"]["with_picture"] for r in vids)
        enc = sum(r["probe"]["encode"] for r in vids)
        frames = sum(r["probe"]["frames"] or 0 for r in vids)
        lines.append(f"  video: {frames} frames for {sum(r['probe']['actions'] for r in vids)} journaled actions, "
                     f"dropped {dropped}, actions without a picture of their own {without}: {_pf(dropped == 0)}")
        lines.append(f"  video encoding (when asked, after the rounds): {enc:.2f} s in all, "
                     f"{1000 * enc / max(frames, 1):.0f} ms a frame, {enc / off:.1%} of the off rounds' time")
    for s in ("trace", "pictures", "video"):
        acts = [r["probe"]["actions"] for r in records if r["setting"] == s and r["probe"]]
        if s != "trace" and acts:
            ref = {(r["task"], r["run"]): r["probe"]["actions"] for r in records if r["setting"] == "trace" and r["probe"]}
            same = all(ref.get((r["task"], r["run"])) == r["probe"]["actions"] for r in records
                       if r["setting"] == s and r["probe"] and (r["task"], r["run"]) in ref)
            lines.append(f"  {s}: journaled actions per task the same as under trace: {_pf(same)}")
    cap = trace_pictures.MAX_SPACE_BYTES
    pics = [r["probe"]["picture_bytes"] for r in records if r["probe"]]
    rows = [r["probe"]["journal_bytes"] for r in records if r["probe"]]
    acts = [r["probe"]["actions"] for r in records if r["probe"] and r["probe"]["picture_bytes"]]
    if pics and max(pics):
        per_action = sum(pics) / max(sum(acts), 1)
        lines.append(f"  disk per space: pictures max {max(pics) / 1024:.0f} KiB ({per_action / 1024:.1f} KiB an "
                     f"action; cap {cap // 2**20} MiB, so about {cap / max(per_action, 1):.0f} actions kept), journal "
                     f"max {max(rows) / 1024:.0f} KiB (cap {journal_caps.MAX_ROUNDS} rounds x "
                     f"{journal_caps.MAX_ACTIONS} actions); within the picture cap: {_pf(max(pics) <= cap)}")
    lines.append("  host resident memory after the tasks: " + ", ".join(
        f"{s} {v / 2**20:.0f} MiB" for s, v in rss.items()) + (
        f" (pictures vs off {(rss['pictures'] - rss['off']) / 2**20:+.0f} MiB)" if rss.get("off") and rss.get("pictures")
        else ""))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_TRACE_RUNS", "2")))
    ap.add_argument("--tasks", default=",".join(registry.SETS["admin"]))
    ap.add_argument("--settings", default=",".join(SETTINGS), help="a subset to compare (off is always run)")
    args = ap.parse_args()
    keys = [k for k in args.tasks.split(",") if k]
    chosen = ["off"] + [s for s in args.settings.split(",") if s in SETTINGS and s != "off"]
    homes = {s: tempfile.mkdtemp(prefix=f"ego-bench-trace-{s}-") for s in chosen}
    video_dir = tempfile.mkdtemp(prefix="ego-bench-trace-video-")
    records: list[dict] = []
    load0 = os.getloadavg()[0]
    rss: dict[str, int] = {}
    try:
        for s, home in homes.items():
            agent = TracedAgent(home, s, video_dir)
            agent.start()
            agent.round('task = await task_space("warm-up")\nawait task.page("p1").goto("about:blank")\n'
                        'await task.finish(keep=[])\n')
        order = list(homes)
        for run in range(1, args.runs + 1):
            for i, key in enumerate(keys):
                shift = (run + i) % len(order)
                for s in order[shift:] + order[:shift]:
                    rec = run_task(key, s, homes[s], video_dir, run)
                    records.append(rec)
                    print(f"run {run} {key:9s} {s:9s} {'ok  ' if rec['ok'] else 'FAIL'} {rec['seconds']:6.2f} s "
                          f"{rec['rounds']} rounds cpu {rec['cpu']:.2f} s {json.dumps(rec['probe'])}", file=sys.stderr)
        rss = {s: _host_rss(h) for s, h in homes.items()}
    finally:
        for s, home in homes.items():
            TracedAgent(home, s, video_dir).stop()
            shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(video_dir, ignore_errors=True)
    print("\n".join(report(records, rss, (load0, os.getloadavg()[0]))))


if __name__ == "__main__":
    main()
