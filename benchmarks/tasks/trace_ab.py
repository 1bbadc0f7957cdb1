"""agent-browser traces: the CLI calls a competent agent would make, following its own guide.

The guide (``agent-browser skills get core``) teaches: ``open``, ``snapshot -i``, act on the
``@eN`` refs, re-snapshot after a page change, ``wait`` for the expected state, ``find role|
label|text`` when there is no ref, ``eval`` to extract data. One turn is one shell command; the
agent chains calls with ``&&`` when it already knows every argument (several fills from one
snapshot, an action and the wait after it), but writes no shell loops or conditionals. Refs are
parsed from the previous turn's output, never guessed.
"""

from __future__ import annotations

import re

from agents import AgentBrowser, TraceFailed


def ref(out: str, role: str, name: str) -> str:
    m = re.search(rf'^\s*- {re.escape(role)} "{re.escape(name)}[^"\n]*" \[[^\]\n]*?ref=(e\d+)', out, re.M)
    if not m:
        raise TraceFailed(f"no {role} {name!r} in the output:\n{out[-3000:]}")
    return "@" + m.group(1)


LOAD = ["wait", "--load", "load"]
#: a submit whose outcome the agent cannot know (next step, or the form again with errors, maybe
#: on the same URL): mark the document, submit, wait for a new one that has loaded
MARK = ["eval", "window.__before_submit = true"]
SETTLE = ["wait", "--fn", "!window.__before_submit && document.readyState === 'complete'"]


def _href(out: str, name: str) -> str:
    m = re.search(rf'link "{re.escape(name)}" \[[^\]\n]*?url=([^,\]\s]+)', out)
    if not m:
        raise TraceFailed(f"no href for link {name!r}:\n{out[-2000:]}")
    return m.group(1)


# -- task 1 ---------------------------------------------------------------------------------------


COUNT_JS = ("(() => { const heads = [...document.querySelectorAll('table thead th')].map(th => th.textContent.trim());"
            " const col = heads.indexOf('Express');"
            " const n = [...document.querySelectorAll('table tbody tr')].filter(tr => tr.cells[col].textContent.trim() === 'Yes').length;"
            " const next = [...document.querySelectorAll('a')].some(a => a.textContent.trim() === 'Next ›');"
            " return JSON.stringify({express: n, next}); })()")


def _count(out: str) -> tuple[int, bool]:
    m = re.search(r'\{\\?"express\\?":(\d+),\\?"next\\?":(true|false)\}', out)
    if not m:
        raise TraceFailed(f"no count in the eval output:\n{out[-2000:]}")
    return int(m.group(1)), m.group(2) == "true"


def orders(ab: AgentBrowser, url: str, task: dict) -> str:
    out = "".join(ab.shell(["open", url], ["snapshot", "-i"]))
    user, pw, button = ref(out, "textbox", "Username"), ref(out, "textbox", "Password"), ref(out, "button", "Log in")
    # a click does not wait for the navigation it starts: wait for the URL, then for its load
    out = "".join(ab.shell(["fill", user, task["user"]], ["fill", pw, task["password"]], ["click", button],
                           ["wait", "--fn", "!location.pathname.startsWith('/login/')"], LOAD, ["snapshot", "-i", "-u"]))
    orders_link, href = ref(out, "link", "Orders"), _href(out, "Orders")
    # the table is not in an interactive snapshot: read the page once in full to see its columns
    out = "".join(ab.shell(["click", orders_link], ["wait", "--url", href], LOAD, ["snapshot", "-u"]))
    status = ref(out, "link", task["status"])
    out = "".join(ab.shell(["click", status], ["wait", "--url", "**status=*"], LOAD,
                           ["find", "role", "link", "click", "--name", task["country"], "--exact"],
                           ["wait", "--url", "**country=*"], LOAD,
                           ["find", "label", "Search:", "fill", task["search"]], ["press", "Enter"],
                           ["wait", "--url", "**q=*"], LOAD, ["eval", COUNT_JS]))
    total, more = _count(out)
    page = 1
    while more:  # one turn per further page: the agent reads each count before deciding to go on
        page += 1
        out = "".join(ab.shell(["find", "text", "Next ›", "click"], ["wait", "--url", f"**p={page}*"], LOAD,
                               ["eval", COUNT_JS]))
        n, more = _count(out)
        total += n
    return str(total)


