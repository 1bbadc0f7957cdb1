"""The HTTP server we start for pages takes a browser's burst of connections even while their accept
loop is busy: a dropped SYN is retried only after 1, 3, 7 s, and a page load stalls that long."""

from __future__ import annotations

import functools
import http.server
import selectors
import socket
import time

import pytest

from ego_browser.cli import demo_site

BURST = 40  # more than any browser opens to one host at once, across a few tabs


def _handshakes_completed(address: tuple[str, int], count: int, within: float) -> int:
    """Open ``count`` connections at once to a server that accepts none; how many completed."""
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(address)
        sel.register(s, selectors.EVENT_WRITE)
        socks.append(s)
    done = 0
    deadline = time.monotonic() + within
    try:
        # a last look at the deadline: a process descheduled past it still counts what completed
        while done < count and (left := max(0.0, deadline - time.monotonic())) >= 0:
            ready = sel.select(left)
            if not ready and left == 0.0:
                break
            for key, _ in ready:
                sel.unregister(key.fileobj)
                if key.fileobj.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:  # type: ignore[union-attr]
                    done += 1
    finally:
        for s in socks:
            s.close()
        sel.close()
    return done


def test_a_burst_of_connections_waits_in_the_backlog_not_in_syn_retries():
    # the demo shop's server; the tests' and the benchmarks' servers are the same class
    server = demo_site.LocalHTTPServer(("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler))
    try:
        # nobody accepts (serve_forever never runs): every handshake must still complete in the
        # kernel's queue; with socketserver's default backlog of 5 only 6 do, and the SYNs of the
        # rest are dropped again at every retry while the queue stays full
        assert _handshakes_completed(server.server_address, BURST, within=4.0) == BURST
    finally:
        server.server_close()
