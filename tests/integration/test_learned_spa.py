"""Issue 28 on a single-page app (issue 29's shapes): a tool learned from rounds in an app whose
controls are in shadow roots, whose menu items hold their label in child elements, which
answers every command with a fetch and a late redraw (no navigation), and whose status line is
in a shadow root. The draft replays it (right click included), waits for each redraw, checks the
status line, verifies in a fresh space, and on a changed app stops instead of succeeding."""

from __future__ import annotations

import itertools
import json

import pytest

from tests.learned_rounds import last_json, packs_stay_in_this_module, run  # noqa: F401 (the fixture)
from tests.learning_spa_app import NotesApp

_apps = itertools.count(1)


@pytest.fixture
def app(server):
    return NotesApp(server, f"/notes{next(_apps)}")


def note_round(space, app, title, body):
    """What an agent does in the app, acting by refs where a look gave them."""
    return (f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/")!r})\n'
            'await p.wait_for_settled()\n'
            'await p.click((await p.find(\'role=button[name="New note"]\'))[0]["ref"])\n'
            f'await p.fill(\'role=textbox[name="Title"]\', {title!r})\n'
            'await p.click(\'role=button[name="Create"]\')\nawait p.wait_for_settled()\n'
            f'await p.fill(\'role=textbox[name="Body"]\', {body!r})\n'
            'await p.click(\'role=button[name="Save"]\')\nawait p.wait_for_settled()\n'
            f'await p.click((await p.find(\'role=option[name="{title}"]\'))[0]["ref"], button="right")\n'
            'pin = next(i["ref"] for i in await p.find("role=listitem") if i["text"].startswith("Pin"))\n'
            'await p.click(pin)\nawait p.wait_for_settled()\n')


def test_a_tool_learned_in_a_single_page_app_replays_waits_and_checks_its_status(rounds, app):
    space = f"spa-{app.prefix.strip('/')}"
    run(rounds, note_round(space, app, "Groceries", "milk"))
    assert app.notes == {"Groceries": {"body": "milk", "pinned": True}}
    # the page's steps (the app's calls would make a tool too: the test below)
    draft = last_json(run(rounds, f'task = await task_space({space!r})\n'
                                  'print(json.dumps(await task.learn("pin_note", levers=False)))\n'))
    source = draft["source"]
    assert "async def run(page, *, title='Groceries', body='milk')" in source, source
    # the icon button by its title, the option without its aria-hidden icon, never a ref
    assert 'role=button[name="New note"]' in source and "[n]" not in source, source
    assert not any(f"'@{n}'" in source for n in range(100))
    # the menu item (no accessible name: its label and key are children) by its visible text, after a right click
    assert "button='right'" in source and 'css=li:has-text("PinP"):visible' in source, source
    # each command that fetched waits for the redraw; the status line in the shadow root is the check
    assert source.count("settle=True") >= 4 and "fetch_json" not in source and draft["lever"] is None, source
    assert draft["postcondition"]["message"] == "Pinned “{title}”", draft["postcondition"]
    saved = last_json(run(rounds, f'task = await task_space({space!r})\nprint(json.dumps(await task.save_tool('
                                  '"pin_note", args={"title": "Errands", "body": "stamps"})))\n'))
    assert saved["verified"] is True
    assert app.notes["Errands"] == {"body": "stamps", "pinned": True}
    out = last_json(run(rounds, f'task = await task_space("use-{space}")\np = task.page("p1")\n'
                                'print(json.dumps(await tools.pin_note(p, title="Books", body="Dune")))\n'))
    assert out["ok"] is True and out["read"]["message"] == "Pinned “Books”"
    assert app.notes["Books"] == {"body": "Dune", "pinned": True}
    # the app now asks before pinning: the tool must not report a pin that did not happen
    app.drift = True
    proc = run(rounds, f'task = await task_space("drift-{space}")\np = task.page("p1")\n'
                       'await tools.pin_note(p, title="Stamps", body="blue")\n', ok=False)
    assert "EGO_LEARNED_POSTCONDITION_FAILED" in proc.stderr and "Pinned “Stamps”" in proc.stderr, proc.stderr
    assert app.notes["Stamps"] == {"body": "blue", "pinned": False}


