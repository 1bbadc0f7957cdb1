"""Task 1 app: a shop's order administration behind a sign-in.

The change list has Django-admin filters (status, country) in a sidebar, a search box and
pagination (20 rows a page, no "show all"). The task asks for a count the list does not
total for you (the express orders among the filtered ones), so the agent has to page.
"""

from __future__ import annotations

import random
from urllib.parse import urlencode

from web import App, Request, Response, esc

STATUSES = ["pending", "paid", "shipped", "cancelled", "refunded"]
COUNTRIES = {"DE": "Germany", "FR": "France", "AT": "Austria", "NL": "Netherlands", "ES": "Spain", "IT": "Italy"}
PER_PAGE = 20

TASK = {
    "user": "alice",
    "password": "wonderland-42",
    "status": "Shipped",
    "country": "Germany",
    "search": "GmbH",
}
PROMPT = ("Sign in as alice (password wonderland-42). Among the orders with status Shipped to Germany whose "
          "customer matches the search 'GmbH', how many are express orders?")

_FIRST = ["Nordwind", "Bergmann", "Alpen", "Rhein", "Hansa", "Sonnen", "Falken", "Eichen", "Kessel", "Lind",
          "Stern", "Wald", "Brunnen", "Adler", "Silber", "Berg", "Fluss", "Weiden", "Hafen", "Markt"]
_KIND = ["Handel", "Logistik", "Technik", "Bau", "Textil", "Feinkost", "Druck", "Optik", "Medien", "Werkzeug"]
_FORM = ["GmbH", "GmbH", "GmbH & Co. KG", "AG", "KG", "SARL", "B.V.", "S.L.", "S.r.l.", "e.K."]


