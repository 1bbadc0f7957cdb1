"""Confirmation rules on requests (issue 32, point 2): a form post to a listed origin, any download,
a payment card number sent. The browser-wide interception (``driver/guard.py``) asks :func:`hold`
about each request of a space; a request a rule covers stays paused while the space is the
person's (reason ``needs_consent``, the question as its status, as for a click: ``consent.py``),
and continues on their yes or fails on anything else: nothing reaches the server, a download
is cancelled. However the request was started (a click, Enter in a field, ``form.submit()`` or
``fetch`` from ``page.evaluate``), the rule sees it, because it looks at the request itself.

What counts:

- a *form post*: a request of method POST, PUT, PATCH or DELETE (a form, ``fetch``, XHR,
  ``sendBeacon``) to a host a ``--post`` pattern names (the allowlists' patterns);
- a *download*: a document response sent as an attachment (``Content-Disposition: attachment``)
  or of a type the browser does not display (not text, HTML, XML, JSON, an image, audio, video
  or PDF);
- a *purchase* (``--purchases``): a click or press on a control whose name matches
  :data:`PURCHASE_NAMES` (``consent.py``), or a request whose body carries a payment card
  number (13 to 19 digits, spaces or dashes allowed, passing the Luhn check), as a form with a
  ``cc-number`` field sends.

The agent's action that started a held request fails with ``EGO_CONSENT_REQUIRED`` as soon as
the request is held; ``task.wait_for_control()`` returns the person's note. On a yes the held
request has gone on by itself (the agent does not repeat the action); on a no it was refused.
A hold the person leaves unanswered for :data:`HOLD_MAX` seconds is a no.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import re
import time
from typing import Any
from urllib.parse import unquote_plus, urlsplit

from ...driver.guard import rule_for
from ...errors import ConsentRequired
from ...states import Ownership
from .handoffs import Ask, where

__all__ = ["hold", "holding", "answered", "race", "PURCHASE_NAMES", "HOLD_MAX", "card_number_in", "is_download"]

#: the control names the purchases rule asks about (case-insensitive, whole words)
PURCHASE_NAMES = r"\b(buy|pay|order|checkout|check out|purchase|place order)\b"
#: seconds a held request waits for the person before it counts as a no
HOLD_MAX = 30 * 60.0
_SENDS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_SHOWN = ("text/", "image/", "audio/", "video/", "application/xhtml", "application/xml", "application/json",
          "application/pdf", "application/javascript", "multipart/x-mixed-replace")
_DIGITS = re.compile(r"(?<![\d])(\d[\d -]{11,22}\d)(?![\d])")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_number_in(body: str | None) -> bool:
    """Whether a request body carries a payment card number (form-encoded or not)."""
    if not body:
        return False
    for found in _DIGITS.finditer(unquote_plus(body)):
        digits = re.sub(r"[ -]", "", found.group(1))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return True
    return False


def _body(request: dict[str, Any]) -> str | None:
    if request.get("postData"):
        return str(request["postData"])
    parts = []
    for entry in request.get("postDataEntries") or []:  # the newer form: base64 pieces
        with contextlib.suppress(ValueError):
            parts.append(base64.b64decode(entry.get("bytes") or "").decode("utf-8", "replace"))
    return "".join(parts) or None


def is_download(params: dict[str, Any]) -> bool:
    """A document's response the browser saves rather than shows."""
    if params.get("resourceType") != "Document":
        return False
    headers = {h.get("name", "").lower(): str(h.get("value", "")) for h in params.get("responseHeaders") or []}
    if headers.get("content-disposition", "").strip().lower().startswith("attachment"):
        return True
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    return bool(kind) and not kind.startswith(_SHOWN)


def rules_of(host: Any, space_id: int) -> dict[str, Any]:
    space = host.store.space(space_id) if host.store is not None else None
    return host.guard.confirm_set(space) if space is not None and not space.closed else {}


def holding(host: Any) -> bool:
    """Whether some rule (a space's, or a profile's default for spaces to come) needs requests paused."""
    return any(r.get("post") or r.get("downloads") or r.get("purchases") for r in host.guard.confirm.values())


def _what(rules: dict[str, Any], params: dict[str, Any]) -> str | None:
    request = params.get("request") or {}
    url = str(request.get("url", ""))
    if "responseStatusCode" in params:
        return f"download {url}" if rules.get("downloads") and is_download(params) else None
    if str(request.get("method", "GET")).upper() not in _SENDS:
        return None
    if rules.get("purchases") and card_number_in(_body(request)):
        return f"send a payment card number to {url}"
    posts = rules.get("post") or []
    if posts and rule_for(url, posts) not in (None, "scheme"):
        parts = urlsplit(url)
        return f"send a form ({request.get('method')}) to {parts.scheme}://{parts.netloc}"
    return None


def hold(host: Any, space_id: int | None, params: dict[str, Any]) -> Any:
    """The person's answer for a request a rule of its space covers (an awaitable), else None."""
    if space_id is None:
        return None
    what = _what(rules_of(host, space_id), params)
    if what is None:
        return None
    return _ask(host, space_id, what)


async def _ask(host: Any, space_id: int, what: str) -> bool:
    book = host.guard
    current = book.held.get(space_id)
    if current is None or current[0].done():  # a second request meanwhile waits for the same answer
        url, title = await where(host, space_id)
        question = f"Allow the agent to {what} (from {url})? Give back with the note yes, or no."
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        book.held[space_id] = current = (fut, what, time.monotonic())
        host.handoffs.asks[space_id] = Ask(question, url, title)
        host.store.update_space(space_id, ownership=Ownership.DELEGATED, reason="needs_consent", status=question)
        book.hold_event(space_id).set()
    try:
        return await asyncio.wait_for(asyncio.shield(current[0]), HOLD_MAX)
    except TimeoutError:
        return False


def answered(host: Any, space_id: int, yes: bool) -> None:
    current = host.guard.held.pop(space_id, None)
    if current is not None and not current[0].done():
        current[0].set_result(yes)
    host.guard.hold_event(space_id).clear()


def _refusal(host: Any, space_id: int, since: float) -> ConsentRequired | None:
    current = host.guard.held.get(space_id)
    if current is None or current[0].done() or current[2] < since:
        return None
    what = current[1]
    return ConsentRequired(
        f"the action would {what}, which needs the person's consent; the request is held and the space is "
        "theirs until they answer: await task.wait_for_control() returns their note; on yes the request has "
        "gone through (do not repeat the action), on anything else it was cancelled",
        action=what, rule=what.split(" ", 1)[0] if what.startswith("download") else what.rsplit(" to ", 1)[0])


async def race(host: Any, space_id: int, action: Any) -> Any:
    """Run the action until it ends or a request it started is held for the person: then stop
    waiting for it (its navigation would wait for the answer) and raise ``EGO_CONSENT_REQUIRED``."""
    since = time.monotonic()
    event = host.guard.hold_event(space_id)
    task = asyncio.ensure_future(action)
    watch = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        # the request itself was stopped (the person took the space over, its deadline passed):
        # the action must stop with it, never finish on its own afterwards
        task.cancel()
        raise
    finally:
        watch.cancel()
    if not task.done():
        refusal = _refusal(host, space_id, since)
        if refusal is not None:
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - the action was stopped on purpose
                pass
            raise refusal
        return await task
    result = task.result()
    refusal = _refusal(host, space_id, since)
    if refusal is not None:
        raise refusal
    return result
