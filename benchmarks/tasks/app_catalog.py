"""Task 3 app: a product catalogue; edit one record and "Save and continue editing".

The change form has a JS-filled slug, a category select, a price with decimal validation,
and a collapsed "Inventory" fieldset (stock, reorder level) that a click reveals. "Save and
continue editing" posts and redirects back to the same URL with a message; the task ends by
reading the saved value back from that page.
"""

from __future__ import annotations

import random
import re

from web import App, Request, Response, esc, redirect

CATEGORIES = ["Lighting", "Furniture", "Kitchen", "Office", "Garden", "Textiles"]
STATUSES = {"active": "Active", "draft": "Draft", "discontinued": "Discontinued"}
_ADJ = ["Aurora", "Nordic", "Linden", "Basalt", "Harbor", "Juniper", "Meadow", "Slate", "Willow", "Cobalt", "Amber", "Birch"]
_NOUN = {"Lighting": ["Desk Lamp", "Floor Lamp", "Pendant"], "Furniture": ["Side Table", "Stool", "Bookshelf"],
         "Kitchen": ["Kettle", "Teapot", "Bread Bin"], "Office": ["Monitor Stand", "Desk Organiser", "Letter Tray"],
         "Garden": ["Planter", "Bench", "Watering Can"], "Textiles": ["Throw", "Cushion", "Rug"]}

TASK = {"product": "Aurora Desk Lamp", "price": "64.50", "stock": "12"}
PROMPT = ("In the product catalogue, change the price of the 'Aurora Desk Lamp' to 64.50 and its stock (under "
          "Inventory) to 12. Use 'Save and continue editing', then confirm the price the page now shows.")
PRICE_RX = re.compile(r"^\d{1,5}(\.\d{1,2})?$")


