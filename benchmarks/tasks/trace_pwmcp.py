"""Playwright MCP traces: the tool calls a competent agent makes with ``@playwright/mcp``, as its
tools' descriptions teach.

``browser_navigate``, then ``browser_snapshot`` to see the page (an action's own result carries
only a link to a snapshot file, which an agent without a shell cannot open), then act on the
snapshot's refs: ``browser_click``, ``browser_type`` (``submit`` presses Enter),
``browser_fill_form`` for several fields at once, ``browser_select_option``, ``browser_file_upload``
once a click opened the file chooser, ``browser_tabs`` for a popup, ``browser_wait_for`` text,
``browser_evaluate`` to extract data. Where the agent already knows a control's text from the
task (a filter link, "Next ›") it names it with a selector (``target`` takes "a unique element
selector" too) instead of taking a snapshot to find its ref, as the agent-browser traces use
``find``. One call is one turn; refs are parsed from the previous output, never guessed.
"""

from __future__ import annotations

import json
import re

from agents import TraceFailed
from mcp_agents import PlaywrightMcp

STATES = r'(?: \[(?!ref=)[^\]\n]*\])*'


def ref(out: str, role: str, name: str) -> str:
    """The ref of ``- role "name..." [ref=eN]`` (name matched as a prefix; YAML may quote the line)."""
    m = re.search(rf'^\s*- \'?{re.escape(role)} "{re.escape(name)}[^"\n]*"{STATES} \[ref=(\w+)\]', out, re.M)
    if not m:
        raise TraceFailed(f"no {role} {name!r} in the output:\n{out[-3000:]}")
    return m.group(1)


def value(out: str, role: str, name: str) -> str:
    """The value a snapshot shows after a control: ``- textbox "Price" [ref=e5]: 12.50``."""
    m = re.search(rf'^\s*- \'?{re.escape(role)} "{re.escape(name)}[^"\n]*"{STATES} \[ref=\w+\]\'?: "?([^"\n]*)"?$',
                  out, re.M)
    if not m:
        raise TraceFailed(f"no value of {role} {name!r} in the output:\n{out[-3000:]}")
    return m.group(1).strip()


def _click(pw: PlaywrightMcp, element: str, target: str) -> str:
    return pw.call("browser_click", {"element": element, "target": target})


def _look(pw: PlaywrightMcp) -> str:
    return pw.call("browser_snapshot", {})


def _field(name: str, target: str, value: str, kind: str = "textbox") -> dict:
    return {"name": name, "type": kind, "target": target, "value": value}


def _result(out: str) -> str:
    """The ``### Result`` section of a call (``browser_evaluate``'s return value)."""
    m = re.search(r"^### Result\n(.*?)(?:\n### |\Z)", out, re.S | re.M)
    if not m:
        raise TraceFailed(f"no result in the output:\n{out[-2000:]}")
    return m.group(1).strip()


# -- task 1: sign in, filter, search, page through, count ---------------------------------------

COUNT_JS = ("() => { const heads = [...document.querySelectorAll('table thead th')].map(th => th.textContent.trim());"
            " const col = heads.indexOf('Express');"
            " const n = [...document.querySelectorAll('table tbody tr')].filter(tr => tr.cells[col].textContent.trim() === 'Yes').length;"
            " const next = [...document.querySelectorAll('a')].some(a => a.textContent.trim() === 'Next ›');"
            " return {express: n, next}; }")


def _count(out: str) -> tuple[int, bool]:
    data = json.loads(_result(out))
    return int(data["express"]), bool(data["next"])


def orders(pw: PlaywrightMcp, url: str, task: dict) -> str:
    pw.call("browser_navigate", {"url": url})
    out = _look(pw)
    user, pwd, button = ref(out, "textbox", "Username"), ref(out, "textbox", "Password"), ref(out, "button", "Log in")
    pw.call("browser_fill_form", {"fields": [_field("Username", user, task["user"]),
                                             _field("Password", pwd, task["password"])]})
    _click(pw, "Log in button", button)
    out = _look(pw)
    _click(pw, "Orders link", ref(out, "link", "Orders"))
    # the list page: its filters, search box and columns
    out = _look(pw)
    _click(pw, f"{task['status']} filter link", ref(out, "link", task["status"]))
    _click(pw, f"{task['country']} filter link", f'role=link[name="{task["country"]}"]')
    out = _look(pw)
    pw.call("browser_type", {"element": "Search box", "target": ref(out, "textbox", "Search"), "text": task["search"],
                             "submit": True})
    total, more = _count(pw.call("browser_evaluate", {"function": COUNT_JS}))
    while more:  # one call per further page and one to count it: the agent reads each count
        _click(pw, "Next page link", "text=Next ›")
        n, more = _count(pw.call("browser_evaluate", {"function": COUNT_JS}))
        total += n
    return str(total)


# -- task 2: a three-step form with a validation error and an upload ----------------------------


