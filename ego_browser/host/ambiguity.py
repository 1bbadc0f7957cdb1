"""The one ambiguity error of the strict paths that resolve a selector themselves.

``wait_for_selector``, ``snapshot(root=)`` and ``set_input_files`` count matches with a cheap
``limit=2`` resolve; when there are two or more, :func:`ambiguous_selector` lists up to 5 of
them exactly as actions do (``driver.actions.ambiguity`` with ``candidates.describer``).
"""

from __future__ import annotations

from typing import Any, Literal

from ..driver.actions import SHOWN_CANDIDATES, ambiguity
from ..errors import CdpChannelUnavailable, CdpError
from ..selectors import engine
from .candidates import describer
from .targeting import EngineFrames

__all__ = ["ambiguous_selector"]


#: object group of the handles an ambiguity error resolves to describe its candidates
_GROUP = "ego-ambiguous"


async def ambiguous_selector(host: Any, ctx: Any, api: str, parsed: Any, total: int, *,
                             mode: Literal["top_first", "all"] = "top_first", hint: str | None = None) -> Any:
    """The ``SelectorAmbiguous`` of a strict path that found ``total`` > 1 matches with a cheap
    ``limit=2`` resolve (``wait_for_selector``, ``snapshot(root=)``, ``set_input_files``): the
    selector is resolved again for up to 5 matches, which are described as actions describe
    theirs (``driver.actions.ambiguity``). A page that changed in between keeps the first count."""
    matches: list[Any] = []
    try:
        res = await engine.resolve(EngineFrames(ctx.driver), parsed, mode=mode, limit=SHOWN_CANDIDATES,
                                   describe=False, backend_ids=False, object_group=_GROUP, timeout=5.0)
        matches = res.matches
        if res.total > 1:
            total = res.total
    except (CdpError, CdpChannelUnavailable):
        pass
    try:
        describers = [describer(host, ctx, m.frame, m.object_id) for m in matches]
        kw = {"hint": hint} if hint else {}
        return await ambiguity(api, parsed.source, total, describers, **kw)
    finally:
        await engine._release_matches(matches)
