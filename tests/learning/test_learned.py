"""Issue 28 §2, §3, §6, §8 without a browser: distilling a journal, the learned packs, trust,
the learnings CLI and the bad-input codes (nothing is lost by a failed save or import)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ego_browser.errors import (
    LearnedPackUntrusted,
    LearnedToolInvalid,
    LearnedToolOffOrigin,
    LearnJournalEmpty,
    LearnNameTaken,
    LearnRoundFailed,
    LearnUnknownParam,
    SitePackInvalid,
)
from ego_browser.learning import learned, learned_run
from ego_browser.learning.distill import distill
from tests.conftest import ROOT

ORIGIN = "http://shop.test:8080"


def act(op, given=None, loc=None, value=None, before=f"{ORIGIN}/lib/new", after=None, nav=None, label=None,
        role="textbox", name=None, form=None, outcome="ok"):
    target = None if given is None else {"given": given, "locator": loc, "role": role, "name": name or label,
                                         "label": label, "form": form}
    return {"op": op, "page": "p1", "outcome": outcome, "value": value, "url_before": before,
            "url_after": after or before, "navigation": nav, "target": target}


def journal(*rounds):
    return {"format": 1, "rounds": [{"n": i + 1, "status": status, "error": None, "actions": list(actions)}
                                    for i, (status, actions) in enumerate(rounds)]}


ADD = journal(("ok", [
    act("page.goto", value=f"{ORIGIN}/lib/new", before="about:blank", after=f"{ORIGIN}/lib/new"),
    act("page.click", "#ghost", outcome="error"),  # exploration that failed: not replayed
    act("page.fill", "@12", "data-testid=book-title", "Dune", label="Title"),
    act("page.fill", "#author", "id=author", "Herbert", label="Author"),
    act("page.click", "button", 'role=button[name="Save book"]', role="button", name="Save book",
        after=f"{ORIGIN}/lib/add", nav={"url": f"{ORIGIN}/lib/add"}),
]))
LAST = {"url": f"{ORIGIN}/lib/add", "heading": "Book saved", "message": "Added “Dune” to the library"}


def test_draft_shape_params_from_labels_stable_locators_and_postcondition():
    draft = distill(ADD, "add_book", last_page=LAST)
    src = draft.source
    compile(src, "draft", "exec")
    assert "async def run(page, *, title='Dune', author='Herbert'):" in src
    assert "'data-testid=book-title'" in src and "'@12'" not in src and "#ghost" not in src
    assert "wait_url=" in src  # the observed navigation is waited for
    assert "message=f'Added “{title}” to the library'" in src and "heading='Book saved'" in src
    assert draft.params == {"title": "Dune", "author": "Herbert"}
    assert draft.origin == ORIGIN and draft.path_prefix == "/lib/"


def test_get_form_lever_goes_straight_to_the_url():
    search = journal(("ok", [
        act("page.goto", value=f"{ORIGIN}/lib/", after=f"{ORIGIN}/lib/"),
        act("page.fill", "#q", "id=q", "Dune", before=f"{ORIGIN}/lib/", label="Search books", form={"method": "get"}),
        act("page.press", "#q", "id=q", "Enter", before=f"{ORIGIN}/lib/", after=f"{ORIGIN}/lib/search?q=Dune&page=1",
            label="Search books", form={"method": "get"}, nav={}),
    ]))
    draft = distill(search, "find", params={"search_books": "query"})
    assert draft.lever and "goto_query(1, 'http://shop.test:8080/lib/search', [('q', query), ('page', '1')])" in \
        draft.source
    assert "s.fill" not in draft.source and "s.goto(" not in draft.source


def test_bad_learn_input_has_its_own_codes():
    with pytest.raises(LearnJournalEmpty) as empty:
        distill(journal(), "t")
    assert empty.value.code == "EGO_LEARN_JOURNAL_EMPTY"
    failed = journal(("ok", ADD["rounds"][0]["actions"]), ("failed", []))
    with pytest.raises(LearnRoundFailed) as last_failed:
        distill(failed, "t")
    assert last_failed.value.code == "EGO_LEARN_ROUND_FAILED"
    assert distill(failed, "t", rounds=[1]).params  # the span that worked can still be learned
    with pytest.raises(LearnUnknownParam) as unknown:
        distill(ADD, "t", params={"price": "amount"})
    assert unknown.value.code == "EGO_LEARN_UNKNOWN_PARAM" and "title='Dune'" in unknown.value.message
    with pytest.raises(LearnNameTaken) as taken:
        learned_run.check_name("front_page", "https://news.ycombinator.com")
    assert taken.value.code == "EGO_LEARN_NAME_TAKEN"
    with pytest.raises(LearnedToolInvalid):
        learned_run.check_name("not a name", ORIGIN)
    with pytest.raises(LearnedToolInvalid) as invalid:
        learned_run.run_source("async def run(page:\n", "<draft>")
    assert invalid.value.code == "EGO_LEARNED_TOOL_INVALID" and "not valid Python" in invalid.value.message


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_LEARNED_DIR", str(tmp_path / "learned"))
    return tmp_path / "learned"


def save(root, source, draft=None):
    d = draft or {**distill(ADD, "add_book", last_page=LAST).as_dict()}
    return learned_run.save_tool(d, source, verified=True, skip_reason=None, space_id=7, result={"ok": True},
                                 root=root)


class FakePage:
    def __init__(self, url):
        self._url = url

    async def url(self):
        return self._url


def test_save_versions_trust_gate_and_origin(root):
    first = save(root, "async def run(page, *, title='Dune'):\n    return {'ok': True, 'v': 1}\n")
    assert first["version"] == 1
    second = save(root, "async def run(page, *, title='Dune'):\n    return {'ok': True, 'v': 2}\n")
    assert second["version"] == 2
    pack = learned.read_pack(first["site_id"], root)
    tool = pack["tools"]["add_book"]
    assert tool["versions"][0]["version"] == 1 and (root / first["site_id"] / tool["versions"][0]["file"]).exists()
    prov = tool["provenance"]
    assert prov["space"] == 7 and prov["origin"] == ORIGIN and prov["verified"] and prov["learned_at"]
    tools = learned_run.LearnedTools(root)
    assert asyncio.run(tools.add_book(FakePage(f"{ORIGIN}/lib/"))) == {"ok": True, "v": 2}
    assert learned.read_pack(first["site_id"], root)["tools"]["add_book"]["runs"] == 2
    with pytest.raises(LearnedToolOffOrigin):
        asyncio.run(tools.add_book(FakePage("https://elsewhere.test/")))
    # a file changed by hand does not run until approved
    path = Path(first["file"])
    path.write_text(path.read_text().replace("'v': 2", "'v': 3"))
    with pytest.raises(LearnedPackUntrusted) as untrusted:
        asyncio.run(tools.add_book(FakePage(f"{ORIGIN}/lib/")))
    assert "learnings trust" in untrusted.value.message
    assert "[untrusted]" in learned.header_line(f"{ORIGIN}/lib/", root)


def test_failures_in_a_row_make_a_tool_stale(root):
    save(root, "async def run(page):\n    raise RuntimeError('page changed')\n")
    tools = learned_run.LearnedTools(root)
    for _ in range(learned.STALE_AFTER):
        with pytest.raises(RuntimeError):
            asyncio.run(tools.add_book(FakePage(f"{ORIGIN}/")))
    line = learned.header_line(f"{ORIGIN}/anything", root)
    assert line.startswith("[learned tools: add_book(") and "[stale]" in line
    assert learned.header_line("https://other.test/", root) == ""


def cli(root, *args, check=True):
    env = {**os.environ, "EGO_BROWSER_LEARNED_DIR": str(root), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "ego_browser", "learnings", *args], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_cli_list_show_export_import_trust_rm(root, tmp_path):
    saved = save(root, "async def run(page, *, title='Dune'):\n    return {'ok': True}\n")
    site = saved["site_id"]
    for sub in ("list", "show", "rm", "export", "import", "trust", "make"):
        assert "--json" in cli(root, sub, "--help").stdout
    listed = json.loads(cli(root, "list", "--json").stdout)
    assert listed["tools"][0]["name"] == "add_book" and listed["tools"][0]["trusted"] is True
    shown = json.loads(cli(root, "show", site, "add_book", "--json").stdout)
    assert "async def run" in shown["source"] and shown["provenance"]["space"] == 7
    bundle = tmp_path / "pack.json"
    cli(root, "export", site, str(bundle))
    other = tmp_path / "other-home"
    out = cli(other, "import", str(bundle))
    assert "does not run until" in out.stdout
    assert json.loads(cli(other, "list", "--json").stdout)["tools"][0]["trusted"] is False
    with pytest.raises(LearnedPackUntrusted):
        asyncio.run(learned_run.LearnedTools(other).add_book(FakePage(f"{ORIGIN}/")))
    cli(other, "trust", site)
    assert asyncio.run(learned_run.LearnedTools(other).add_book(FakePage(f"{ORIGIN}/"))) == {"ok": True}
    # importing over an existing pack needs --replace; a failed import changes nothing
    again = cli(other, "import", str(bundle), check=False)
    assert again.returncode == 1 and "EGO_INVALID_ARGUMENT" in again.stderr
    cli(root, "rm", site, "add_book")
    assert json.loads(cli(root, "list", "--json").stdout)["tools"] == []


def test_bad_packs_and_imports_fail_with_a_code_and_lose_nothing(root, tmp_path):
    saved = save(root, "async def run(page):\n    return {'ok': True}\n")
    site = saved["site_id"]
    pack_path = root / site / "pack.json"
    good = pack_path.read_text()
    broken = json.loads(good)
    del broken["tools"]["add_book"]["postcondition"]
    pack_path.write_text(json.dumps(broken))
    with pytest.raises(SitePackInvalid) as invalid:
        learned.read_pack(site, root)
    assert "tools.add_book.postcondition: missing" in invalid.value.problems
    listed = json.loads(cli(root, "list", "--json").stdout)
    assert listed["tools"] == [] and "postcondition: missing" in listed["problems"][0]
    pack_path.write_text(good)
    # a tool edited into invalid Python (and then approved) fails with its code, naming the file
    Path(saved["file"]).write_text("async def run(page:\n")
    cli(root, "trust", site)
    with pytest.raises(LearnedToolInvalid) as bad_source:
        asyncio.run(learned_run.LearnedTools(root).add_book(FakePage(f"{ORIGIN}/")))
    assert saved["file"] in bad_source.value.message
    # an import whose tool is not valid Python writes nothing
    bundle = {"format": 1, "site": "evil.test", "files": {
        "pack.json": json.dumps({"format": 1, "id": "evil.test", "origin": "http://evil.test", "tools": {
            "t": {"file": "tools/t.py", "version": 1, "params": {}, "path_prefix": "/", "postcondition": {},
                  "provenance": {}}}}),
        "tools/t.py": "def run(:\n"}}
    (tmp_path / "evil.json").write_text(json.dumps(bundle))
    bad = cli(root, "import", str(tmp_path / "evil.json"), check=False)
    assert bad.returncode == 1 and "EGO_SITE_PACK_INVALID" in bad.stderr
    assert not (root / "evil.test").exists()


def test_keyboard_input_and_list_choices_are_replayed():
    j = journal(("ok", [
        act("page.goto", value=f"{ORIGIN}/f", before="about:blank", after=f"{ORIGIN}/f"),
        act("page.click", "#name", "id=name", before=f"{ORIGIN}/f", label="Name"),
        act("keyboard.type", value="Ann", before=f"{ORIGIN}/f"),
        act("page.select_option", "#tags", "id=tags", ["a", "b"], before=f"{ORIGIN}/f", label="Tags"),
        act("keyboard.press", value="Enter", before=f"{ORIGIN}/f", after=f"{ORIGIN}/done", nav={}),
    ]))
    src = distill(j, "t").source
    compile(src, "t", "exec")
    assert "await s.key_type(3, name)" in src and "name='Ann'" in src
    assert "tags=['a', 'b']" in src and "await s.key_press(5, 'Enter', wait_url=" in src


def test_a_locator_naming_a_typed_value_follows_the_parameter():
    j = journal(("ok", [
        act("page.goto", value=f"{ORIGIN}/p/", before="about:blank", after=f"{ORIGIN}/p/"),
        act("page.fill", "#q", "id=q", "Aurora Desk Lamp", before=f"{ORIGIN}/p/", label="Search", form={"method": "post"}),
        act("page.click", "text=Go", 'role=button[name="Go"]', role="button", name="Go", before=f"{ORIGIN}/p/",
            after=f"{ORIGIN}/p/results", nav={}),
        act("page.click", "@7", 'role=link[name="Aurora Desk Lamp"]', role="link", name="Aurora Desk Lamp",
            before=f"{ORIGIN}/p/results", after=f"{ORIGIN}/p/3/change/", nav={}),
    ]))
    src = distill(j, "open_product").source
    compile(src, "t", "exec")
    assert "await s.click(4, f'role=link[name=\"{search}\"]', expect={'role': 'link', 'name': f'{search}'," in src


def _quick(body, *, status=201, pin_typed="[password]"):
    page = f"{ORIGIN}/lib/quick"
    click = act("page.click", "button", 'role=button[name="Add"]', role="button", name="Add", before=page)
    click["requests"] = [{"method": "POST", "url": f"{ORIGIN}/lib/api/books", "resource_type": "fetch",
                          "status": status, "json_body": body}]
    return journal(("ok", [
        act("page.goto", value=page, before="about:blank", after=page),
        act("page.fill", "#qt", "id=qt", "Dune", before=page, label="Title"),
        act("page.fill", "#qp", "id=qp", "412", before=page, label="Pages"),
        act("page.fill", "#pin", "id=pin", pin_typed, before=page, label="Librarian PIN"),
        click,
    ]))


def test_json_api_lever_calls_the_api_with_the_parameters_in_its_body():
    body = {"book": {"title": "Dune", "pages": 412}, "pin": "[password]", "source": "quick-add"}
    draft = distill(_quick(body), "quick_add")
    src = draft.source
    compile(src, "draft", "exec")
    assert draft.lever == "JSON API: POST /lib/api/books"
    assert ("await s.fetch_json(2, 'POST', 'http://shop.test:8080/lib/api/books', query=[], body={'book': "
            "{'title': title, 'pages': int(pages)}, 'pin': librarian_pin, 'source': 'quick-add'})") in src
    assert "s.fill" not in src and "s.click" not in src and "s.goto(" not in src.split("fetch_json")[1]
    assert "async def run(page, *, librarian_pin, title='Dune', pages='412'):" in src
    assert "return await s.done_api(status=201)" in src and draft.postcondition == {"status": 201}
    renamed = distill(_quick(body), "quick_add", params={"title": "book_title"})
    assert "'title': book_title" in renamed.source


def test_json_api_lever_is_refused_when_the_call_needs_what_the_tool_cannot_know():
    # a masked token the page added: replaying the form is the only way
    draft = distill(_quick({"title": "Dune", "pages": 412, "pin": "[password]", "csrf": "[secret]"}), "q")
    assert draft.lever is None and "s.fill" in draft.source and "fetch_json" not in draft.source
    # a typed value the call does not carry
    assert distill(_quick({"title": "Dune", "pin": "[password]"}), "q").lever is None


def _settings_menu(body, *, role="listitem", name="Dark"):
    page = f"{ORIGIN}/lab"
    pick = act("page.click", "@31", f'role={role}[name="{name}"]', role=role, name=name, before=page)
    pick["requests"] = [{"method": "POST", "url": f"{ORIGIN}/api/settings", "resource_type": "fetch",
                         "status": 200, "json_body": body}]
    return journal(("ok", [
        act("page.goto", value=page, before="about:blank", after=page),
        act("page.click", "@12", 'role=menuitem[name="Settings"]', role="menuitem", name="Settings", before=page),
        act("page.click", "@20", 'role=listitem[name="Theme"]', role="listitem", name="Theme", before=page),
        pick,
    ]))


def test_json_api_lever_takes_a_chosen_item_the_call_sends_as_a_parameter():
    # a settings menu's "Dark" sent as {"theme": "Dark"}: the choice is the tool's parameter
    draft = distill(_settings_menu({"theme": "Dark"}), "set_theme")
    src = draft.source
    compile(src, "draft", "exec")
    assert draft.lever == "JSON API: POST /api/settings" and draft.params == {"theme": "Dark"}
    assert "async def run(page, *, theme='Dark'):" in src
    assert "await s.fetch_json(2, 'POST', 'http://shop.test:8080/api/settings', query=[], body={'theme': theme})" in src
    assert "s.click" not in src
    # a button's name in the body is no choice, and a choice the call does not send keeps the clicks
    assert distill(_settings_menu({"action": "Save"}, role="button", name="Save"), "t").lever is None
    kept = distill(_settings_menu({"theme": "Light"}), "t")
    assert kept.lever is None and kept.params == {} and "s.click" in kept.source


def test_journal_json_bodies_never_keep_a_password_or_secret():
    from ego_browser.host.core.journal_json import json_body, sensitive_key

    def mask(text):
        return text.replace("tok-SECRET-9", "[secret:api]")

    headers = {"Content-Type": "application/json"}
    text = json.dumps({"user": "ann", "pw": "hunter2-pass", "nested": [{"authToken": "abc123"}],
                       "auth": "x:hunter2-pass", "key": "tok-SECRET-9", "note": "my tok-SECRET-9 here",
                       "author": "Herbert", "pinned": True, "pages": 412})
    out = json_body(headers, text, {"hunter2-pass"}, mask)
    assert out == {"user": "ann", "pw": "[password]", "nested": [{"authToken": "[secret]"}], "auth": "[secret]",
                   "key": "[secret:api]", "note": "[secret]", "author": "Herbert", "pinned": True, "pages": 412}
    assert "hunter2" not in json.dumps(out) and "SECRET-9" not in json.dumps(out)
    assert json_body({"content-type": "application/x-www-form-urlencoded"}, "a=1", set(), mask) is None
    assert json_body({}, "not json", set(), mask) is None
    assert sensitive_key("userPassword") and sensitive_key("api_key") and sensitive_key("csrf-token")
    assert not sensitive_key("author") and not sensitive_key("pinned") and not sensitive_key("passage")


def test_the_listing_names_every_sites_tools_for_the_agents_context(root):
    from ego_browser.cli import mcp_server

    assert learned.listing(root) == ""
    save(root, "async def run(page, *, title='Dune', author='Herbert'):\n    return {'ok': True}\n")
    listed = learned.listing(root)
    assert listed.startswith(f"[learned tools on {ORIGIN}: add_book(title, author)") and "\n" not in listed
    assert len(listed) < 200
    described = mcp_server.tool_description()
    assert described.startswith(mcp_server.TOOL_DESCRIPTION) and listed in described


def test_actions_on_a_popup_are_named_as_not_replayed():
    # the run picked a value in a popup window: a draft of the main page alone does less than the run
    pick = act("page.click", "@5", 'role=link[name="Ann"]', role="link", name="Ann", before=f"{ORIGIN}/lookup")
    pick["page"] = "p2"
    run = journal(("ok", [*ADD["rounds"][0]["actions"][:4], pick, ADD["rounds"][0]["actions"][4]]))
    draft = distill(run, "add_book", last_page=LAST)
    assert draft.warnings and "1 action(s) on p2" in draft.warnings[0]
    assert "# NOT REPLAYED: 1 action(s) on p2" in draft.source and "Ann" not in draft.source
    compile(draft.source, "draft", "exec")
    assert distill(ADD, "add_book", last_page=LAST).warnings == []


class _ListPage:
    """A page whose list's first option is now another customer (the locator is positional)."""

    def __init__(self, name):
        self.name = name
        self.clicked = []

    async def url(self):
        return f"{ORIGIN}/ticket/1/change/"

    async def find(self, selector, limit=3):
        if selector.startswith("role=option"):
            return [{"ref": "@9", "role": "option", "name": self.name}]
        return [{"ref": "@3", "role": "option", "name": self.name}]

    async def click(self, selector):
        self.clicked.append(selector)


