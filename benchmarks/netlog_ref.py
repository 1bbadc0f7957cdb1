"""Chromium's own record of a page's requests, the reference ``task.record_har`` is compared with
(issue 33 §4; docs/architecture.md, "The network", says why NetLog).

``reference(url)`` loads ``url`` in a Chromium of its own (``/usr/bin/chromium`` with the
project's flags, a throw-away profile: an empty cache, as a fresh space's), headless with
``--dump-dom`` and ``--virtual-time-budget`` (Chromium itself waits until the page's network is
quiet and its timers have run, then exits, which closes the log), writing a NetLog
(``--log-net-log``, capture mode ``Default``). ``parse(path)`` reads that log's URL requests:
one entry per hop (a redirect is two, as in a HAR), with the method, the status of the hop's
response headers, the body bytes Chromium read (after content decoding) and the network error.

What the page did not ask for is left out: the browser's own background requests (no page
initiator: Google services, refused here without a network) and the ``/favicon.ico`` at the root
of the page's origin the browser's favicon loader tries by itself when a page names no icon (the
DevTools protocol does not show it; an icon the page names, ``<link rel=icon>``, is the page's
request and is kept, even one called ``favicon.ico`` in another folder or on another host). The window is the host's size (1280x720): a page's media queries decide
what it loads.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["CHROMIUM", "FLAGS", "Request", "parse", "reference", "compare"]

CHROMIUM = os.environ.get("EGO_BROWSER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: DESIGN.md's flags for this machine (root, no network, no GPU)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


#: the network traffic annotation of Chromium's favicon loader (its requests carry it in the
#: NetLog's REQUEST_ALIVE)
FAVICON_ANNOTATION = 112189210
#: the reference's window: Chromium runs the page's timers up to this much virtual time after the
#: navigation began (time jumps ahead while the network is quiet), then exits
BUDGET_MS = 3000
#: the window the host's pages have (a page's media queries decide what it loads)
WINDOW = "--window-size=1280,720"


@dataclass
class Request:
    url: str
    method: str
    status: int | None  # None: no response (a network error)
    size: int  # body bytes read (decoded), 0 without a body
    error: int | None  # Chromium's net error (-102: refused ...), None when it succeeded


def _load(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # a browser that did not exit cleanly leaves the events list open
        cut = text.rstrip().rstrip(",")
        return json.loads(cut + ("]}" if not cut.endswith("]}") else ""))


def parse(path: str) -> list[Request]:
    log = _load(path)
    consts = log["constants"]
    event = {v: k for k, v in consts["logEventTypes"].items()}
    source = {v: k for k, v in consts["logSourceType"].items()}
    phase = {v: k for k, v in consts["logEventPhase"].items()}
    by_source: dict[int, list[dict[str, Any]]] = {}
    for e in log.get("events") or ():
        if source.get(e["source"]["type"]) == "URL_REQUEST":
            by_source.setdefault(e["source"]["id"], []).append(e)
    out: list[Request] = []
    for events in by_source.values():
        hops: list[Request] = []
        annotation = None
        for e in events:
            name, params = event.get(e["type"]), e.get("params") or {}
            if name == "REQUEST_ALIVE" and phase.get(e["phase"]) == "PHASE_BEGIN":
                annotation = params.get("traffic_annotation")
            if name == "URL_REQUEST_START_JOB" and phase.get(e["phase"]) == "PHASE_BEGIN":
                initiator, kind = params.get("initiator"), params.get("request_type", "")
                if annotation == FAVICON_ANNOTATION and params.get("url") == f"{initiator}/favicon.ico":
                    break  # the browser's own guess at the tab's icon (the page named none)
                if initiator == "not an origin" and "frame" not in kind:
                    break  # the browser's own request, not the page's
                hops.append(Request(params["url"], params.get("method", "GET"), None, 0, None))
            elif not hops:
                continue
            elif name in ("HTTP_TRANSACTION_READ_RESPONSE_HEADERS", "URL_REQUEST_FAKE_RESPONSE_HEADERS_CREATED"):
                # the second: a redirect Chromium makes itself (an HSTS upgrade: 307 Internal Redirect)
                status_line = (params.get("headers") or [""])[0].split()
                hops[-1].status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else None
            elif name == "URL_REQUEST_JOB_FILTERED_BYTES_READ":
                hops[-1].size += int(params.get("byte_count") or 0)
            elif name in ("URL_REQUEST_START_JOB", "REQUEST_ALIVE") and params.get("net_error"):
                hops[-1].error = int(params["net_error"])
        out += hops
    return out


def reference(url: str, *, extra_args: Sequence[str] = (), budget_ms: int = 0, timeout: float = 120) -> list[Request]:
    """The requests Chromium's network stack made loading ``url`` (see the module's doc)."""
    budget_ms = budget_ms or BUDGET_MS
    work = tempfile.mkdtemp(prefix="ego-netlog-")
    try:
        log = os.path.join(work, "netlog.json")
        argv = [CHROMIUM, *FLAGS, f"--user-data-dir={work}/profile", f"--log-net-log={log}",
                "--net-log-capture-mode=Default", f"--virtual-time-budget={budget_ms}", WINDOW, *extra_args, "--dump-dom", url]
        subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)
        return parse(log)
    finally:
        shutil.rmtree(work, ignore_errors=True)


#: what a page makes up afresh on each load, in a query: a number (a time, a random "cache
#: buster": rnd=1796555417476) or a run of hex digits (a random id: statsentryviewab59bbc66d96e8)
_MADE_UP = re.compile(r"[0-9a-fA-F]{6,}|[0-9]+")


#: ... and in a path, only long numbers (an ad server's random "ord=7855552371523865" among the
#: path's ";" parameters, or a path segment "/7859792660/"): a short one is an id of the page's
_MADE_UP_IN_PATH = re.compile(r"[0-9]{8,}")


def _shape(url: str) -> str:
    """``url`` with the numbers and hex ids of its query and fragment blanked, and its path's long
    numbers."""
    parts = urlsplit(url)
    path = _MADE_UP_IN_PATH.sub("#", parts.path)
    return f"{parts.scheme}://{parts.netloc}{path}?{_MADE_UP.sub('#', parts.query)}#{_MADE_UP.sub('#', parts.fragment)}"


def _status(e: dict[str, Any]) -> int | None:
    return None if e["response"]["status"] in (0, -1) else e["response"]["status"]  # -1: failed


def _upgrade(e: dict[str, Any]) -> bool:
    """A hop Chromium's HTTPS-Upgrades made (an http navigation tried as https first)."""
    return e["response"]["status"] == 307 and any(
        h["name"].lower() == "non-authoritative-reason" and h["value"] == "HttpsUpgrades" for h in e["response"]["headers"])


