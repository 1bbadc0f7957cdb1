"""The wire form of every host operation, derived from the declarations.

A round sends ``{"op": <name>, "a": {...}}``. The op's name is its member's ``api`` spelling
(``Page.click`` -> ``"page.click"``, ``TaskSpace.pages`` -> ``"task.pages"``); the arguments
are the member's parameters plus an *envelope* saying where the call applies (the space id,
the page label, the round's input token). The host binds them once against this form
(``host/core/dispatch.py``): declared defaults, the compiled checks, unknown names refused.

Most members go over the wire exactly as declared. What differs is written here, once:

- ``WIRE_ONLY``: operations no public member has (the halves of a client-side wait, the
  person's CLI, the runner's report);
- ``EXTRA``: wire parameters a member sends besides its own (a Download's ``guid`` ...);
- ``REPLACED``: members whose wire parameters are not their public ones (``adopt`` sends the
  tab's target id, not the ``UnmanagedPage`` object).

Importing this module loads the whole schema: it is for the host and the tests, not for rounds.
"""

from __future__ import annotations

from typing import Any

from .spec import OMIT, REQUIRED, Member, Param, members

__all__ = ["ENVELOPES", "LEGACY_NAMES", "LEGACY_SHAPES", "WIRE_ONLY", "declaration", "envelope", "wire_members"]

_ = OMIT


def _p(name: str, type_: Any, default: Any = REQUIRED) -> Param:
    return Param(name, type_, default, "", "kw")


#: envelope keys per kind of operation: taken off the arguments before binding
ENVELOPES: dict[str, tuple[str, ...]] = {
    # note: an action's words for the person watching (the dashboard reads it off the request)
    "page": ("space", "label", "proc", "note", "pointer_label"),
    # proc: the round's token, so the journal files a task call (a status note) under its round
    "task": ("space", "proc"),
    "none": (),
}