def test_done_element_is_a_post_condition_that_appears_without_navigation(rounds, app):
    """A tool whose app shows its result with no message: ``done(element=...)`` waits for it
    (bounded) and fails the tool when it never shows; a waiting step that is never satisfied
    fails with its step error."""
    space = f"el-{app.prefix.strip('/')}"
    run(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/")!r})\n'
                'await p.wait_for_settled()\n')
    body = ('from ego_browser.learning.steps import Steps\n'
            f'origin = {app.url("/").rsplit("/", 2)[0]!r}\n'
            'async def check(page, locator):\n'
            '    return await Steps(page, tool="t", origin=origin).done(element=locator)\n')
    ok = last_json(run(rounds, f'task = await task_space({space!r})\np = task.page("p1")\n{body}'
                               'print(json.dumps(await check(p, \'role=button[name="New note"]\')))\n'))
    assert ok["ok"] is True
    proc = run(rounds, f'task = await task_space({space!r})\np = task.page("p1")\n{body}'
                       'await check(p, \'role=option[name="Nothing"]\')\n', ok=False)
    assert "EGO_LEARNED_POSTCONDITION_FAILED" in proc.stderr and "Nothing" in proc.stderr, proc.stderr
    # a step that waits for an element that never shows fails with the step's own error, not a timeout
    proc = run(rounds, f'task = await task_space({space!r})\np = task.page("p1")\n{body}'
                       'await Steps(p, tool="t", origin=origin).wait(3, \'role=option[name="Nothing"]\', '
                       'expect={"role": "option", "name": "Nothing"})\n', ok=False)
    assert proc.stderr.startswith("EGO_LEARNED_STEP_NOT_FOUND") and "step 3" in proc.stderr, proc.stderr


def test_an_edited_source_saves_the_parameters_it_declares(rounds, app):
    """The agent renames a parameter and adds one in the draft: the verifying run calls the source
    saved (not the draft's parameters), and the listing names what the tool takes."""
    space = f"edit-{app.prefix.strip('/')}"
    run(rounds, note_round(space, app, "Groceries", "milk"))
    draft = last_json(run(rounds, f'task = await task_space({space!r})\n'
                                  'print(json.dumps(await task.learn("pin_note2", levers=False)))\n'))
    source = draft["source"].replace("body='milk'", "text='milk', tag='home'").replace(", body,", ", text,")
    assert "tag='home'" in source and ", text," in source, source
    saved = last_json(run(rounds, f'task = await task_space({space!r})\nprint(json.dumps(await task.save_tool('
                                  f'"pin_note2", source={source!r}, args={{"title": "Errands"}})))\n'))
    assert saved["verified"] is True and app.notes["Errands"] == {"body": "milk", "pinned": True}
    ctx = last_json(run(rounds, f'ctx = await learn_context({app.url("/")!r})\n'
                                'print(json.dumps([t for t in ctx["tools"] if t["name"] == "pin_note2"]))\n'))
    assert sorted(ctx[0]["args"]) == ["tag", "text", "title"], ctx


def test_the_apps_calls_become_the_tool_when_each_command_called_its_api(rounds, app):
    """New, save and pin each called the app's JSON API, and together the calls carry every value
    typed: the draft is those calls in order (no clicks, no waits for redraws), verified in a
    fresh space; a call that fails stops the tool there, never a success."""
    space = f"api-{app.prefix.strip('/')}"
    run(rounds, note_round(space, app, "Groceries", "milk"))
    draft = last_json(run(rounds, f'task = await task_space({space!r})\n'
                                  'print(json.dumps(await task.learn("pin_note_api")))\n'))
    source = draft["source"]
    assert draft["lever"] == "JSON API: 3 calls (POST {0}/api/new, POST {0}/api/save, POST {0}/api/pin)".format(
        app.prefix), draft["lever"]
    assert "async def run(page, *, title='Groceries', body='milk')" in source and "s.click" not in source, source
    saved = last_json(run(rounds, f'task = await task_space({space!r})\nprint(json.dumps(await task.save_tool('
                                  '"pin_note_api", args={"title": "Errands", "body": "stamps"})))\n'))
    assert saved["verified"] is True and app.notes["Errands"] == {"body": "stamps", "pinned": True}
    out = last_json(run(rounds, f'task = await task_space("use-{space}")\np = task.page("p1")\n'
                                'print(json.dumps(await tools.pin_note_api(p, title="Books", body="Dune")))\n'))
    assert out["ok"] is True and out["status"] == 200
    assert app.notes["Books"] == {"body": "Dune", "pinned": True}
    # a note of that title exists: the app refuses the first call, and the tool stops there
    proc = run(rounds, f'task = await task_space("again-{space}")\np = task.page("p1")\n'
                       'await tools.pin_note_api(p, title="Books", body="Other")\n', ok=False)
    assert "EGO_LEARNED_POSTCONDITION_FAILED" in proc.stderr and "were not made" in proc.stderr, proc.stderr
    assert app.notes["Books"] == {"body": "Dune", "pinned": True}
