"""Task 5 app: a helpdesk ticket with an autocomplete field and a lookup popup window.

The customer field is an ARIA combobox: typing fetches ``/api/customers?q=`` and shows a
listbox; choosing an option fills a hidden id. The assignee is a Django "raw id" field: the
magnifier link opens the user list in a popup window (``window.open``); clicking a user there
calls ``opener.dismissRelatedLookupPopup`` which writes the id into the form and closes the
popup. Save posts and redirects to the ticket list with a message.
"""

from __future__ import annotations

import json
import random


from web import App, Request, Response, esc, redirect

CUSTOMERS = ["Nordwind Logistik GmbH", "Nordwind Reisen AG", "Nordlicht Optik KG", "Alpen Feinkost GmbH",
             "Rhein Druck e.K.", "Hansa Medien GmbH", "Sonnen Technik AG", "Falken Bau GmbH", "Eichen Textil KG",
             "Kessel Werkzeug GmbH", "Lind Handel AG", "Stern Logistik GmbH", "Wald Optik e.K.", "Nordstern Bau AG"]
AGENTS = ["Maria Keller", "Mario Keller", "Jonas Berg", "Lea Brandt", "Tom Richter", "Sofia Lang", "Ahmed Yilmaz",
          "Nina Vogel", "Paul Schäfer", "Emma Wolf", "Lukas Hahn", "Marie Kellermann"]
TASK = {"ticket": "T-311", "customer_typed": "Nordwind", "customer": "Nordwind Logistik GmbH", "agent": "Maria Keller"}
PROMPT = ("Open ticket T-311, set its customer to Nordwind Logistik GmbH (the field suggests customers as you "
          "type), assign it to Maria Keller with the assignee lookup (the magnifier), and save.")

AC_JS = """
document.addEventListener('DOMContentLoaded', function(){
  var box = document.getElementById('id_customer_name'), hidden = document.getElementById('id_customer');
  var list = document.getElementById('customer-listbox'), timer = null, seq = 0;
  function close(){ list.hidden = true; box.setAttribute('aria-expanded', 'false'); }
  box.addEventListener('input', function(){
    hidden.value = ''; clearTimeout(timer);
    var q = box.value.trim(); if (q.length < 2) { close(); return; }
    timer = setTimeout(function(){
      var mine = ++seq;
      fetch('/api/customers?q=' + encodeURIComponent(q)).then(function(r){ return r.json(); }).then(function(items){
        if (mine !== seq) return;
        list.innerHTML = '';
        items.forEach(function(it, i){
          var li = document.createElement('li'); li.setAttribute('role', 'option'); li.id = 'customer-opt-' + i;
          li.textContent = it.name; li.dataset.id = it.id;
          li.addEventListener('mousedown', function(e){ e.preventDefault();
            box.value = it.name; hidden.value = it.id; close(); });
          list.appendChild(li);
        });
        list.hidden = items.length === 0; box.setAttribute('aria-expanded', String(items.length > 0));
      });
    }, 150);
  });
  box.addEventListener('blur', function(){ setTimeout(close, 100); });
});
window.showRelatedObjectLookupPopup = function(link){
  var win = window.open(link.href, link.id.replace(/^lookup_/, ''), 'height=500,width=800,resizable=yes,scrollbars=yes');
  win.focus(); return false;
};
window.dismissRelatedLookupPopup = function(win, id, label){
  var name = win.name; var el = document.getElementById(name);
  el.value = id; document.getElementById(name + '_label').textContent = label;
  el.dispatchEvent(new Event('change', {bubbles: true})); win.close();
};
"""


