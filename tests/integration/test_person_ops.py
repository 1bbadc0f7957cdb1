"""The person's operations are refused on a round's own channel (issue 31, point 6).

A round could once call ``dashboard.open`` (and get the token URL) and ``spaces.give_back``
(and hand a space the person holds back to itself). The hold is a guard against an agent's
mistakes, not a sandbox (docs/security.md): the person's own CLI still does all of it.
"""

from __future__ import annotations

import json

BOUND = 120

ROUND = """
from ego_browser.client.channel import current_channel
from ego_browser.errors import EgoError
t = await task_space('held by the person')
print(t.space_id, flush=True)
"""

PROBE = """
from ego_browser.client.channel import current_channel
from ego_browser.errors import EgoError
for op, args in [("dashboard.open", {{}}), ("spaces.give_back", {{"space": {sid}}}),
                 ("spaces.create", {{"name": "mine"}}), ("host.stop", {{}})]:
    try:
        out = await current_channel().call(op, args)
        print(op, "ANSWERED", "token=" in json.dumps(out))
    except EgoError as exc:
        print(op, exc.code)
"""


def test_a_round_cannot_call_the_persons_operations(fresh_rounds):
    made = fresh_rounds.run(ROUND, timeout=BOUND)
    assert made.returncode == 0, made.stderr
    sid = int(made.stdout.split()[0])
    taken = fresh_rounds.cli("spaces", "take-over", str(sid), "--json", timeout=BOUND)
    assert taken.returncode == 0, taken.stderr
    probe = fresh_rounds.run(PROBE.format(sid=sid), timeout=BOUND)
    assert probe.returncode == 0, probe.stderr
    lines = dict(line.split(" ", 1) for line in probe.stdout.splitlines())
    assert lines == {"dashboard.open": "EGO_INVALID_STATE", "spaces.give_back": "EGO_INVALID_STATE",
                     "spaces.create": "EGO_INVALID_STATE", "host.stop": "EGO_INVALID_STATE"}, probe.stdout
    listed = json.loads(fresh_rounds.cli("spaces", "--json", timeout=BOUND).stdout)
    held = next(s for s in listed["spaces"] if s["id"] == sid)
    assert held["ownership"] != "agent"  # still the person's
    # the person's own commands still work
    dash = fresh_rounds.cli("dashboard", "--json", timeout=BOUND)
    assert dash.returncode == 0 and "token=" in json.loads(dash.stdout)["url"]
    back = fresh_rounds.cli("spaces", "give-back", str(sid), "--json", timeout=BOUND)
    assert back.returncode == 0, back.stderr