#: wire-only operations: name -> (envelope kind, parameters, doc)
WIRE_ONLY: dict[str, tuple[str, tuple[Param, ...], str]] = {
    # the gate check of page.wait_for_timeout (it sleeps in the round)
    "page.gate": ("page", (), "Refuse if the page is gone or its space is the person's."),
    # page.wait_for_url and expect_navigation wait in the round, in two halves
    "page.url_watch": ("page", (_p("after", "int?", None), _p("known_popups", "list?", None),
                                _p("timeout", "ms>0", 10000)),
                       "The page's committed URLs (after a version) and the popups it opened."),
    "page.nav_mark": ("page", (), "The number of the page's last main-frame navigation."),
    "page.wait_navigation": ("page", (_p("after", "int", 0), _p("wait_until", ("commit", "domcontentloaded", "load",
                                                                               "networkidle"), "load"),
                                      _p("timeout", "ms>0", 30000)),
                             "Wait for a main-frame navigation numbered after ``after``."),
    # wait_for_event / wait_for_file_chooser: armed synchronously, then awaited
    "page.arm_popup": ("page", (), "Arm a popup waiter; returns its token."),
    "page.wait_popup": ("page", (_p("token", "int"), _p("timeout", "ms>0", 10000)), "Await an armed popup waiter."),
    "page.arm_download": ("page", (_p("dir", "str+"),), "Arm a download waiter into a folder; returns its token."),
    "page.disarm_download": ("page", (_p("token", "int"),), "Drop a download waiter."),
    "page.wait_download": ("page", (_p("token", "int"), _p("dir", "str+"), _p("timeout", "ms>0", 10000)),
                           "Await an armed download waiter."),
    "page.arm_file_chooser": ("page", (), "Arm a file-chooser waiter; returns its token."),
    "page.disarm_file_chooser": ("page", (_p("token", "int"),), "Drop a file-chooser waiter."),
    "page.wait_file_chooser": ("page", (_p("token", "int"), _p("timeout", "ms>0", 10000)),
                               "Await an armed file-chooser waiter."),
    # page.requests, expect_response/expect_request (the matching is the round's for a callable)
    "page.network_log": ("page", (_p("regex", "str?", None), _p("flags", "int", 0), _p("resource_type", "str?", None),
                                  _p("limit", "int>0", 100)),
                         "The page's newest requests (matching a regex) and the log's sequence number."),
    "page.wait_network": ("page", (_p("after", "int", 0), _p("kind", ("request", "response", "finished"), "response"),
                                   _p("regex", "str?", None), _p("flags", "int", 0), _p("seen", "list?", None),
                                   _p("timeout", "ms>0", 30000)),
                          "Wait for requests changed after a sequence number that reached kind and match."),
    "page.request_body": ("page", (_p("id", "int"), _p("part", ("response", "request"), "response"),
                                   _p("timeout", "ms>0", 30000)),
                          "A request's response or request body (text, base64, or a file's path)."),
    # page.route / task.route and their unroute (the glob is a regex by then; pattern: as given)
    "page.add_route": ("page", (_p("pattern", "str"), _p("regex", "str"), _p("flags", "int", 0), _p("action", "dict"),
                                _p("times", "int>0?", None)), "Add a declarative route to the page; returns its id."),
    "page.remove_route": ("page", (_p("pattern", "str?", None), _p("route_id", "int?", None)),
                          "Remove the page's routes of a pattern (None: all), or one by its id."),
    "task.add_route": ("task", (_p("pattern", "str"), _p("regex", "str"), _p("flags", "int", 0), _p("action", "dict"),
                                _p("times", "int>0?", None)), "Add a declarative route to every page of the space."),
    "task.remove_route": ("task", (_p("pattern", "str?", None), _p("route_id", "int?", None)),
                          "Remove the space's routes of a pattern (None: all), or one by its id."),
    "task.start_har": ("task", (_p("path", "abspath"), _p("content", ("embed", "attach", "omit"), "embed"),
                                _p("regex", "str?", None), _p("flags", "int", 0)),
                       "Start recording the space's requests as a HAR file."),
    # a route whose handler runs in the round: its long poll, its answers
    "route.poll": ("none", (_p("route_id", "int"), _p("timeout", "ms>0", 2000)),
                   "The requests paused for a handler route (waits up to timeout)."),
    "route.decide": ("none", (_p("route_id", "int"), _p("pause_id", "int"), _p("decision", "dict?", None)),
                     "Answer one paused request: fulfill, abort, continue (None: unchanged)."),
    "task.info": ("task", (), "The space as task_space() returns it."),
    "task.control": ("task", (), "Who controls the space (task.wait_for_control polls it)."),
    # the person's side (CLI)
    "guard.confirm": ("none", (_p("space_id", "int?", None), _p("profile_id", "str?", None), _p("click", "list?", None),
                               _p("post", "list?", None), _p("downloads", "bool", False),
                               _p("purchases", "bool", False)),
                      "The person sets (or lifts: nothing given) what needs their yes: clicks on controls whose "
                      "name matches, form posts to listed hosts, downloads, purchases."),
    "guard.allow": ("none", (_p("space_id", "int?", None), _p("profile_id", "str?", None), _p("domains", "list?", None)),
                    "The person sets, widens or lifts (domains None) a space's allowlist or a profile's default."),
    "spaces.take_over": ("task", (_p("reason", "str?", None),), "The person takes a space over."),
    "spaces.create": ("none", (_p("name", "any", None),), "The person opens a space of their own."),
    "spaces.give_back": ("task", (_p("note", "str?", None),),
                         "The person gives a space back to its agent, with an optional note for it."),
    "spaces.close": ("task", (), "The person closes a space: its tabs, and it leaves the list."),
    "profiles.create": ("none", (_p("name", "any", None),), "The person makes a profile (CLI)."),
    "profiles.remove": ("none", (_p("id", "any", None),), "The person removes a profile (CLI)."),
    # the runner's end-of-round report
    "round.report": ("none", (_p("spaces", "list?", None), _p("touched", "list?", None), _p("token", "str?", None),
                              _p("script", "str?", None), _p("status", "str?", None), _p("error", "str?", None),
                              _p("started", "number?", None)),
                     "Background-adopted pages no round touched, and a notice for the person; the round's script "
                     "and outcome for the journal."),
    # task.learn: a tool was learned from the space, so its journal outlives it
    "task.journal_keep": ("task", (), "Keep the space's journal after the space finishes."),
    "host.status": ("none", (), "The host's health (pid, uptime, browser, spaces)."),
    # ego-browser dashboard: the person's dashboard, started in the host on first use
    # (once=True: also a one-time URL, the only form that may go on a command line)
    "dashboard.open": ("none", (_p("once", "bool", False),),
                       "Start the person's dashboard (once) and give its URL and port."),
}