# -- task 2 ---------------------------------------------------------------------------------------


def booking(ab: AgentBrowser, url: str, task: dict) -> str:
    out = "".join(ab.shell(["open", url], ["snapshot", "-i"]))
    company, email = ref(out, "textbox", "Organisation"), ref(out, "textbox", "Contact email")
    phone, country, nxt = ref(out, "textbox", "Phone"), ref(out, "combobox", "Country"), ref(out, "button", "Next")
    # after a submit the agent reads the whole page: an interactive snapshot hides error messages
    out = "".join(ab.shell(["fill", company, task["company"]], ["fill", email, task["email"]],
                           ["fill", phone, task["phone"]], ["select", country, task["country"]], MARK, ["click", nxt], SETTLE,
                           ["snapshot"]))
    if "international format" not in out:
        raise TraceFailed(f"expected the phone validation error:\n{out[-2000:]}")
    phone, nxt = ref(out, "textbox", "Phone"), ref(out, "button", "Next")
    out = "".join(ab.shell(["fill", phone, task["phone_fixed"]], ["click", nxt], ["wait", "--url", "**/step2/"], LOAD,
                           ["snapshot", "-i"]))
    # a date input shows as three spinbuttons (Month, Day, Year); filling them reports "Done"
    # but leaves the input empty (agent-browser 0.41), which the next snapshot shows: the agent
    # then sets the value with eval, the usual fallback
    month, day, year = (ref(out, "spinbutton", part) for part in ("Month", "Day", "Year"))
    guests, room, nxt = ref(out, "spinbutton", "Number of guests"), ref(out, "combobox", "Room"), ref(out, "button", "Next")
    boxes = [ref(out, "checkbox", label) for label in task["services"]]
    y, mo, d = task["date"].split("-")
    out = "".join(ab.shell(["fill", month, mo], ["fill", day, d], ["fill", year, y], ["fill", guests, task["guests"]],
                           ["select", room, task["room"]], *(["check", b] for b in boxes), MARK, ["click", nxt], SETTLE,
                           ["snapshot", "-i"]))
    if 'heading "Documents"' not in out:
        if not re.search(r'spinbutton "Month[^"]*" \[[^\]]*\]: 0', out):
            raise TraceFailed(f"step 2 not accepted, and not for the date:\n{out[-2000:]}")
        nxt = ref(out, "button", "Next")
        set_date = ("(() => { const d = document.querySelector('input[type=date]'); d.value = %r;"
                    " d.dispatchEvent(new Event('input', {bubbles: true})); d.dispatchEvent(new Event('change', {bubbles: true}));"
                    " return d.value; })()" % task["date"])
        out = "".join(ab.shell(["eval", set_date], ["click", nxt], ["wait", "--url", "**/step3/"], LOAD,
                               ["snapshot", "-i"]))
    upload, notes = ref(out, "button", "Floor plan"), ref(out, "textbox", "Notes")
    terms, submit = ref(out, "checkbox", "I accept"), ref(out, "button", "Submit request")
    out = "".join(ab.shell(["upload", upload, task["file_path"]], ["fill", notes, task["notes"]], ["check", terms],
                           ["click", submit], ["wait", "--url", "**/done/**"], LOAD, ["snapshot", "-i"]))
    return out


# -- task 3 ---------------------------------------------------------------------------------------