def _fell_back(r: Request, e: dict[str, Any]) -> bool:
    """The https try of an HTTPS upgrade failed (the NetLog: a network error) and the navigation
    fell back to http: DevTools, so Chromium's own HAR, shows that hop as a 307 to the http URL."""
    return r.status is None and _upgrade(e) and e["response"].get("redirectURL", "").startswith("http:")


def compare(ref: list[Request], har: dict[str, Any]) -> dict[str, Any]:
    """Each reference request matched to a HAR entry of the same method and URL (in order, so a
    URL fetched twice needs two entries): matched share, status and size mismatches.

    A reference request left without its URL in the HAR is then matched to a HAR entry left over
    whose URL differs only in the numbers and hex ids of its query or a long number in its path
    (``_shape``): the page put the
    time or a random number in it, which no two loads share (the reference is another load of the
    page). Those are counted as matched and listed apart (``varied``), never hidden."""
    entries = [e for e in har["log"]["entries"] if e["request"]["url"].startswith(("http:", "https:"))]
    # an HTTPS upgrade's first hop (http, "307" to https): the navigation rewrote the URL before
    # any request, so the network stack never saw it; Chromium's DevTools (its own HAR) shows it
    upgrades = [e for e in entries if _upgrade(e) and e["response"].get("redirectURL", "").startswith("https:")]
    pool: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in entries:
        if not any(e is u for u in upgrades):
            pool.setdefault((e["request"]["method"], e["request"]["url"]), []).append(e)
    pairs: list[tuple[Request, dict[str, Any]]] = []
    unmatched: list[Request] = []
    for r in ref:
        candidates = pool.get((r.method, r.url)) or []
        if candidates:
            # the same URL fetched more than once: the hop that ended alike first (a failed
            # navigation retried by the error page is the same URL, failed each time)
            alike = [e for e in candidates if _status(e) == r.status or _fell_back(r, e)]
            e = (alike or candidates)[0]
            candidates.remove(e)
            pairs.append((r, e))
        else:
            unmatched.append(r)
    by_shape: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (method, url), left in pool.items():
        for e in left:
            by_shape.setdefault((method, _shape(url)), []).append(e)
    missing, varied = [], []
    for r in unmatched:
        alike = by_shape.get((r.method, _shape(r.url))) or []
        if not alike:
            missing.append(r.url)
            continue
        e = alike.pop(0)
        pool[(e["request"]["method"], e["request"]["url"])].remove(e)
        pairs.append((r, e))
        varied.append((r.url, e["request"]["url"]))
    statuses, sizes, aborted = [], [], []
    for r, e in pairs:
        status = _status(e)
        if status != r.status and not _fell_back(r, e):
            statuses.append((r.url, r.status, status))
        body = e["response"].get("bodySize", -1)
        if e.get("_failureText") and body == -1 and r.status is not None:
            # the page aborted the body after the headers (a script or style answered 404:
            # net::ERR_ABORTED); the network stack had read it, the page never got it
            aborted.append((r.url, r.size, e["_failureText"]))
        elif r.status is not None and r.status not in (204, 301, 302, 303, 307, 308) and body != r.size:
            sizes.append((r.url, r.size, body))
    matched = len(pairs)
    left = [e for k in pool.values() for e in k]
    # failed with net::ERR_ABORTED and nothing back: the page asked, then its document went
    # (or it dropped the request) before the request left the renderer (Blink holds a loading
    # page's low-priority requests back): the network stack never saw it, DevTools lists it
    cancelled = [e["request"]["url"] for e in left if _status(e) is None and e.get("_failureText") == "net::ERR_ABORTED"]
    extra = [e["request"]["url"] for e in left if not (_status(e) is None and e.get("_failureText") == "net::ERR_ABORTED")]
    return {"upgrade_hops": [e["request"]["url"] for e in upgrades], "cancelled": cancelled, "reference": len(ref), "matched": matched, "share": matched / len(ref) if ref else 1.0,
            "missing": missing, "status_mismatches": statuses, "size_mismatches": sizes, "aborted_bodies": aborted,
            "varied": varied, "extra": extra}
