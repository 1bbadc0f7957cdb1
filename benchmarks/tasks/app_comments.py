"""Task 4 app: comment moderation with a bulk action and a confirmation page.

Django-admin style: a search box, one checkbox per row (``action-select``) plus a select-all
box, an action select and "Go". "Delete selected comments" shows a confirmation page that
lists every comment (and its replies) to be deleted, with "Yes, I'm sure" below the list.
The search also matches comment bodies, so a search for the spammer's name brings up an
innocent comment that mentions it: ticking every row is wrong.
"""

from __future__ import annotations

import random

from web import App, Request, Response, esc, redirect

AUTHORS = ["maria", "jonas", "lea", "tom", "sofia", "ahmed", "nina", "paul", "emma", "lukas"]
SPAMMER = "spambot42"
TASK = {"author": SPAMMER}
PROMPT = ("In comment moderation, delete every comment written by spambot42 — and nothing else "
          "(confirm the deletion).")
_TOPICS = ["the new release", "shipping times", "the recipe", "the photo essay", "the interview", "the map update"]
_SPAM = ["Cheap watches at best price!!!", "Earn 5000 EUR from home, click my profile", "Best casino bonus today",
         "Followers for sale, DM me", "Crypto doubling service, guaranteed"]


#: issue 28 §7's repeat variants: other spammers, added by ``add_spammers`` (the base task's data
#: stays as it was)
MORE_SPAMMERS = ["promo_bot", "casinoking", "likefarm"]


