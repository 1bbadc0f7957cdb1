"""Every ego_browser trace of the task benchmark (benchmarks/tasks/) still does its task.

Each trace runs once, in real rounds against a background host, on a fresh copy of its app;
the app judges success from its own server state (the record saved, the comments deleted, the
count right). No timing here: the timings are the benchmark's (``make bench-tasks``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks" / "tasks"))

import agents  # noqa: E402
import registry  # noqa: E402
import trace_ego  # noqa: E402
from run import task_data  # noqa: E402


@pytest.fixture(scope="module")
def ego_agent_home():
    home = tempfile.mkdtemp(prefix="ego-test-tasks-")
    agent = agents.EgoAgent(home)
    try:
        yield home
    finally:
        agent.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.parametrize("key", list(registry.TASKS))
def test_ego_trace_does_the_task(key, ego_agent_home, tmp_path):
    task = registry.TASKS[key]
    app = task.app()
    agent = agents.EgoAgent(ego_agent_home)
    with app.serve() as srv:
        answer = trace_ego.TRACES[key](agent, srv.url(task.start), f"trace-{key}", task_data(task, str(tmp_path)))
    ok, why = app.check(answer)
    assert ok, f"{why}\n--- transcript ---\n" + "\n---\n".join(agent.cost.transcript)[-6000:]
    assert agent.cost.turns == len(agent.cost.transcript) >= 3
