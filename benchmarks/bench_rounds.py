"""Whole-round costs on the agent path, with a warm background host.

- ``python -m ego_browser -e 'print(1)'``: wall time of a trivial round (process start,
  imports, reaching the host), against ``python -c pass`` (the interpreter floor) and one
  agent-browser CLI call (``get url``; its per-action cost, daemon warm).
- a round that resumes a space and reads ``page.url()``.
- a new task space: ``task_space("new name")`` + the first call on its ``p1``, timed inside a
  round (target ≤ 100 ms on an idle machine).
- ``python -X importtime -c 'import ego_browser'``: cumulative µs of the top-level
  ``ego_browser`` import, next to ``playwright.async_api``.
- ``await page.evaluate("1")`` in a round through the host (``import ego_browser`` +
  ``await ego_browser.task_space("bench")``: the background host, not ``embedded()``)
  against Playwright's ``page.evaluate("1")``. Target: ours ≤ 0.6× Playwright.

Targets (issue 11): a trivial round ≤ 1.6× ``python -c pass``, the resume round ≤ 2.0×,
both medians of the same interleaved passes. ``--rounds-only`` runs just these parts.

Every part is guarded: what the package does not offer yet is reported as skipped, with the
reason. The host runs under a throw-away ``EGO_BROWSER_HOME`` and is stopped at the end.

    .venv/bin/python benchmarks/bench_rounds.py
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402
from pages import serve  # noqa: E402

ROOT = peers.ROOT
PY = sys.executable
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "15"))
EVAL_CALLS = int(os.environ.get("BENCH_ROUNDS_EVAL_CALLS", "600"))  # ≥ 500
EVAL_WARMUP = 100
EVAL_BLOCKS = 3
IMPORT_RUNS = 10
EVAL_TARGET = 0.6
SPACE = "bench"
TRIVIAL_TARGET = 1.6
RESUME_TARGET = 2.0
NEW_SPACE_TARGET_MS = 100
NEW_SPACES = int(os.environ.get("BENCH_NEW_SPACES", "10"))

_NEW_SPACE_SCRIPT = r"""
import time
samples = []
for i in range(%(n)d):
    name = "bench-new-%%d-%%d" %% (time.time_ns(), i)
    t0 = time.perf_counter()
    t = await task_space(name)
    await t.page("p1").url()
    samples.append(time.perf_counter() - t0)
    await t.finish(keep=[])
    await asyncio.sleep(0.3)  # let the host get ready for the next one, as between an agent's turns
print("BENCH_JSON " + json.dumps(samples))
"""


# -- process helpers ------------------------------------------------------------------------


_env = peers.ego_env  # one definition, in peers.py


def _run(argv: list[str], env: dict[str, str], *, stdin: str | None = None, timeout: float = 120.0):
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
                          stdin=None if stdin is not None else subprocess.DEVNULL)
    return proc, time.perf_counter() - t0


def _wall(argv: list[str], env: dict[str, str], n: int, *, stdin: str | None = None) -> list[float]:
    out = []
    for _ in range(n):
        proc, seconds = _run(argv, env, stdin=stdin)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[-3:])} exited {proc.returncode}: {_tail(proc)}")
        out.append(seconds)
    return out


def _tail(proc: subprocess.CompletedProcess) -> str:
    return (proc.stderr or proc.stdout or "").strip()[-600:]


def _json_line(text: str, tag: str):
    for line in reversed(text.splitlines()):
        if line.startswith(tag):
            return json.loads(line[len(tag):])
    raise ValueError(f"no {tag} line in output: {text[-400:]!r}")


# -- feature probes -------------------------------------------------------------------------


def _probe(env: dict[str, str]) -> dict[str, str | None]:
    """None = available, else the reason it isn't (yet)."""
    reasons: dict[str, str | None] = {}
    probe = ("import ego_browser as e\ntry:\n    e.task_space\n    print('OK')\n"
             "except Exception as exc:\n    print('NO', type(exc).__name__, exc)")
    proc, _ = _run([PY, "-c", probe], env)
    if proc.returncode != 0:
        reasons["import"] = f"import ego_browser fails: {_tail(proc)}"
    else:
        reasons["import"] = None
    if not (ROOT / "ego_browser" / "__main__.py").exists():
        reasons["runner"] = "no ego_browser/__main__.py yet (the round runner)"
    else:
        reasons["runner"] = None
    if reasons["import"] is not None:
        reasons["host"] = reasons["import"]
    elif proc.stdout.strip() != "OK":
        reasons["host"] = f"ego_browser.task_space not usable yet (the host API): {proc.stdout.strip()[3:]}"
    elif not (ROOT / "ego_browser" / "host").is_dir():
        reasons["host"] = "no ego_browser/host/ yet"
    else:
        reasons["host"] = None
    return reasons