def catalog(ab: AgentBrowser, url: str, task: dict) -> str:
    out = "".join(ab.shell(["open", url], ["snapshot", "-i"]))
    search = ref(out, "textbox", "Search")
    out = "".join(ab.shell(["fill", search, task["product"]], ["press", "Enter"], ["wait", "--url", "**q=*"], LOAD,
                           ["find", "role", "link", "click", "--name", task["product"], "--exact"],
                           ["wait", "--url", "**/change/"], LOAD, ["snapshot", "-i"]))
    price, show = ref(out, "textbox", "Price"), ref(out, "link", "Show")
    out = "".join(ab.shell(["fill", price, task["price"]], ["click", show], ["snapshot", "-i"]))
    stock, save = ref(out, "spinbutton", "Stock"), ref(out, "button", "Save and continue editing")
    out = "".join(ab.shell(["fill", stock, task["stock"]], ["click", save],
                           ["wait", "--text", "was changed successfully"], ["snapshot", "-i"]))
    m = re.search(r'textbox "Price[^"]*" \[[^\]]*\]: (\S+)', out)
    if not m:
        raise TraceFailed(f"no price in the snapshot:\n{out[-2000:]}")
    return m.group(1)


# -- task 4 ---------------------------------------------------------------------------------------


def comments(ab: AgentBrowser, url: str, task: dict) -> str:
    out = "".join(ab.shell(["open", url], ["snapshot", "-i"]))
    search = ref(out, "textbox", "Search")
    out = "".join(ab.shell(["fill", search, task["author"]], ["press", "Enter"], ["wait", "--url", "**q=*"], LOAD,
                           ["snapshot", "-i"]))
    boxes = re.findall(rf'checkbox "[^"]* by {re.escape(task["author"])}" \[[^\]\n]*?ref=(e\d+)', out)
    if not boxes:
        raise TraceFailed(f"no rows by {task['author']}:\n{out[-2000:]}")
    action, go = ref(out, "combobox", "Action"), ref(out, "button", "Go")
    out = "".join(ab.shell(*(["check", "@" + b] for b in boxes), ["select", action, "Delete selected comments"],
                           ["click", go], ["wait", "--text", "Are you sure?"], ["snapshot", "-i"]))
    yes = ref(out, "button", "Yes")
    out = "".join(ab.shell(["click", yes], ["wait", "--text", "Successfully deleted"]))
    return out


# -- task 5 ---------------------------------------------------------------------------------------


def tickets(ab: AgentBrowser, url: str, task: dict) -> str:
    ab.shell(["open", url], ["snapshot", "-i"])
    out = "".join(ab.shell(["find", "role", "link", "click", "--name", task["ticket"], "--exact"],
                           ["wait", "--url", "**/change/"], LOAD, ["snapshot", "-i"]))
    customer = ref(out, "combobox", "Customer")
    out = "".join(ab.shell(["fill", customer, task["customer_typed"]], ["wait", "--text", task["customer"]],
                           ["snapshot", "-i"]))
    option, lookup = ref(out, "option", task["customer"]), ref(out, "link", "Look up assignee")
    # the popup becomes the active tab: its snapshot comes next
    out = "".join(ab.shell(["click", option], ["click", lookup], ["snapshot", "-i"]))
    person = ref(out, "link", task["agent"])
    # when the popup closes itself, the opener is active again
    out = "".join(ab.shell(["click", person], ["wait", "--url", "**/change/"], ["snapshot", "-i"]))
    if not re.search(rf'combobox "Customer[^"]*" \[[^\]]*\]: {re.escape(task["customer"])}', out) or \
            not re.search(r'textbox "Assignee[^"]*" \[[^\]]*\]: \d+', out):
        raise TraceFailed(f"customer or assignee not set:\n{out[-2000:]}")
    save = ref(out, "button", "Save")
    return "".join(ab.shell(["click", save], ["wait", "--text", "was changed successfully"]))


TRACES = {"orders": orders, "booking": booking, "catalog": catalog, "comments": comments, "tickets": tickets}


def _spa() -> None:
    import trace_ab_spa  # the SPA set

    TRACES.update(trace_ab_spa.TRACES)


_spa()
