"""Task 2 app: a three-step venue booking request (a multi-step form with server validation).

Step 1 (organisation) rejects a phone number that is not in international format, with a
message saying so; step 2 has a date, a number, a select and checkboxes; step 3 a file upload,
a textarea and a terms checkbox, posted as multipart. Every step is POST + redirect; the
last one creates the booking and redirects to its confirmation page.
"""

from __future__ import annotations

import datetime as dt
import re

from web import App, Request, Response, esc, redirect

COUNTRIES = ["Austria", "Belgium", "Denmark", "France", "Germany", "Ireland", "Italy", "Netherlands", "Norway",
             "Poland", "Portugal", "Spain", "Sweden", "Switzerland", "United Kingdom"]
ROOMS = {"main": "Main hall (250)", "garden": "Garden room (80)", "library": "Library (40)", "roof": "Rooftop terrace (120)"}
SERVICES = {"catering": "Catering", "av": "Projector & screen", "parking": "Parking", "access": "Wheelchair access",
            "photo": "Photographer"}

TASK = {
    "company": "Nordwind Logistik GmbH",
    "email": "events@nordwind.example",
    "phone": "030 1234567",         # local format: the form asks for +49 30 1234567
    "phone_fixed": "+49 30 1234567",
    "country": "Germany",
    "date": "2027-03-18",
    "guests": "60",
    "room": "Garden room (80)",
    "services": ["Catering", "Projector & screen"],
    "file_name": "floorplan.txt",
    "file_body": b"Floor plan: 6 tables of 10, stage at the north wall.\n",
    "notes": "Vegetarian lunch for everyone.",
}
PROMPT = ("Request a venue booking for Nordwind Logistik GmbH (events@nordwind.example, phone 030 1234567, "
          "Germany): 18 March 2027, 60 guests, Garden room, with catering and a projector; upload the floor "
          "plan file and add the note 'Vegetarian lunch for everyone.'; accept the terms and submit.")

PHONE_RX = re.compile(r"^\+\d{1,3}( ?\d){6,14}$")
EMAIL_RX = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)


