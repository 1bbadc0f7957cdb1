"""Element actions through the agent path vs Playwright, in the same run on the same pages.

Contenders, timed call by call and interleaved (one call of each per iteration, so load drift
hits all alike), medians over ``BENCH_ACTIONS_N`` iterations after a warm-up:

- **ours (host)**: ``import ego_browser`` in this process, a private ``EGO_BROWSER_HOME``,
  ``await ego_browser.task_space(...)`` — the background host, reached over its socket (the
  agent path). Our actions run with all their checks on (visible, enabled, hit test before
  and after the move, box re-read before the press, receipts for popups, dialogs and file
  choosers). The host is stopped at the end (``python -m ego_browser host stop``).
- **ours (embedded)**: diagnostic only, NOT the agent path: the same calls with the host
  in-process (``ego_browser.embedded()``), in a worker process of its own (its own home and
  Chromium), driven call by call from here.
- **Playwright**: ``page.click`` / ``hover`` / ``fill`` / ``select_option`` on its own
  Chromium (the same binary and flags).

Pages (``benchmarks/pages.py``): ``/actions`` (a button, a hover target, an input, a select)
and ``/large`` (500 rows; a button and an input in row 250).

Targets (issue 4, point 8): click ≤ 0.6×, hover ≤ 0.5×, fill and select_option ≤ 1.0× of
Playwright's median, on the agent path.

    .venv/bin/python benchmarks/bench_actions.py
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402
from pages import serve  # noqa: E402

ROOT = peers.ROOT
PY = sys.executable
N = int(os.environ.get("BENCH_ACTIONS_N", "60"))
WARMUP = int(os.environ.get("BENCH_ACTIONS_WARMUP", "8"))
SPACE = "bench-actions"

TARGETS = {"click": 0.6, "hover": 0.5, "fill": 1.0, "select_option": 1.0}

#: (row label, page path, action, selector, values cycled through)
CASES: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    ("click", "/actions", "click", "#btn", ()),
    ("hover", "/actions", "hover", "#hov", ()),
    ("fill", "/actions", "fill", "#name", ("alpha", "beta gamma")),
    ("select_option", "/actions", "select_option", "#color", ("green", "blue")),
    ("click (large page, row 250)", "/large", "click", "#row-250 button", ()),
    ("hover (large page, row 250)", "/large", "hover", "#row-250 a", ()),
    ("fill (large page, row 250)", "/large", "fill", "[name=qty-250]", ("7", "12")),
]


async def _act(page: Any, action: str, selector: str, value: str | None) -> None:
    fn = getattr(page, action)
    if value is None:
        await fn(selector)
    else:
        await fn(selector, value)


# -- the embedded worker (diagnostic) --------------------------------------------------------

_WORKER = r"""
import asyncio, json, sys, time
import ego_browser

async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with ego_browser.embedded():
        space = await ego_browser.task_space("emb")
        pages = {}
        print(json.dumps({"ready": True}), flush=True)
        while True:
            line = await reader.readline()
            if not line:
                break
            cmd = json.loads(line)
            if cmd["op"] == "quit":
                break
            try:
                if cmd["op"] == "goto":
                    p = await space.new_page()
                    await p.goto(cmd["url"])
                    pages[cmd["label"]] = p
                    print(json.dumps({"ok": True}), flush=True)
                    continue
                p = pages[cmd["label"]]
                fn = getattr(p, cmd["op"])
                args = [cmd["sel"]] + ([cmd["value"]] if cmd.get("value") is not None else [])
                t0 = time.perf_counter()
                await fn(*args)
                print(json.dumps({"t": time.perf_counter() - t0}), flush=True)
            except Exception as exc:
                print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)

