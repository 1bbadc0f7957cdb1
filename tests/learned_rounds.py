"""What the learned-tools integration modules share: rounds run in the ``rounds`` fixture's host,
the JSON a round printed last, and learned packs that go with the module that made them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

__all__ = ["last_json", "packs_stay_in_this_module", "run"]


@pytest.fixture(scope="module", autouse=True)
def packs_stay_in_this_module(rounds: Any) -> Any:
    """The tools learned in a module are on the session's test server, whose origin every other
    module's rounds visit too: a round there would name them (its last line), so they go with it."""
    yield
    shutil.rmtree(Path(rounds.home) / "learned", ignore_errors=True)


def run(rounds: Any, script: str, ok: bool = True) -> Any:
    proc = rounds.run(script, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def last_json(proc: Any) -> Any:
    return json.loads(proc.stdout.strip().splitlines()[-1])