class CatalogApp(App):
    title = "Catalogue administration"
    #: issue 28 §7's drift run: the markup changed under a learned tool (renamed ids and classes,
    #: the save buttons moved above the form, and a confirmation page before a change is saved)
    drift = False

    def setup(self) -> None:
        rng = random.Random(1103)
        self.products: list[dict] = []
        seen = set()
        for cat in CATEGORIES:
            for noun in _NOUN[cat]:
                for adj in rng.sample(_ADJ, 5):
                    name = f"{adj} {noun}"
                    if name in seen:
                        continue
                    seen.add(name)
                    self.products.append({"name": name, "category": cat, "price": f"{rng.uniform(9, 400):.2f}",
                                          "stock": rng.randint(0, 80), "reorder": rng.randint(2, 10),
                                          "status": rng.choice(["active", "active", "draft"]),
                                          "description": f"The {name.lower()}, designed in Linden."})
        if "Aurora Desk Lamp" not in seen:
            self.products.append({"name": "Aurora Desk Lamp", "category": "Lighting", "price": "79.00", "stock": 3,
                                  "reorder": 5, "status": "active", "description": "A warm desk lamp."})
        rng.shuffle(self.products)
        for i, p in enumerate(self.products):
            p["id"] = 101 + i * 3
            p["slug"] = p["name"].lower().replace(" ", "-")
        self.original = {p["id"]: dict(p) for p in self.products}
        self.saves: list[tuple[int, str]] = []  # (product id, which button)
        self.route("GET", "/", lambda req: redirect("/admin/catalog/product/"))
        self.route("GET", "/admin/catalog/product/", self.changelist)
        self.route("GET,POST", r"/admin/catalog/product/(?P<pid>\d+)/change/", self.change)

    def target(self) -> dict:
        return next(p for p in self.products if p["name"] == TASK["product"])

    def check(self, answer: object) -> tuple[bool, str]:
        p = self.target()
        orig = self.original[p["id"]]
        problems = []
        if p["price"] != TASK["price"]:
            problems.append(f"price {p['price']}")
        if str(p["stock"]) != TASK["stock"]:
            problems.append(f"stock {p['stock']}")
        for key in ("name", "category", "status", "description", "reorder", "slug"):
            if p[key] != orig[key]:
                problems.append(f"{key} changed to {p[key]!r}")
        others = [q["name"] for q in self.products if q["id"] != p["id"] and q != self.original[q["id"]]]
        if others:
            problems.append(f"other products changed: {others}")
        if (p["id"], "_continue") not in self.saves:
            problems.append(f"not saved with 'Save and continue editing' ({self.saves})")
        if str(answer).strip() != TASK["price"]:
            problems.append(f"reported price {answer!r}")
        return not problems, "; ".join(problems) or "ok"

    def changelist(self, req: Request) -> Response:
        q = req.query.get("q", "")
        rows = [p for p in self.products if q.lower() in p["name"].lower()] if q else self.products
        trs = "".join(
            f'<tr><th><a href="/admin/catalog/product/{p["id"]}/change/">{esc(p["name"])}</a></th><td>{p["category"]}</td>'
            f'<td>€{p["price"]}</td><td>{p["stock"]}</td><td>{STATUSES[p["status"]]}</td></tr>' for p in rows)
        body = (f'<h1>Select product to change</h1><div id="toolbar"><form id="changelist-search" method="get">'
                f'<label for="searchbar">Search:</label> <input type="text" size="40" name="q" value="{esc(q)}" id="searchbar"> '
                f'<input type="submit" value="Search"> <span class="small quiet">{len(rows)} results '
                f'(<a href="?">{len(self.products)} total</a>)</span></form></div>'
                '<table id="result_list"><thead><tr><th>Name</th><th>Category</th><th>Price</th><th>Stock</th>'
                f'<th>Status</th></tr></thead><tbody>{trs}</tbody></table>')
        return Response(self.page("Select product to change", body, req, crumbs=[("Catalog", ""), ("Products", "")]))

    def change(self, req: Request, pid: str) -> Response:
        p = next((p for p in self.products if p["id"] == int(pid)), None)
        if p is None:
            return Response(self.page("Not found", "<h1>Product not found</h1>", req), 404)
        errors: dict[str, str] = {}
        vals = dict(p)
        if req.method == "POST":
            vals.update({k: req.get(k) for k in ("name", "slug", "category", "price", "stock", "reorder", "status",
                                                  "description")})
            if not vals["name"]:
                errors["name"] = "This field is required."
            if vals["category"] not in CATEGORIES:
                errors["category"] = "Select a valid choice."
            if not PRICE_RX.match(vals["price"]):
                errors["price"] = "Enter a number with at most 2 decimal places."
            for key in ("stock", "reorder"):
                if not str(vals[key]).isdigit():
                    errors[key] = "Enter a whole number."
            if vals["status"] not in STATUSES:
                errors["status"] = "Select a valid choice."
            if not errors and self.drift and "confirmed" not in req.form:
                return self._confirm(req, p, vals)
            if not errors:
                with self.lock:
                    vals["stock"], vals["reorder"] = int(vals["stock"]), int(vals["reorder"])
                    p.update({k: vals[k] for k in ("name", "slug", "category", "price", "stock", "reorder", "status",
                                                   "description")})
                    button = "_continue" if "_continue" in req.form else "_addanother" if "_addanother" in req.form else "_save"
                    self.saves.append((p["id"], button))
                if button == "_continue":
                    self.message(req, f'The product “{p["name"]}” was changed successfully. You may edit it again below.')
                    return redirect(f"/admin/catalog/product/{p['id']}/change/")
                self.message(req, f'The product “{p["name"]}” was changed successfully.')
                return redirect("/admin/catalog/product/")

        def err(name: str) -> str:
            return f'<ul class="errorlist"><li>{esc(errors[name])}</li></ul>' if name in errors else ""

        def row(label: str, name: str, control: str, req_: bool = True) -> str:
            return (f'<div class="form-row field-{name}"><label for="id_{name}" class="{"required" if req_ else ""}">'
                    f'{label}:</label><div>{err(name)}{control}</div></div>')

        cats = "".join(f'<option{" selected" if vals["category"] == c else ""}>{c}</option>' for c in CATEGORIES)
        stats = "".join(f'<option value="{k}"{" selected" if vals["status"] == k else ""}>{v}</option>' for k, v in STATUSES.items())
        inv_open = "stock" in errors or "reorder" in errors
        body = (f'<h1>Change product</h1><h2>{esc(p["name"])}</h2>'
                + ('<p class="errornote">Please correct the errors below.</p>' if errors else "")
                + f'<form method="post" id="product_form" novalidate>{self.csrf(req)}'
                '<fieldset class="module aligned"><div class="fields">'
                + row("Name", "name", f'<input type="text" name="name" id="id_name" maxlength="100" value="{esc(str(vals["name"]))}">')
                + row("Slug", "slug", f'<input type="text" name="slug" id="id_slug" value="{esc(str(vals["slug"]))}">')
                + row("Category", "category", f'<select name="category" id="id_category">{cats}</select>')
                + row("Price (€)", "price", f'<input type="text" name="price" id="id_price" inputmode="decimal" '
                      f'value="{esc(str(vals["price"]))}">')
                + row("Status", "status", f'<select name="status" id="id_status">{stats}</select>')
                + row("Description", "description", f'<textarea name="description" id="id_description" rows="3" cols="40">'
                      f'{esc(str(vals["description"]))}</textarea>', False)
                + '</div></fieldset>'
                f'<fieldset class="module aligned collapse{"" if inv_open else " collapsed"}" id="fieldset-inventory">'
                f'<h2>Inventory (<a class="collapse-toggle" href="#">{"Hide" if inv_open else "Show"}</a>)</h2><div class="fields">'
                + row("Stock", "stock", f'<input type="number" name="stock" id="id_stock" min="0" value="{esc(str(vals["stock"]))}">')
                + row("Reorder level", "reorder", f'<input type="number" name="reorder" id="id_reorder" min="0" '
                      f'value="{esc(str(vals["reorder"]))}">')
                + '</div></fieldset>'
                '<div class="submit-row"><a href="delete/" class="deletelink">Delete</a>'
                '<input type="submit" value="Save and add another" name="_addanother">'
                '<input type="submit" value="Save and continue editing" name="_continue">'
                '<input type="submit" value="Save" class="default" name="_save"></div></form>'
                "<script>document.getElementById('id_name').addEventListener('input',function(e){"
                "document.getElementById('id_slug').value=e.target.value.toLowerCase().trim().replace(/[^a-z0-9]+/g,'-');});</script>")
        if self.drift:
            body = _drifted(body)
        return Response(self.page(f"Change product {p['name']}", body, req,
                                  crumbs=[("Catalog", ""), ("Products", "/admin/catalog/product/"), (p["name"], "")]))

    def _confirm(self, req: Request, p: dict, vals: dict) -> Response:
        """The drifted app's extra page: the change is saved only once it is confirmed."""
        button = next((b for b in ("_continue", "_addanother", "_save") if b in req.form), "_save")
        hidden = "".join(f'<input type="hidden" name="{k}" value="{esc(str(vals[k]))}">'
                         for k in ("name", "slug", "category", "price", "stock", "reorder", "status", "description"))
        body = (f'<h1>Confirm changes</h1><p>Save the changes to “{esc(p["name"])}”?</p>'
                f'<form method="post">{self.csrf(req)}{hidden}<input type="hidden" name="{button}" value="1">'
                '<input type="hidden" name="confirmed" value="1"><input type="submit" value="Yes, save"></form>')
        return Response(self.page("Confirm changes", body, req, crumbs=[("Catalog", ""), (p["name"], "")]))


def _drifted(body: str) -> str:
    """The change form after a redesign: other ids and classes, the buttons above the fields."""
    body = body.replace('id="id_', 'id="product-').replace('for="id_', 'for="product-')
    body = body.replace("getElementById('id_", "getElementById('product-")
    body = body.replace('class="form-row field-', 'class="row row-').replace('class="submit-row"', 'class="actions"')
    start, end = body.index('<div class="actions">'), body.index("</div></form>") + len("</div>")
    buttons = body[start:end]
    body = body[:start] + body[end:]
    at = body.index('<fieldset class="module aligned">')
    return body[:at] + buttons + body[at:]
