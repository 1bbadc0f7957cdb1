"""ego_browser traces of the SPA set (app_spa.py): an agent following the usage guide.

As in trace_ego.py, refs come from the previous round's output only. What the guide teaches
for single-page apps: ``wait_for_settled()`` after ``goto`` or an action that reaches the
server, before the look; several actions per round, refs from the last look (the app re-draws
its toolbar and editor after a save, so a later action in the same round uses a ref whose
node was replaced). Opening a menu or a dialog is local: no settle wait before that look.

Every round's outcome is recorded on the agent's ``Cost`` (README.md defines the counters):
- a round that fails with ``EGO_STALE_REF`` is a *stale-ref failure*: the agent looks again
  and redoes the step from the refs it now sees (a turn each, as for a real agent);
- a look that lacks what the next step needs is followed by another (settle, look): each
  extra look is a *re-look*; no action comes between, so only a page still drawing explains it;
- a look whose header says ``(changing: ...)`` is counted as a *changing look*.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agents import EgoAgent, TraceFailed

# (trace_ego.py imports this module to add these traces to its TRACES: nothing is imported back)
#: state marks a snapshot may print between the name and the ref ("[checked]", "[required]", ...)
STATES = r'(?: \[(?!ref=)[^\]\n]*\])*'
HEAD = 'task = await task_space({space!r})\npage = task.page("p1")\n'

SETTLE = "await page.wait_for_settled()\n"
LOOK = "print(await page.snapshot(interactive=True))\n"
FULL = "print(await page.snapshot())\n"
MAX_RELOOKS = 4

#: a need: (role, name prefix) of a snapshot line, or a regex the look must contain
Need = tuple[str, str] | re.Pattern[str]


def ref(out: str, role: str, name: str) -> str:
    """``@N`` of ``role "name..." [ref=N``, or of an unnamed ``role [ref=N]: name...`` (a node whose
    text is printed after it, like a menu item whose label is a child element; in a default look
    that text is the first line under it)."""
    m = (re.search(rf'^\s*{re.escape(role)} "{re.escape(name)}[^"\n]*"{STATES} \[ref=(\d+)', out, re.M)
         or re.search(rf'^\s*{re.escape(role)}{STATES} \[ref=(\d+)\]: {re.escape(name)}\b', out, re.M)
         # a default look prints that text on the lines under the node
         or re.search(rf'^( *){re.escape(role)}{STATES} \[ref=(\d+)\]\n\1 +(?:text )?"{re.escape(name)}\b', out, re.M))
    if not m:
        raise TraceFailed(f"no {role} {name!r} in the output:\n{out[-3000:]}")
    return "@" + m.group(m.lastindex or 1)


def has(out: str, need: Need) -> bool:
    if isinstance(need, re.Pattern):
        return bool(need.search(out))
    try:
        ref(out, *need)
    except TraceFailed:
        return False
    return True


class Agent:
    """One task's rounds in one task space, with the SPA counters."""

    def __init__(self, agent: EgoAgent, space: str) -> None:
        self.agent, self.space, self.cost = agent, space, agent.cost

    def round(self, body: str) -> str:
        out = self.agent.round(HEAD.format(space=self.space) + body)
        self.cost.changing_looks += len(re.findall(r"^\[p\d[^\n]*\(changing: ", out, re.M))
        return out

    def step(self, last: str, body_of: Callable[[str], str], *needs: Need, look: str | None = None) -> str:
        """Run ``body_of(last)``; on a stale ref, look again and redo it from the new look; then
        look again (the same kind of look) until every need is met: re-looks."""
        body = body_of(last)
        again = SETTLE + (look or (FULL if FULL in body else LOOK))
        try:
            out = self.round(body)
        except TraceFailed as exc:
            code = re.search(r"EGO_[A-Z_]+", str(exc))
            self.cost.failed_rounds.append(code.group(0) if code else "error")
            if not code or code.group(0) != "EGO_STALE_REF":
                raise
            self.cost.stale_failures += 1
            out = self.round(body_of(self.round(SETTLE + LOOK)))
        for _ in range(MAX_RELOOKS):
            if all(has(out, n) for n in needs):
                return out
            self.cost.relooks += 1
            out = self.round(again)
        missing = [n for n in needs if not has(out, n)]
        if missing:
            raise TraceFailed(f"still missing {missing} after {MAX_RELOOKS} re-looks:\n{out[-3000:]}")
        return out



FINISH = "await task.finish(keep=[])\n"
def output_of(out: str) -> str:
    """The text under ``region "Output"`` of a default look."""
    m = re.search(r'^(\s*)region "Output"[^\n]*\n\1 +(?:text )?"([^"\n]*)"', out, re.M)
    if not m:
        raise TraceFailed(f"no output in the look:\n{out[-2000:]}")
    return m.group(2)


OUTPUT = re.compile(r'region "Output"[^\n]*\n\s+(?:text )?"')
#: the editor, once its model is there (until then a read-only placeholder says "Loading…")
EDITOR = re.compile(r'textbox "Editor"(?![^\n]*Loading)[^\n]*\[ref=')


def _open(a: Agent, url: str, *needs: Need) -> str:
    return a.step("", lambda _: f"await page.goto({url!r})\n" + SETTLE + LOOK, *needs)


# -- the tasks ------------------------------------------------------------------------------------


def spa_run(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    a = Agent(agent, space)
    out = _open(a, url, ("button", "New File"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'button', 'New File')!r})\n" + LOOK,
                 ("textbox", "Name"), ("button", "Create"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'button', 'Create')!r})\n" + SETTLE + LOOK,
                 EDITOR, ("button", "Run"), ("button", "Save"))
    # save, then run with the Run ref of the same look: the save re-drew the toolbar
    out = a.step(out, lambda o: f"""
await page.fill({ref(o, 'textbox', 'Editor')!r}, {task['code']!r})
await page.click({ref(o, 'button', 'Save')!r})
{SETTLE}await page.click({ref(o, 'button', 'Run')!r})
{SETTLE}{FULL}{FINISH}""", OUTPUT)
    return output_of(out)


