"""The operations over a page's requests: the log, waiting for one, a body.

The log is the driver's (``driver/network.py``). URL patterns arrive as regular expressions
(the round turns a glob into one, ``client/page_network.py``) and are matched here, so only
matching records cross the socket; a callable matcher cannot cross it, so the round asks for
every candidate and filters them itself.
"""

from __future__ import annotations

import re
from typing import Any

from ...driver import network
from ...driver.page import PageDriver
from ...errors import InvalidRoutePattern
from ..core.host import Host
from ..core.dispatch import op

#: records one wait returns at most (the round asks again after the newest)
WAIT_BATCH = 50


def compile_pattern(api: str, regex: str | None, flags: int) -> re.Pattern[str] | None:
    if regex is None:
        return None
    try:
        return re.compile(regex, flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.ASCII))
    except re.error as exc:
        raise InvalidRoutePattern(f"{api}: the URL pattern {regex!r} does not compile ({exc}); pass a glob such as "
                                  "'**/api/*' or a valid re.Pattern", api=api, pattern=regex) from None


#: the record's field saying when it reached a wait's stage (``driver/network.py``)
_STAGE = {"request": "request_seq", "response": "response_seq", "finished": "end_seq"}


@op("page.network_log")
async def network_log(host: Host, at: dict[str, Any], *, regex: str | None, flags: int, resource_type: str | None,
                      limit: int) -> dict[str, Any]:
    ctx = await host.page_ctx(at, gated=False)
    driver = ctx.driver
    pattern = compile_pattern("page.requests", regex, flags)
    found = [r for r in driver.network.records.values()
             if (pattern is None or pattern.search(r["url"]))
             and (resource_type is None or r["resource_type"] == resource_type)]
    return {"seq": driver.network.seq, "requests": [network.public(driver, r) for r in found[-limit:]]}


@op("page.wait_network")
async def wait_network(host: Host, at: dict[str, Any], *, after: int, kind: str, regex: str | None, flags: int,
                       seen: list[Any] | None, timeout: float) -> dict[str, Any]:
    """The records changed after ``after`` that reached ``kind`` and match; waits for one."""
    ctx = await host.page_ctx(at, gated=False)
    driver: PageDriver = ctx.driver
    pattern = compile_pattern(f"page.expect_{'request' if kind == 'request' else 'response'}", regex, flags)
    skip = set(seen or ())
    log = driver.network

    stage = _STAGE[kind]

    def found() -> list[dict[str, Any]]:
        return [r for r in log.after(after) if r[stage] > after and r["id"] not in skip
                and (pattern is None or pattern.search(r["url"]))][:WAIT_BATCH]

    try:
        hits = await driver.wait_until(found, timeout=timeout / 1000)
    except TimeoutError:
        return {"seq": log.seq, "requests": [], "timed_out": True}
    return {"seq": max(r["seq"] for r in hits), "requests": [network.public(driver, r) for r in hits],
            "timed_out": False}


@op("page.request_body")
async def request_body(host: Host, at: dict[str, Any], *, id: int, part: str, timeout: float) -> dict[str, Any]:
    ctx = await host.page_ctx(at, gated=False)
    driver = ctx.driver
    rec = driver.network.get(id)
    if rec is not None and part == "response" and rec["state"] == "pending":
        # a response whose headers came: its body is read once it has finished loading
        try:
            await driver.wait_until(lambda: rec["state"] != "pending", timeout=timeout / 1000)
        except TimeoutError:
            pass
    return await driver.network.body(id, part, "request.body")
