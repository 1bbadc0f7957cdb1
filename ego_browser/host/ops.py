"""The host's operation table: one entry per request a round can make.

Feature modules register their handlers with ``@op("page.goto")``; a handler is
``async fn(host, args) -> JSON-able result``. Each request gets a deadline: the call's own
``timeout`` (ms) plus a margin, or the host's backstop for calls without one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["HOST_SETUP", "OP_MODULES", "OPS", "SYNC_OPS", "OpSpec", "op", "sync_op", "request_deadline"]

#: extra seconds past a call's own timeout before the host gives up on it
MARGIN = 5.0


@dataclass(frozen=True)
class OpSpec:
    name: str
    fn: Callable[[Any, dict[str, Any]], Awaitable[Any]]
    default_deadline: float | None

    def deadline(self, args: dict[str, Any]) -> float:
        return request_deadline(args, self.default_deadline)


def request_deadline(args: dict[str, Any], default: float | None = None) -> float:
    """Seconds the host allows one request: its ``timeout`` (ms) plus ``MARGIN``, else the op's
    own default, never past the backstop (``EGO_BROWSER_REQUEST_DEADLINE``). A round waits this
    long plus its own margin (``client/channel.py``), so it never gives up before the host."""
    from .. import config

    backstop = config.request_deadline()
    timeout = args.get("timeout")
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 < timeout < 1e12:
        return timeout / 1000 + MARGIN
    return min(default, backstop) if default else backstop


OPS: dict[str, OpSpec] = {}
#: operations answered synchronously (arming a waiter must happen at call time, before the
#: action that triggers the event is sent); also reachable as ordinary requests
SYNC_OPS: dict[str, Callable[[Any, dict[str, Any]], Any]] = {}
#: ``fn(host)`` called by ``Host.start`` (feature modules register per-host hooks there)
HOST_SETUP: list[Callable[[Any], None]] = []

#: modules whose import registers operations (loaded by the host at start)
OP_MODULES = (
    "ego_browser.host.spaces",
    "ego_browser.host.page_ops",
    "ego_browser.host.snapshot_ops",
    "ego_browser.host.action_ops",
    "ego_browser.host.state_ops",
    "ego_browser.host.wait_ops",
    "ego_browser.host.viewport_ops",
    "ego_browser.host.warm_tab",
    "ego_browser.host.dialog_ops",
    "ego_browser.host.file_ops",
    "ego_browser.host.download_ops",
    "ego_browser.host.fetch_ops",
    "ego_browser.host.profile_ops",
    "ego_browser.host.dashboard_ops",
)


def op(name: str, *, deadline: float | None = None):
    def register(fn):
        OPS[name] = OpSpec(name, fn, deadline)
        return fn

    return register


def sync_op(name: str):
    """Register a synchronous handler ``fn(host, args)``; it also answers as a request."""

    def register(fn):
        SYNC_OPS[name] = fn

        async def as_request(host: Any, args: dict[str, Any]) -> Any:
            return fn(host, args)

        OPS[name] = OpSpec(name, as_request, None)
        return fn

    return register


def load_all() -> None:
    import importlib

    for module in OP_MODULES:
        importlib.import_module(module)
