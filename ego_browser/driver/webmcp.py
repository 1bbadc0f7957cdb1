"""WebMCP (issue 28 §2): the tools a page registers for agents through ``navigator.modelContext``.

Chromium here has no ``navigator.modelContext``, so :func:`install` puts a small shim into the
page's main world before any page script (``js/main/webmcp_shim.js``): in a secure top-level
document without a native one, it keeps what the page registers (``provideContext``,
``registerTool``, ``unregisterTool``, ``clearContext``) in a closure and nothing else. The page
sees the API it feature-detects and nothing of ours: the registry is reached through the
debugger only (the ``[[Scopes]]`` of the shim's ``registerTool``, as DevTools shows a closure),
so no global, binding or symbol gives it away to the page or to another script of it.

:func:`tools` lists what the page registered; :func:`call` runs one tool's ``execute`` with
arguments checked against its ``inputSchema``, under a deadline.
"""

from __future__ import annotations

import logging
import os
import weakref
from typing import Any

from .. import jsbundle
from ..errors import (CdpChannelUnavailable, CdpError, EgoTimeout, WebMcpBadArguments, WebMcpToolFailed,
                      WebMcpToolNotFound)
from .page import PageDriver
from ..cdp.together import together

__all__ = ["call", "enabled", "install", "signature", "tools"]

logger = logging.getLogger("ego_browser.driver")

#: the object group our handles live in (released when the registry is looked up again)
_GROUP = "ego-webmcp"
#: the registry's handle per page, while its document lives (a new document: looked up again)
_handles: weakref.WeakKeyDictionary[PageDriver, str] = weakref.WeakKeyDictionary()


def enabled() -> bool:
    """``EGO_BROWSER_WEBMCP=0`` leaves pages without the shim (a site that must see a browser
    with no ``navigator.modelContext`` at all)."""
    return os.environ.get("EGO_BROWSER_WEBMCP", "1").strip() not in ("0", "false", "no", "off")


async def install(driver: PageDriver) -> None:
    """The shim in every new document of ``driver``'s page, and in the current one."""
    if not enabled():
        return
    source = jsbundle.program("main", "webmcp_shim")
    session = driver.session
    try:
        # one round trip: the page answers a session's commands in order
        await together(
            session.send("Page.addScriptToEvaluateOnNewDocument", {"source": source, "runImmediately": True},
                         timeout=5.0),
            session.send("Runtime.evaluate", {"expression": source, "silent": True}, timeout=5.0),
        )
    except (CdpError, CdpChannelUnavailable, TimeoutError) as exc:
        logger.debug("webmcp shim not installed on %s: %s", driver.target_id, exc)


async def _props(driver: PageDriver, object_id: str) -> dict[str, Any]:
    return await driver.session.send(
        "Runtime.getProperties", {"objectId": object_id, "ownProperties": True}, timeout=5.0)


