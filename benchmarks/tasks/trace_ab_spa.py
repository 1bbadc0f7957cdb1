"""agent-browser traces of the SPA set (app_spa.py), following its own guide.

The guide says to wait for the thing one expects (``wait --text``, ``wait @ref``, ``wait --url``)
and to keep ``wait --load networkidle`` for pages known to go quiet. Neither helps here (agent-
browser 0.41): ``wait --text`` does not look into shadow roots, where the file names live (it
timed out on "analysis.py" while the list showed it), and ``wait --load networkidle`` timed out
(25 s) after ``open`` of this app, which goes quiet; ``wait @ref`` needs a ref of what is not
drawn yet. So the agent looks, and when the look lacks what it needs, gives it a second and
looks again: what issue 29 saw agents do. A right click is
``hover`` then ``mouse down right`` / ``mouse up right`` (``click`` has no button option).
One turn is one shell command, ``&&``-chained calls whose arguments the agent already knows.

The counters are the ego traces' (trace_ego_spa.py): a turn that fails on a stale ref is
redone from a new look; a look lacking what the next step needs is followed by another
(``wait 1000 && snapshot -i``, "give it a second"): a re-look.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agents import AgentBrowser, TraceFailed

MAX_RELOOKS = 4
LOOK = ["snapshot", "-i"]
Need = tuple[str, str] | re.Pattern[str]


def ref(out: str, role: str, name: str) -> str:
    # the last match: a turn's output may hold several looks, the newest is last
    found = re.findall(rf'^\s*- {re.escape(role)} "{re.escape(name)}[^"\n]*" \[[^\]\n]*?ref=(e\d+)', out, re.M)
    if not found:
        raise TraceFailed(f"no {role} {name!r} in the output:\n{out[-3000:]}")
    return "@" + found[-1]


def has(out: str, need: Need) -> bool:
    if isinstance(need, re.Pattern):
        return bool(need.search(out))
    try:
        ref(out, *need)
    except TraceFailed:
        return False
    return True


class Agent:
    def __init__(self, ab: AgentBrowser) -> None:
        self.ab, self.cost = ab, ab.cost

    def turn(self, *cmds: list[str]) -> str:
        return "".join(self.ab.shell(*cmds))

    def step(self, last: str, cmds_of: Callable[[str], list[list[str]]], *needs: Need) -> str:
        cmds = cmds_of(last)
        again = cmds[-1] if cmds[-1][0] == "snapshot" else LOOK  # a re-look is the step's own kind of look
        try:
            out = self.turn(*cmds)
        except TraceFailed as exc:
            stale = bool(re.search(r"stale ref|ref .* (not found|no longer)", str(exc), re.I))
            self.cost.failed_rounds.append("stale ref" if stale else "error")
            if not stale:
                raise
            self.cost.stale_failures += 1
            out = self.turn(*cmds_of(self.turn(LOOK)))
        for _ in range(MAX_RELOOKS):
            if all(has(out, n) for n in needs):
                return out
            self.cost.relooks += 1
            out = self.turn(["wait", "1000"], again)
        missing = [n for n in needs if not has(out, n)]
        if missing:
            raise TraceFailed(f"still missing {missing} after {MAX_RELOOKS} re-looks:\n{out[-3000:]}")
        return out


def right_click(r: str) -> list[list[str]]:
    return [["hover", r], ["mouse", "down", "right"], ["mouse", "up", "right"]]


#: the editor, once its model is there (until then a read-only placeholder says "Loading…")
EDITOR = re.compile(r'textbox "Editor" \[[^\]\n]*ref=e\d+\](?!: Loading)')


def fill_editor(a: Agent, out: str, text: str) -> str:
    """``fill`` the editor and look; ``fill`` on this contenteditable adds to the text already
    there (agent-browser 0.41), which the look shows: then the guide's recipe for custom inputs
    (focus, select all, ``keyboard inserttext``), a failed turn and one more."""
    out = a.step(out, lambda o: [["fill", ref(o, "textbox", "Editor"), text], LOOK], EDITOR)
    if editor_text(out).strip() != text.strip():
        a.cost.failed_rounds.append("fill had no effect")
        out = a.step(out, lambda o: [["focus", ref(o, "textbox", "Editor")], ["press", "Control+a"],
                                     ["keyboard", "inserttext", text], LOOK], EDITOR)
        if editor_text(out).strip() != text.strip():
            raise TraceFailed(f"the editor does not hold the text:\n{out[-2000:]}")
    return out


def editor_text(out: str) -> str:
    """The editor's value as the look prints it: after ``textbox "Editor" [...]: ``, up to the
    next node line."""
    m = re.search(r'- textbox "Editor" \[[^\]\n]*\]: (.*?)(?=\n\s*- |\Z)', out, re.S)
    if not m:
        raise TraceFailed(f"no editor value in the look:\n{out[-2000:]}")
    return m.group(1).rstrip("\n")


OUTPUT = re.compile(r'region "Output"[^\n]*\n\s+- (?:StaticText|text) "([^"\n]*)"')


def output_of(out: str) -> str:
    found = OUTPUT.findall(out)
    if not found:
        raise TraceFailed(f"no output in the look:\n{out[-2000:]}")
    return found[-1]


def _open(a: Agent, url: str, *needs: Need) -> str:
    return a.step("", lambda _: [["open", url], LOOK], *needs)


# -- the tasks ------------------------------------------------------------------------------------


def spa_run(ab: AgentBrowser, url: str, task: dict) -> str:
    a = Agent(ab)
    out = _open(a, url, ("button", "New File"))
    out = a.step(out, lambda o: [["click", ref(o, "button", "New File")], LOOK], ("textbox", "Name"),
                 ("button", "Create"))
    out = a.step(out, lambda o: [["click", ref(o, "button", "Create")], LOOK],
                 EDITOR, ("button", "Run"), ("button", "Save"))
    out = fill_editor(a, out, task["code"])
    out = a.step(out, lambda o: [["click", ref(o, "button", "Save")], ["click", ref(o, "button", "Run")], ["snapshot"]],
                 OUTPUT)
    return output_of(out)


def spa_rename(ab: AgentBrowser, url: str, task: dict) -> str:
    a = Agent(ab)
    out = _open(a, url, ("option", task["old"]))
    out = a.step(out, lambda o: [*right_click(ref(o, "option", task["old"])), LOOK], ("listitem", "Rename"))
    out = a.step(out, lambda o: [["click", ref(o, "listitem", "Rename")], LOOK], ("textbox", "Name"),
                 ("button", "Rename"))
    return a.step(out, lambda o: [["fill", ref(o, "textbox", "Name"), task["new"]], ["click", ref(o, "button", "Rename")],
                                  LOOK], ("option", task["new"]))


def spa_folder(ab: AgentBrowser, url: str, task: dict) -> str:
    a = Agent(ab)
    out = _open(a, url, ("button", "New Folder"))
    out = a.step(out, lambda o: [["click", ref(o, "button", "New Folder")], LOOK], ("textbox", "Name"),
                 ("button", "Create"))
    out = a.step(out, lambda o: [["fill", ref(o, "textbox", "Name"), task["folder"]],
                                 ["click", ref(o, "button", "Create")], LOOK], ("option", task["folder"]))
    out = a.step(out, lambda o: [["dblclick", ref(o, "option", task["folder"])], LOOK], ("link", task["folder"]))
    out = a.step(out, lambda o: [*right_click(ref(o, "listbox", "Files")), LOOK], ("listitem", "New File"))
    out = a.step(out, lambda o: [["click", ref(o, "listitem", "New File")], LOOK], ("textbox", "Name"),
                 ("button", "Create"))
    out = a.step(out, lambda o: [["fill", ref(o, "textbox", "Name"), task["file"]], ["click", ref(o, "button", "Create")],
                                 LOOK], EDITOR, ("button", "Save"))
    out = fill_editor(a, out, task["text"])
    return a.step(out, lambda o: [["click", ref(o, "button", "Save")], ["snapshot"]], re.compile(r'"Saved"'))


def spa_edit(ab: AgentBrowser, url: str, task: dict) -> str:
    a = Agent(ab)
    out = _open(a, url, ("option", task["file"]))
    out = a.step(out, lambda o: [["dblclick", ref(o, "option", task["file"])], LOOK],
                 EDITOR, ("button", "Run"))
    code = editor_text(out)
    if task["old"] not in code:
        raise TraceFailed(f"{task['old']!r} not in the editor: {code!r}")
    new = code.replace(task["old"], task["new"])
    out = fill_editor(a, out, new)
    out = a.step(out, lambda o: [["click", ref(o, "button", "Save")], ["click", ref(o, "button", "Run")], ["snapshot"]],
                 OUTPUT)
    return output_of(out)


def spa_theme(ab: AgentBrowser, url: str, task: dict) -> str:
    a = Agent(ab)
    out = _open(a, url, ("menuitem", "Settings"))
    out = a.step(out, lambda o: [["click", ref(o, "menuitem", "Settings")], LOOK], ("listitem", "Theme"))
    out = a.step(out, lambda o: [["click", ref(o, "listitem", "Theme")], LOOK], ("listitem", task["theme"]))
    return a.step(out, lambda o: [["click", ref(o, "listitem", task["theme"])], ["snapshot"]],
                  re.compile(rf"Theme: {task['theme']}"))


TRACES = {"spa_run": spa_run, "spa_rename": spa_rename, "spa_folder": spa_folder, "spa_edit": spa_edit,
          "spa_theme": spa_theme}
