"""Where a look's bytes go, and what each notation choice would save (issue 30).

Bytes are deterministic, so this is a measurement, not a timed benchmark: it takes one
full-page snapshot per corpus page (Debian docs and the outside pages, ``corpus.py``) with
locators on, and prices from the text the choices ``docs/architecture.md`` records: ``loc=``,
``url=`` policies, indentation, state words, the ``text`` role word, the ref notation.

    .venv/bin/python benchmarks/measure_looks.py [--limit N] [--only PREFIX]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import peers  # noqa: E402

from ego_browser.cdp.connection import Connection  # noqa: E402
from ego_browser.snapshot import CdpSnapshotTarget, RefLedger, take_snapshot  # noqa: E402
from ego_browser.snapshot.looks import document_delta  # noqa: E402

_LOC = re.compile(r"(, loc=|\[loc=)[^\n]*?(?=, url=|\]$|\]: |\] \[)")
_URL = re.compile(r"(?:, url=| \[url=)([^\]\n]*)")
_REF = re.compile(r"\[ref=(\d+)")
_HREF = re.compile(r"loc=href:([^,\]\n]*)")
_STATE = re.compile(r" \[(checked|checked=mixed|pressed|selected|expanded|collapsed|disabled|required|invalid|"
                    r"readonly|focused|level=\d)\]")
_LINK = re.compile(r'^( *)link "((?:[^"\\]|\\.)*)"')


def _url_of(line: str) -> str:
    # a link whose locator is its href prints no url= today: its target is the locator
    m = _URL.search(line) or _HREF.search(line)
    return m.group(1) if m else ""


def url_policies(lines: list[str]) -> dict[str, int]:
    """Bytes of url= annotations each policy keeps, over one page's link lines."""
    targets: dict[str, set[str]] = {}
    for ln in lines:
        m = _LINK.match(ln)
        u = _url_of(ln)
        if m and u:
            targets.setdefault(m.group(2), set()).add(u)
    out = Counter()
    for ln in lines:
        u = _url_of(ln)
        if not u:
            continue
        cost = len(", url=") + len(u.encode())
        out["all"] += cost
        m = _LINK.match(ln)
        name = m.group(2) if m else ""
        ambiguous = not name or len(targets.get(name, ())) > 1
        foreign = u.startswith(("http:", "https:", "mailto:", "tel:", "//"))
        if ambiguous:
            out["ambiguous"] += cost
        if ambiguous or foreign:
            out["ambiguous+foreign"] += cost
        if foreign:
            out["foreign"] += cost
        host = urlsplit(u).netloc or u.split(":", 1)[0] + ":"
        out["ambiguous+foreign_host"] += cost if ambiguous else (len(", url=") + len(host.encode()) if foreign else 0)
    return dict(out)


def price(text: str) -> dict[str, int]:
    body = text.split("\n", 1)[1] if text.startswith("[") else text
    lines = body.split("\n")
    total = len(body.encode()) + 1
    f: dict[str, int] = {"total": total, "lines": len(lines)}
    f["loc"] = sum(len(m.group(0).encode()) for ln in lines for m in _LOC.finditer(ln))
    f.update({"url_" + k: v for k, v in url_policies(lines).items()})
    f["indent"] = sum(len(ln) - len(ln.lstrip(" ")) for ln in lines)
    # the depth as a number and a space instead of the spaces (never cheaper below 3 levels)
    f["indent_as_number"] = sum(len(str(d)) + 1 if d else 0 for d in (len(ln) - len(ln.lstrip(" ")) for ln in lines))
    states = Counter(m.group(1).split("=")[0] for ln in lines for m in _STATE.finditer(ln))
    f["state_words"] = sum(len(m.group(0)) for ln in lines for m in _STATE.finditer(ln))
    f.update({"state_" + k: v for k, v in states.items()})
    f["text_role_word"] = sum(5 for ln in lines if ln.lstrip(" ").startswith('text "'))
    refs = [m.group(1) for ln in lines for m in _REF.finditer(ln)]
    # " [ref=12]" -> " @12": the form an agent writes anyway
    f["ref_brackets"] = sum(len(" [ref=]") - len(" @") for _ in refs)
    return f