def test_a_step_whose_locator_now_names_another_choice_fails_instead_of_choosing_it():
    from ego_browser.errors import LearnedStepNotFound
    from ego_browser.learning.steps import Steps

    expect = {"role": "option", "name": "Nordwind Logistik GmbH", "locator": "id=customer-opt-0"}
    page = _ListPage("Nordstern Bau AG")
    with pytest.raises(LearnedStepNotFound) as err:
        asyncio.run(Steps(page, tool="t", origin=ORIGIN).click(4, "id=customer-opt-0", expect=expect))
    assert page.clicked == [] and "Nordstern Bau AG" in err.value.message and err.value.step == 4
    same = _ListPage("Nordwind  Logistik GmbH ")
    asyncio.run(Steps(same, tool="t", origin=ORIGIN).click(4, "id=customer-opt-0", expect=expect))
    assert same.clicked == ["@3"]  # the element checked, by its ref
    # an icon or mark the two name computations see differently is no other choice
    icon = _ListPage("Look up assignee")
    asyncio.run(Steps(icon, tool="t", origin=ORIGIN).click(5, "id=lookup", expect={
        "role": "option", "name": "🔍Look up assignee", "locator": "id=lookup"}))
    assert icon.clicked == ["@3"]


def test_a_record_number_inside_a_path_segment_matches_another_records_page():
    from ego_browser.learning.distill import _url_pattern

    pattern = _url_pattern(f"{ORIGIN}/book/done/BK-1041/", {})
    assert re.search(pattern, f"{ORIGIN}/book/done/BK-1042/") and re.search(pattern, f"{ORIGIN}/book/done/BK-7/")
    assert re.search(pattern, f"{ORIGIN}/book/done/XX-1042/") is None
    assert re.search(_url_pattern(f"{ORIGIN}/item/77/edit", {}), f"{ORIGIN}/item/1234/edit?x=1")
    assert re.search(_url_pattern(f"{ORIGIN}/v2/page", {}), f"{ORIGIN}/v2/page")  # one digit stays as it is


