"""ego_browser traces: the rounds a competent agent would run, reading only what each printed.

Each round is what the usage guide (``python -m ego_browser skill``) teaches: several actions
per round, wait for the expected state, print a snapshot (or the values needed) last. Refs and
locators for the next round are parsed from the previous output with regexes; the only
knowledge an agent brings is the task text (``PROMPT`` of each app) and the URL it was given.
"""

from __future__ import annotations

import json
import re

from agents import EgoAgent, TraceFailed


#: state marks a snapshot may print between the name and the ref ("[checked]", "[required]", ...)
STATES = r'(?: \[(?!ref=)[^\]\n]*\])*'


def ref(out: str, role: str, name: str) -> str:
    """``@N`` of the snapshot line ``role "name..." [ref=N`` (name matched as a prefix)."""
    m = re.search(rf'^\s*{re.escape(role)} "{re.escape(name)}[^"\n]*"{STATES} \[ref=(\d+)', out, re.M)
    if not m:
        raise TraceFailed(f"no {role} {name!r} in the output:\n{out[-3000:]}")
    return "@" + m.group(1)


def loc(out: str, role: str, name: str) -> str:
    """The ``loc=`` of a snapshot line (a selector that survives navigation)."""
    m = re.search(rf'^\s*{re.escape(role)} "{re.escape(name)}[^"\n]*"{STATES} \[ref=\d+, loc=(.+?)(?:, url=[^\]\n]*)?\](?:: .*)?$',
                  out, re.M)
    if not m:
        raise TraceFailed(f"no {role} {name!r} with a loc= in the output:\n{out[-3000:]}")
    return "loc=" + m.group(1)


def answer(out: str) -> str:
    m = re.search(r"^ANSWER (.*)$", out, re.M)
    if not m:
        raise TraceFailed(f"no ANSWER line:\n{out[-3000:]}")
    return m.group(1).strip()


HEAD = 'task = await task_space({space!r})\npage = task.page("p1")\n'


def _r(agent: EgoAgent, space: str, body: str) -> str:
    return agent.round(HEAD.format(space=space) + body)


# -- task 1: sign in, filter, search, page through, count ---------------------------------------


def orders(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(interactive=True))\n")
    user, pw, button = ref(out, "textbox", "Username"), ref(out, "textbox", "Password"), ref(out, "button", "Log in")
    out = _r(agent, space, f"""
await page.fill({user!r}, {task['user']!r})
await page.fill({pw!r}, {task['password']!r})
await page.click({button!r})
await page.wait_for_url(lambda u: "/login/" not in u)
await page.wait_for_load_state()
print(await page.snapshot(interactive=True))
""")
    orders_link = ref(out, "link", "Orders")
    out = _r(agent, space, f"""
await page.click({orders_link!r})
await page.wait_for_url("**/admin/shop/order/")
await page.wait_for_load_state()
print(await page.snapshot(scope="full_page", locators=True))
""")
    status = ref(out, "link", task["status"])
    search = loc(out, "textbox", "Search")
    # the filter links carry the current filters in their href, so click by name, one page at a time;
    # then count the "Express" column over every page of the result
    out = _r(agent, space, f"""
await page.click({status!r})
await page.wait_for_url("**status=*")
await page.click('loc=role:link[name="{task['country']}"]')
await page.wait_for_url("**country=*")
await page.fill({search!r}, {task['search']!r})
await page.press({search!r}, "Enter")
await page.wait_for_url("**q=*")
await page.wait_for_load_state()
count_js = '''() => {{
  const heads = [...document.querySelectorAll("table thead th")].map(th => th.textContent.trim());
  const col = heads.indexOf("Express");
  return [...document.querySelectorAll("table tbody tr")].filter(tr => tr.cells[col].textContent.trim() === "Yes").length;
}}'''
total, pages = 0, []
while True:
    n = await page.evaluate(count_js)
    total += n
    pages.append(((await page.url()).split("?")[1], n))
    nxt = await page.find("text=Next ›")
    if not nxt:
        break
    await page.click(nxt[0]["ref"])
    await page.wait_for_url(lambda u, seen=len(pages): f"p={{seen + 1}}" in u)
    await page.wait_for_load_state()
print(pages)
print("ANSWER", total)
await task.finish(keep=[])
""")
    return answer(out)


# -- task 2: a three-step form with a validation error and an upload ----------------------------


def booking(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(scope='full_page', interactive=True))\n")
    company, email = ref(out, "textbox", "Organisation"), ref(out, "textbox", "Contact email")
    phone, country, nxt = ref(out, "textbox", "Phone"), ref(out, "combobox", "Country"), ref(out, "button", "Next")
    out = _r(agent, space, f"""
await page.fill({company!r}, {task['company']!r})
await page.fill({email!r}, {task['email']!r})
await page.fill({phone!r}, {task['phone']!r})
await page.select_option({country!r}, {task['country']!r})
# the outcome is unknown (next step or errors, maybe on the same URL): the click waits for the
# navigation it starts, wait_for_load_state for that new document
await page.click({nxt!r})
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page'))
""")
    # the form says how it wants the phone number; the agent rewrites it in that format
    if "international format" not in out:
        raise TraceFailed(f"expected the phone validation error:\n{out[-2000:]}")
    phone, nxt = ref(out, "textbox", "Phone"), ref(out, "button", "Next")
    out = _r(agent, space, f"""
await page.fill({phone!r}, {task['phone_fixed']!r})
await page.click({nxt!r})
await page.wait_for_url("**/step2/")
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page', interactive=True))
""")
    date, guests = ref(out, "textbox", "Event date"), ref(out, "spinbutton", "Number of guests")
    room, nxt = ref(out, "combobox", "Room"), ref(out, "button", "Next")
    boxes = [ref(out, "checkbox", label) for label in task["services"]]
    out = _r(agent, space, f"""
await page.fill({date!r}, {task['date']!r})
await page.fill({guests!r}, {task['guests']!r})
await page.select_option({room!r}, {task['room']!r})
for box in {boxes!r}:
    await page.click(box)
await page.click({nxt!r})
await page.wait_for_url("**/step3/")
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page', interactive=True))
""")
    upload, notes = ref(out, "button", "Floor plan"), ref(out, "textbox", "Notes")
    terms, submit = ref(out, "checkbox", "I accept"), ref(out, "button", "Submit request")
    out = _r(agent, space, f"""
await page.set_input_files({upload!r}, {task['file_path']!r})
await page.fill({notes!r}, {task['notes']!r})
await page.click({terms!r})
await page.click({submit!r})
await page.wait_for_url("**/done/**")
await page.wait_for_load_state()
print(await page.snapshot())
await task.finish(keep=[])
""")
    return out


