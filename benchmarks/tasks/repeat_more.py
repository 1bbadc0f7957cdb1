"""Repeat variants (issue 28 §7) of the orders task and of the SPA set (app_spa.py), beside
``trace_repeat.py``'s four admin tasks; ``repeat.py`` adds them to its ``SPECS``.

As there, the *first* attempt is the task's ego trace (it explores) ending with ``task.learn``;
the agent reads the draft and edits it where it must, then saves it; the *next* attempts call
the tool with other parameters, starting from the tool listing. What the agent edits, per task:

- ``orders`` (a count over three pages read with ``evaluate``, which a draft does not replay):
  the agent keeps the draft's locators and writes the tool: the order list by URL, the sign-in
  only when the list sends it to the login page (later attempts share the profile's session),
  the filters by the names of their links (parameters), the search, and a loop that counts the
  Express column page by page after a step that waits for that column (a page without it stops
  the tool at that step). Verified (it changes nothing), with the password passed, never kept.
- ``spa_theme``: the draft calls the app's settings API (``POST /api/settings``) with the menu's
  choice as its ``theme`` parameter and is saved as it is. A draft that keeps the menu's clicks
  (no such call in the journal) has the chosen theme made a parameter and the post-condition it
  could not find (no message, no heading) set to the status bar's "Theme: ...".
- ``spa_rename``: the draft uses the app's own JSON API (``POST /api/contents/rename``); the
  renamed file becomes a parameter. Saved without a verifying run (a second rename fails).
- ``spa_run``: the draft is the app's calls (new, save, run); the file's name, the dialog's default
  in the run, becomes a parameter (a second "untitled.py" is refused); the run call's answer
  carries the output. (A draft of the page's steps, when the journal has no such calls: the name
  typed in the dialog, the status bar's "Saved" the post-condition, the output read off the page.)
- ``spa_folder``: the parameters renamed (folder, file, text); the calls compose the file's path
  from the two names; verified with another folder. (Page steps: "Saved" the post-condition.)
- ``spa_edit``: the draft saves and runs the whole new text; the agent makes it read the file
  through the app's API (as the app does when it opens it) and replace ``old`` by ``new``, the
  file a parameter. Saved without a verifying run (a second run would change the file again).
  (Page steps: it reads the editor instead, "Saved" the post-condition.)

Each attempt is judged on the app's state (the count, the files and their content, the runs,
the theme). The drift run uses each app's ``drift`` switch.
"""

from __future__ import annotations

import json
import re
from typing import Any

import app_spa
import trace_ego
import trace_ego_spa
from agents import EgoAgent, TraceFailed
from trace_ego import HEAD
from trace_ego import answer as answer_line
from trace_repeat import _NoFinish, listed_tool

__all__ = ["specs"]


def _r(agent: Any, space: str, body: str) -> str:
    return agent.round(HEAD.format(space=space) + body)


class _Agent(_NoFinish):
    """The exploring agent of an SPA trace (which reads the agent's cost), its space left open."""

    @property
    def cost(self) -> Any:
        return self.agent.cost