# -- parts ----------------------------------------------------------------------------------


_IMPORT_RE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


def import_time_us(module: str, env: dict[str, str]) -> tuple[float, float]:
    """Median cumulative µs of the top-level ``module`` import, and of the whole -c run's imports."""
    top = module.split(".")[0]
    totals, wholes = [], []
    for _ in range(IMPORT_RUNS):
        proc, _ = _run([PY, "-X", "importtime", "-c", f"import {module}"], env)
        if proc.returncode != 0:
            raise RuntimeError(f"import {module} failed: {_tail(proc)}")
        total = whole = 0
        for line in proc.stderr.splitlines():
            m = _IMPORT_RE.match(line)
            if not m:
                continue
            indent = len(m.group(3)) - 1  # one space after the bar at the top level
            name = m.group(4)
            if indent == 0:
                whole += int(m.group(2))
                # the top-level package and anything of it imported at the top level
                # (``import a.b`` lists ``a`` and ``a.b`` both at the top)
                if name == top or name.startswith(top + "."):
                    total += int(m.group(2))
        totals.append(total)
        wholes.append(whole)
    return peers.median(totals), peers.median(wholes)


_EVAL_SCRIPT = r"""
import asyncio, json, sys, time
import ego_browser

async def main(url, warm, n):
    space = await ego_browser.task_space("%(space)s")
    page = space.page("p1")
    if url:
        try:
            await page.goto(url)
        except Exception as exc:  # goto not there yet: measure on whatever the page shows
            print("goto failed:", exc, file=sys.stderr)
    for _ in range(warm):
        assert await page.evaluate("1") == 1
    pc = time.perf_counter
    samples = []
    for _ in range(n):
        t0 = pc()
        await page.evaluate("1")
        samples.append(pc() - t0)
    # the hop alone: a call the host answers from its own state, no CDP
    for _ in range(warm):
        await page.url()
    hop = []
    for _ in range(n):
        t0 = pc()
        await page.url()
        hop.append(pc() - t0)
    print("BENCH_JSON " + json.dumps({"evaluate": samples, "url": hop}), flush=True)

async def embedded(url, warm, n):
    async with ego_browser.embedded():
        await main(url, warm, n)

entry = embedded if len(sys.argv) > 4 and sys.argv[4] == "embedded" else main
asyncio.run(entry(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
""" % {"space": SPACE}