def test_a_value_the_page_refused_and_an_upload_are_replayed_as_the_run_ended():
    page = f"{ORIGIN}/book/step1/"
    nxt = dict(given="@9", loc='css=input[type="submit"]', role="button", name="Next")
    run = journal(("ok", [
        act("page.goto", value=page, before="about:blank", after=page),
        act("page.fill", "@3", "id=id_phone", "030 1234567", before=page, label="Phone"),
        act("page.click", before=page, **nxt),  # the page sent it back: the phone's format
        act("page.fill", "@5", "id=id_phone", "+49 30 1234567", before=page, label="Phone"),
        act("page.click", before=page, after=f"{ORIGIN}/book/step2/", nav={}, **nxt),
        act("page.set_input_files", "@7", "id=id_attachment", ["plan.txt"], before=f"{ORIGIN}/book/step2/",
            label="Floor plan", role="button"),
    ]))
    draft = distill(run, "book")
    src = draft.source
    compile(src, "draft", "exec")
    assert draft.params == {"phone": "+49 30 1234567", "floor_plan": None}
    assert "030 1234567" not in src and src.count("s.click(") == 1
    assert "await s.set_input_files(4, 'id=id_attachment', floor_plan," in src
    assert "async def run(page, *, floor_plan, phone='+49 30 1234567'):" in src
    given_by_ref = journal(("ok", [act("page.goto", value=page, before="about:blank", after=page),
                                   act("page.set_input_files", None, None, ["plan.txt"], before=page)]))
    assert "await s.set_input_files(2, 'css=input[type=\"file\"]', files," in distill(given_by_ref, "up").source