class TicketsApp(App):
    title = "Helpdesk administration"
    #: issue 28 §7's drift run: a redesign renamed the lookup link's text and the save button
    #: (moved above the fields), and the suggestions' option ids
    drift = False

    def setup(self) -> None:
        rng = random.Random(1105)
        self.customers = [{"id": 300 + i * 7, "name": n} for i, n in enumerate(CUSTOMERS)]
        self.agents = [{"id": 40 + i * 3, "name": n, "email": n.lower().replace(" ", ".") + "@helpdesk.example",
                        "team": rng.choice(["Hardware", "Network", "Accounts"])} for i, n in enumerate(AGENTS)]
        subjects = ["Printer on floor 3 jams", "VPN drops every hour", "New laptop for onboarding", "Password reset",
                    "Monitor flickers", "Shared drive full", "Phone headset broken", "Wi-Fi slow in room B"]
        self.tickets = []
        for i in range(24):
            self.tickets.append({"id": 900 + i, "number": f"T-{300 + i}", "subject": rng.choice(subjects),
                                 "customer": None, "assignee": None, "priority": rng.choice(["low", "normal", "high"])})
        self.saves: list[int] = []
        self.route("GET", "/", lambda req: redirect("/admin/helpdesk/ticket/"))
        self.route("GET", "/admin/helpdesk/ticket/", self.changelist)
        self.route("GET,POST", r"/admin/helpdesk/ticket/(?P<tid>\d+)/change/", self.change)
        self.route("GET", "/admin/auth/user/", self.users_list)
        self.route("GET", "/api/customers", self.api_customers)

    def check(self, answer: object = None) -> tuple[bool, str]:
        t = next(t for t in self.tickets if t["number"] == TASK["ticket"])
        cust = next(c["id"] for c in self.customers if c["name"] == TASK["customer"])
        agent = next(a["id"] for a in self.agents if a["name"] == TASK["agent"])
        problems = []
        if t["customer"] != cust:
            problems.append(f"customer {t['customer']} (want {cust})")
        if t["assignee"] != agent:
            problems.append(f"assignee {t['assignee']} (want {agent})")
        if t["id"] not in self.saves:
            problems.append("not saved")
        others = [o["number"] for o in self.tickets if o is not t and (o["customer"] or o["assignee"])]
        if others:
            problems.append(f"other tickets changed: {others}")
        return not problems, "; ".join(problems) or "ok"

    def check_for(self, want: dict, handled: set[str]) -> tuple[bool, str]:
        """The repeat variants' check: ticket ``want["ticket"]`` has that customer and assignee and
        was saved; no ticket changed that no attempt named (``handled``: the tickets done so far)."""
        t = next(t for t in self.tickets if t["number"] == want["ticket"])
        cust = next(c["id"] for c in self.customers if c["name"] == want["customer"])
        agent = next(a["id"] for a in self.agents if a["name"] == want["agent"])
        problems = []
        if t["customer"] != cust:
            problems.append(f"customer {self.name_of(self.customers, t['customer'])!r} (want {want['customer']!r})")
        if t["assignee"] != agent:
            problems.append(f"assignee {self.name_of(self.agents, t['assignee'])!r} (want {want['agent']!r})")
        if t["id"] not in self.saves:
            problems.append("not saved")
        others = [o["number"] for o in self.tickets if o is not t and o["number"] not in handled
                  and (o["customer"] or o["assignee"])]
        if others:
            problems.append(f"other tickets changed: {others}")
        return not problems, "; ".join(problems) or "ok"

    def name_of(self, items: list[dict], oid: int | None) -> str:
        return next((x["name"] for x in items if x["id"] == oid), "")

    def changelist(self, req: Request) -> Response:
        trs = "".join(
            f'<tr><th><a href="/admin/helpdesk/ticket/{t["id"]}/change/">{t["number"]}</a></th><td>{esc(t["subject"])}</td>'
            f'<td>{esc(self.name_of(self.customers, t["customer"])) or "—"}</td>'
            f'<td>{esc(self.name_of(self.agents, t["assignee"])) or "—"}</td><td>{t["priority"]}</td></tr>'
            for t in self.tickets)
        body = ('<h1>Select ticket to change</h1><table id="result_list"><thead><tr><th>Ticket</th><th>Subject</th>'
                f'<th>Customer</th><th>Assignee</th><th>Priority</th></tr></thead><tbody>{trs}</tbody></table>')
        return Response(self.page("Select ticket to change", body, req, crumbs=[("Helpdesk", ""), ("Tickets", "")]))

    def api_customers(self, req: Request) -> Response:
        q = req.query.get("q", "").lower()
        items = [c for c in self.customers if q and q in c["name"].lower()][:10]
        return Response(json.dumps(items), ctype="application/json")

    def users_list(self, req: Request) -> Response:
        popup = req.query.get("_popup") == "1"
        q = req.query.get("q", "")
        rows = [a for a in self.agents if q.lower() in a["name"].lower()] if q else self.agents
        trs = "".join(
            f'<tr><th><a href="#" onclick="opener.dismissRelatedLookupPopup(window, \'{a["id"]}\', '
            f'{esc(json.dumps(a["name"]))}); return false;">{esc(a["name"])}</a></th>'
            f'<td>{esc(a["email"])}</td><td>{a["team"]}</td></tr>' if popup else
            f'<tr><th><a href="/admin/auth/user/{a["id"]}/change/">{esc(a["name"])}</a></th><td>{esc(a["email"])}</td>'
            f'<td>{a["team"]}</td></tr>' for a in rows)
        hidden = '<input type="hidden" name="_popup" value="1">' if popup else ""
        body = (f'<h1>Select user</h1><div id="toolbar"><form id="changelist-search" method="get">'
                f'<label for="searchbar">Search:</label> <input type="text" name="q" id="searchbar" value="{esc(q)}">{hidden} '
                f'<input type="submit" value="Search"></form></div><table id="result_list"><thead><tr><th>Name</th>'
                f'<th>Email</th><th>Team</th></tr></thead><tbody>{trs}</tbody></table>')
        return Response(self.page("Select user", body, req, popup=popup, crumbs=None if popup else [("Users", "")]))

    def change(self, req: Request, tid: str) -> Response:
        t = next((t for t in self.tickets if t["id"] == int(tid)), None)
        if t is None:
            return Response(self.page("Not found", "<h1>Ticket not found</h1>", req), 404)
        errors: dict[str, str] = {}
        if req.method == "POST":
            cust, assignee = req.get("customer"), req.get("assignee")
            if cust and not any(str(c["id"]) == cust for c in self.customers):
                errors["customer"] = "Select a valid customer."
            if assignee and not any(str(a["id"]) == assignee for a in self.agents):
                errors["assignee"] = "Select a valid choice. That choice is not one of the available choices."
            if req.get("customer_name") and not cust:
                errors["customer"] = "Choose a customer from the suggestions."
            if not errors:
                with self.lock:
                    t["customer"] = int(cust) if cust else None
                    t["assignee"] = int(assignee) if assignee else None
                    t["priority"] = req.get("priority") or t["priority"]
                    self.saves.append(t["id"])
                self.message(req, f'The ticket “{t["number"]}” was changed successfully.')
                return redirect("/admin/helpdesk/ticket/")

        def err(name: str) -> str:
            return f'<ul class="errorlist"><li>{esc(errors[name])}</li></ul>' if name in errors else ""

        prios = "".join(f'<option value="{p}"{" selected" if t["priority"] == p else ""}>{p.title()}</option>'
                        for p in ("low", "normal", "high"))
        cname = self.name_of(self.customers, t["customer"])
        aname = self.name_of(self.agents, t["assignee"])
        body = (f'<h1>Change ticket</h1><h2>{t["number"]}: {esc(t["subject"])}</h2>'
                + ('<p class="errornote">Please correct the errors below.</p>' if errors else "")
                + f'<form method="post" id="ticket_form" novalidate>{self.csrf(req)}<fieldset class="module aligned">'
                f'<div class="form-row field-customer"><label for="id_customer_name">Customer:</label><div>{err("customer")}'
                f'<div style="position:relative"><input type="text" id="id_customer_name" name="customer_name" role="combobox" '
                f'aria-autocomplete="list" aria-expanded="false" aria-controls="customer-listbox" autocomplete="off" '
                f'value="{esc(cname)}"><input type="hidden" name="customer" id="id_customer" value="{t["customer"] or ""}">'
                '<ul id="customer-listbox" role="listbox" class="ac-list" aria-label="Customer suggestions" hidden></ul></div>'
                '<p class="help">Start typing a customer name and choose from the suggestions.</p></div></div>'
                f'<div class="form-row field-assignee"><label for="id_assignee">Assignee:</label><div>{err("assignee")}'
                f'<input type="text" name="assignee" id="id_assignee" class="vForeignKeyRawIdAdminField" size="6" '
                f'value="{t["assignee"] or ""}"> <a href="/admin/auth/user/?_popup=1" class="related-lookup" '
                'id="lookup_id_assignee" title="Look up assignee" onclick="return showRelatedObjectLookupPopup(this);">'
                '<span aria-hidden="true">🔍</span><span style="position:absolute;left:-9999px">Look up assignee</span></a> '
                f'<strong id="id_assignee_label">{esc(aname)}</strong></div></div>'
                f'<div class="form-row field-priority"><label for="id_priority">Priority:</label><div>'
                f'<select name="priority" id="id_priority">{prios}</select></div></div></fieldset>'
                '<div class="submit-row"><input type="submit" value="Save" class="default" name="_save"></div></form>'
                f'<script>{AC_JS}</script>')
        if self.drift:
            body = _drifted(body)
        return Response(self.page(f"Change ticket {t['number']}", body, req,
                                  crumbs=[("Helpdesk", ""), ("Tickets", "/admin/helpdesk/ticket/"), (t["number"], "")]))





def _drifted(body: str) -> str:
    """The change form after a redesign: the lookup link's text and the save button renamed, the
    button above the fields, the suggestions' option ids changed."""
    # (the link's id names the field the popup writes into: a redesign keeps it working)
    body = body.replace('title="Look up assignee"', 'title="Find a person"')
    body = body.replace(">Look up assignee</span>", ">Find a person</span>")
    body = body.replace("'customer-opt-' + i", "'cust-choice-' + i")
    row = '<div class="submit-row"><input type="submit" value="Save" class="default" name="_save"></div>'
    body = body.replace(row, "").replace('<fieldset class="module aligned">',
                                         '<div class="bar"><input type="submit" value="Update ticket" name="_save">'
                                         '</div><fieldset class="module aligned">', 1)
    return body
