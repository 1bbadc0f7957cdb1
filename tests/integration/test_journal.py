"""Issue 28 §1: the host's journal of a space's rounds and actions, after real rounds."""

from __future__ import annotations

import itertools
import json

import pytest

from tests.learning_app import LibraryApp

_apps = itertools.count(1)


@pytest.fixture
def app(server):
    return LibraryApp(server, f"/lib{next(_apps)}")


def _round(rounds, script):
    proc = rounds.run(script)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _journal(rounds, space):
    out = _round(rounds, f"task = await task_space({space!r})\nprint(json.dumps(await task.journal()))\n")
    return json.loads(out.strip().splitlines()[-1])


def test_journal_records_rounds_actions_stable_locators_and_masks_passwords(rounds, app):
    space = f"journal-{app.prefix.strip('/')}"
    _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/login")!r})\n'
                   'await p.fill("#user", "ann")\nawait p.fill("#pw", "hunter2-secret")\n'
                   'await p.click("text=Sign in >> nth=1")\n')
    _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/new")!r})\n'
                   'await p.fill("@0" if False else "#title", "Dune")\nawait p.fill("#author", "Herbert")\n'
                   'await p.select_option("#genre", "Poetry")\nawait p.click("button")\n')
    journal = _journal(rounds, space)
    assert journal["format"] == 1 and journal["caps"]["rounds"] > 0
    first, second = journal["rounds"][:2]
    assert first["status"] == "ok" and "task_space" in first["script"]
    # the password is in neither the action nor the stored script
    text = json.dumps(journal)
    assert "hunter2-secret" not in text
    pw = next(a for a in first["actions"] if a["op"] == "page.fill" and a["target"]["given"] == "#pw")
    assert pw["value"] == "[password]" and '"[password]"' in first["script"]
    ops = [a["op"] for a in second["actions"]]
    assert ops == ["page.goto", "page.fill", "page.fill", "page.select_option", "page.click"]
    title = second["actions"][1]
    assert title["value"] == "Dune" and title["outcome"] == "ok"
    # the most stable unique locator, computed in the page: the test id; never a ref
    assert title["target"]["locator"] == "data-testid=book-title"
    assert title["target"]["role"] == "textbox" and title["target"]["label"] == "Title"
    assert {c["kind"] for c in title["target"]["locators"]} >= {"testid", "id", "label", "name"}
    author = second["actions"][2]
    assert author["target"]["locator"] == "id=author"
    genre = second["actions"][3]
    assert genre["value"] == "Poetry"
    click = second["actions"][4]
    assert click["target"]["locator"] == 'role=button[name="Save book"]'
    assert click["url_before"].endswith("/new") and click["url_after"].endswith("/add")
    assert click["navigation"] is not None
    # the requests it caused, from the page's network log (issue 33 §1): the form's POST
    assert [(r["method"], r["url"], r["status"]) for r in click["requests"] if r["method"] == "POST"] == [
        ("POST", app.url("/add"), 200)]
    for action in second["actions"]:
        assert not any(c["locator"].startswith("@") for c in (action["target"] or {}).get("locators") or ())


def test_journal_records_a_failed_action_and_a_failed_round(rounds, app):
    space = f"journal-fail-{app.prefix.strip('/')}"
    proc = rounds.run(f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url("/new")!r})\n'
                      'await p.click("#nothing-here", timeout=500)\n')
    assert proc.returncode == 1
    journal = _journal(rounds, space)
    last = journal["rounds"][0]
    assert last["status"] == "failed" and last["error"]
    failed = last["actions"][-1]
    assert failed["outcome"] == "error" and failed["error"] and failed["target"]["given"] == "#nothing-here"


def test_journal_goes_with_a_finished_space(rounds, app):
    space = f"journal-finish-{app.prefix.strip('/')}"
    out = _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({app.url()!r})\n'
                         'print(task.space_id)\n')
    space_id = int(out.strip())
    _round(rounds, f'task = await task_space({space_id})\nprint(len((await task.journal())["rounds"]))\n'
                   'await task.finish(keep=[])\n')
    proc = rounds.run(f"task = await task_space({space!r})\nprint(len((await task.journal())['rounds']))\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"  # a new space of that name starts with an empty journal


def test_a_select_inside_its_label_is_found_again_by_its_name(rounds, server):
    # the label's text includes every option: a label= locator made of it would match nothing later
    url = server.page("/journal-wrapped-select", "<form><label>Action: <select name=action><option>---</option>"
                      "<option>Delete selected</option></select></label><button>Go</button></form>")
    space = "journal-wrapped-select"
    _round(rounds, f'task = await task_space({space!r})\np = task.page("p1")\nawait p.goto({url!r})\n'
                   'await p.select_option("select", "Delete selected")\n')
    action = _journal(rounds, space)["rounds"][0]["actions"][-1]
    assert action["op"] == "page.select_option"
    assert action["target"]["locator"] == 'css=select[name="action"]'
    assert not any(c["kind"] == "label" for c in action["target"]["locators"])


async def test_an_action_reads_its_page_off_the_store_once_and_still_records_where_it_went(host, task, server,
                                                                                            monkeypatch):
    from ego_browser.host.ops import journal_ops

    app = LibraryApp(server, f"/lib{next(_apps)}")
    reads = []
    real = journal_ops._driver
    monkeypatch.setattr(journal_ops, "_driver", lambda h, at: reads.append(at.get("label")) or real(h, at))
    page = task.page("p1")
    await page.goto(app.url("/new"))
    await page.fill("#title", "Dune")
    await page.fill("#author", "Herbert")
    await page.click("button")
    assert reads == ["p1"] * 4  # one store read per action, not one per field of its record
    actions = [a for r in (await task.journal())["rounds"] for a in r["actions"]]
    click = actions[-1]
    assert click["op"] == "page.click" and click["url_before"].endswith("/new") and click["url_after"].endswith("/add")
