"""Causes are kept for the developer and left out of what the agent reads (issue 35, point 5).

An argument with no JSON form fails in the round before anything is sent: the
``InvalidArgument`` carries the encoder's error as ``__cause__``, and the round still prints
only ``<code>: <message>`` and the script's line, as before.
"""

from __future__ import annotations

import json

import pytest

import ego_browser


async def test_an_error_keeps_its_cause_in_process(task) -> None:
    page = task.page("p1")
    with pytest.raises(ego_browser.InvalidArgument) as info:
        await page.evaluate("x => x", object())
    assert info.value.__cause__ is not None
    assert "no JSON form" in info.value.message


def test_a_rounds_printed_error_stays_the_agent_facing_message(rounds) -> None:
    run = rounds.run(
        "task = await task_space('error-cause')\n"
        "page = task.page('p1')\n"
        "try:\n"
        "    await page.evaluate('x => x', object())\n"
        "except ego_browser.InvalidArgument as e:\n"
        "    print(json.dumps({'message': e.message, 'cause': type(e.__cause__).__name__}))\n"
        "await page.evaluate('x => x', object())\n"
    )
    assert run.returncode != 0
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["cause"] not in ("NoneType", "")  # the developer's cause is there...
    # ...and the agent reads exactly the error and its line, no chained traceback
    assert run.stderr.strip().splitlines() == [
        f"EGO_INVALID_ARGUMENT: {seen['message']}",
        "  at line 7: await page.evaluate('x => x', object())",
    ]