def test_a_number_the_page_made_up_is_left_out_of_the_postcondition():
    last = {"url": f"{ORIGIN}/lib/add", "heading": "Thank you!",
            "message": "Your booking request BK-1041 was received for Dune."}
    draft = distill(ADD, "add_book", last_page=last)
    assert draft.postcondition["message"] == "was received for {title}." and draft.postcondition["heading"] == \
        "Thank you!"
    kept = distill(ADD, "add_book", last_page={**last, "message": "Added “Dune” (1 copy)"}).postcondition
    assert kept["message"] == "Added “{title}” (1 copy)"


def test_the_mcp_listing_stays_small_with_many_sites(monkeypatch):
    from ego_browser.cli import mcp_server

    lines = [f"[learned tools on https://site{i}.example: tool_{i}(a, b) — await tools.NAME(page, ...)]" for i in range(40)]
    monkeypatch.setattr(learned, "listing", lambda root=None: "\n".join(lines))
    described = mcp_server.tool_description()
    assert len(described) <= len(mcp_server.TOOL_DESCRIPTION) + mcp_server.LISTING_MAX + 200
    assert lines[0] in described and described.endswith("more sites: ego-browser learnings list)")


def _spa_run(*, name="notes.py", folder=None, code="print(6 * 7)"):
    page = f"{ORIGIN}/lab"

    def click(label, role, calls=()):
        a = act("page.click", "@9", f'role={role}[name="{label}"]', role=role, name=label, before=page)
        a["requests"] = [{"method": m, "url": f"{ORIGIN}{u}", "resource_type": "fetch", "status": 200, **(
            {"json_body": b} if b is not None else {})} for m, u, b in calls]
        return a

    path = f"{folder}/{name}" if folder else name
    acts = [act("page.goto", value=page, before="about:blank", after=page)]
    if folder:
        acts += [click("New Folder", "button"),
                 act("page.fill", "@11", 'role=textbox[name="Name"]', folder, before=page, label="Name"),
                 click("Create", "button", [("POST", "/api/contents/new", {"dir": "", "type": "folder", "name": folder}),
                                            ("GET", "/api/contents/list?path=", None)])]
    acts += [click("New File", "button"),
             act("page.fill", "@12", 'role=textbox[name="Name"]', name, before=page, label="Name"),
             click("Create", "button", [("POST", "/api/contents/new", {"dir": folder or "", "type": "file", "name": name}),
                                        ("GET", f"/api/contents/get?path={path}", None)]),
             act("page.fill", "@20", 'role=textbox[name="Editor"]', code, before=page, label="Editor"),
             click("Save", "button", [("POST", "/api/contents/save", {"path": path, "content": code})]),
             click("Run", "button", [("POST", "/api/run", {"path": path, "content": code})])]
    return journal(("ok", acts))


