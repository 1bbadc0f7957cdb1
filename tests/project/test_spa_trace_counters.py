"""The SPA traces' counters (benchmarks/tasks/README.md): a round that fails on a stale ref is
counted and redone from a new look; a look that lacks what the next step needs is a re-look."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks" / "tasks"))

import agents  # noqa: E402
import trace_ego_spa  # noqa: E402

HEAD = '[p1 "Scratchpad" | space "s"(1): 1 managed]'


class FakeAgent:
    """Answers each round from a script of outputs (an exception is raised as the round's failure)."""

    def __init__(self, answers):
        self.answers, self.cost, self.scripts = list(answers), agents.Cost(), []

    def round(self, script, timeout=120):
        self.scripts.append(script)
        answer = self.answers.pop(0)
        self.cost.add(0.1, str(answer))
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_stale_ref_round_is_counted_and_the_step_redone_from_a_new_look():
    looked = f'{HEAD}\nroot\n button "Run" [ref=31]\n'
    agent = FakeAgent([agents.TraceFailed("round exited 1:\nStaleRef: EGO_STALE_REF @22 is now ..."), looked,
                       f'{HEAD}\nroot\n region "Output"\n  text "42"\n'])
    a = trace_ego_spa.Agent(agent, "s")
    out = a.step(f'{HEAD}\nroot\n button "Run" [ref=22]\n',
                 lambda o: f"await page.click({trace_ego_spa.ref(o, 'button', 'Run')!r})\n" + trace_ego_spa.FULL,
                 trace_ego_spa.OUTPUT)
    assert trace_ego_spa.output_of(out) == "42"
    assert (agent.cost.stale_failures, agent.cost.failed_rounds, agent.cost.relooks) == (1, ["EGO_STALE_REF"], 0)
    assert "@22" in agent.scripts[0] and "@31" in agent.scripts[2]  # redone with the ref of the new look
    assert agent.cost.turns == 3


def test_a_look_without_what_the_step_needs_is_a_relook_and_a_changing_header_is_counted():
    early = f'{HEAD} (changing: 1 request(s) in flight; page.wait_for_settled())\nroot\n'
    agent = FakeAgent([early, early, f'{HEAD}\nroot\n option "draft.py" [ref=11]\n'])
    a = trace_ego_spa.Agent(agent, "s")
    out = a.step("", lambda _: "await page.goto('http://x/lab')\n" + trace_ego_spa.LOOK, ("option", "draft.py"))
    assert trace_ego_spa.ref(out, "option", "draft.py") == "@11"
    assert (agent.cost.relooks, agent.cost.changing_looks, agent.cost.stale_failures) == (2, 2, 0)
    assert all("\nawait page.wait_for_settled()\nprint(await page.snapshot(interactive=True))" in s for s in agent.scripts[1:])


def test_another_failure_fails_the_step():
    agent = FakeAgent([agents.TraceFailed("round exited 1:\nEgoTimeout: EGO_TIMEOUT waited 10000 ms")])
    with pytest.raises(agents.TraceFailed):
        trace_ego_spa.Agent(agent, "s").step("", lambda _: "pass\n", ("button", "Run"))
    assert (agent.cost.stale_failures, agent.cost.failed_rounds) == (0, ["EGO_TIMEOUT"])