#: the person's operations (the CLI and the dashboard send them): refused on a connection a
#: round or script opened (its frames say role "agent"). A guard against an agent's mistakes,
#: not a sandbox: code of the same Unix user can run the CLI too (docs/security.md)
PERSON_ONLY = frozenset({"dashboard.open", "spaces.take_over", "spaces.give_back", "spaces.create", "spaces.close",
                         "profiles.create", "profiles.remove", "host.stop", "guard.allow", "guard.confirm"})

#: member -> wire parameters it sends besides its own
EXTRA: dict[str, tuple[Param, ...]] = {
    "Page.wait_for_load_state": (_p("stale", "bool", True),),  # wait_for_url's own load wait keeps refs
    "Page.evaluate": (_p("has_arg", "bool", False),),
    "Page.wait_for_function": (_p("has_arg", "bool", False),),
    "FileChooser.set_files": (_p("id", "int"),),
    "Download.save_as": (_p("guid", "str+"),),
    "Download.path": (_p("guid", "str+"),),
    "Download.failure": (_p("guid", "str+"),),
    "Download.cancel": (_p("guid", "str+"),),
    "Download.delete": (_p("guid", "str+"),),
}

#: member -> its wire parameters, where they are not its public ones
REPLACED: dict[str, tuple[Param, ...]] = {
    # the space id travels in the envelope, as for every TaskSpace call
    "claim_task_space": (),
    "take_over_task_space": (),
    "TaskSpace.adopt": (_p("target_id", "str+"), _p("label", "str?", None)),
}

#: members whose space id travels in the envelope although they are top-level functions
_TASK_ENVELOPE = frozenset({"claim_task_space", "take_over_task_space"})

#: old wire names that are another operation's name today: name -> (the argument today's
#: operation requires, the old operation a request without it means)
LEGACY_SHAPES: dict[str, tuple[str, str]] = {
    "page.check": ("selector", "page.gate"),  # wait_for_timeout's gate before Page.check existed
}

#: old wire names (rounds of an earlier release may still send them) -> today's
LEGACY_NAMES: dict[str, str] = {
    "space.info": "task.info",
    "space.control": "task.control",
    "download.forget": "download.delete",
    **{f"space.{n}": f"task.{n}" for n in ("page", "pages", "tabs", "new_page", "adopt", "release", "hand_off",
                                            "set_status", "finish", "set_viewport", "cdp")},
}


def envelope(m: Member) -> tuple[str, ...]:
    """The envelope keys of member ``m``'s wire form."""
    if m.name in WIRE_ONLY:
        return ENVELOPES[WIRE_ONLY[m.name][0]]
    if m.owner is None:
        return ENVELOPES["task" if m.name in _TASK_ENVELOPE else "none"]
    if m.owner == "TaskSpace":
        return ENVELOPES["task"]
    if m.owner == "Download":
        return ENVELOPES["none"]
    return ENVELOPES["page"]


_wire: dict[str, Member] | None = None


def wire_members() -> dict[str, Member]:
    """Every host operation's wire form, by wire name (``"page.click"``)."""
    global _wire
    if _wire is None:
        out: dict[str, Member] = {}
        for m in members().values():
            if m.call in ("property", "class"):
                continue
            # "note" and a Page action's pointer caption ("label", sent as "pointer_label": "label"
            # is the page's label on the wire) travel in the envelope: no handler takes them, the
            # dashboard reads them from the request
            carried = ("note", "label") if (m.owner or "").startswith("Page") else ("note",)
            params = REPLACED.get(m.name, tuple(p._replace(kind="kw") for p in m.params if p.name not in carried)) + \
                EXTRA.get(m.name, ())
            out[m.api] = m._replace(params=params)
        for name, (_kind, params, doc) in WIRE_ONLY.items():
            owner, _, short = name.rpartition(".")
            out[name] = Member(name, "async", params, "", doc, "", (), (), "", name, owner, short)
        _wire = out
    return _wire


def declaration(name: str) -> Member:
    """The wire form of an operation, by wire name (legacy names too) or member name."""
    wire = wire_members()
    found = wire.get(LEGACY_NAMES.get(name, name))
    if found is None:
        found = next((m for m in wire.values() if m.name == name), None)
    if found is None:
        raise KeyError(name)
    return found