asyncio.run(main())
"""


class _Worker:
    """The embedded-host worker, one JSON line per command."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            PY, "-c", _WORKER, env=self.env, cwd=str(ROOT), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        first = await self._read(120)
        if not first.get("ready"):
            raise RuntimeError(f"embedded worker did not start: {first}")

    async def _read(self, timeout: float = 60) -> dict:
        assert self.proc and self.proc.stdout
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            err = b""
            if self.proc.stderr:
                try:
                    err = await asyncio.wait_for(self.proc.stderr.read(), 5)
                except asyncio.TimeoutError:
                    pass
            raise RuntimeError(f"embedded worker exited: {err.decode(errors='replace')[-800:]}")
        return json.loads(line)

    async def cmd(self, **cmd: Any) -> dict:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write((json.dumps(cmd) + "\n").encode())
        await self.proc.stdin.drain()
        res = await self._read()
        if "error" in res:
            raise RuntimeError(res["error"])
        return res

    async def close(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        try:
            assert self.proc.stdin
            self.proc.stdin.write(b'{"op": "quit"}\n')
            await self.proc.stdin.drain()
            await asyncio.wait_for(self.proc.wait(), 30)
        except Exception:  # noqa: BLE001
            self.proc.terminate()
            await self.proc.wait()


# -- measurement -----------------------------------------------------------------------------


_env_for = peers.ego_env  # one definition, in peers.py


async def _measure(site: Any, res: dict) -> None:
    import ego_browser

    space = await ego_browser.task_space(SPACE)
    ours_pages: dict[str, Any] = {}
    for path in {c[1] for c in CASES}:
        p = await space.new_page()
        await p.goto(site.url(path))
        ours_pages[path] = p

    worker: _Worker | None = None
    emb_home = tempfile.mkdtemp(prefix="ego-bench-home-emb-")
    try:
        try:
            worker = _Worker(_env_for(emb_home))
            await worker.start()
            for path in ours_pages:
                await worker.cmd(op="goto", label="p" + path.strip("/"), url=site.url(path))
        except Exception as exc:  # noqa: BLE001
            res["skips"]["embedded"] = f"embedded worker failed: {exc}"
            if worker is not None:
                await worker.close()
            worker = None

        async with peers.playwright_page() as pw_browser_page:
            if pw_browser_page is None:
                res["skips"]["playwright"] = peers.missing("playwright")
                return
            browser = pw_browser_page.context.browser
            pw_pages = {}
            for path in ours_pages:
                pp = await browser.new_page()
                await pp.goto(site.url(path))
                pw_pages[path] = pp

            for label, path, action, sel, values in CASES:
                ours_p, pw_p = ours_pages[path], pw_pages[path]
                samples: dict[str, list[float]] = {"ours": [], "pw": [], "emb": []}
                pc = time.perf_counter
                for i in range(WARMUP + N):
                    v = values[i % len(values)] if values else None
                    t0 = pc()
                    await _act(ours_p, action, sel, v)
                    t_ours = pc() - t0
                    t0 = pc()
                    await _act(pw_p, action, sel, v)
                    t_pw = pc() - t0
                    t_emb = None
                    if worker is not None:
                        try:
                            t_emb = (await worker.cmd(op=action, label="p" + path.strip("/"), sel=sel, value=v))["t"]
                        except Exception as exc:  # noqa: BLE001
                            res["skips"]["embedded"] = f"embedded {action} failed: {exc}"
                            await worker.close()
                            worker = None
                    if i >= WARMUP:
                        samples["ours"].append(t_ours)
                        samples["pw"].append(t_pw)
                        if t_emb is not None:
                            samples["emb"].append(t_emb)
                res["rows"].append({"label": label, "action": action, "selector": sel, **samples})
    finally:
        if worker is not None:
            await worker.close()
        shutil.rmtree(emb_home, ignore_errors=True)


def _stop_host(home: str, notes: list[str]) -> None:
    env = _env_for(home)
    try:
        proc = subprocess.run([PY, "-m", "ego_browser", "host", "stop"], env=env, cwd=str(ROOT),
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            notes.append(f"`host stop` exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-300:]}")
    except Exception as exc:  # noqa: BLE001
        notes.append(f"`host stop` failed: {exc}")


def measure() -> dict:
    res: dict = {"rows": [], "skips": {}, "notes": []}
    why = peers.missing("chromium")
    if why:
        res["skips"]["all"] = why
        return res
    home = tempfile.mkdtemp(prefix="ego-bench-home-")
    saved = {k: os.environ.get(k) for k in ("EGO_BROWSER_HOME", "EGO_BROWSER_CHROMIUM", "EGO_BROWSER_CDP_URL")}
    os.environ["EGO_BROWSER_HOME"] = home
    os.environ["EGO_BROWSER_CHROMIUM"] = peers.CHROMIUM
    os.environ.pop("EGO_BROWSER_CDP_URL", None)
    try:
        with serve() as site:
            asyncio.run(_measure(site, res))
    finally:
        _stop_host(home, res["notes"])
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(home, ignore_errors=True)
    return res


# -- report ----------------------------------------------------------------------------------


def _p90(xs: list[float]) -> float:
    return sorted(xs)[int(len(xs) * 0.9)] if xs else float("nan")


def sections(res: dict) -> list[str]:
    text = [
        "### Element actions vs Playwright (agent path, all checks on)",
        "",
        f"Medians of {N} interleaved calls per row after {WARMUP} warm-up calls (one call of each "
        "contender per iteration). *ours (host)*: `import ego_browser` + `task_space()` in the bench "
        "process, the background host over its socket (the agent path). *embedded*: diagnostic only, "
        "the host in-process (`ego_browser.embedded()`) in a worker process. Ratio = ours (host) / "
        "Playwright.",
        "",
    ]
    rows = []
    verdicts = []
    for r in res["rows"]:
        o, p, e = peers.median(r["ours"]), peers.median(r["pw"]), peers.median(r["emb"])
        target = TARGETS.get(r["action"])
        ratio = o / p if p else float("nan")
        met = "—" if target is None else ("met" if ratio <= target else "**not met**")
        rows.append([
            r["label"], f"`{r['selector']}`", peers.ms(o, 2), peers.ms(_p90(r["ours"]), 2),
            peers.ms(e, 2) if r["emb"] else "—", peers.ms(p, 2), peers.ms(_p90(r["pw"]), 2),
            f"{ratio:.2f}×", f"{peers.ratio(e, p)}" if r["emb"] else "—",
            f"≤ {target}×" if target else "—", met,
        ])
        if target is not None and r["label"] == r["action"]:
            verdicts.append(f"{r['action']} {ratio:.2f}× (≤ {target}×: {'met' if ratio <= target else 'not met'})")
    if rows:
        text.append(peers.md_table(
            ["action", "selector", "ours (host) ms", "p90", "embedded ms", "Playwright ms", "p90",
             "ours / PW", "embedded / PW", "target", "verdict"], rows))
        text.append("")
    if verdicts:
        text.append("Targets on the small page: " + "; ".join(verdicts) + ".")
    for k, v in res["skips"].items():
        text.append(f"- {k}: skipped: {' '.join(str(v).split())}")
    for note in res["notes"]:
        text.append(f"- note: {' '.join(str(note).split())}")
    return ["\n".join(text).rstrip()]


def run() -> list[str]:
    return sections(measure())


if __name__ == "__main__":
    print("\n\n".join(run()))