async def eval_compare(url: str, env: dict[str, str], res: dict, host_ok: bool) -> None:
    """Interleave blocks: a round through the host (its own process), then Playwright.

    The Playwright page stays open (idle) while a round runs, so load drift hits both alike.
    """
    per_block = max(1, EVAL_CALLS // EVAL_BLOCKS)
    ours: list[float] = []
    hop: list[float] = []
    pw: list[float] = []
    emb: list[float] = []
    emb_url: list[float] = []
    async with peers.playwright_page(url) as page:
        if page is None:
            res["skips"]["playwright"] = peers.missing("playwright")
        for _ in range(EVAL_BLOCKS):
            if host_ok and "evaluate" not in res["skips"]:
                proc = await asyncio.create_subprocess_exec(
                    PY, "-c", _EVAL_SCRIPT, url, str(EVAL_WARMUP), str(per_block), env=env, cwd=str(ROOT),
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                )
                out, err = await asyncio.wait_for(proc.communicate(), 600)
                if proc.returncode != 0:
                    res["skips"]["evaluate"] = f"round failed: {(err or out).decode(errors='replace').strip()[-600:]}"
                else:
                    data = _json_line(out.decode(), "BENCH_JSON ")
                    ours += data["evaluate"]
                    hop += data["url"]
            if host_ok and "embedded" not in res["skips"]:
                # diagnostic only (NOT the agent path): the same calls with the host in-process,
                # under a home of its own so that it launches its own Chromium
                emb_home = tempfile.mkdtemp(prefix="ego-bench-home-emb-")
                try:
                    proc = await asyncio.create_subprocess_exec(
                        PY, "-c", _EVAL_SCRIPT, url, str(EVAL_WARMUP), str(per_block), "embedded",
                        env={**env, "EGO_BROWSER_HOME": emb_home}, cwd=str(ROOT),
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    )
                    out, err = await asyncio.wait_for(proc.communicate(), 600)
                finally:
                    shutil.rmtree(emb_home, ignore_errors=True)
                if proc.returncode != 0:
                    res["skips"]["embedded"] = f"embedded run failed: {(err or out).decode(errors='replace').strip()[-600:]}"
                else:
                    data = _json_line(out.decode(), "BENCH_JSON ")
                    emb += data["evaluate"]
                    emb_url += data["url"]
            if page is not None:
                for _ in range(EVAL_WARMUP):
                    await page.evaluate("1")
                pc = time.perf_counter
                for _ in range(per_block):
                    t0 = pc()
                    await page.evaluate("1")
                    pw.append(pc() - t0)
    if ours:
        res["eval_ours"], res["url_ours"] = ours, hop
    if pw:
        res["eval_pw"] = pw
    if emb:
        res["eval_emb"], res["url_emb"] = emb, emb_url


def _stop_host(env: dict[str, str], notes: list[str]) -> None:
    home = env["EGO_BROWSER_HOME"]
    if (ROOT / "ego_browser" / "__main__.py").exists():
        try:
            proc, _ = _run([PY, "-m", "ego_browser", "host", "stop"], env, timeout=60)
            if proc.returncode != 0:
                notes.append(f"`host stop` exited {proc.returncode}: {_tail(proc)}")
        except Exception as exc:  # noqa: BLE001
            notes.append(f"`host stop` failed: {exc}")
    # anything still running under our throw-away home is ours: report it, then end it by pid
    deadline = time.monotonic() + 5
    left = _ours(home)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _ours(home)
    if left:
        notes.append(f"left running after `host stop` (ended by the bench): pids {sorted(left)}")
        for pid in left:
            try:
                os.kill(pid, 15)
            except OSError:
                pass


def _ours(home: str) -> set[int]:
    """Live processes whose environment or command line names our throw-away home."""
    found = set()
    needle = home.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                if fh.read().split(b") ", 1)[1][:1] == b"Z":
                    continue
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except OSError:
            continue
        if b"EGO_BROWSER_HOME=" + needle + b"\0" in environ + b"\0" or needle in cmdline:
            found.add(int(entry))
    return found


def measure() -> dict:
    home = tempfile.mkdtemp(prefix="ego-bench-home-")
    env = _env(home)
    res: dict = {"notes": [], "skips": {}, "rows": {}}
    rows = res["rows"]
    probes = _probe(env)
    res["probes"] = probes
    try:
        with serve() as site:
            url = site.url("/blank")
            # import time
            if probes["import"] is None:
                ours, whole = import_time_us("ego_browser", env)
                res["import_us"] = {"ego_browser": ours, "ego_browser_whole": whole}
            else:
                res["skips"]["import"] = probes["import"]
            if not ROUNDS_ONLY and not peers.missing("playwright"):
                pw, pw_whole = import_time_us("playwright.async_api", env)
                res.setdefault("import_us", {}).update({"playwright.async_api": pw, "playwright_whole": pw_whole})

            # contenders, timed in interleaved passes so that load drift hits all alike
            contenders: dict[str, object] = {
                "python -c pass": lambda: _wall([PY, "-c", "pass"], env, 1)[0],  # the interpreter floor
            }
            host_ok = probes["runner"] is None and probes["host"] is None
            if host_ok:
                proc, _ = _run([PY, "-m", "ego_browser", "host", "start"], env, timeout=120)
                if proc.returncode != 0:
                    res["notes"].append(f"`host start` exited {proc.returncode}: {_tail(proc)}")
                proc, first = _run(
                    [PY, "-m", "ego_browser", "-e",
                     f"p = (await task_space({SPACE!r})).page('p1')\nawait p.goto({url!r})\nprint(await p.url())"],
                    env, timeout=120,
                )
                if proc.returncode != 0:
                    host_ok = False
                    res["skips"]["rounds"] = f"the first round failed: {_tail(proc)}"
                    probes["host"] = res["skips"]["rounds"]
                else:
                    res["first_round"] = first
            if host_ok:
                trivial = [PY, "-m", "ego_browser", "-e", "print(1)"]
                resume = [PY, "-m", "ego_browser", "-e",
                          f"p = (await task_space({SPACE!r})).page('p1')\nprint(await p.url())"]
                contenders["python -m ego_browser -e 'print(1)'"] = lambda: _wall(trivial, env, 1)[0]
                contenders["round: resume space, print(await page.url())"] = lambda: _wall(resume, env, 1)[0]
            elif "rounds" not in res["skips"]:
                res["skips"]["rounds"] = probes["runner"] or probes["host"]
            sess = f"egobench{os.getpid()}"
            if ROUNDS_ONLY:
                pass
            elif not peers.missing("agent-browser"):
                peers.agent_browser("open", url, session=sess)
                contenders["agent-browser get url (one CLI call)"] = (
                    lambda: peers.agent_browser("get", "url", session=sess)[1]
                )
            else:
                res["skips"]["agent-browser"] = peers.missing("agent-browser")
            try:
                for name, fn in list(contenders.items()):  # warm caches; drop what fails
                    try:
                        fn()
                        fn()
                    except Exception as exc:  # noqa: BLE001
                        del contenders[name]
                        res["notes"].append(f"{name} dropped: {exc}")
                for name in contenders:
                    rows[name] = []
                for _ in range(ROUNDS):
                    for name, fn in list(contenders.items()):
                        try:
                            rows[name].append(fn())
                        except Exception as exc:  # noqa: BLE001
                            del contenders[name]
                            res["notes"].append(f"{name} failed mid-run: {exc}")
                rows_empty = [n for n, v in rows.items() if not v]
                for n in rows_empty:
                    del rows[n]
            finally:
                if not ROUNDS_ONLY and not peers.missing("agent-browser"):
                    peers.agent_browser_close(session=sess)

            if host_ok:
                proc, _ = _run([PY, "-m", "ego_browser", "-e", _NEW_SPACE_SCRIPT % {"n": NEW_SPACES}], env, timeout=300)
                if proc.returncode != 0:
                    res["notes"].append(f"new-space round failed: {_tail(proc)}")
                else:
                    res["new_space"] = _json_line(proc.stdout, "BENCH_JSON ")
            if not ROUNDS_ONLY:
                # evaluate through the host vs Playwright, interleaved
                if probes["host"] is not None:
                    res["skips"]["evaluate"] = probes["host"]
                asyncio.run(eval_compare(url, env, res, probes["host"] is None))
    finally:
        _stop_host(env, res["notes"])
        shutil.rmtree(home, ignore_errors=True)
    return res


# -- report ---------------------------------------------------------------------------------


def _sections(r: dict) -> list[str]:
    out = []
    r["skips"] = {k: " ".join(str(v).split()) for k, v in r["skips"].items()}
    r["notes"] = [" ".join(str(n).split()) for n in r["notes"]]
    rows = r["rows"]
    floor = peers.median(rows.get("python -c pass", []))
    ab = peers.median(rows["agent-browser get url (one CLI call)"]) if "agent-browser get url (one CLI call)" in rows else None
    table = []
    for name, samples in rows.items():
        med = peers.median(samples)
        table.append([
            f"`{name}`", len(samples), peers.ms(med, 1), peers.ms(min(samples), 1),
            peers.ratio(med, floor), peers.ratio(med, ab) if ab else "—",
        ])
    text = [
        "### Round wall time (warm host)",
        "",
        f"Each row is one process run from start to exit, timed from the bench; the contenders are "
        f"interleaved over {ROUNDS} passes.",
        "",
        peers.md_table(["round", "runs", "median ms", "min ms", "vs python -c pass", "vs agent-browser call"], table),
        "",
    ]
    trivial = rows.get("python -m ego_browser -e 'print(1)'")
    resume = rows.get("round: resume space, print(await page.url())")
    for label, samples, target in (("trivial round", trivial, TRIVIAL_TARGET), ("resume round", resume, RESUME_TARGET)):
        if samples and floor:
            v = peers.median(samples) / floor
            text.append(f"{label} / `python -c pass` = **{v:.2f}×** (target ≤ {target}×: "
                        + ("met" if v <= target else "**not met**") + ").")
    if r.get("new_space"):
        ns = r["new_space"]
        med = peers.median(ns) * 1000
        text.append(f"New task space (`task_space(new name)` + first call on its p1), median of {len(ns)}: "
                    f"**{med:.0f} ms** (min {min(ns) * 1000:.0f} ms; target ≤ {NEW_SPACE_TARGET_MS} ms on an idle "
                    "machine: " + ("met" if med <= NEW_SPACE_TARGET_MS else "**not met**") + ").")
    text.append(f"Load average at the end of the run: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    if "first_round" in r:
        text.append(f"First round after `host start` (creates the space, opens the page): {r['first_round'] * 1000:.0f} ms.")
    for key in ("rounds", "agent-browser"):
        if key in r["skips"]:
            text.append(f"- {key}: skipped: {r['skips'][key]}")
    out.append("\n".join(text).rstrip())

    imp = r.get("import_us", {})
    text = ["### Import time (`python -X importtime`)", ""]
    trows = []
    if "ego_browser" in imp:
        trows.append(["`import ego_browser`", f"{imp['ego_browser'] / 1000:.1f}",
                      f"{imp['ego_browser_whole'] / 1000:.1f}"])
    if "playwright.async_api" in imp:
        trows.append(["`import playwright.async_api`", f"{imp['playwright.async_api'] / 1000:.1f}",
                      f"{imp['playwright_whole'] / 1000:.1f}"])
    if trows:
        text.append(peers.md_table(["import", "cumulative ms (top-level package)", "every import of the process, ms"], trows))
        text.append("")
        text.append(f"Median of {IMPORT_RUNS} runs. First column: cumulative time of the package's top-level "
                    "entries; second: all top-level entries, interpreter start-up imports included.")
    if "import" in r["skips"]:
        text.append(f"- skipped: {r['skips']['import']}")
    out.append("\n".join(text).rstrip())

    text = ['### `await page.evaluate("1")` from a round through the host vs Playwright', ""]
    ours = r.get("eval_ours")
    pw = r.get("eval_pw")
    erows = []
    if ours:
        erows.append(["ego_browser (background host, `task_space` + `page.evaluate`)", len(ours),
                      peers.ms(peers.median(ours)), peers.ms(sorted(ours)[int(len(ours) * 0.9)]),
                      peers.ratio(peers.median(ours), peers.median(pw)) if pw else "—"])
    hop = r.get("url_ours")
    if hop:
        erows.append(["ego_browser `page.url()` (host hop only, no CDP)", len(hop), peers.ms(peers.median(hop)),
                      peers.ms(sorted(hop)[int(len(hop) * 0.9)]),
                      peers.ratio(peers.median(hop), peers.median(pw)) if pw else "—"])
    for key, label in (("eval_emb", "diagnostic: `page.evaluate` with `embedded()` (in-process host, no hop)"),
                       ("url_emb", "diagnostic: `page.url()` with `embedded()`")):
        d = r.get(key)
        if d:
            erows.append([label, len(d), peers.ms(peers.median(d)), peers.ms(sorted(d)[int(len(d) * 0.9)]),
                          peers.ratio(peers.median(d), peers.median(pw)) if pw else "—"])
    if pw:
        erows.append(["Playwright `page.evaluate`", len(pw), peers.ms(peers.median(pw)),
                      peers.ms(sorted(pw)[int(len(pw) * 0.9)]), "1.00×"])
    if erows:
        text.append(peers.md_table(["client", "calls", "median ms", "p90 ms", "vs Playwright"], erows))
        text.append("")
    if ours and pw:
        v = peers.median(ours) / peers.median(pw)
        text.append(f"Ours / Playwright = **{v:.2f}×** (target ≤ {EVAL_TARGET}×: "
                    + ("met" if v <= EVAL_TARGET else "**not met**") + f"). Interleaved in {EVAL_BLOCKS} blocks "
                    f"(each ours block a fresh round process), {EVAL_WARMUP} warm-up calls per block.")
    if ours and r.get("eval_emb") and hop:
        e, h, em = peers.median(ours), peers.median(hop), peers.median(r["eval_emb"])
        text.append(f"Split of one call through the host: {e * 1000:.3f} ms = the round→host hop "
                    f"(≈ `page.url()`, {h * 1000:.3f} ms) + the host's own work and CDP "
                    f"(≈ embedded evaluate, {em * 1000:.3f} ms); compare the raw CDP round trip in "
                    "bench_transport.")
    for key in ("evaluate", "embedded", "playwright"):
        if key in r["skips"]:
            text.append(f"- {key}: skipped: {r['skips'][key]}")
    for note in r["notes"]:
        text.append(f"- note: {note}")
    out.append("\n".join(text).rstrip())
    return out


def run() -> list[str]:
    return _sections(measure())


ROUNDS_ONLY = False

if __name__ == "__main__":
    ROUNDS_ONLY = "--rounds-only" in sys.argv[1:]
    sections = run()
    print("\n\n".join(sections[:1] if ROUNDS_ONLY else sections))