async def collect(limit: int | None, only: str | None) -> list[tuple[str, dict[str, int]]]:
    rows = []
    with corpus.serve() as site, peers.ego_chromium(site.browser_args()) as bp:
        paths = [p for p in site.paths if only is None or p.startswith("/" + only)]
        paths = paths[:limit] if limit else paths
        conn = await Connection.connect(bp.ws_url)
        t = await CdpSnapshotTarget.new_page(conn)
        await site.keep_hosts_that_load(t)
        for path in paths:
            try:
                await asyncio.wait_for(t.goto(site.url(path)), 60)
                await peers.settled(t)
                text = await asyncio.wait_for(take_snapshot(t, RefLedger("m"), scope="full_page"), 60)
                f = price(text)
                # the looks themselves, before (locators on: the old default) and after (issue 30)
                for key, kw in (("old_default", {}), ("new_default", {"include_stable_locator": False,
                                                                      "lean_urls": True}),
                                ("old_interactive", {"interactive": True}),
                                ("new_interactive", {"interactive": True, "include_stable_locator": False,
                                                     "lean_urls": True})):
                    f[key] = len((await take_snapshot(t, RefLedger(key), scope="full_page", **kw)).encode())
                rows.append((path, f))
            except Exception as exc:  # noqa: BLE001 - one bad page is reported, not fatal
                print(f"{path}: {type(exc).__name__}: {exc}"[:200], file=sys.stderr)
                await t.close()
                t = await CdpSnapshotTarget.new_page(conn)
        await t.close()
        await conn.close()
    return rows


def report(rows: list[tuple[str, dict[str, int]]]) -> str:
    groups: dict[str, list[dict[str, int]]] = {}
    for path, f in rows:
        src = path.split("/")[1]
        groups.setdefault("outside" if corpus.is_outside(src) else "debian", []).append(f)
        groups.setdefault("all", []).append(f)
    keys = ["loc", "url_all", "url_ambiguous", "url_ambiguous+foreign", "url_ambiguous+foreign_host", "url_foreign",
            "indent",
            "indent_as_number", "state_words", "text_role_word", "ref_brackets"]
    out = ["| share of today's full-page bytes (sum over pages) | " + " | ".join(groups) + " |",
           "|---|" + "---|" * len(groups)]
    for k in keys:
        cells = []
        for fs in groups.values():
            tot = sum(f["total"] for f in fs)
            cells.append(f"{100 * sum(f.get(k, 0) for f in fs) / tot:.1f}%")
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    out.append("| pages | " + " | ".join(str(len(fs)) for fs in groups.values()) + " |")
    for k in ("old_default", "new_default", "old_interactive", "new_interactive"):
        out.append(f"| {k} bytes (sum) | " + " | ".join(str(sum(f.get(k, 0) for f in fs)) for fs in groups.values())
                   + " |")
    st = Counter()
    for f in groups.get("all", []):
        st.update({k: v for k, v in f.items() if k.startswith("state_") and k != "state_words"})
    out.append("")
    out.append("state words (count): " + ", ".join(f"{k[6:]} {v}" for k, v in st.most_common()))
    return "\n".join(out)


async def deltas(prefixes: list[str], per: int) -> str:
    """Page-to-page flows: each source's pages in order on one page (one ledger, as the host
    keeps it), the default look after each navigation in full vs ``changes=True``'s delta."""
    out = ["| source | scope | navigations | full look bytes | delta bytes | delta / full | landmarks collapsed |",
           "|---|---|---:|---:|---:|---:|---:|"]
    with corpus.serve() as site, peers.ego_chromium(site.browser_args()) as bp:
        conn = await Connection.connect(bp.ws_url)
        t = await CdpSnapshotTarget.new_page(conn)
        await site.keep_hosts_that_load(t)
        await t.close()
        for prefix in prefixes:
            paths = [p for p in site.paths if p.startswith("/" + prefix + "/")][:per]
            if len(paths) < 2:
                continue
            for scope in ("only_within_viewport", "full_page"):
                t = await CdpSnapshotTarget.new_page(conn)
                led = RefLedger("d")
                prev = None
                full = delta = collapsed = navs = 0
                for path in paths:
                    await asyncio.wait_for(t.goto(site.url(path)), 60)
                    await peers.settled(t)
                    body = await take_snapshot(t, led, scope=scope, include_stable_locator=False, lean_urls=True)
                    if prev is not None:
                        navs += 1
                        full += len(body.encode())
                        found = document_delta(prev, body)
                        delta += len((found[0] if found else body).encode()) + 60  # + the note line
                        collapsed += found[1] if found else 0
                    prev = body
                await t.close()
                out.append(f"| {prefix} | {scope} | {navs} | {full} | {delta} | {delta / max(1, full):.2f}× | "
                           f"{collapsed} |")
                print(out[-1], file=sys.stderr)
        await conn.close()
    return "\n".join(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--deltas", default=None, help="comma-separated sources: page-to-page delta bytes")
    a = ap.parse_args()
    if a.deltas:
        print(asyncio.run(deltas(a.deltas.split(","), a.limit or 25)))
    else:
        print(report(asyncio.run(collect(a.limit, a.only))))
