"""Recording the journal (``host/core/journal.py``) around the host's action operations, and its
read operation ``task.journal``.

Loaded last of the operation modules (``ops.OP_MODULES``): it wraps the handlers the others
registered for the operations in :data:`JOURNALED`, so no action's own module knows of it.
A wrapped handler records, per action: the operation, the page, the target as given and as
resolved (``driver/witness.py``), the value, the URL before and after, what the receipt says
the action caused, the outcome and its timings. The end-of-round report (``round.report``)
brings the round's script and status.

``EGO_BROWSER_JOURNAL=0`` (read when the host starts) records nothing: only for measuring what
the journal costs (``benchmarks/bench_trace.py``); traces, videos and learned tools need it.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from ...driver.network import requests_for_action
from ...driver.witness import WITNESS
from ...learning.distill import origin_of
from ..core.host import Host
from ..core.journal import PASSWORD, Journal, masked_value
from ..core.journal_json import json_body
from ..core.dispatch import OPS, op

__all__ = ["JOURNALED", "journal_of"]

logger = logging.getLogger("ego_browser.host")

#: wire name -> the argument holding the value it types, chooses, checks or uploads (None: none)
JOURNALED: dict[str, str | None] = {
    "page.goto": "url", "page.reload": None, "page.go_back": None, "page.go_forward": None,
    "page.click": None, "page.dblclick": None, "page.hover": None, "page.tap": None, "page.drag_and_drop": None,
    "page.fill": "value", "page.type": "text", "page.press": "key", "page.select_option": "value",
    "page.check": None, "page.uncheck": None, "page.set_checked": "checked", "page.set_input_files": "files",
    "page.wait_for_selector": "state", "page.accept_dialog": "prompt_text", "page.dismiss_dialog": None,
    "mouse.click": None, "keyboard.type": "text", "keyboard.press": "key", "keyboard.insert_text": "text",
    # not actions, for the trace: what the agent saw (a snapshot's text, cut) and said (its status notes)
    "page.snapshot": None, "task.set_status": "text",
}
#: recorded without a picture after them (they change nothing on the page)
_LOOKS = {"page.snapshot", "task.set_status"}
#: requests kept per action (a page load's subresources: the first ones)
MAX_REQUESTS = 100
_CHECKS = {"page.check": True, "page.uncheck": False}


def recording() -> bool:
    return os.environ.get("EGO_BROWSER_JOURNAL", "1") not in ("0", "off", "false", "no")


def journal_of(host: Host) -> Journal:
    assert host.store is not None
    return host.store.journal


def _value(op_name: str, kwargs: dict[str, Any]) -> Any:
    if op_name in _CHECKS:
        return _CHECKS[op_name]
    if op_name in ("page.click", "page.dblclick") and kwargs.get("button") not in (None, "left"):
        return {"button": kwargs["button"]}  # a right click opens a context menu: a tool must replay it so
    key = JOURNALED.get(op_name)
    if key is None:
        return None
    value = kwargs.get(key)
    if op_name == "page.set_input_files":
        files = value if isinstance(value, list) else [value]
        return [os.path.basename(f) if isinstance(f, str) else (f or {}).get("name") for f in files]
    return value


def _driver(host: Host, at: dict[str, Any]) -> tuple[Any, Any]:
    """The page's driver, read off the host's records (no call to the page); None if it has none."""
    store = host.store
    try:
        space = store.space(int(at["space"])) if store is not None and isinstance(at.get("space"), int) else None
        if space is None:
            return None, None
        row = host.page_row(space, str(at.get("label")))
        return row, host.drivers.get(row.target_id or "")
    except Exception:  # noqa: BLE001 - a page the journal cannot find is recorded without one
        return None, None


def _url_of(row: Any, driver: Any) -> str | None:
    """The page's committed URL, read off the host's records (no call to the page)."""
    main = driver.frames.main if driver is not None else None
    return main.url if main is not None else (row.url if row is not None else None)


def _after(host: Host, row: Any) -> Any:
    """The page's driver after the action: the one it had, unless the page went (no store query:
    the space's row was read once, before the action)."""
    if row is None:
        return None
    return host.drivers.get(row.target_id or "")


