"""``page.evaluate``: one ``Runtime.evaluate`` with safety limits.

A busy loop is stopped by V8 (``timeout`` on ``Runtime.evaluate``) after the execution limit;
a promise that never settles is abandoned at the transport limit. Either way the caller gets
``PageEvaluationTimeout`` saying what happened, and the page stays usable.
"""

from __future__ import annotations

import re
import time
from typing import Any

import orjson

from ..cdp.errors import CdpInternalError, ContextDestroyed, NavigatedAway, ScriptTerminated, TargetClosed
from ..errors import CdpError, EgoError, EgoTimeout, InvalidArgument, PageEvaluationTimeout, PageScriptError
from .page import PageDriver

__all__ = ["evaluate", "is_function_source", "build_expression", "EXECUTION_LIMIT_MS", "TRANSPORT_LIMIT_MS"]

EXECUTION_LIMIT_MS = 14000
TRANSPORT_LIMIT_MS = 15000

_FUNCTION_RE = re.compile(
    r"""^\s*(?:async\s+)?(?:
        function\b                                   # function (...) {...}
      | \([^()]*(?:\([^()]*\)[^()]*)*\)\s*=>         # (a, b) => ...
      | [A-Za-z_$][\w$]*\s*=>                        # a => ...
    )""",
    re.VERBOSE,
)


def is_function_source(js: str) -> bool:
    return bool(_FUNCTION_RE.match(js))


def build_expression(js: str, arg: Any, *, api: str = "page.evaluate", has_arg: bool) -> str:
    if is_function_source(js):
        try:
            arg_json = orjson.dumps(arg).decode() if has_arg else "undefined"
        except TypeError as exc:
            raise InvalidArgument(
                f"{api}: arg must be JSON-serialisable ({exc})", api=api, option="arg", expected="JSON value"
            ) from exc
        return f"({js})({arg_json})"
    if has_arg:
        raise InvalidArgument(
            f"{api}: arg can only be passed to a function (got an expression); write "
            f"\"(x) => ...\" to receive it",
            api=api, option="arg", expected="a function source when arg is given",
        )
    return js


def script_error(details: dict[str, Any], *, api: str = "page.evaluate") -> PageScriptError:
    exc = details.get("exception") or {}
    description = exc.get("description") or details.get("text") or "script error"
    first = description.split("\n", 1)[0]
    message = f"{api}: {first}"
    if first.startswith("ReferenceError"):
        message += (
            "; page scripts cannot see Python variables: pass values through the arg parameter, "
            "e.g. page.evaluate(\"(x) => x * 2\", value)"
        )
    return PageScriptError(message, js_name=exc.get("className"), stack=description)


async def _page_responsive(driver: PageDriver) -> bool:
    try:
        await driver.session.send("Runtime.evaluate", {"expression": "1", "returnByValue": True}, timeout=1.0)
        return True
    except EgoError:
        return False


async def evaluate(
    driver: PageDriver,
    js: str,
    arg: Any = None,
    *,
    has_arg: bool = False,
    context_id: int | None = None,
    api: str = "page.evaluate",
    execution_limit_ms: float = EXECUTION_LIMIT_MS,
    transport_limit_ms: float = TRANSPORT_LIMIT_MS,
) -> Any:
    expression = build_expression(js, arg, api=api, has_arg=has_arg)
    params: dict[str, Any] = {
        "expression": expression,
        "returnByValue": True,
        "awaitPromise": True,
        # scripts run as if the user had just interacted: window.open() and friends work, as
        # they do for Playwright's evaluate (the popup blocker would refuse them otherwise)
        "userGesture": True,
        "timeout": execution_limit_ms,
    }
    if context_id is not None:
        params["contextId"] = context_id
    started = time.monotonic()
    try:
        res = await driver.session.send("Runtime.evaluate", params, timeout=transport_limit_ms / 1000)
    except EgoTimeout:
        if driver.dialog is None and not await _page_responsive(driver):
            # still blocked (a busy loop V8's own limit did not cover, e.g. in a callback the
            # script scheduled): interrupt it so the page is usable again
            try:
                await driver.session.send("Runtime.terminateExecution", timeout=2.0)
            except EgoError:  # the check below tells whether it worked
                pass
            raise PageEvaluationTimeout(
                f"{api} timed out after {round(transport_limit_ms)}ms: the page was still busy running script "
                "and was interrupted; effects it had before stopping remain",
                api=api, timeout_ms=round(transport_limit_ms), execution_stopped=True,
                may_have_late_effects=True, page_responsive=await _page_responsive(driver),
            ) from None
        # the promise never settled (a busy loop would have been stopped by V8 before this)
        raise PageEvaluationTimeout(
            f"{api} timed out after {round(transport_limit_ms)}ms: the result never arrived (a promise that "
            "does not settle?); it was abandoned, not stopped, so late effects are possible",
            api=api, timeout_ms=round(transport_limit_ms), execution_stopped=False,
            may_have_late_effects=True, page_responsive=True,
        ) from None
    except CdpError as exc:
        if isinstance(exc, (CdpInternalError, ScriptTerminated)) and (
            time.monotonic() - started
        ) * 1000 >= execution_limit_ms * 0.95:
            # V8 stopped the script at the execution limit (Chromium answers "Internal error")
            raise PageEvaluationTimeout(
                f"{api} timed out after {round(execution_limit_ms)}ms: the script was still running and "
                "was stopped; effects it had before stopping remain",
                api=api, timeout_ms=round(execution_limit_ms), execution_stopped=True,
                may_have_late_effects=True, page_responsive=await _page_responsive(driver),
            ) from exc
        if isinstance(exc, (TargetClosed, NavigatedAway)):
            raise  # the page went away, not the script's doing
        if isinstance(exc, ContextDestroyed):
            raise PageScriptError(
                f"{api}: the page navigated while the script ran; run it again", js_name=None, stack=None
            ) from exc
        # we built the command, so what the browser refuses is the script or its result (a value
        # that cannot be copied out: window, a DOM node, a cyclic or very deep object)
        raise PageScriptError(
            f"{api}: the script's result cannot be returned ({exc.cdp_message or exc}); return plain data "
            "(strings, numbers, arrays, objects), e.g. pick the fields you need",
            js_name=None, stack=None,
        ) from exc
    details = res.get("exceptionDetails")
    if details is not None:
        thrown = details.get("exception") or {}
        description = thrown.get("description") or details.get("text") or ""
        elapsed_ms = (time.monotonic() - started) * 1000
        if (
            "Execution was terminated" in description
            and thrown.get("className") is None
            and elapsed_ms >= execution_limit_ms * 0.95
        ):
            raise PageEvaluationTimeout(
                f"{api} timed out after {round(execution_limit_ms)}ms: the script was still running and "
                "was stopped; effects it had before stopping remain",
                api=api, timeout_ms=round(execution_limit_ms), execution_stopped=True,
                may_have_late_effects=True, page_responsive=await _page_responsive(driver),
            )
        raise script_error(details, api=api)
    result = res.get("result") or {}
    if result.get("type") == "undefined":
        return None
    if "value" in result:
        return result["value"]
    if result.get("unserializableValue") is not None:
        raw = result["unserializableValue"]
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"), "-0": -0.0}.get(
            raw, raw[:-1] if raw.endswith("n") else raw
        )
    return None
