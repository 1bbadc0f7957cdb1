"""The host's operation table and its one dispatcher.

A handler is registered under the operation it serves, by its declaration's name
(``@op("Page.click")``) or, for a wire-only operation, its wire name (``@op("page.gate")``);
``schema/wire.py`` holds the wire form of each. :meth:`OpSpec.bind` binds a request's
arguments against that form once — the envelope (space, page label, input token) taken off,
unknown names refused, the compiled checks run (the host distrusts rounds), the declared
defaults filled in — and the handler is called as ``await fn(host, at, **kwargs)`` with
``at`` the envelope dict and typed keyword arguments. Each request gets a deadline: the
call's own ``timeout`` (ms) plus a margin, or the host's backstop for calls without one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ...errors import InvalidArgument

__all__ = ["OP_MODULES", "OPS", "SYNC_OPS", "OpSpec", "op", "sync_op", "request_deadline", "resolve"]

#: extra seconds past a call's own timeout before the host gives up on it
MARGIN = 5.0

Handler = Callable[..., Awaitable[Any]]


@dataclass
class OpSpec:
    name: str  # the wire name: the member's api spelling ("page.click", "task.pages")
    fn: Handler
    default_deadline: float | None
    envelope: tuple[str, ...]
    member: Any  # schema.spec.Member: the wire form
    sync: Callable[..., Any] | None = None
    _binder: Callable[..., dict[str, Any]] | None = field(default=None, repr=False)

    def bind(self, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the envelope, the handler's keyword arguments) of one request's wire arguments."""
        if not isinstance(args, dict):
            raise InvalidArgument(f"{self.name}: the arguments must be an object", api=self.name, option=None,
                                  expected="an object")
        binder = self._binder
        if binder is None:
            from ...schema.validate import compile_binder

            binder = self._binder = compile_binder(self.member)
        at = {k: args[k] for k in self.envelope if k in args}
        rest = {k: v for k, v in args.items() if k not in self.envelope}
        try:
            return at, binder(**rest)
        except TypeError as exc:
            # a round that sends what no declaration names (or leaves out what one requires)
            raise InvalidArgument(f"{self.name}: {exc}".replace(f"{self.name}() ", ""), api=self.name, option=None,
                                  expected="the declared arguments") from None

    def deadline(self, kwargs: dict[str, Any]) -> float:
        return request_deadline(kwargs, self.default_deadline)


def request_deadline(kwargs: dict[str, Any], default: float | None = None) -> float:
    """Seconds the host allows one request: its ``timeout`` (ms) plus ``MARGIN``, else the op's
    own default, never past the backstop (``EGO_BROWSER_REQUEST_DEADLINE``). A round waits this
    long plus its own margin (``client/channel.py``), so it never gives up before the host."""
    from ... import config

    backstop = config.request_deadline()
    timeout = kwargs["timeout"] if "timeout" in kwargs else None
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 < timeout < 1e12:
        return timeout / 1000 + MARGIN
    return min(default, backstop) if default else backstop


#: wire name -> operation
OPS: dict[str, OpSpec] = {}
#: operations answered synchronously (arming a waiter must happen at call time, before the
#: action that triggers the event is sent); also reachable as ordinary requests
SYNC_OPS: dict[str, OpSpec] = {}

#: modules whose import registers operations (loaded by the host at start)
OP_MODULES = (
    "ego_browser.host.ops.spaces",
    "ego_browser.host.ops.space_control",
    "ego_browser.host.ops.handoff_ops",
    "ego_browser.host.ops.guard_ops",
    "ego_browser.host.ops.space_pages",
    "ego_browser.host.ops.page_ops",
    "ego_browser.host.ops.snapshot_ops",
    "ego_browser.host.ops.action_ops",
    "ego_browser.host.ops.state_ops",
    "ego_browser.host.ops.wait_ops",
    "ego_browser.host.ops.viewport_ops",
    "ego_browser.host.spaces.warm_tab",
    "ego_browser.host.ops.dialog_ops",
    "ego_browser.host.ops.file_ops",
    "ego_browser.host.ops.download_ops",
    "ego_browser.host.ops.fetch_ops",
    "ego_browser.host.ops.webmcp_ops",
    "ego_browser.host.ops.network_ops",
    "ego_browser.host.ops.route_ops",
    "ego_browser.host.ops.har_ops",
    "ego_browser.host.ops.emulation_ops",
    "ego_browser.host.ops.profile_ops",
    "ego_browser.host.ops.dashboard_ops",
    "ego_browser.host.ops.trace_ops",
    "ego_browser.host.ops.journal_ops",  # last: it wraps the action handlers the others registered
)


def _spec(name: str, fn: Handler, deadline: float | None) -> OpSpec:
    from ...schema import wire

    member = wire.declaration(name)
    return OpSpec(member.api, fn, deadline, wire.envelope(member), member)


def op(name: str, *, deadline: float | None = None) -> Callable[[Handler], Handler]:
    """Register ``async fn(host, at, **kwargs)`` as the handler of operation ``name``."""

    def register(fn: Handler) -> Handler:
        spec = _spec(name, fn, deadline)
        OPS[spec.name] = spec
        return fn

    return register


def sync_op(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a synchronous handler ``fn(host, at, **kwargs)``; it also answers as a request."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        async def as_request(host: Any, at: dict[str, Any], **kwargs: Any) -> Any:
            return fn(host, at, **kwargs)

        spec = _spec(name, as_request, None)
        spec.sync = fn
        OPS[spec.name] = SYNC_OPS[spec.name] = spec
        return fn

    return register


def resolve(name: str, table: dict[str, OpSpec] | None = None, args: dict[str, Any] | None = None) -> OpSpec | None:
    """The operation a request names (an earlier release's spelling too)."""
    from ...schema.wire import LEGACY_NAMES, LEGACY_SHAPES

    table = OPS if table is None else table
    shape = LEGACY_SHAPES.get(name)
    if shape is not None and args is not None and shape[0] not in args:
        return table.get(shape[1])  # an old spelling that is now another operation's name
    return table.get(name) or table.get(LEGACY_NAMES.get(name, ""))


def load_all() -> None:
    import importlib

    for module in OP_MODULES:
        importlib.import_module(module)