def _requests(host: Host, space: int, driver: Any, before: int | None) -> list[dict[str, Any]] | None:
    """The requests the action started (None: it started no action on the page's network log),
    a JSON body's shape with them (``journal_json.py``: no password or secret in it)."""
    action_id = driver.network.last_action_id if driver is not None else None
    if action_id is None or action_id == before:
        return None
    keys = ("id", "method", "url", "resource_type", "status", "mime_type", "failure", "from_cache", "timing", "sizes")
    passwords = journal_of(host).passwords.get(space) or set()
    out = []
    for r in requests_for_action(driver, action_id)[:MAX_REQUESTS]:
        row = {**{k: r.get(k) for k in keys}, "main_frame": r["frame"]["main"]}
        raw = driver.network.records.get(r["id"]) or {}
        body = json_body(r.get("request_headers") or {}, raw.get("post_data"), passwords, host.secrets.mask_text)
        if body is not None:
            row["json_body"] = body
        out.append(row)
    return out


def _caused(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict):
        return {"navigation": None, "dialog": None, "popups": [], "download": None}
    dialog = result.get("dialog")
    return {
        "navigation": result.get("navigation"),
        "dialog": {"type": dialog.get("type"), "message": dialog.get("message")} if isinstance(dialog, dict) else None,
        "popups": [p.get("label") for p in result.get("popups") or () if isinstance(p, dict)],
        "download": result.get("download"),
    }


def _picture(host: Host, space: int, label: str, driver: Any, started: float) -> str | None:
    try:
        return host.pictures.schedule(space, label, driver, started)
    except Exception:  # a picture is never worth the record of the action
        logger.warning("trace: no picture after an action on %s", label, exc_info=True)
        return None


def _record(host: Host, at: dict[str, Any], name: str, kwargs: dict[str, Any], seen: dict[str, Any], result: Any,
            error: BaseException | None, url_before: str | None, started: float, t0: float,
            network_before: int | None, row: Any) -> None:
    space = at["space"]
    ms = round((time.monotonic() - t0) * 1000, 1)
    label = str(at.get("label"))
    driver = _after(host, row)
    before = host.pictures.last.get((space, label))
    value = _value(name, kwargs)
    secret = None
    book = journal_of(host)
    key = (space, str(at.get("label")))
    if seen:
        book.password_focus[key] = bool(seen.get("password"))
    typed_blind = name in ("keyboard.type", "keyboard.insert_text") and book.password_focus.get(key)
    if (seen.get("password") or typed_blind) and isinstance(value, str):
        secret, value = value, PASSWORD
    target = None
    given = kwargs.get("selector")
    if given is not None or seen:
        target = {"given": given, **{k: seen.get(k) for k in (
            "frame", "role", "name", "tag", "type", "field", "label", "form", "locator", "locators")}}
    record = {
        "op": name, "page": at.get("label"), "target": target, "value": masked_value(value),
        "url_before": url_before, "url_after": _url_of(row, driver),
        **_caused(result),
        "outcome": "ok" if error is None else "error",
        "error": None if error is None else (getattr(error, "code", None) or type(error).__name__),
        "note": at.get("note"),  # the action's words for the person watching (note=...)
        "started": started, "ms": ms,
        "requests": _requests(host, space, driver, network_before),
        # the trace's pictures (host/features/trace_pictures.py): file names, taken once the action returned
        "picture_before": before,
        "picture_after": None if name in _LOOKS else _picture(host, space, label, driver, started),
    }
    if name == "page.snapshot" and isinstance(result, str):
        record["snapshot"] = masked_value(result)
    book.add_action(space, str(at.get("proc") or ""), record, secret)


