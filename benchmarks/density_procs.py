"""CPU seconds and memory (PSS) of the processes a bench run involves, read from /proc.

Processes are grouped by what they are: ``round`` (the agents' own process: the bench), ``host``
(the ego host daemon and its helpers), ``browser`` (Chromium's browser, GPU, utility and zygote
processes) and ``renderer`` (``--type=renderer``). CPU is each live process's own time plus, for
a zygote, the time of the renderers it reaped (closed tabs), which is renderer time. PSS splits
shared pages fairly between the processes that map them, so the sum over processes is the
memory they really take together: Chromium's share is included, not hidden in shared libraries.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

__all__ = ["Groups", "count_kind", "cpu_by_group", "machine_busy", "pss_by_group", "tree"]

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Groups:
    """Root pids of each group; a group's tree stops where another group's root starts."""

    roots: dict[str, list[int]] = field(default_factory=dict)
    #: groups whose Chromium processes are split into ``browser`` and ``renderer``
    chromium: set[str] = field(default_factory=set)


def _stat(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b") ", 1)[1].split()
    except (OSError, IndexError):
        return None


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            f = _stat(int(entry))
            if f is not None:
                kids.setdefault(int(f[1]), []).append(int(entry))
    return kids


def tree(roots: list[int], stop: set[int], kids: dict[int, list[int]] | None = None) -> list[int]:
    kids = _children() if kids is None else kids
    seen: list[int] = []
    todo = [p for p in roots if os.path.exists(f"/proc/{p}")]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        todo += [k for k in kids.get(pid, []) if k not in stop]
    return seen


def _kind(pid: int) -> str:
    """A Chromium process's role: renderer, zygote, gpu-process, a utility's sub-type
    (network.mojom.NetworkService ...) or main (the browser process itself)."""
    cmd = _cmdline(pid)
    m = re.search(rb"--utility-sub-type=([\w.]+)", cmd)
    if m:
        return m.group(1).decode().split(".")[-1]
    m = re.search(rb"--type=([\w-]+)", cmd)
    return m.group(1).decode() if m else "main"


def _members(groups: Groups) -> dict[str, list[int]]:
    kids = _children()
    stop = {p for pids in groups.roots.values() for p in pids}
    return {name: tree(pids, stop, kids) for name, pids in groups.roots.items()}


def cpu_by_group(groups: Groups) -> dict[str, float]:
    """CPU seconds used so far, by group; a Chromium group gives ``browser`` and ``renderer``."""
    out: dict[str, float] = {}
    for name, pids in _members(groups).items():
        for pid in pids:
            f = _stat(pid)
            if f is None:
                continue
            own, reaped = (int(f[11]) + int(f[12])) / TICKS, (int(f[13]) + int(f[14])) / TICKS
            if name in groups.chromium:
                kind = _kind(pid)
                detail = "renderer" if kind == "zygote" else kind  # a zygote's reaped children are renderers
                out[f"chromium:{detail}"] = out.get(f"chromium:{detail}", 0.0) + (reaped if kind == "zygote" else own + reaped)
                if kind == "zygote":
                    out["chromium:zygote"] = out.get("chromium:zygote", 0.0) + own
                out["renderer"] = out.get("renderer", 0.0) + (own if kind == "renderer" else 0.0) + \
                    (reaped if kind == "zygote" else 0.0)
                out["browser"] = out.get("browser", 0.0) + (0.0 if kind == "renderer" else own) + \
                    (0.0 if kind == "zygote" else reaped)
            else:
                out[name] = out.get(name, 0.0) + own + reaped
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def pss_by_group(groups: Groups) -> dict[str, float]:
    """PSS in MB, by group; a Chromium group gives ``browser`` and ``renderer``."""
    out: dict[str, float] = {}
    for name, pids in _members(groups).items():
        for pid in pids:
            key = name
            if name in groups.chromium:
                key = "renderer" if _kind(pid) == "renderer" else "browser"
            out[key] = out.get(key, 0.0) + _pss_kb(pid) / 1024
    return out


def count_kind(groups: Groups, kind: str) -> int:
    """How many processes of one Chromium role (``renderer`` ...) the Chromium groups have."""
    return sum(1 for name, pids in _members(groups).items() if name in groups.chromium
               for pid in pids if _kind(pid) == kind)


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far (/proc/stat)."""
    with open("/proc/stat") as fh:
        vals = [int(x) for x in fh.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    total = sum(vals[:8])
    return (total - idle) / TICKS, total / TICKS