async def _lookup(driver: PageDriver) -> str | None:
    """The handle of the shim's registry in the page's current document, or None (no shim:
    an insecure page, a native API, or the page replaced ``navigator.modelContext``)."""
    session = driver.session
    await session.send("Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, timeout=5.0)
    res = await session.send("Runtime.evaluate", {
        "expression": "(() => { const m = navigator.modelContext; return m && m.registerTool; })()",
        "objectGroup": _GROUP, "silent": True}, timeout=5.0)
    fn = (res.get("result") or {}).get("objectId")
    if not fn or (res.get("result") or {}).get("type") != "function":
        return None
    internal = (await _props(driver, fn)).get("internalProperties") or []
    scopes = next((p["value"].get("objectId") for p in internal if p.get("name") == "[[Scopes]]"), None)
    if not scopes:
        return None
    for scope in (await _props(driver, scopes)).get("result") or []:
        scope_id = (scope.get("value") or {}).get("objectId")
        if not scope_id or (scope.get("value") or {}).get("description") == "Global":
            continue  # the shim's closure comes first; the window's own properties are not read
        for var in (await _props(driver, scope_id)).get("result") or []:
            value = var.get("value") or {}
            if var.get("name") == "registry" and value.get("subtype") == "map" and value.get("objectId"):
                return str(value["objectId"])
    return None


async def _on_registry(driver: PageDriver, api: str, function: str, args: list[Any],
                       timeout: float) -> Any | None:
    """``function`` of js/main called on the registry with ``args`` (None: the page has none)."""
    if not enabled():
        return None
    session = driver.session
    params: dict[str, Any] = {
        "functionDeclaration": jsbundle.function("main", function),
        "arguments": [{"value": a} for a in args], "returnByValue": True, "awaitPromise": True,
    }
    for attempt in (0, 1):
        handle = _handles.get(driver)
        if handle is None or attempt:
            handle = await _lookup(driver)
            if handle is None:
                _handles.pop(driver, None)
                return None
            _handles[driver] = handle
        try:
            res = await driver.dialogs.guard(api, session.send(
                "Runtime.callFunctionOn", {**params, "objectId": handle}, timeout=timeout))
        except CdpError:
            if attempt:
                raise
            continue  # the document the handle belonged to is gone: look it up in the new one
        details = res.get("exceptionDetails")
        if details is not None:
            text = ((details.get("exception") or {}).get("description") or details.get("text") or "").split("\n")[0]
            raise WebMcpToolFailed(f"{api}: the page's WebMCP tools could not be read ({text})", tool=None,
                                   available=None)
        return (res.get("result") or {}).get("value")
    return None


async def tools(driver: PageDriver) -> list[dict[str, Any]]:
    """``[{name, description, input_schema, annotations}]`` the page registered (``[]``: none)."""
    listed = await _on_registry(driver, "page.webmcp_tools", "webmcp_list", [], 5.0)
    return list(listed or [])


async def call(driver: PageDriver, name: str, args: dict[str, Any], timeout_ms: float) -> dict[str, Any]:
    """Run the page's WebMCP tool ``name`` with ``args``: ``{tool, result, text, data}``."""
    api = "page.call_webmcp_tool"
    out = await _on_registry(driver, api, "webmcp_call", [name, args, timeout_ms], timeout_ms / 1000 + 5.0)
    if out is None or (out.get("error") == "unknown" and not out.get("available")):
        raise WebMcpToolNotFound(
            f"{api}: the page registers no WebMCP tools (navigator.modelContext), so there is no {name!r}; "
            "await page.webmcp_tools() lists what a page offers", tool=name, available=[])
    error = out.get("error")
    if error == "unknown":
        available = list(out.get("available") or [])
        raise WebMcpToolNotFound(
            f"{api}: the page has no WebMCP tool {name!r}; it offers: {', '.join(available) or 'none'} "
            "(await page.webmcp_tools() gives their input schemas)", tool=name, available=available)
    if error == "bad_args":
        problems = "; ".join(out.get("problems") or [])
        raise WebMcpBadArguments(
            f"{api}: arguments for WebMCP tool {name!r} do not fit its input schema: {problems}. "
            f"Its schema: {out.get('input_schema')}", tool=name, available=None)
    if error == "timeout":
        raise EgoTimeout(f"{api}: WebMCP tool {name!r} did not answer within {round(timeout_ms)}ms",
                         api=api, timeout_ms=round(timeout_ms))
    if error in ("threw", "is_error"):
        what = "threw" if error == "threw" else "reported an error"
        raise WebMcpToolFailed(f"{api}: WebMCP tool {name!r} {what}: {out.get('message')}", tool=name,
                               available=None)
    return _result(name, out.get("result"))


def _result(name: str, value: Any) -> dict[str, Any]:
    """The tool's answer, with the text parts of an MCP result joined and parsed when JSON."""
    import orjson

    text: str | None = None
    data: Any = None
    content = value.get("content") if isinstance(value, dict) else None
    if isinstance(content, list):
        parts = [str(c["text"]) for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]
        text = "\n".join(parts) if parts else None
    elif isinstance(value, str):
        text = value
    if text is not None:
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            data = None
    elif value is not None and not isinstance(content, list):
        data = value
    return {"tool": name, "result": value, "text": text, "data": data}


def signature(tool: dict[str, Any]) -> str:
    """``add_todo(text, due?)``: the name and the input schema's properties (``?``: optional)."""
    schema = tool.get("input_schema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    props = props if isinstance(props, dict) else {}
    required = schema.get("required") if isinstance(schema, dict) else None
    required = required if isinstance(required, list) else []
    return f"{tool.get('name')}(" + ", ".join(p if p in required else p + "?" for p in props) + ")"