def _wrap(name: str) -> None:
    spec = OPS.get(name)
    if spec is None:
        return
    inner = spec.fn

    async def journaled(host: Host, at: dict[str, Any], **kwargs: Any) -> Any:
        space = at.get("space")
        if not isinstance(space, int) or host.store is None or not on:
            return await inner(host, at, **kwargs)
        seen: dict[str, Any] = {}
        row, driver = _driver(host, at)  # read once: each read is a store query
        url_before = _url_of(row, driver)
        network_before = driver.network.last_action_id if driver is not None else None
        started = time.time()
        t0 = time.monotonic()
        reset = WITNESS.set(seen.update)
        result: Any = None
        error: BaseException | None = None
        try:
            result = await inner(host, at, **kwargs)
            return result
        except BaseException as exc:
            error = exc
            raise
        finally:
            WITNESS.reset(reset)
            try:
                _record(host, at, name, kwargs, seen, result, error, url_before, started, t0, network_before, row)
            except Exception:  # the journal never fails the action it records (a full disk ...)
                logger.warning("journal: %s was not recorded", name, exc_info=True)

    on = recording()
    journaled.__name__ = journaled.__qualname__ = getattr(inner, "__name__", name)
    spec.fn = journaled


def _wrap_report() -> None:
    spec = OPS.get("round.report")
    if spec is None:
        return
    inner = spec.fn

    async def report(host: Host, at: dict[str, Any], *, token: str | None, script: str | None,
                     status: str | None, error: str | None, started: float | None, **kwargs: Any) -> Any:
        try:
            if token and host.store is not None:
                for space in kwargs.get("spaces") or ():
                    if isinstance(space, int) and host.store.space(space) is not None:
                        journal_of(host).end_round(space, token, script=script, status=status or "ok", error=error,
                                                   started=started)
        except Exception:  # the report's other work goes on without the journal
            logger.warning("journal: the end of round %s was not recorded", token, exc_info=True)
        result = await inner(host, at, **kwargs)
        if token and host.store is not None and isinstance(result, dict):
            try:
                result["learned_tools"] = _learned_lines(host, kwargs.get("spaces") or (), token)
            except Exception:  # a listing is a courtesy: the report goes on without it
                logger.warning("journal: no learned-tools line for round %s", token, exc_info=True)
        return result

    spec.fn = report


def _learned_lines(host: Host, spaces: Any, token: str) -> list[str]:
    """The learned tools of each site the round's pages reached, named once per space and site
    (issue 28 §4): a round that only opened the site tells the agent its tools, so it needs no
    snapshot to find them. A site the round took a snapshot of is skipped (its header said it)."""
    from ...learning.learned import header_line

    book = journal_of(host)
    lines: list[str] = []
    for space in spaces:
        if not isinstance(space, int):
            continue
        seen: dict[str, str] = {}
        looked: set[str] = set()
        for op_name, url in book.round_pages(space, token):
            origin = origin_of(url)
            if not origin:
                continue
            seen.setdefault(origin, url or "")
            if op_name == "page.snapshot":
                looked.add(origin)
        for origin, url in seen.items():
            if (space, origin) in book.told:
                continue
            line = header_line(url)
            if line and origin not in looked:
                lines.append(line.replace("[learned tools: ", f"[learned tools on {origin}: ", 1))
            if line:
                book.told.add((space, origin))
    return lines


def _wrap_finish() -> None:
    spec = OPS.get("task.finish")
    if spec is None:
        return
    inner = spec.fn

    async def finish(host: Host, at: dict[str, Any], **kwargs: Any) -> Any:
        result = await inner(host, at, **kwargs)
        if isinstance(result, dict) and result.get("closed_space") and isinstance(at.get("space"), int):
            try:
                journal_of(host).forget(at["space"])
                if not journal_of(host).kept(at["space"]):
                    host.pictures.forget(at["space"])
            except Exception:  # the space is finished either way
                logger.warning("journal: space %s's journal was not dropped", at["space"], exc_info=True)
        return result

    spec.fn = finish


for _name in JOURNALED:
    _wrap(_name)
_wrap_report()
_wrap_finish()


@op("TaskSpace.journal")
async def journal(host: Host, at: dict[str, Any], *, rounds: list[int] | None) -> dict[str, Any]:
    space = host.space_row(at.get("space"))
    # the space's profile: task.save_tool verifies a tool in a fresh space of the same one
    return {**journal_of(host).read(space.id, rounds), "profile_id": space.profile_id, "isolated": space.isolated}


@op("task.journal_keep")
async def journal_keep(host: Host, at: dict[str, Any]) -> None:
    space = host.space_row(at.get("space"))
    journal_of(host).keep(space.id)