def _source(out: str) -> str:
    """The draft's source, as the learning round printed it."""
    lines = out.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"""Learned tool')), None)
    end = next((i for i, line in enumerate(lines) if line.startswith("    return await s.done")), None)
    if start is None or end is None:
        raise TraceFailed(f"not a draft:\n{out[-3000:]}")
    return "\n".join(lines[start:end + 1]) + "\n"


def _param(source: str, literal: str, name: str, default: Any) -> str:
    """The agent's edit: every string literal holding ``literal`` says ``{name}`` instead, and the
    signature takes ``name``."""
    def sub(m: re.Match[str]) -> str:
        body = m.group(2)
        if literal not in body:
            return m.group(0)
        return "f'" + body.replace(literal, "{" + name + "}") + "'"
    return _with_param(re.sub(r"(f?)'((?:[^'\\\n]|\\.)*)'", sub, source), name, default)


def _with_param(source: str, name: str, default: Any) -> str:
    """The signature takes ``name`` too (the agent's edit uses it)."""
    return source.replace("async def run(page, *, ", f"async def run(page, *, {name}={default!r}, ", 1).replace(
        "async def run(page):", f"async def run(page, *, {name}={default!r}):", 1)


def _renumber(source: str) -> str:
    n = iter(range(1, 1000))
    return re.sub(r"(await s\.\w+\()\d+,", lambda m: f"{m.group(1)}{next(n)},", source)


def _done(source: str, extra: str, after: str = "") -> str:
    """The post-condition the agent adds (``extra``: keyword arguments) and what it reads after it."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith("# CHECK:")]
    last = lines[-1]
    if not last.startswith("    return await s.done("):
        raise TraceFailed(f"no done() line:\n{source}")
    call = last[len("    return "):-1] + (", " if not last.endswith("(") else "") + extra + ")"
    lines[-1] = f"    result = {call}\n{after}    return result" if after else f"    return {call}"
    return "\n".join(lines) + "\n"


OUTPUT = "    result['output'] = await page.inner_text('role=region[name=\"Output\"]')\n"


def _learn(agent: EgoAgent, space: str, name: str, params: dict[str, str] | None = None) -> str:
    out = _r(agent, space, f"draft = await task.learn({name!r}, params={params!r})\nprint(draft['source'])\n")
    return _source(out)


def _save(agent: EgoAgent, space: str, name: str, source: str, *, args: dict | None = None,
          skip: str | None = None) -> str:
    out = _r(agent, space, f"""
saved = await task.save_tool({name!r}, source={source!r}, args={args!r}, skip_verify={skip!r})
print(saved["verified"], saved["version"])
await task.finish(keep=[])
""")
    if not out.startswith("True" if skip is None else "False"):
        raise TraceFailed(f"the tool was not saved as expected:\n{out[-2000:]}")
    return out


def _call(agent: EgoAgent, url: str, space: str, tool: str, args: dict, listing: str, read: str) -> str:
    if listing == "round":
        listed_tool(agent, space, url, tool)
    out = _r(agent, space, f"""
result = await tools.{tool}(page, **{json.dumps(args)})
print("ANSWER", {read})
await task.finish(keep=[])
""")
    return answer_line(out)


# -- orders: a count over the pages of a filtered list -----------------------------------------------

ORDERS = [{"status": "Shipped", "country": "Germany", "search": "GmbH"},
          {"status": "Paid", "country": "France", "search": "SARL"},
          {"status": "Pending", "country": "Austria", "search": "AG"}]
ORDERS_DRIFT = {"status": "Shipped", "country": "Netherlands", "search": "B.V."}
PASSWORD = "wonderland-42"  # the agent's task gives it; passed on each call, never in the pack

_COUNT = ("() => { const heads = [...document.querySelectorAll('table thead th')].map(th => th.textContent.trim()); "
          "const col = heads.indexOf('Express'); return [...document.querySelectorAll('table tbody tr')]"
          ".filter(tr => tr.cells[col].textContent.trim() === 'Yes').length; }")


def _orders_tool(draft: str, origin: str) -> str:
    """The tool the agent writes from the draft (its locators, its waits' patterns)."""
    for needed in ("id=id_username", "id=id_password", 'role=button[name="Log in"]', "id=searchbar",
                   'role=link[name="Next ›"]'):
        if needed not in draft:
            raise TraceFailed(f"the draft has no {needed}:\n{draft}")
    lst = re.escape(origin) + "/admin/shop/order/"
    pat = "^" + lst + r"(\?|#|$)"
    return f'''"""Learned tool count_orders for {origin}/ (the agent's edit of the draft: a count over every page)."""

from ego_browser.learning.steps import Steps

ORIGIN = {origin!r}
COUNT = {_COUNT!r}


async def run(page, *, password, username='alice', status='Shipped', country='Germany', search='GmbH'):
    s = Steps(page, tool='count_orders', origin=ORIGIN)
    await s.goto(1, ORIGIN + '/admin/shop/order/')
    if '/login/' in await page.url():  # the session ended: sign in, the list follows
        await s.fill(2, 'id=id_username', username, expect={{'role': 'textbox', 'name': 'Username:'}})
        await s.fill(3, 'id=id_password', password, expect={{'role': 'textbox', 'name': 'Password:'}})
        await s.click(4, 'role=button[name="Log in"]', expect={{'role': 'button', 'name': 'Log in'}}, wait_url={pat!r})
    await s.click(5, f'role=link[name="{{status}}"]', expect={{'role': 'link', 'name': status}}, wait_url={pat!r})
    await s.click(6, f'role=link[name="{{country}}"]', expect={{'role': 'link', 'name': country}}, wait_url={pat!r})
    await s.fill(7, 'id=searchbar', search, expect={{'role': 'textbox', 'name': 'Search:'}})
    await s.press(8, 'id=searchbar', 'Enter', expect={{'role': 'textbox', 'name': 'Search:'}}, wait_url={pat!r})
    express, step = 0, 9
    while True:
        await s.wait(step, 'css=table thead th:has-text("Express")', state='attached',
                     expect={{'role': 'columnheader', 'name': 'Express'}})
        express += await page.evaluate(COUNT)
        if not await page.find('role=link[name="Next ›"]'):
            break
        await s.click(step + 1, 'role=link[name="Next ›"]', expect={{'role': 'link', 'name': 'Next ›'}},
                      wait_url={pat!r})
        step += 2
    result = await s.done(url={pat!r}, heading='Shop administration')
    result['express'] = express
    return result
'''


def orders_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    answer = trace_ego.orders(_NoFinish(agent), url, space, {**task, "user": "alice", "password": PASSWORD})
    draft = _learn(agent, space, "count_orders")
    origin = re.search(r"^ORIGIN = '([^']+)'", draft, re.M)
    if not origin:
        raise TraceFailed(f"no ORIGIN in the draft:\n{draft}")
    _save(agent, space, "count_orders", _orders_tool(draft, origin.group(1)), args={"password": PASSWORD, **task})
    return answer


def orders_again(agent: EgoAgent, url: str, space: str, task: dict, listing: str = "round") -> str:
    return _call(agent, url, space, "count_orders", {"password": PASSWORD, **task}, listing, 'result["express"]')


def orders_check(app: Any, v: dict, answer: object, _done: set) -> tuple[bool, str]:
    import app_orders

    code = {name: c for c, name in app_orders.COUNTRIES.items()}[v["country"]]
    want = sum(o["express"] for o in app.matching(v["status"].lower(), code, v["search"]))
    return str(answer).strip() == str(want), f"answer {answer!r}, expected {want}"


# -- the SPA set ------------------------------------------------------------------------------------

def _spa_first(key: str, agent: EgoAgent, url: str, space: str, task: dict) -> str:
    data = {**app_spa.TASKS[key], **task}
    return trace_ego_spa.TRACES[key](_Agent(agent), url, space, data)


def theme_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    _spa_first("spa_theme", agent, url, space, task)
    src = _learn(agent, space, "set_theme")
    if "fetch_json" in src:
        # the menu's choice went to the app's settings API: the draft calls it with the theme a
        # parameter already, its post-condition the API's answer; the agent saves it as it is
        return _save(agent, space, "set_theme", src)
    src = _param(src, task["theme"], "theme", task["theme"])
    return _save(agent, space, "set_theme", _done(src, "message=f'Theme: {theme}'"))


def rename_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    _spa_first("spa_rename", agent, url, space, task)
    src = _learn(agent, space, "rename_file", {"name": "new_name"})
    if "fetch_json" not in src:
        raise TraceFailed(f"the draft does not call the app's API:\n{src}")
    return _save(agent, space, "rename_file", _param(src, task["old"], "path", task["old"]),
                 skip="it renames the file: a second run finds it renamed already")


def run_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    answer = _spa_first("spa_run", agent, url, space, task)
    src = _learn(agent, space, "run_code", {"editor": "code"})
    if "fetch_json" in src:
        # the app's calls (new, save, run): the file's name, the dialog's default in the run, becomes
        # a parameter (a second "untitled.py" is refused); the run's answer carries the output
        src = _param(src, "untitled.py", "name", task["name"])
        _save(agent, space, "run_code", src, args={"name": "verify.py", "code": task["code"]})
        return answer
    lines = src.splitlines()
    at = next(i for i, line in enumerate(lines) if 'name="New File"' in line)
    lines.insert(at + 1, "    await s.fill(0, 'label=\"Name\"', name, expect={'role': 'textbox', 'name': 'Name'})")
    src = _with_param(_renumber("\n".join(lines) + "\n"), "name", task["name"])
    _save(agent, space, "run_code", _done(src, "message='Saved'", OUTPUT),
          args={"name": "verify.py", "code": task["code"]})
    return answer


def folder_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    _spa_first("spa_folder", agent, url, space, task)
    src = _learn(agent, space, "new_folder_file", {"name": "folder", "name_2": "file", "editor": "text"})
    if "fetch_json" not in src:
        src = _done(src, "message='Saved'")
    return _save(agent, space, "new_folder_file", src, args={"folder": "verify-dir", "file": "verify.txt", "text": "verify"})


def edit_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    answer = _spa_first("spa_edit", agent, url, space, task)
    src = _learn(agent, space, "edit_and_run")
    if "fetch_json" in src:
        _save(agent, space, "edit_and_run", _edit_api(src, task), skip="it edits the file: a second run would change it again")
        return answer
    m = re.search(r"^    await s\.fill\(\d+, 'role=textbox\[name=\"Editor\"\]', (\w+),", src, re.M)
    if not m:
        raise TraceFailed(f"no fill of the editor in the draft:\n{src}")
    param = m.group(1)
    src = re.sub(rf"{param}='(?:[^'\\]|\\.)*', |, {param}='(?:[^'\\]|\\.)*'", "", src, count=1)
    src = src.replace("async def run(page, *):", "async def run(page):")
    src = src.replace(m.group(0), "    text = await page.inner_text('role=textbox[name=\"Editor\"]')\n"
                      "    if old not in text:\n        raise ValueError(f'{old!r} is not in {file}')\n"
                      f"    {param} = text.replace(old, new)\n" + m.group(0))
    src = _with_param(_with_param(_param(src, task["file"], "file", task["file"]), "old", task["old"]), "new",
                      task["new"])
    _save(agent, space, "edit_and_run", _done(src, "message='Saved'", OUTPUT),
          skip="it edits the file: a second run would change it again")
    return answer


def _edit_api(src: str, task: dict) -> str:
    """The agent's edit of an API draft (save, run): the file a parameter, and the text saved is
    the file's text (read from the app's API, as the app itself does) with ``old`` replaced by ``new``."""
    m = re.search(r"'content': (\w+)\}", src)
    if not m:
        raise TraceFailed(f"no content sent in the draft:\n{src}")
    param = m.group(1)
    src = re.sub(rf"{param}='(?:[^'\\]|\\.)*', |, {param}='(?:[^'\\]|\\.)*'|{param}='(?:[^'\\]|\\.)*'", "", src, count=1)
    src = src.replace("async def run(page, *):", "async def run(page):")
    first = next(line for line in src.splitlines() if "await s.fetch_json(" in line)
    read = ("    import json\n    from urllib.parse import quote\n"
            "    got = await page.fetch(ORIGIN + '/api/contents/get?path=' + quote(file))\n"
            "    text = json.loads(got['body'])['content']\n"
            "    if old not in text:\n        raise ValueError(f'{old!r} is not in {file}')\n"
            f"    {param} = text.replace(old, new)\n")
    src = src.replace(first, read + first, 1)
    return _with_param(_with_param(_param(src, task["file"], "file", task["file"]), "old", task["old"]), "new",
                       task["new"])


#: what a tool read: its page's message (a UI tool), else the status of the app's API
MESSAGE_READ = '(result.get("read") or {}).get("message") or result.get("status")'
#: the output a run tool read off the page, or the run call's answer
OUTPUT_READ = 'result.get("output") or (result.get("answer") or {}).get("output")'


def _again(tool: str, args: Any, read: str = MESSAGE_READ):  # noqa: ANN202
    return lambda agent, url, space, task, listing="round": _call(agent, url, space, tool, args(task), listing, read)


def _spa_check(kind: str):  # noqa: ANN202
    def check(app: Any, v: dict, answer: object, _done: set) -> tuple[bool, str]:
        from app_spa import _code

        f, problems = app.files, []
        if kind == "theme" and app.settings["theme"] != v["theme"]:
            problems.append(f"theme {app.settings['theme']}")
        if kind == "rename" and (v["old"] in f or v["new"] not in f):
            problems.append(f"files now: {sorted(f)}")
        if kind == "folder":
            path = f"{v['folder']}/{v['file']}"
            if f.get(v["folder"], {}).get("type") != "folder" or (f.get(path, {}).get("content") or "").strip() != v["text"]:
                problems.append(f"{path}: {f.get(path)}")
        if kind in ("run", "edit"):
            path = v.get("name") or v.get("file")
            want = v["code"] if kind == "run" else v["content"]
            if _code((f.get(path) or {}).get("content") or "") != _code(want):
                problems.append(f"{path} saved as {(f.get(path) or {}).get('content')!r}")
            if not any(r["output"] == v["output"] and _code(r["code"]) == _code(want) for r in app.runs):
                problems.append(f"not run (runs: {app.runs[-2:]})")
            if str(answer or "").strip() != v["output"]:
                problems.append(f"answer {answer!r} (want {v['output']!r})")
        return not problems, "; ".join(problems) or "ok"
    return check


def _edit_variants(_app: Any) -> list[dict]:
    """The edits, each on the file as the attempts before left it (content and output worked out)."""
    from app_spa import START, run_code

    files, out = dict(START), []
    for file, old, new in (("analysis.py", "base = 10", "base = 100"), ("analysis.py", "x = 5", "x = 50"),
                           ("draft.py", "total = 3", "total = 4"), ("draft.py", "total = 4", "total = 5")):
        files[file] = files[file].replace(old, new, 1)
        out.append({"file": file, "old": old, "new": new, "content": files[file], "output": run_code(files[file])})
    return out


RUNS = [{"name": "untitled.py", "code": "base = 40\nx = 2\nprint(base + x)", "output": "42"},
        {"name": "sum.py", "code": "a = 6\nprint(a * 7 + 1)", "output": "43"},
        {"name": "square.py", "code": "n = 9\nprint(n * n)", "output": "81"},
        {"name": "drift.py", "code": "k = 5\nprint(k + k)", "output": "10"}]
FOLDERS = [{"folder": "data", "file": "notes.txt", "text": "hello from the agent"},
           {"folder": "logs", "file": "today.txt", "text": "all good"},
           {"folder": "drafts", "file": "idea.txt", "text": "try again"},
           {"folder": "archive", "file": "old.txt", "text": "keep this"}]
RENAMES = [{"old": "draft.py", "new": "report.py"}, {"old": "analysis.py", "new": "stats.py"},
           {"old": "README.md", "new": "NOTES.md"}, {"old": "report-2025.txt", "new": "report-q4.txt"}]
THEMES = [{"theme": "Dark"}, {"theme": "High Contrast"}, {"theme": "Light"}, {"theme": "Dark"}]


#: what a theme tool read: the status bar's message (a UI tool) or the settings API's answer
THEME_READ = '(result.get("read") or {}).get("message") or (result.get("answer") or {}).get("theme")'


def _drift_call(tool: str, args: Any, answer: str = "None"):  # noqa: ANN202
    return lambda v: f"result = await tools.{tool}(page, **{json.dumps(args(v))})\nanswer = {answer}\n"


def specs(spec: Any) -> dict[str, Any]:
    """The ``repeat.Spec`` of each task here (``spec`` is the class: no import cycle)."""
    run_args = lambda v: {"name": v["name"], "code": v["code"]}  # noqa: E731
    edit_args = lambda v: {"file": v["file"], "old": v["old"], "new": v["new"]}  # noqa: E731
    folder_args = lambda v: {"folder": v["folder"], "file": v["file"], "text": v["text"]}  # noqa: E731
    rename_args = lambda v: {"path": v["old"], "new_name": v["new"]}  # noqa: E731
    return {
        "orders": spec("count_orders", lambda app: [dict(v) for v in ORDERS], orders_first, orders_again,
                       orders_check, lambda app, used: dict(ORDERS_DRIFT),
                       _drift_call("count_orders", lambda v: {"password": PASSWORD, **v}, 'result["express"]')),
        "spa_theme": spec("set_theme", lambda app: THEMES[:3], theme_first, _again("set_theme", dict, THEME_READ),
                          _spa_check("theme"), lambda app, used: THEMES[3], _drift_call("set_theme", dict)),
        "spa_rename": spec("rename_file", lambda app: RENAMES[:3], rename_first,
                           _again("rename_file", rename_args, 'result["answer"]'), _spa_check("rename"),
                           lambda app, used: RENAMES[3], _drift_call("rename_file", rename_args)),
        "spa_run": spec("run_code", lambda app: RUNS[:3], run_first, _again("run_code", run_args, OUTPUT_READ),
                        _spa_check("run"), lambda app, used: RUNS[3],
                        _drift_call("run_code", run_args, OUTPUT_READ)),
        "spa_folder": spec("new_folder_file", lambda app: FOLDERS[:3], folder_first,
                           _again("new_folder_file", folder_args), _spa_check("folder"),
                           lambda app, used: FOLDERS[3], _drift_call("new_folder_file", folder_args)),
        "spa_edit": spec("edit_and_run", lambda app: _edit_variants(app)[:3], edit_first,
                         _again("edit_and_run", edit_args, OUTPUT_READ), _spa_check("edit"),
                         lambda app, used: _edit_variants(app)[3],
                         _drift_call("edit_and_run", edit_args, OUTPUT_READ)),
    }