class CommentsApp(App):
    title = "Blog moderation"
    #: issue 28 §7's drift run: a redesign renamed the ids, classes and row labels, moved the
    #: action button before the select and renamed it and the confirmation's button
    drift = False

    def setup(self) -> None:
        rng = random.Random(1104)
        self.comments: list[dict] = []
        for i in range(64):
            if i % 7 == 3:
                author, body = SPAMMER, rng.choice(_SPAM)
            elif i == 20:
                author, body = "maria", "Thanks for removing the spambot42 posts last week, much better now."
            elif i == 41:
                author, body = "spambot4", "Great article on the new release!"  # a near-miss name, not the spammer
            else:
                author = rng.choice(AUTHORS)
                body = f"I really liked {rng.choice(_TOPICS)}. {rng.choice(['Thanks!', 'More please.', 'Well done.', ''])}".strip()
            self.comments.append({"id": 5000 + i * 11, "author": author, "body": body,
                                  "post": rng.choice(_TOPICS).title(), "replies": rng.randint(0, 2),
                                  "approved": rng.random() < 0.6, "date": f"2026-11-{1 + i % 28:02d}"})
        self.original_ids = {c["id"] for c in self.comments}
        self.spam_ids = {c["id"] for c in self.comments if c["author"] == SPAMMER}
        self.deleted: list[int] = []
        self.route("GET", "/", lambda req: redirect("/admin/blog/comment/"))
        self.route("GET,POST", "/admin/blog/comment/", self.changelist)

    def add_spammers(self) -> None:
        """More spammers for the repeat variants: a few comments each, one innocent mention each."""
        rng = random.Random(1105)
        base = max(c["id"] for c in self.comments) + 11
        for n, author in enumerate(MORE_SPAMMERS):
            for k in range(3 + n):
                self.comments.append({"id": base, "author": author, "body": rng.choice(_SPAM), "post": "The Map Update",
                                      "replies": k % 2, "approved": False, "date": f"2026-11-{10 + k:02d}"})
                base += 11
            self.comments.append({"id": base, "author": "lea", "body": f"Who is {author}? Their posts look odd.",
                                  "post": "The Interview", "replies": 0, "approved": True, "date": "2026-11-20"})
            base += 11
        self.original_ids = {c["id"] for c in self.comments}
        self.authors = {c["id"]: c["author"] for c in self.comments}

    def check_author(self, author: str, handled: set[str]) -> tuple[bool, str]:
        """Every comment of ``author`` gone, and no comment of anyone not in ``handled`` (the
        authors deleted so far, ``author`` included)."""
        left = {c["id"]: c for c in self.comments}
        gone = self.original_ids - set(left)
        wrong = sorted(i for i in gone if self._author(i) not in handled | {author})
        missing = sorted(i for i, c in left.items() if c["author"] == author)
        ok = not wrong and not missing
        return ok, "ok" if ok else f"deleted others' comments {wrong}; {author}'s left {missing}"

    def _author(self, cid: int) -> str:
        return self.authors.get(cid, "")

    def check(self, answer: object = None) -> tuple[bool, str]:
        left = {c["id"] for c in self.comments}
        wrong = sorted(self.original_ids - left - self.spam_ids)
        missing = sorted(self.spam_ids & left)
        ok = not wrong and not missing
        return ok, "ok" if ok else f"deleted non-spam {wrong}; spam left {missing}"

    def changelist(self, req: Request) -> Response:
        if req.method == "POST":
            action = req.get("action")
            ids = [int(x) for x in req.getlist("_selected_action") if x.isdigit()]
            chosen = [c for c in self.comments if c["id"] in ids]
            back = req.get("q_back")
            if not chosen:
                self.message(req, "Items must be selected in order to perform actions on them. No items have been changed.",
                             "warning")
                return redirect("/admin/blog/comment/" + (f"?q={back}" if back else ""))
            if action == "delete_selected":
                if req.get("post") == "yes":
                    with self.lock:
                        self.comments = [c for c in self.comments if c["id"] not in ids]
                        self.deleted.extend(c["id"] for c in chosen)
                    self.message(req, f"Successfully deleted {len(chosen)} comment{'s' if len(chosen) != 1 else ''}.")
                    return redirect("/admin/blog/comment/")
                return self.confirm(req, chosen, back)
            if action in ("approve", "unapprove"):
                for c in chosen:
                    c["approved"] = action == "approve"
                self.message(req, f"{len(chosen)} comments were updated.")
                return redirect("/admin/blog/comment/")
            self.message(req, "No action selected.", "warning")
            return redirect("/admin/blog/comment/")
        q = req.query.get("q", "")
        rows = [c for c in self.comments if not q or q.lower() in c["author"].lower() or q.lower() in c["body"].lower()]
        trs = "".join(
            f'<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" value="{c["id"]}" '
            f'class="action-select" aria-label="Select this object for an action - Comment {c["id"]} by {esc(c["author"])}"></td>'
            f'<th class="field-id"><a href="/admin/blog/comment/{c["id"]}/change/">#{c["id"]}</a></th>'
            f'<td class="field-author">{esc(c["author"])}</td><td class="field-body">{esc(c["body"])}</td>'
            f'<td>{esc(c["post"])}</td><td>{"Yes" if c["approved"] else "No"}</td><td>{c["date"]}</td></tr>' for c in rows)
        body = (f'<h1>Select comment to change</h1><div id="toolbar"><form id="changelist-search" method="get">'
                f'<label for="searchbar">Search:</label> <input type="text" size="40" name="q" value="{esc(q)}" id="searchbar"> '
                f'<input type="submit" value="Search"> <span class="small quiet">{len(rows)} results '
                f'(<a href="?">{len(self.comments)} total</a>)</span></form></div>'
                f'<form id="changelist-form" method="post" novalidate>{self.csrf(req)}<input type="hidden" name="q_back" value="{esc(q)}">'
                '<div class="actions"><label>Action: <select name="action" required>'
                '<option value="" selected>---------</option><option value="delete_selected">Delete selected comments</option>'
                '<option value="approve">Approve selected comments</option><option value="unapprove">Unapprove selected comments</option>'
                '</select></label> <button type="submit" class="button" title="Run the selected action" name="index" value="0">Go</button> '
                '<span class="action-counter" aria-live="polite"></span></div>'
                '<table id="result_list"><thead><tr><th class="action-checkbox-column"><input type="checkbox" id="action-toggle" '
                'aria-label="Select all objects on this page for an action"></th><th>Id</th><th>Author</th><th>Comment</th>'
                f'<th>Post</th><th>Approved</th><th>Date</th></tr></thead><tbody>{trs}</tbody></table></form>')
        if self.drift:
            body = _drifted(body)
        return Response(self.page("Select comment to change", body, req, crumbs=[("Blog", ""), ("Comments", "")]))

    def confirm(self, req: Request, chosen: list[dict], back: str) -> Response:
        items = []
        for c in chosen:
            replies = "".join(f"<li>Reply: <a href='#'>Reply {c['id']}-{n + 1} to comment #{c['id']}</a></li>"
                              for n in range(c["replies"]))
            items.append(f'<li>Comment: <a href="/admin/blog/comment/{c["id"]}/change/">#{c["id"]} by {esc(c["author"])}: '
                         f'{esc(c["body"])}</a>{f"<ul>{replies}</ul>" if replies else ""}</li>')
        hidden = "".join(f'<input type="hidden" name="_selected_action" value="{c["id"]}">' for c in chosen)
        body = ('<h1>Are you sure?</h1><p>Are you sure you want to delete the selected comments? All of the following '
                'objects and their related items will be deleted:</p><h2>Summary</h2>'
                f'<ul><li>Comments: {len(chosen)}</li><li>Replies: {sum(c["replies"] for c in chosen)}</li></ul>'
                f'<h2>Objects</h2><ul id="deleted-objects">{"".join(items)}</ul>'
                f'<form method="post" style="margin-top:40vh">{self.csrf(req)}{hidden}'
                f'<input type="hidden" name="action" value="delete_selected"><input type="hidden" name="q_back" value="{esc(back)}">'
                '<input type="hidden" name="post" value="yes"><input type="submit" value="Yes, I’m sure"> '
                f'<a href="/admin/blog/comment/{f"?q={esc(back)}" if back else ""}" class="button cancel-link">No, take me back</a>'
                '</form>')
        if self.drift:
            body = body.replace('value="Yes, I’m sure"', 'value="Delete them"')
        return Response(self.page("Delete multiple objects", body, req,
                                  crumbs=[("Blog", ""), ("Comments", "/admin/blog/comment/"), ("Delete multiple objects", "")]))


def _drifted(body: str) -> str:
    """The changelist after a redesign: other ids, classes and row labels; the action button
    before the select, renamed."""
    body = body.replace('id="searchbar"', 'id="find-q"').replace('for="searchbar"', 'for="find-q"')
    body = body.replace(">Search:</label>", ">Find:</label>").replace('class="action-select"', 'class="row-pick"')
    body = body.replace('aria-label="Select this object for an action - Comment ', 'aria-label="Pick comment ')
    go = ('<button type="submit" class="button" title="Run the selected action" name="index" value="0">Go</button> ')
    body = body.replace(go, "").replace('<div class="actions"><label>Action: ',
                                         '<div class="bulk-bar"><button type="submit" class="btn" name="index" '
                                         'value="0">Apply</button> <label>With selected: ')
    return body
