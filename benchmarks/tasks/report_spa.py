"""The SPA set's own report lines (issue 29): failed rounds by cause and re-looks, per tool.

README.md defines the counters; the traces (trace_ego_spa.py, trace_ab_spa.py) record them on
each run's ``Cost`` and run.py copies them into the records. Counts are sums over every run
(a target of 0 means: in no run), turns and bytes the medians of the main table.
"""

from __future__ import annotations

import peers

COUNTERS = ("stale_failures", "other_failures", "relooks", "changing_looks")
#: tools whose traces keep the counters (a Playwright script is one call: nothing to count)
COUNTED = ("ego", "agent-browser", "ego-inproc", "ego-default")


def counts(records: list[dict], tool: str, key: str | None = None) -> dict:
    recs = [r for r in records if r["tool"] == tool and (key is None or r["task"] == key)]
    out = {c: sum(r.get(c, 0) for r in recs) for c in COUNTERS}
    out["runs"] = len(recs)
    return out


def block(result: dict, summary: dict, titles: dict[str, str]) -> str:
    tools = [t for t in result["tools"] if t in COUNTED]
    records = result["records"]
    lines = ["**SPA rounds** (sums over every run; README.md defines each counter): *stale-ref failures*: rounds "
             "or turns that failed because a ref no longer named its node, each followed by a new look and the "
             "step again; *other failures*: rounds or turns that failed for another reason or did nothing (a fill with no effect); *re-looks*: "
             "looks taken only because the previous look lacked what the next step needed while the page was "
             "still drawing (no action between); *changing looks*: ego looks whose header said `(changing: ...)`.",
             ""]
    head = ["task", "tool", "success", "turns", "KB", "stale-ref failures", "other failures", "re-looks",
            "changing looks"]
    rows = []
    for key in result["tasks"]:
        for tool in tools:
            med = summary["per"].get((key, tool))
            if not med:
                continue
            c = counts(records, tool, key)
            rows.append([titles[key] if tool == tools[0] else "", tool, f"{med['success']}/{med['n']}",
                         f"{med['turns']:g}", f"{med['bytes'] / 1000:.1f}", str(c["stale_failures"]),
                         str(c["other_failures"]), str(c["relooks"]),
                         str(c["changing_looks"]) if tool.startswith("ego") else "—"])
    lines.append(peers.md_table(head, rows))
    lines.append("")
    totals = summary["totals"]
    if "ego" in totals:
        e, ce = totals["ego"], counts(records, "ego")
        targets = [["success", f"{e['success']}/{e['n']}", "100%", "met" if e["success"] == e["n"] else "**not met**"],
                   ["failed rounds caused by a stale ref", str(ce["stale_failures"]), "0",
                    "met" if ce["stale_failures"] == 0 else "**not met**"],
                   ["re-looks a settle wait would have saved", str(ce["relooks"]), "0",
                    "met" if ce["relooks"] == 0 else "**not met**"]]
        if "agent-browser" in totals:
            a, ca = totals["agent-browser"], counts(records, "agent-browser")
            targets += [["turns (agent-browser's)", f"{e['turns']:g} ({a['turns']:g}; {a['calls']:g} CLI calls)",
                         "reported", ""],
                        ["KB (agent-browser's)", f"{e['bytes'] / 1000:.1f} ({a['bytes'] / 1000:.1f})", "reported", ""],
                        ["agent-browser: stale-ref failures, re-looks", f"{ca['stale_failures']}, {ca['relooks']}",
                         "reported", ""]]
        lines.append(peers.md_table(["ego_browser on the SPA set", "measured", "target", ""], targets))
        lines.append("")
    return "\n".join(lines)