def booking(pw: PlaywrightMcp, url: str, task: dict) -> str:
    pw.call("browser_navigate", {"url": url})
    out = _look(pw)
    pw.call("browser_fill_form", {"fields": [
        _field("Organisation", ref(out, "textbox", "Organisation"), task["company"]),
        _field("Contact email", ref(out, "textbox", "Contact email"), task["email"]),
        _field("Phone", ref(out, "textbox", "Phone"), task["phone"]),
        _field("Country", ref(out, "combobox", "Country"), task["country"], "combobox")]})
    _click(pw, "Next button", ref(out, "button", "Next"))
    out = _look(pw)
    # the form says how it wants the phone number; the agent rewrites it in that format
    if "international format" not in out:
        raise TraceFailed(f"expected the phone validation error:\n{out[-2000:]}")
    pw.call("browser_type", {"element": "Phone", "target": ref(out, "textbox", "Phone"), "text": task["phone_fixed"]})
    _click(pw, "Next button", ref(out, "button", "Next"))
    out = _look(pw)
    fields = [_field("Event date", ref(out, "textbox", "Event date"), task["date"]),
              _field("Number of guests", ref(out, "spinbutton", "Number of guests"), task["guests"]),
              _field("Room", ref(out, "combobox", "Room"), task["room"], "combobox")]
    fields += [_field(label, ref(out, "checkbox", label), "true", "checkbox") for label in task["services"]]
    pw.call("browser_fill_form", {"fields": fields})
    _click(pw, "Next button", ref(out, "button", "Next"))
    out = _look(pw)
    terms, submit = ref(out, "checkbox", "I accept"), ref(out, "button", "Submit request")
    notes = ref(out, "textbox", "Notes")
    # the upload: a click opens the file chooser, browser_file_upload answers it
    _click(pw, "Floor plan file input", ref(out, "button", "Floor plan"))
    pw.call("browser_file_upload", {"paths": [task["file_path"]]})
    pw.call("browser_fill_form", {"fields": [_field("Notes", notes, task["notes"]),
                                             _field("I accept", terms, "true", "checkbox")]})
    _click(pw, "Submit request button", submit)
    return _look(pw)


# -- task 3: edit a record, save and continue, verify -------------------------------------------


def catalog(pw: PlaywrightMcp, url: str, task: dict) -> str:
    pw.call("browser_navigate", {"url": url})
    out = _look(pw)
    pw.call("browser_type", {"element": "Search box", "target": ref(out, "textbox", "Search"), "text": task["product"],
                             "submit": True})
    _click(pw, f"{task['product']} link", f'role=link[name="{task["product"]}"]')
    out = _look(pw)
    price = ref(out, "textbox", "Price")
    _click(pw, "Show link of the collapsed fieldset", ref(out, "link", "Show"))
    out = _look(pw)
    pw.call("browser_fill_form", {"fields": [_field("Price", price, task["price"]),
                                             _field("Stock", ref(out, "spinbutton", "Stock"), task["stock"])]})
    _click(pw, "Save and continue editing button", ref(out, "button", "Save and continue editing"))
    out = _look(pw)
    if "was changed successfully" not in out:
        raise TraceFailed(f"no success message:\n{out[-2000:]}")
    return value(out, "textbox", "Price")


# -- task 4: bulk delete with a confirmation page -------------------------------------------------


def comments(pw: PlaywrightMcp, url: str, task: dict) -> str:
    pw.call("browser_navigate", {"url": url})
    out = _look(pw)
    pw.call("browser_type", {"element": "Search box", "target": ref(out, "textbox", "Search"), "text": task["author"],
                             "submit": True})
    out = _look(pw)
    # tick exactly the rows the spammer wrote (the search also found a comment that only mentions it)
    boxes = re.findall(rf'checkbox "([^"]* by {re.escape(task["author"])})"{STATES} \[ref=(\w+)\]', out)
    if not boxes:
        raise TraceFailed(f"no rows by {task['author']}:\n{out[-2000:]}")
    fields = [_field(name, r, "true", "checkbox") for name, r in boxes]
    fields.append(_field("Action", ref(out, "combobox", "Action"), "Delete selected comments", "combobox"))
    pw.call("browser_fill_form", {"fields": fields})
    _click(pw, "Go button", ref(out, "button", "Go"))
    out = _look(pw)
    if "Are you sure?" not in out:
        raise TraceFailed(f"no confirmation page:\n{out[-2000:]}")
    out = _click(pw, "Yes, I'm sure button", ref(out, "button", "Yes"))
    return pw.call("browser_wait_for", {"text": "Successfully deleted"})


# -- task 5: autocomplete and a lookup popup --------------------------------------------------------


def tickets(pw: PlaywrightMcp, url: str, task: dict) -> str:
    pw.call("browser_navigate", {"url": url})
    _click(pw, f"{task['ticket']} link", f'role=link[name="{task["ticket"]}"]')
    out = _look(pw)
    lookup = ref(out, "link", "Look up assignee")
    pw.call("browser_type", {"element": "Customer combobox", "target": ref(out, "combobox", "Customer"),
                             "text": task["customer_typed"]})
    # the suggestions come from a fetch: wait for the one wanted, then look
    pw.call("browser_wait_for", {"text": task["customer"]})
    out = _look(pw)
    _click(pw, f"{task['customer']} option", ref(out, "option", task["customer"]))
    # the popup opens as a new tab; the agent selects it, reads it, picks the person
    out = _click(pw, "Look up assignee link", lookup)
    tabs = re.findall(r"^- (\d+): (\(current\) )?\[([^\]]*)\]", out, re.M)
    popup = [i for i, current, title in tabs if not current]
    if popup:
        pw.call("browser_tabs", {"action": "select", "index": int(popup[-1])})
    out = _look(pw)
    _click(pw, f"{task['agent']} link", ref(out, "link", task["agent"]))
    # the popup closed itself: back on the ticket
    out = pw.call("browser_tabs", {"action": "select", "index": 0})
    out = _look(pw)
    if value(out, "combobox", "Customer") != task["customer"] or not value(out, "textbox", "Assignee"):
        raise TraceFailed(f"customer or assignee not set:\n{out[-2000:]}")
    _click(pw, "Save button", ref(out, "button", "Save"))
    return pw.call("browser_wait_for", {"text": "was changed successfully"})


TRACES = {"orders": orders, "booking": booking, "catalog": catalog, "comments": comments, "tickets": tickets}