def spa_rename(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    a = Agent(agent, space)
    out = _open(a, url, ("option", task["old"]))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'option', task['old'])!r}, button='right')\n" + LOOK,
                 ("listitem", "Rename"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'listitem', 'Rename')!r})\n" + LOOK,
                 ("textbox", "Name"), ("button", "Rename"))
    out = a.step(out, lambda o: f"""
await page.fill({ref(o, 'textbox', 'Name')!r}, {task['new']!r})
await page.click({ref(o, 'button', 'Rename')!r})
{SETTLE}{LOOK}{FINISH}""", ("option", task["new"]))
    return out


def spa_folder(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    a = Agent(agent, space)
    out = _open(a, url, ("button", "New Folder"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'button', 'New Folder')!r})\n" + LOOK,
                 ("textbox", "Name"), ("button", "Create"))
    out = a.step(out, lambda o: f"""
await page.fill({ref(o, 'textbox', 'Name')!r}, {task['folder']!r})
await page.click({ref(o, 'button', 'Create')!r})
{SETTLE}{LOOK}""", ("option", task["folder"]))
    out = a.step(out, lambda o: f"await page.dblclick({ref(o, 'option', task['folder'])!r})\n" + SETTLE + LOOK,
                 ("link", task["folder"]))
    # the folder is empty: a right click on the list opens the folder's menu (the same menu
    # element as a file's, its items re-used)
    out = a.step(out, lambda o: f"await page.click({ref(o, 'listbox', 'Files')!r}, button='right')\n" + LOOK,
                 ("listitem", "New File"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'listitem', 'New File')!r})\n" + LOOK,
                 ("textbox", "Name"), ("button", "Create"))
    out = a.step(out, lambda o: f"""
await page.fill({ref(o, 'textbox', 'Name')!r}, {task['file']!r})
await page.click({ref(o, 'button', 'Create')!r})
{SETTLE}{LOOK}""", EDITOR, ("button", "Save"))
    out = a.step(out, lambda o: f"""
await page.fill({ref(o, 'textbox', 'Editor')!r}, {task['text']!r})
await page.click({ref(o, 'button', 'Save')!r})
{SETTLE}{FULL}{FINISH}""", re.compile(r'(?:^|\s)(?:text )?"Saved', re.M))
    return out


def spa_edit(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    a = Agent(agent, space)
    out = _open(a, url, ("option", task["file"]))
    # the editor's text is read off the look (its value), edited, written back whole
    read = LOOK + "print('CODE', repr(await page.inner_text('role=textbox[name=\"Editor\"]')))\n"
    out = a.step(out, lambda o: f"await page.dblclick({ref(o, 'option', task['file'])!r})\n" + SETTLE + read,
                 EDITOR, ("button", "Run"), re.compile(r"^CODE '", re.M), look=read)
    code = eval(re.search(r"^CODE ('.*')$", out, re.M).group(1))  # noqa: S307 (a repr the round printed)
    if task["old"] not in code:
        raise TraceFailed(f"{task['old']!r} not in the editor: {code!r}")
    new = code.replace(task["old"], task["new"])
    out = a.step(out, lambda o: f"""
await page.fill({ref(o, 'textbox', 'Editor')!r}, {new!r})
await page.click({ref(o, 'button', 'Save')!r})
{SETTLE}await page.click({ref(o, 'button', 'Run')!r})
{SETTLE}{FULL}{FINISH}""", OUTPUT)
    return output_of(out)


def spa_theme(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    a = Agent(agent, space)
    out = _open(a, url, ("menuitem", "Settings"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'menuitem', 'Settings')!r})\n" + LOOK,
                 ("listitem", "Theme"))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'listitem', 'Theme')!r})\n" + LOOK,
                 ("listitem", task["theme"]))
    out = a.step(out, lambda o: f"await page.click({ref(o, 'listitem', task['theme'])!r})\n" + SETTLE + FULL + FINISH,
                 re.compile(rf"Theme: {task['theme']}"))
    return out


TRACES = {"spa_run": spa_run, "spa_rename": spa_rename, "spa_folder": spa_folder, "spa_edit": spa_edit,
          "spa_theme": spa_theme}