class OrdersApp(App):
    title = "Shop administration"
    users = {"alice": "wonderland-42", "bob": "builder-7"}
    login_required = True
    #: issue 28 §7's drift run: a redesign renamed ids and classes (the search box, the table, the
    #: express column), moved the Search button before the box, and a search asks for a
    #: confirmation page ("Show results") before it lists anything
    drift = False

    def setup(self) -> None:
        rng = random.Random(1101)
        self.orders = []
        for i in range(1300):
            country = rng.choices(list(COUNTRIES), weights=[30, 15, 12, 15, 14, 14])[0]
            self.orders.append({
                "id": i + 1,
                "number": f"ORD-{24000 + i * 7 % 9973:05d}",
                "customer": f"{rng.choice(_FIRST)} {rng.choice(_KIND)} {rng.choice(_FORM)}",
                "email": f"orders{i}@example.{country.lower()}",
                "country": country,
                "status": rng.choices(STATUSES, weights=[15, 20, 35, 15, 15])[0],
                "total": round(rng.uniform(12, 2400), 2),
                "express": rng.random() < 0.27,
                "placed": f"2026-{1 + i % 11:02d}-{1 + (i * 13) % 28:02d}",
            })
        self.add_login()
        self.route("GET", "/", self.index)
        self.route("GET", "/admin/shop/order/", self.changelist)
        self.route("GET", r"/admin/shop/order/(?P<oid>\d+)/change/", self.change)

    # -- the answer ---------------------------------------------------------------------------
    def matching(self, status: str = "", country: str = "", q: str = "") -> list[dict]:
        q = q.lower()
        return [o for o in self.orders
                if (not status or o["status"] == status) and (not country or o["country"] == country)
                and (not q or q in o["customer"].lower() or q in o["number"].lower() or q in o["email"].lower())]

    def truth(self) -> int:
        return sum(o["express"] for o in self.matching("shipped", "DE", TASK["search"]))

    def check(self, answer: object) -> tuple[bool, str]:
        want = self.truth()
        signed_in = any(user == TASK["user"] for _, path, user in self.visited("/admin/shop/order/"))
        ok = signed_in and str(answer).strip() == str(want)
        return ok, f"answer {answer!r}, expected {want}; list seen signed in: {signed_in}"

    # -- pages ----------------------------------------------------------------------------------
    def index(self, req: Request) -> Response:
        body = ('<h1>Site administration</h1><div class="module"><table><caption>Shop</caption>'
                '<tr><th scope="row"><a href="/admin/shop/order/">Orders</a></th><td><a href="/admin/shop/order/add/">Add</a></td>'
                '<td><a href="/admin/shop/order/">Change</a></td></tr>'
                '<tr><th scope="row"><a href="/admin/shop/customer/">Customers</a></th><td><a href="/admin/shop/customer/add/">Add</a></td>'
                '<td><a href="/admin/shop/customer/">Change</a></td></tr>'
                '<tr><th scope="row"><a href="/admin/shop/product/">Products</a></th><td><a href="/admin/shop/product/add/">Add</a></td>'
                '<td><a href="/admin/shop/product/">Change</a></td></tr></table></div>'
                '<div id="recent-actions-module"><h2>Recent actions</h2><ul><li>Changed ORD-24007</li>'
                '<li>Added ORD-24014</li></ul></div>')
        return Response(self.page("Site administration", body, req, crumbs=[]))

    def changelist(self, req: Request) -> Response:
        status = req.query.get("status", "")
        country = req.query.get("country", "")
        q = req.query.get("q", "")
        try:
            p = max(1, int(req.query.get("p", "1")))
        except ValueError:
            p = 1
        if self.drift and q and req.query.get("confirmed") != "1":
            return self._confirm_search(req, status, country, q)
        rows = self.matching(status, country, q)
        pages = max(1, (len(rows) + PER_PAGE - 1) // PER_PAGE)
        p = min(p, pages)
        shown = rows[(p - 1) * PER_PAGE: p * PER_PAGE]

        def link(**changes: str) -> str:
            params = {"status": status, "country": country, "q": q}
            params.update(changes)
            params = {k: v for k, v in params.items() if v}
            return "?" + urlencode(params) if params else "?"

        side = ['<h2>Filter</h2><h3>By status</h3><ul>']
        side.append(f'<li class="{"selected" if not status else ""}"><a href="{esc(link(status=""))}">All</a></li>')
        for s in STATUSES:
            side.append(f'<li class="{"selected" if s == status else ""}"><a href="{esc(link(status=s))}">{s.title()}</a></li>')
        side.append('</ul><h3>By country</h3><ul>')
        side.append(f'<li class="{"selected" if not country else ""}"><a href="{esc(link(country=""))}">All</a></li>')
        for code, name in COUNTRIES.items():
            side.append(f'<li class="{"selected" if code == country else ""}"><a href="{esc(link(country=code))}">{name}</a></li>')
        side.append("</ul>")

        hidden = "".join(f'<input type="hidden" name="{k}" value="{esc(v)}">' for k, v in
                         (("status", status), ("country", country)) if v)
        toolbar = (f'<div id="toolbar"><form id="changelist-search" method="get">'
                   f'<label for="searchbar">Search:</label> <input type="text" size="40" name="q" value="{esc(q)}" id="searchbar">'
                   f'{hidden} <input type="submit" value="Search">'
                   f' <span class="small quiet">{len(rows)} result{"s" if len(rows) != 1 else ""} '
                   f'(<a href="?">{len(self.orders)} total</a>)</span></form></div>')
        trs = []
        for o in shown:
            trs.append(f'<tr><th><a href="/admin/shop/order/{o["id"]}/change/">{o["number"]}</a></th>'
                       f'<td>{esc(o["customer"])}</td><td>{COUNTRIES[o["country"]]}</td>'
                       f'<td><span class="badge {o["status"]}">{o["status"].title()}</span></td>'
                       f'<td class="field-total">€{o["total"]:,.2f}</td>'
                       f'<td class="field-express">{"Yes" if o["express"] else "No"}</td><td>{o["placed"]}</td></tr>')
        table = ('<table id="result_list"><thead><tr><th>Order</th><th>Customer</th><th>Country</th><th>Status</th>'
                 '<th>Total</th><th>Express</th><th>Placed</th></tr></thead><tbody>' + "".join(trs) + "</tbody></table>")
        pag = ['<p class="paginator">']
        shown_pages = sorted({n for n in range(1, pages + 1) if n <= 2 or n > pages - 2 or abs(n - p) <= 2})
        last = 0
        for n in shown_pages:
            if n > last + 1:
                pag.append("<span>…</span> ")
            last = n
            pag.append(f'<span class="this-page">{n}</span> ' if n == p else f'<a href="{esc(link(p=str(n)))}">{n}</a> ')
        if p < pages:
            pag.append(f'<a href="{esc(link(p=str(p + 1)))}" class="next" rel="next">Next ›</a> ')
        pag.append(f'{len(rows)} orders</p>')
        body = ('<h1>Select order to change</h1><ul class="object-tools"><li><a href="/admin/shop/order/add/" class="addlink">'
                'Add order</a></li></ul>' + toolbar + table + "".join(pag))
        if self.drift:
            body = _drifted(body)
        return Response(self.page("Select order to change", body, req, crumbs=[("Shop", "/admin/shop/"), ("Orders", "")],
                                  sidebar="".join(side)))

    def _confirm_search(self, req: Request, status: str, country: str, q: str) -> Response:
        hidden = "".join(f'<input type="hidden" name="{k}" value="{esc(v)}">' for k, v in
                         (("status", status), ("country", country), ("q", q), ("confirmed", "1")) if v)
        body = (f'<h1>Search orders</h1><p>Search {len(self.orders)} orders for “{esc(q)}”? Large searches are slow.</p>'
                f'<form method="get">{hidden}<input type="submit" value="Show results"></form>')
        return Response(self.page("Search orders", body, req, crumbs=[("Shop", "/admin/shop/"), ("Orders", "")]))

    def change(self, req: Request, oid: str) -> Response:
        o = next((o for o in self.orders if o["id"] == int(oid)), None)
        if o is None:
            return Response(self.page("Not found", "<h1>Order not found</h1>", req), 404)
        body = (f'<h1>Order {o["number"]}</h1><p>{esc(o["customer"])} · {COUNTRIES[o["country"]]} · '
                f'{o["status"].title()} · €{o["total"]:,.2f} · express: {"yes" if o["express"] else "no"}</p>')
        return Response(self.page(o["number"], body, req, crumbs=[("Shop", "/admin/shop/"), ("Orders", "/admin/shop/order/"),
                                                                  (o["number"], "")]))


def _drifted(body: str) -> str:
    """The change list after a redesign: other ids and classes, the Search button before the box."""
    body = body.replace('id="searchbar"', 'id="cl-search"').replace('for="searchbar"', 'for="cl-search"')
    body = body.replace('id="result_list"', 'id="orders-table"').replace('class="field-', 'class="col-')
    box = body[body.index('<input type="text" size="40" name="q"'):]
    box = box[:box.index(">") + 1]
    return body.replace(box, "").replace(' <input type="submit" value="Search">', '<input type="submit" value="Search"> ' + box)