class BookingApp(App):
    title = "Lindenhof Venues"
    #: issue 28 §7's drift run: a redesign renamed the fields' ids and the buttons ("Continue"),
    #: and moved the buttons above the fields
    drift = False

    def setup(self) -> None:
        self.bookings: list[dict] = []
        self.route("GET", "/", lambda req: redirect("/book/step1/"))
        self.route("GET,POST", "/book/step1/", self.step1)
        self.route("GET,POST", "/book/step2/", self.step2)
        self.route("GET,POST", "/book/step3/", self.step3)
        self.route("GET", r"/book/done/(?P<ref>BK-\d+)/", self.done)

    def check(self, answer: object = None) -> tuple[bool, str]:
        if len(self.bookings) != 1:
            return False, f"{len(self.bookings)} bookings"
        b = self.bookings[0]
        t = TASK
        want = {"company": t["company"], "email": t["email"], "phone": t["phone_fixed"], "country": t["country"],
                "date": t["date"], "guests": int(t["guests"]), "room": "garden", "services": ["av", "catering"],
                "file": (t["file_name"], t["file_body"]), "notes": t["notes"], "terms": True}
        got = {k: b.get(k) for k in want}
        got["services"] = sorted(got["services"] or [])
        bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
        return not bad, ("ok " + b["ref"]) if not bad else f"wrong fields: {bad}"

    def check_for(self, want: dict) -> tuple[bool, str]:
        """The repeat variants' check: one booking of ``want["company"]`` with every field as asked."""
        mine = [b for b in self.bookings if b.get("company") == want["company"]]
        if len(mine) != 1:
            return False, f"{len(mine)} bookings of {want['company']}"
        b = mine[0]
        room = next(k for k, v in ROOMS.items() if v == want["room"])
        expect = {"email": want["email"], "phone": want["phone"], "country": want["country"], "date": want["date"],
                  "guests": int(want["guests"]), "room": room, "notes": want["notes"], "terms": True}
        bad = {k: (b.get(k), v) for k, v in expect.items() if b.get(k) != v}
        if sorted(b.get("services") or []) != ["av", "catering"]:
            bad["services"] = (b.get("services"), ["av", "catering"])
        if not b.get("file"):
            bad["file"] = (None, "uploaded")
        return not bad, ("ok " + b["ref"]) if not bad else f"wrong fields: {bad}"

    # -- shared bits ------------------------------------------------------------------------------
    def steps(self, n: int) -> str:
        names = ["Organisation", "Event", "Documents"]
        return '<ol class="steps">' + "".join(
            f'<li class="{"current" if i + 1 == n else ""}">{i + 1}. {name}</li>' for i, name in enumerate(names)) + "</ol>"

    @staticmethod
    def errs(errors: dict[str, str], name: str) -> str:
        return f'<ul class="errorlist" id="error_{name}"><li>{esc(errors[name])}</li></ul>' if name in errors else ""

    def row(self, label: str, name: str, control: str, errors: dict[str, str], help_text: str = "",
            required: bool = True) -> str:
        return (f'<div class="form-row field-{name}"><label for="id_{name}" class="{"required" if required else ""}">'
                f'{esc(label)}:</label><div>{self.errs(errors, name)}{control}'
                f'{f"<p class=help>{esc(help_text)}</p>" if help_text else ""}</div></div>')

    def form(self, req: Request, n: int, title: str, inner: str, errors: dict[str, str], multipart: bool = False) -> Response:
        note = ('<p class="errornote">Please correct the errors below.</p>' if errors else "")
        enctype = ' enctype="multipart/form-data"' if multipart else ""
        back = f'<a href="/book/step{n - 1}/" class="button">Back</a>' if n > 1 else ""
        label = "Submit request" if n == 3 else "Next"
        body = (f'<h1>Book a venue</h1>{self.steps(n)}<h2>{esc(title)}</h2>{note}'
                f'<form method="post" action="/book/step{n}/" id="booking-form"{enctype} novalidate>{self.csrf(req)}'
                f'<fieldset class="module aligned">{inner}</fieldset>'
                f'<div class="submit-row">{back}<input type="submit" class="default" value="{label}"></div></form>')
        if self.drift:  # a redesign: other ids, the buttons renamed and above the fields
            body = body.replace('id="id_', 'id="fld-').replace('for="id_', 'for="fld-')
            row = body[body.index('<div class="submit-row">'):body.index("</form>")]
            body = body.replace(row, "").replace('<fieldset class="module aligned">',
                                                 row.replace('value="Next"', 'value="Continue"')
                                                 + '<fieldset class="module aligned">', 1)
        return Response(self.page(f"Book a venue — step {n}", body, req, crumbs=[("Book a venue", "/book/step1/"), (title, "")]))

    def draft(self, req: Request) -> dict:
        return self.ensure_session(req).setdefault("draft", {})

    # -- steps -------------------------------------------------------------------------------------
    def step1(self, req: Request) -> Response:
        d = self.draft(req)
        errors: dict[str, str] = {}
        if req.method == "POST":
            vals = {k: req.get(k) for k in ("company", "email", "phone", "country")}
            if not vals["company"]:
                errors["company"] = "This field is required."
            if not EMAIL_RX.match(vals["email"]):
                errors["email"] = "Enter a valid email address."
            if not PHONE_RX.match(vals["phone"]):
                errors["phone"] = "Enter the phone number in international format, for example +49 30 1234567."
            if vals["country"] not in COUNTRIES:
                errors["country"] = "Select a valid choice."
            d.update(vals)
            if not errors:
                d["step1"] = True
                return redirect("/book/step2/")
        opts = '<option value="">---------</option>' + "".join(
            f'<option{" selected" if d.get("country") == c else ""}>{c}</option>' for c in COUNTRIES)
        inner = (self.row("Organisation", "company", f'<input type="text" name="company" id="id_company" maxlength="120" '
                          f'value="{esc(d.get("company", ""))}">', errors)
                 + self.row("Contact email", "email", f'<input type="email" name="email" id="id_email" '
                            f'value="{esc(d.get("email", ""))}">', errors)
                 + self.row("Phone", "phone", f'<input type="tel" name="phone" id="id_phone" value="{esc(d.get("phone", ""))}">',
                            errors, "We call you to confirm the booking.")
                 + self.row("Country", "country", f'<select name="country" id="id_country">{opts}</select>', errors))
        return self.form(req, 1, "Organisation", inner, errors)

    def step2(self, req: Request) -> Response:
        d = self.draft(req)
        if not d.get("step1"):
            return redirect("/book/step1/")
        errors: dict[str, str] = {}
        if req.method == "POST":
            date, guests, room = req.get("date"), req.get("guests"), req.get("room")
            services = req.getlist("services")
            try:
                day = dt.date.fromisoformat(date)
                if day <= dt.date.today():
                    errors["date"] = "The event date must be in the future."
            except ValueError:
                errors["date"] = "Enter a valid date."
            if not guests.isdigit() or not 1 <= int(guests) <= 500:
                errors["guests"] = "Enter a whole number between 1 and 500."
            if room not in ROOMS:
                errors["room"] = "Select a valid choice."
            if any(s not in SERVICES for s in services):
                errors["services"] = "Select a valid choice."
            d.update(date=date, guests=guests, room=room, services=services)
            if not errors:
                d["step2"] = True
                return redirect("/book/step3/")
        opts = '<option value="">---------</option>' + "".join(
            f'<option value="{k}"{" selected" if d.get("room") == k else ""}>{esc(v)}</option>' for k, v in ROOMS.items())
        boxes = "".join(
            f'<li><label for="id_services_{i}"><input type="checkbox" name="services" value="{k}" id="id_services_{i}"'
            f'{" checked" if k in d.get("services", []) else ""}> {esc(v)}</label></li>'
            for i, (k, v) in enumerate(SERVICES.items()))
        inner = (self.row("Event date", "date", f'<input type="date" name="date" id="id_date" value="{esc(d.get("date", ""))}">',
                          errors)
                 + self.row("Number of guests", "guests", f'<input type="number" name="guests" id="id_guests" min="1" max="500" '
                            f'value="{esc(d.get("guests", ""))}">', errors)
                 + self.row("Room", "room", f'<select name="room" id="id_room">{opts}</select>', errors)
                 + f'<div class="form-row field-services"><div class="label">Services:</div><div>{self.errs(errors, "services")}'
                   f'<ul id="id_services" style="list-style:none;padding:0;margin:0">{boxes}</ul></div></div>')
        return self.form(req, 2, "Event", inner, errors)

    def step3(self, req: Request) -> Response:
        d = self.draft(req)
        if not d.get("step2"):
            return redirect("/book/step2/" if d.get("step1") else "/book/step1/")
        errors: dict[str, str] = {}
        if req.method == "POST":
            upload = req.files.get("attachment")
            notes, terms = req.get("notes"), req.get("terms") == "on"
            if upload is None:
                errors["attachment"] = "This field is required."
            if not terms:
                errors["terms"] = "You must accept the terms to continue."
            d["notes"] = notes
            if not errors:
                with self.lock:
                    ref = f"BK-{1041 + len(self.bookings)}"
                    booking = {k: d.get(k) for k in ("company", "email", "phone", "country", "date", "room", "notes")}
                    booking.update(ref=ref, guests=int(d["guests"]), services=list(d.get("services", [])),
                                   file=upload, terms=terms)
                    self.bookings.append(booking)
                self.ensure_session(req).pop("draft", None)
                return redirect(f"/book/done/{ref}/")
        inner = (self.row("Floor plan or purchase order", "attachment",
                          '<input type="file" name="attachment" id="id_attachment" accept=".pdf,.txt,.png,.jpg">', errors,
                          "PDF, text or image, at most 5 MB.")
                 + self.row("Notes", "notes", f'<textarea name="notes" id="id_notes" rows="4" cols="40">'
                            f'{esc(d.get("notes", ""))}</textarea>', errors, required=False)
                 + f'<div class="form-row field-terms"><div class="label"></div><div>{self.errs(errors, "terms")}'
                   f'<label for="id_terms"><input type="checkbox" name="terms" id="id_terms"> I accept the '
                   f'<a href="/terms/">terms and cancellation policy</a></label></div></div>')
        return self.form(req, 3, "Documents", inner, errors, multipart=True)

    def done(self, req: Request, ref: str) -> Response:
        b = next((b for b in self.bookings if b["ref"] == ref), None)
        if b is None:
            return Response(self.page("Not found", "<h1>Booking not found</h1>", req), 404)
        body = (f'<h1>Thank you!</h1><p id="confirmation">Your booking request <strong>{ref}</strong> was received.</p>'
                f'<dl><dt>Organisation</dt><dd>{esc(b["company"])}</dd><dt>Date</dt><dd>{esc(b["date"])}</dd>'
                f'<dt>Room</dt><dd>{esc(ROOMS[b["room"]])}</dd><dt>Guests</dt><dd>{b["guests"]}</dd></dl>'
                f'<p><a href="/book/step1/">Make another request</a></p>')
        return Response(self.page(f"Booking {ref}", body, req, crumbs=[("Book a venue", "/book/step1/"), (ref, "")]))