# -- task 3: edit a record, save and continue, verify -------------------------------------------


def catalog(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(locators=True, interactive=True))\n")
    search = loc(out, "textbox", "Search")
    out = _r(agent, space, f"""
await page.fill({search!r}, {task['product']!r})
await page.press({search!r}, "Enter")
await page.wait_for_url("**q=*")
await page.click('loc=role:link[name="{task['product']}"]')
await page.wait_for_url("**/change/")
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page', interactive=True))
""")
    price, show = ref(out, "textbox", "Price"), ref(out, "link", "Show")
    out = _r(agent, space, f"""
await page.fill({price!r}, {task['price']!r})
await page.click({show!r})
print(await page.snapshot(scope='full_page', interactive=True))
""")
    stock, save = ref(out, "spinbutton", "Stock"), ref(out, "button", "Save and continue editing")
    out = _r(agent, space, f"""
await page.fill({stock!r}, {task['stock']!r})
await page.click({save!r})
await page.wait_for_selector("text=was changed successfully")
print((await page.find("text=was changed successfully"))[0]["text"])
print(await page.snapshot(scope="full_page", interactive=True))
await task.finish(keep=[])
""")
    m = re.search(r'^\s*textbox "Price[^"\n]*"(?: \[[^\]\n]*\])* \[ref=[^\n]*\]: (\S+)$', out, re.M)
    if not m:
        raise TraceFailed(f"no price value in the snapshot:\n{out[-2000:]}")
    return m.group(1)


# -- task 4: bulk delete with a confirmation page -------------------------------------------------


def comments(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(locators=True, interactive=True))\n")
    search = loc(out, "textbox", "Search")
    out = _r(agent, space, f"""
await page.fill({search!r}, {task['author']!r})
await page.press({search!r}, "Enter")
await page.wait_for_url("**q=*")
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page', interactive=True))
""")
    # tick exactly the rows the spammer wrote (the search also found a comment that only mentions it)
    boxes = re.findall(rf'checkbox "[^"]* by {re.escape(task["author"])}"{STATES} \[ref=(\d+)', out)
    if not boxes:
        raise TraceFailed(f"no rows by {task['author']}:\n{out[-2000:]}")
    action, go = ref(out, "combobox", "Action"), ref(out, "button", "Go")
    out = _r(agent, space, f"""
for box in {['@' + b for b in boxes]!r}:
    await page.click(box)
await page.select_option({action!r}, "Delete selected comments")
await page.click({go!r})
await page.wait_for_selector("text=Are you sure?")
print(await page.snapshot(scope='full_page', interactive=True))
""")
    yes = ref(out, "button", "Yes")
    out = _r(agent, space, f"""
await page.click({yes!r})
await page.wait_for_selector("text=Successfully deleted")
print((await page.find("text=Successfully deleted"))[0]["text"])
await task.finish(keep=[])
""")
    return out


# -- task 5: autocomplete and a lookup popup --------------------------------------------------------


def tickets(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(interactive=True))\n")
    out = _r(agent, space, f"""
await page.click('loc=role:link[name="{task['ticket']}"]')
await page.wait_for_url("**/change/")
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page', locators=True, interactive=True))
""")
    customer, lookup = loc(out, "combobox", "Customer"), loc(out, "link", "Look up assignee")
    assignee, save = loc(out, "textbox", "Assignee"), loc(out, "button", "Save")
    css = {k: v.split("css:", 1)[1] for k, v in (("customer", customer), ("assignee", assignee))}
    # choose the suggestion, pick the user in the popup, check both fields, then save
    out = _r(agent, space, f"""
await page.fill({customer!r}, {task['customer_typed']!r})
await page.click('loc=role:option[name="{task['customer']}"]')
async with page.expect_event("popup") as info:
    await page.click({lookup!r})
popup = await info.value
await popup.click('loc=role:link[name="{task['agent']}"]')
await page.wait_for_function("(sel) => document.querySelector(sel).value !== ''", {css['assignee']!r})
values = await page.evaluate("(s) => [document.querySelector(s[0]).value, document.querySelector(s[1]).value]",
                             [{css['customer']!r}, {css['assignee']!r}])
print(values)
assert values[0] == {task['customer']!r} and values[1], values
await page.click({save!r})
await page.wait_for_selector("text=was changed successfully")
print((await page.find("text=was changed successfully"))[0]["text"])
await task.finish(keep=[])
""")
    return out


TRACES = {"orders": orders, "booking": booking, "catalog": catalog, "comments": comments, "tickets": tickets}


def _spa() -> None:
    import trace_ego_spa  # the SPA set (it imports this module's helpers)

    TRACES.update(trace_ego_spa.TRACES)


_spa()