def test_json_api_lever_replays_a_single_page_apps_commands_as_their_calls():
    draft = distill(_spa_run(), "run_code", params={"editor": "code"})
    src = draft.source
    compile(src, "draft", "exec")
    assert draft.lever == ("JSON API: 3 calls (POST /api/contents/new, POST /api/contents/save, POST /api/run)")
    assert "async def run(page, *, name='notes.py', code='print(6 * 7)'):" in src
    assert ("await s.fetch_json(2, 'POST', 'http://shop.test:8080/api/contents/new', query=[], "
            "body={'dir': '', 'type': 'file', 'name': name})") in src
    assert "body={'path': name, 'content': code})" in src and "/api/run', query=[], body={'path': name, 'content': code})" in src
    assert "s.click" not in src and "s.fill" not in src and "contents/get" not in src  # the app's reads go
    assert src.rstrip().endswith("return await s.done_api(status=200)")


def test_json_api_calls_compose_a_path_from_values_typed_apart():
    draft = distill(_spa_run(folder="data", name="notes.txt", code="hello there"), "new_folder_file")
    src = draft.source
    compile(src, "draft", "exec")
    assert draft.lever.startswith("JSON API: 4 calls")
    assert "body={'dir': name, 'type': 'file', 'name': name_2})" in src
    assert "body={'path': f'{name}/{name_2}', 'content': editor})" in src
    renamed = distill(_spa_run(folder="data", name="notes.txt"), "t", params={"name": "folder", "name_2": "file"})
    assert "f'{folder}/{file}'" in renamed.source


def test_json_api_calls_are_refused_when_a_typed_value_reaches_no_call():
    j = _spa_run()
    run = j["rounds"][0]["actions"][-1]
    run["requests"] = []  # the run was not a call: the UI does what the calls would not
    j["rounds"][0]["actions"][-2]["requests"][0]["json_body"] = {"path": "notes.py"}  # the code never sent
    draft = distill(j, "t")
    assert draft.lever is None and "s.click" in draft.source
