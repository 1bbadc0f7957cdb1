"""``task.journal``'s two users on ``TaskSpace``: ``learn`` (distil a draft tool from the
space's journal) and ``save_tool`` (verify it in a fresh space, then save it in the site's
learned pack). Both run in the round: the draft is the agent's to read and edit, and the
verifying run drives a fresh space as any round would (docs/learning.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..errors import InvalidArgument, LearnedToolInvalid
from ..schema import validated

__all__ = ["LearningMixin"]

def _drafts() -> Path:
    from ..learning.learned import learned_root

    return learned_root() / ".drafts"


class LearningMixin:
    @property
    def space_id(self) -> int:  # pragma: no cover - TaskSpaceBase's
        raise NotImplementedError

    async def _call(self, op: str, **args: Any) -> Any:  # pragma: no cover - TaskSpaceBase's
        raise NotImplementedError

    def page(self, label: str) -> Any:  # pragma: no cover - TaskSpaceBase's
        raise NotImplementedError

    @validated("TaskSpace.learn")
    async def learn(self, name: str, *, rounds: list[int] | None = None,
                    params: dict[str, str] | None = None, levers: bool = True) -> dict[str, Any]:
        from ..learning.distill import distill
        from ..learning.learned_run import check_name

        journal = await self._call("task.journal", rounds=None)
        last_page = None
        label = next((a.get("page") for r in reversed(journal["rounds"]) for a in reversed(r["actions"])), None)
        if label:
            from .. import jsbundle

            page = self.page(label)
            for _ in range(2):  # a page still settling after the last action's navigation: once more
                try:
                    await page.wait_for_load_state(timeout=5000)
                    last_page = await page.evaluate(jsbundle.function("main", "learned_page_read"))
                    break
                except Exception:  # noqa: BLE001 - without it the post-condition is the URL alone
                    last_page = None
        draft = distill(journal, name, rounds=rounds, params=params, last_page=last_page, levers=levers)
        check_name(name, draft.origin)
        out = {**draft.as_dict(), "space_id": self.space_id, "profile_id": journal.get("profile_id"),
               "isolated": bool(journal.get("isolated"))}
        folder = _drafts()
        folder.mkdir(parents=True, exist_ok=True)
        from ..learning.learned import write_atomic

        write_atomic(folder / f"{self.space_id}-{name}.json", orjson.dumps(out))
        out["draft_file"] = str(folder / f"{self.space_id}-{name}.json")
        return out

    @validated("TaskSpace.save_tool")
    async def save_tool(self, name: str, *, source: str | None = None, args: dict[str, Any] | None = None,
                        skip_verify: str | None = None) -> dict[str, Any]:
        from ..learning import learned_run

        path = _drafts() / f"{self.space_id}-{name}.json"
        try:
            draft = orjson.loads(path.read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError) as exc:
            raise InvalidArgument(f"task.save_tool: no draft {name!r} for this space; make one with "
                                  f"task.learn({name!r}) first", api="task.save_tool", option="name",
                                  expected="a name given to task.learn") from exc
        text = draft["source"] if source is None else source
        learned_run.check_name(name, draft["origin"])
        run = learned_run.run_source(text, f"<draft {name}>")  # invalid Python fails here: nothing is written
        # the listing and the verifying call follow the source saved, not the draft it was edited from
        declared = learned_run.source_params(run)
        if skip_verify is not None and not skip_verify.strip():
            raise LearnedToolInvalid("task.save_tool: skip_verify needs the reason the verifying run is skipped "
                                     "(it is kept with the tool)", tool=name, reason="no_skip_reason")
        call_args = {k: v for k, v in (draft.get("params") or {}).items() if v is not None and k in declared}
        call_args.update(args or {})
        draft = {**draft, "params": declared}
        result = None
        if skip_verify is None:
            isolated = bool(draft.get("isolated"))

            async def open_space(space_name: str) -> Any:
                # a fresh space of the same profile (an isolated one for an isolated space)
                info = await getattr(self, "_channel").call("task_space", {
                    "name_or_id": space_name, "profile_id": None if isolated else draft.get("profile_id"),
                    "isolated": isolated})
                return type(self)(getattr(self, "_round"), info)  # type: ignore[call-arg]  # TaskSpace(round, info)

            result = await learned_run.verify(name, text, call_args, open_space=open_space)
        saved = learned_run.save_tool(draft, text, verified=skip_verify is None, skip_reason=skip_verify,
                                      space_id=self.space_id, result=result)
        await self._call("task.journal_keep")
        path.unlink(missing_ok=True)
        return saved
