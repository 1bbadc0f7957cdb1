"""Declarations: ``Page`` (API.md §4)."""

from __future__ import annotations

from .spec import OMIT, M, P, cls, prop

_ACTION_ERRORS = ("SelectorNotFound", "NotActionable", "SelectorAmbiguous", "InvalidSelector", "StaleRef",
                  "UnknownRef", "FileChooserOpened")
_BUTTON = ("left", "middle", "right")
_WAIT_UNTIL = ("commit", "domcontentloaded", "load", "networkidle")
_ON_BEFOREUNLOAD = P("on_beforeunload", ("raise", "accept"), "raise",
                     doc="a page that asks to confirm leaving (unsaved edits): raise NavigationBlocked, "
                         "or accept and go")
_TIMEOUT = P("timeout", "ms>0", 3000, doc="retry transient blockers until then")
_FORCE = P("force", "bool", False, doc="skip the hit-target test only")
_LABEL = P("label", "str?", None, doc="text shown beside the on-screen pointer for the watching user")
_NO_WAIT = P("no_wait_after", "bool", False,
             doc="return at once even if the action started a navigation (default: wait until it commits)")
_POSITION = P("position", "point?", None, doc="point from the element's top-left corner (default: its centre)")

cls("Page", "A tab with a durable label (p1, p2, ...). Get it from task.page(label), task.new_page() or a receipt.",
    "print(page)")
prop("Page.label", "str", "The durable label, never reused in its space.", "print(page.label)")
prop("Page.space_id", "int", "The id of the Page's space.", "assert page.space_id == task.space_id")
prop("Page.target_id", "str | None", "The CDP target id (internal; don't persist it).", "print(page.target_id)")
prop("Page.opened_by", "str | None", '"agent" or "unknown" (adopted tabs).', "print(page.opened_by)")

# -- state and observation ----------------------------------------------------------------------

M("Page.url", [], "str", "The current URL (does not activate the tab).", "print(await page.url())")
M("Page.title", [], "str", "The document title (does not activate the tab).", "print(await page.title())")
M("Page.info", [], "{url, title, w, h, sx, sy, pw, ph}",
  "Viewport size, scroll offsets and document size in CSS px. While a JS dialog is open: {\"dialog\": {...}} only.",
  """
info = await page.info()
print(info["w"], info["h"], info["sy"], info["ph"])
""")
M("Page.snapshot", ["*", P("scope", ("only_within_viewport", "full_page", "subtree"), "only_within_viewport"),
                    P("root", "selector?", None,
                      doc="a ref or any selector naming one element; required exactly when scope is subtree"),
                    P("include_action_marks", "bool", True, doc="print [ref=N] on actionable nodes"),
                    P("locators", "bool", False,
                      doc="also print loc= (a stable locator, where one is unique) for code reused on a fresh page"),
                    P("include_stable_locator", "bool?", None, doc="the older name of locators"),
                    P("max_length", "int>0?", None,
                      doc="cut the text at a line boundary; the last line is then \"[… cut N chars, M lines; ...]\""),
                    P("interactive", "bool", False,
                      doc="only the nodes to act on, with the headings, named landmarks and row cells that locate them"),
                    P("changes", "bool", False,
                      doc="only what changed since this page's previous snapshot with the same options (+ added, "
                          "- removed, ~ changed, each under its ancestors); after a navigation, the new document "
                          "with each landmark the previous one printed the same way as one line"),
                    P("grep", "str?", None,
                      doc="only the lines that match this text (any case) or /regex/ (/regex/i), under the "
                          "ancestors and heading that locate them"),
                    P("to_file", "bool", False,
                      doc="write the text to a file instead and return the header, its path and a one-line summary")],
  "str", "The page as compact text: a header, one node per line with its state and value, refs on nodes to act on "
         "(help('snapshot') explains the notation).",
  """
await page.goto("https://shop.example/search.html?q=kettle")
print(await page.snapshot())
print(await page.snapshot(grep="kettle"))  # only the matching lines, with what locates them
print(await page.snapshot(interactive=True, max_length=4000))
await page.goto("https://shop.example/product.html?id=k3")
print(await page.snapshot())
await page.click("text=Add to cart")
print(await page.snapshot(changes=True))  # only the lines the click changed
print(await page.snapshot(scope="full_page", to_file=True))  # the path and a summary; search the file
""", errors=("SnapshotFailed", "InvalidArgument", "SelectorNotFound", "SelectorAmbiguous"),
  rules=(("scope == 'subtree' and root is None", "subtree scope requires root", "root", "a snapshot ref"),
         ("scope != 'subtree' and root is not None", "root is only supported when scope is subtree", "root",
          "None")))
M("Page.locator_of", [P("ref", "selector")], "str | None",
  "A stable locator such as 'loc=css:#email' or 'loc=href:/terms' for the element a snapshot ref (or any selector "
  "naming one element) points at: one that names only that element on the page now, for code reused in a later "
  "round or on a fresh load. None when no such locator exists (then use text= or CSS).",
  """
print(await page.snapshot())            # ... searchbox "Search" [ref=3] ...
ref = (await page.find("#q"))[0]["ref"]  # the ref a snapshot printed for it ("@3")
sel = await page.locator_of(ref)         # "loc=css:#q": works in a later round, on a fresh load
await page.fill(sel, "kettle")
""", errors=("StaleRef", "UnknownRef", "SelectorNotFound", "SelectorAmbiguous"))
M("Page.screenshot", ["*", P("path", "abspath?", None, doc="default $TMPDIR/ego-browser-shot-<pid>-<n>.png"),
                      P("full_page", "bool", False), P("clip", "clip?", None, doc="{x, y, width, height, scale?}"),
                      P("scale", ("css",), "css"), P("raw", "bool", False, doc="skip the device-pixel-ratio correction")],
  "str", "Save a PNG of the viewport (or the full page, or a clip) and return its path.",
  """
path = await page.screenshot(full_page=True)
print(path)
""")
M("Page.find", [P("selector", "selector"), "*", P("limit", "int>0", 100)],
  "list[{ref, tag, id, role, name, text, visible, frame, value, checked, disabled, expanded, selected}]",
  "Every match in match order, each with a ref usable in later actions. Not strict, no waiting, no action checks: "
  "cheap counting and targeting without a snapshot. State as the snapshot prints it: value (live; None where the "
  "element has none, \"***\" for a filled password), checked (True, False, \"mixed\" or None), disabled, expanded "
  "(None where it does not apply), selected.",
  """
links = await page.find("main a")
print(len(links), [link["text"] for link in links])
await page.click(links[0]["ref"])
""", errors=("InvalidSelector",))
M("Page.count", [P("selector", "selector")], "int",
  "How many elements match now: not strict, no waiting, no refs (cheaper than len(find())); frames count only "
  "when the top document has no match, as for actions. Locator.count() calls it.",
  """
print(await page.count("a"), await page.count(page.get_by_role("button")))
""", errors=("InvalidSelector",))
M("Page.locator", [P("selector", "selector"), "*",
                   P("has_text", "text|re?", None, doc="keep elements whose text contains it (any case) or matches it"),
                   P("has_not_text", "text|re?", None, doc="drop those"),
                   P("has", "any", None, doc="keep elements holding a match of this inner Locator"),
                   P("has_not", "any", None, doc="drop those")],
  "Locator", "A Locator (Playwright's): the elements selector finds, resolved afresh on every use. It is the "
  "selector string itself (a str), bound to this Page: chain .locator(), .filter(has_text=, has_not_text=, has=, "
  "has_not=), .nth(i), .first, .last, .get_by_*(); act with .click(), .fill(), ... (every element action and read "
  "of Page, strict); .count() and .all() are not strict. help('locators') lists them; expect() asserts on them.",
  """
rows = page.locator("li").filter(has_text="kettle")
print(rows, await rows.count())
await rows.first.locator("a").click()
""", call="sync", errors=("InvalidArgument",))
M("Page.get_by_role", [P("role", "str+"), "*", P("name", "text|re?", None, doc="accessible name: a substring, any "
                        "case; with exact=True the whole name, case-sensitive; or a re.Pattern"),
                        P("exact", "bool", False), P("checked", "bool?", None), P("disabled", "bool?", None),
                        P("expanded", "bool?", None), P("level", "int>0?", None), P("pressed", "bool?", None),
                        P("selected", "bool?", None)],
  "Locator", "A Locator for elements with this ARIA role (Playwright's get_by_role); its selector string is "
  "e.g. role=button[name*=\"Save\" i]: act on it (.click()), pass it to any action, or chain it. No waiting, no host "
  "call.",
  """
search = page.get_by_role("button", name="search")
print(search)
await page.get_by_label("Search products").fill("kettle")
await search.click()
""", call="sync")
M("Page.get_by_text", [P("text", "text|re"), "*", P("exact", "bool", False)], "Locator",
  "A Locator for the smallest elements whose text contains text (any case; exact=True: the whole "
  "text, case-sensitive; a re.Pattern is tested on the whole text): text=..., as Playwright's get_by_text.",
  """
print(len(await page.find(page.get_by_text("toaster"))))
""", call="sync")
M("Page.get_by_label", [P("text", "text|re"), "*", P("exact", "bool", False)], "Locator",
  "A Locator for form controls (and elements with aria-label/aria-labelledby) whose label contains "
  "text: label=... (exact=True: label=\"...\", the whole label), as Playwright's get_by_label.",
  """
await page.fill(page.get_by_label("Search products", exact=True), "toaster")
""", call="sync")
M("Page.get_by_placeholder", [P("text", "str"), "*", P("exact", "bool", False)], "Locator",
  "A Locator for elements whose placeholder contains text (any case; exact=True: equal): "
  "[placeholder*=\"...\" i], as Playwright's get_by_placeholder.",
  """
await page.fill(page.get_by_placeholder("kettle"), "kettle")
""", call="sync")
M("Page.get_by_test_id", [P("test_id", "str")], "Locator",
  "A Locator for the elements whose data-testid equals test_id: [data-testid=\"...\"].",
  """
print(page.get_by_test_id("cart-count"), await page.find(page.get_by_test_id("cart-count")))
""", call="sync")
M("Page.get_by_title", [P("text", "str"), "*", P("exact", "bool", False)], "Locator",
  "A Locator for the elements whose title attribute contains text (any case; exact=True: equal): "
  "[title*=\"...\" i], as Playwright's get_by_title.",
  """
print(await page.get_by_title("basket").count())
""", call="sync")
M("Page.get_by_alt_text", [P("text", "str"), "*", P("exact", "bool", False)], "Locator",
  "A Locator for the elements (images) whose alt text contains text (any case; exact=True: equal): "
  "[alt*=\"...\" i], as Playwright's get_by_alt_text.",
  """
print(await page.get_by_alt_text("logo").count())
""", call="sync")
M("Page.events", [], "list[{method, params}]",
  "CDP events of this Page since the previous call (read and clear; buffered by the host across rounds). "
  "While the person holds the space: TaskSpaceUserInControl, and what happens meanwhile is dropped.",
  """
await page.reload()
print(sorted({event["method"] for event in page.events()})[:5])
""", call="sync")

# -- navigation and waits -----------------------------------------------------------------------

M("Page.goto", [P("url", "str+"), "*", P("referer", "str?", None), P("timeout", "ms>0", 15000),
                P("wait_until", _WAIT_UNTIL, "load"),
                _ON_BEFOREUNLOAD],
  "ActionReceipt", "Navigate and wait for wait_until (of the page it went to, if a script sends it on "
  "before: as Playwright's goto). A page with unsaved edits may ask to confirm leaving "
  "(beforeunload): goto raises NavigationBlocked with the dialog open (accept_dialog() leaves, "
  "dismiss_dialog() stays) unless on_beforeunload=\"accept\".",
  """
await page.goto("https://shop.example/search.html?q=kettle")
print(await page.title())
""", errors=("NavigationTimeout", "NavigationFailed", "NavigationBlocked"))
M("Page.reload", ["*", P("timeout", "ms>0", 15000), P("wait_until", _WAIT_UNTIL, "load"), _ON_BEFOREUNLOAD],
  "ActionReceipt", "Reload: same tab and label, fresh document (beforeunload as goto).",
  'await page.reload(wait_until="domcontentloaded")',
  errors=("NavigationTimeout", "NavigationFailed", "NavigationBlocked"))
M("Page.wait_for_load_state", [P("state", ("domcontentloaded", "load", "networkidle"), "load"), "*",
                               P("timeout", "ms>0", 10000), P("idle_ms", "ms>0", 500, doc="quiet time for networkidle")],
  "None", "Wait for a load state (returns at once if already reached).",
  """
await page.click("text=Toaster Duo")
await page.wait_for_load_state("load")
print(await page.title())
""", errors=("EgoTimeout",))
M("Page.wait_for_url", [P("matcher", "matcher", doc="exact URL, glob (**, *, {a,b}), re.Pattern or callable"), "*",
                        P("timeout", "ms>0", 10000), P("wait_until", _WAIT_UNTIL, "load")],
  "None", "Wait until the main frame commits a matching URL (at once if it matches now), then for wait_until "
  "(default load; \"commit\" does not wait for the document).",
  """
await page.fill("#q", "kettle")
await page.click("button:has-text('Search')")
await page.wait_for_url(lambda url: "/search.html?q=" in url)
""", errors=("EgoTimeout", "UrlOpenedInPopup"))
M("Page.expect_navigation", ["*", P("url", "matcher?", None, doc="only a navigation to a matching URL counts"),
                             P("wait_until", _WAIT_UNTIL, "load"), P("timeout", "ms>0", 30000)],
  "async context manager; await info.value",
  "Armed on entry; on exit waits for a main-frame navigation started after entry to commit and reach wait_until. "
  "info.value is the new URL. Clicks already wait for the navigations they start: use this for anything else.",
  """
async with page.expect_navigation(url="**/checkout.html") as info:
    await page.evaluate("setTimeout(() => location.assign('/checkout.html'), 50)")
print(await info.value)
""", call="asynccm", errors=("EgoTimeout", "NavigationFailed"))
M("Page.wait_for_event", [P("event", ("popup", "download")), "*", P("timeout", "ms>0", 10000)],
  "asyncio.Task[Page | Download]",
  "Arm a waiter now (sync); await the Task after the action that causes the event. One download waiter per Page.",
  """
await page.goto("https://shop.example/checkout.html")
waiter = page.wait_for_event("download")
await page.click("text=Export orders")
download = await waiter
print(download.suggested_filename())
""", call="sync", errors=("EgoTimeout", "InvalidState"))
M("Page.expect_event", [P("event", ("popup", "download")), "*", P("timeout", "ms>0", 10000)],
  "async context manager; await info.value",
  "The context-manager form of wait_for_event: armed on entry, cancelled if the block raises.",
  """
await page.goto("https://shop.example/checkout.html")
async with page.expect_event("popup") as info:
    await page.click("text=Delivery terms")
terms = await info.value
print(terms.label, await terms.title())
""", call="asynccm", errors=("EgoTimeout", "InvalidState"))
M("Page.wait_for_selector", [P("selector", "selector"), "*",
                             P("state", ("attached", "detached", "visible", "hidden"), "visible"),
                             P("timeout", "ms>0", 10000),
                             P("strict", "bool", False, doc="SelectorAmbiguous when several elements match")],
  "True", "Wait for the selector to reach the state. As Playwright, not strict: several matches are fine "
  "and the state is the first match's (strict=True to insist on one). For a page still drawing or "
  "fetching, wait_for_settled() first.",
  """
await page.goto("https://shop.example/search.html?q=kettle")
await page.wait_for_selector("#results tr >> nth=0")
""", errors=("EgoTimeout", "SelectorAmbiguous", "InvalidSelector"))
M("Page.wait_for_function", [P("js", "js", doc="an expression or a function source"),
                             P("arg", "json", OMIT, doc="passed to the function"), "*",
                             P("timeout", "ms>0", 10000), P("polling", "ms>0", 100)],
  "True", "Wait until the JS returns a truthy value. All refs of the Page go stale afterwards.",
  """
await page.goto("https://shop.example/search.html?q=kettle")
await page.wait_for_function("(n) => document.querySelectorAll('#results tr').length >= n", 3)
""", errors=("EgoTimeout", "PageScriptError"))
M("Page.wait_for_settled", ["*", P("quiet_ms", "ms>0", 500, doc="how long DOM and network must stay quiet"),
                            P("timeout", "ms>0", 10000)],
  "{settled, waited_ms, busy}",
  "Wait until the page is loaded and its DOM and network have been quiet for quiet_ms (at most timeout). "
  "Single-page apps draw after load and redraw after server round trips with no navigation: call it after "
  "goto or an action that fetches, before snapshot() or a read, instead of sleeping and looking again. "
  "Never raises on timeout: settled is False and busy says what was still going on (a live page may "
  "never settle; requests open for more than 5 s do not count, nor a fetch whose answer came and that has "
  "received nothing for quiet_ms although the page never read its body).",
  """
await page.goto("https://shop.example/search.html?q=kettle")
state = await page.wait_for_settled(timeout=8000)
print(state["settled"], await page.snapshot())
""")
M("Page.wait_for_timeout", [P("ms", "ms>=0")], "None",
  "Sleep ms milliseconds (0 is fine). Does not activate and is not gated; prefer waiting for a state.",
  "await page.wait_for_timeout(250)")

# -- element actions ----------------------------------------------------------------------------

M("Page.click", [P("selector", "selector"), "*", P("button", _BUTTON, "left"),
                 P("click_count", "clicks", 1), P("delay", "delay", 0, doc="ms between press and release"),
                 _POSITION, _FORCE, _TIMEOUT, _LABEL, _NO_WAIT],
  "ActionReceipt",
  "Trusted click after the checks: visible, non-zero size, enabled, hit target. Popups it opens are adopted "
  "(receipt.popups); a JS dialog comes back in receipt.dialog. A navigation it starts (link, form submit, "
  "location=) is waited for until the new document commits (receipt.navigation); then wait_for_load_state() "
  "for more.",
  """
await page.goto("https://shop.example/product.html?id=k2")
receipt = await page.click("text=Add to cart")
await page.wait_for_selector("text=Added Steel Kettle")
print(receipt.popups, receipt.dialog)
""", errors=_ACTION_ERRORS)
M("Page.dblclick", [P("selector", "selector"), "*", P("button", _BUTTON, "left"),
                    P("delay", "delay", 0), _POSITION, _FORCE, _TIMEOUT, _LABEL, _NO_WAIT],
  "ActionReceipt", "As click, with click_count=2.", 'await page.dblclick("h1")', errors=_ACTION_ERRORS)
M("Page.hover", [P("selector", "selector"), "*", _POSITION, _FORCE, _TIMEOUT, _LABEL], "ActionReceipt",
  "Move the mouse over the element (visible, size, hit target; disabled is fine).",
  'await page.hover("text=Toaster Duo")', errors=_ACTION_ERRORS)
M("Page.drag_and_drop", [P("source", "selector"), P("target", "selector"), "*", P("button", _BUTTON, "left"),
                         P("source_position", "point?", None), P("target_position", "point?", None), _FORCE,
                         _TIMEOUT, _LABEL],
  "ActionReceipt", "Press on source, move to target, release (trusted mouse input).",
  """
await page.goto("https://shop.example/checkout.html")
await page.drag_and_drop("#coupon", "#basket")
print(await page.evaluate("document.querySelector('#basket').textContent"))
""", errors=_ACTION_ERRORS)
_GIFT = """
await page.evaluate("document.body.insertAdjacentHTML('beforeend', '<label><input type=checkbox id=gift> Gift wrap</label>')")
"""
_READ_TIMEOUT = P("timeout", "ms>0", 3000, doc="wait this long for the selector to match")
_READ_ERRORS = ("SelectorNotFound", "SelectorAmbiguous", "InvalidSelector", "NotActionable", "StaleRef")
M("Page.check", [P("selector", "selector"), "*", _POSITION, _FORCE, _TIMEOUT, _LABEL], "ActionReceipt",
  "Check a checkbox or radio button (or the control of a label): nothing happens if it is checked already; "
  "else a click (with click's checks), after which it must be checked. Not a checkbox or radio: NotActionable "
  "(reason not_checkable) at once.",
  _GIFT + """await page.check("text=Gift wrap")
print(await page.is_checked("#gift"))
""", errors=_ACTION_ERRORS)
M("Page.uncheck", [P("selector", "selector"), "*", _POSITION, _FORCE, _TIMEOUT, _LABEL], "ActionReceipt",
  "Uncheck a checkbox (nothing happens if it is unchecked). A radio button cannot be unchecked "
  "(NotActionable, reason radio): check another of its group.",
  _GIFT + """await page.check("#gift")
await page.uncheck("#gift")
print(await page.is_checked("#gift"))
""", errors=_ACTION_ERRORS)
M("Page.set_checked", [P("selector", "selector"), P("checked", "bool"), "*", _POSITION, _FORCE, _TIMEOUT, _LABEL],
  "ActionReceipt", "check() when checked is True, else uncheck().",
  _GIFT + """await page.set_checked("#gift", True)
""", errors=_ACTION_ERRORS)
M("Page.is_checked", [P("selector", "selector"), "*", _READ_TIMEOUT], "bool",
  "Whether the checkbox or radio button (or a label's control) is checked. Strict; waits for a match; not a "
  "checkbox or radio: NotActionable.",
  _GIFT + """print(await page.is_checked("#gift"))
""", errors=_READ_ERRORS)
M("Page.is_enabled", [P("selector", "selector"), "*", _READ_TIMEOUT], "bool",
  "Whether the element is enabled (not disabled natively, by a disabled fieldset, or by aria-disabled). Strict; "
  "waits for a match.",
  """print(await page.is_enabled("button:has-text('Search')"))""", errors=_READ_ERRORS)
M("Page.is_visible", [P("selector", "selector")], "bool",
  "Whether the element is visible now (a non-empty box, not visibility:hidden). No waiting: no match is False. "
  "Strict.",
  """print(await page.is_visible("h1"), await page.is_visible("#no-such-thing"))""",
  errors=("SelectorAmbiguous", "InvalidSelector"))
M("Page.input_value", [P("selector", "selector"), "*", _READ_TIMEOUT], "str",
  "The value of an input, textarea or select (or a label's control). Strict; waits for a match.",
  """await page.fill("#q", "kettle")
print(await page.input_value("#q"))""", errors=_READ_ERRORS)
M("Page.text_content", [P("selector", "selector"), "*", _READ_TIMEOUT], "str | None",
  "The element's textContent (hidden text included). Strict; waits for a match.",
  """print(await page.text_content("h1"))""", errors=_READ_ERRORS)
M("Page.inner_text", [P("selector", "selector"), "*", _READ_TIMEOUT], "str",
  "The element's rendered text (innerText). Strict; waits for a match.",
  """print(await page.inner_text("h1"))""", errors=_READ_ERRORS)
M("Page.get_attribute", [P("selector", "selector"), P("name", "str+"), "*", _READ_TIMEOUT], "str | None",
  "The value of the element's attribute name, or None. Strict; waits for a match.",
  """print(await page.get_attribute("#q", "placeholder"))""", errors=_READ_ERRORS)
M("Page.fill", [P("selector", "selector"),
                P("value", "text|secret", doc='the text, or secret("NAME"): the person\'s stored secret, typed by the '
                                              'host and never shown to the round'), "*", P("clear_first", "bool", True), _TIMEOUT],
  "ActionReceipt",
  "Replace (or with clear_first=False append to) the text of a field, editing host or a wrapper's single field with "
  "one native insertion; the value is read back.",
  """
await page.fill("#q", "kettle")
print(await page.evaluate("document.querySelector('#q').value"))
""", errors=_ACTION_ERRORS)
M("Page.select_option", [P("selector", "selector"),
                         P("value", "select_value", doc="value or label, {value?, label?, index?}, a list, or None"),
                         "*", _TIMEOUT],
  "list[str]", "Select options of a <select> (fires input and change); returns the selected values.",
  """
await page.goto("https://shop.example/checkout.html")
print(await page.select_option("#shipping", "Express"))
""", errors=_ACTION_ERRORS)
M("Page.focus", [P("selector", "selector"), "*", _TIMEOUT], "ActionReceipt",
  "Focus the element, its nearest focusable ancestor or its single editable descendant.", 'await page.focus("#q")',
  errors=_ACTION_ERRORS)
M("Page.press", [P("selector", "selector"), P("key", "key", doc='a key or chord: "Enter", "Control+A"'), "*",
                 P("delay", "delay", 0), _TIMEOUT, _NO_WAIT],
  "ActionReceipt", "Focus as focus(), then keyboard.press(key); a navigation it starts is waited for as in click.",
  """
await page.fill("#q", "toaster")
await page.press("#q", "Enter")
await page.wait_for_url(re.compile(r"[?&]q=toaster"))
""", errors=_ACTION_ERRORS)

# -- dialogs, files, fetch ----------------------------------------------------------------------

M("Page.accept_dialog", [P("prompt_text", "str?", None, doc="the answer to a prompt()")], "bool",
  "Accept the open JS dialog; False if none was open. Stales every ref of the Page.",
  """
await page.goto("https://shop.example/checkout.html")
receipt = await page.click("text=Place order")
if receipt.dialog:
    print(receipt.dialog["type"], receipt.dialog["message"])
    await page.accept_dialog()
""")
M("Page.dismiss_dialog", [], "bool", "Dismiss the open JS dialog; False if none was open.",
  """
await page.goto("https://shop.example/checkout.html")
receipt = await page.click("text=Place order")
print(await page.dismiss_dialog())
""")
M("Page.set_input_files", [P("selector", "selector", doc="a file input, its <label> or a wrapper holding one"),
                           P("files", "files"), "*", _TIMEOUT],
  "ActionReceipt", "Set the files of a file input (hidden inputs too) with no system dialog.",
  """
import os, tempfile
receipt_file = os.path.join(tempfile.mkdtemp(), "receipt.txt")
with open(receipt_file, "w") as f:
    f.write("paid")
await page.goto("https://shop.example/checkout.html")
await page.set_input_files("#receipt", receipt_file)
""", errors=("InvalidArgument", "SelectorAmbiguous", *_ACTION_ERRORS[:2]))
M("Page.wait_for_file_chooser", ["*", P("timeout", "ms>0", 10000)], "asyncio.Task[FileChooser]",
  "Arm a file-chooser waiter now (sync); await it after the action that opens the chooser.",
  """
import os, tempfile
receipt_file = os.path.join(tempfile.mkdtemp(), "receipt.txt")
with open(receipt_file, "w") as f:
    f.write("paid")
await page.goto("https://shop.example/checkout.html")
waiter = page.wait_for_file_chooser()
await page.click("text=Upload receipt")
chooser = await waiter
await chooser.set_files(receipt_file)
""", call="sync", errors=("EgoTimeout", "InvalidState"))
M("Page.expect_file_chooser", ["*", P("timeout", "ms>0", 10000)], "async context manager; await info.value",
  "The context-manager form of wait_for_file_chooser.",
  """
import os, tempfile
receipt_file = os.path.join(tempfile.mkdtemp(), "receipt.txt")
with open(receipt_file, "w") as f:
    f.write("paid")
await page.goto("https://shop.example/checkout.html")
async with page.expect_file_chooser() as info:
    await page.click("text=Upload receipt")
chooser = await info.value
print(chooser.is_multiple())
await chooser.set_files([receipt_file])
""", call="asynccm", errors=("EgoTimeout", "InvalidState"))
M("Page.fetch", [P("url", "str+", doc="resolved against the Page URL"), "*", P("timeout", "ms>0", 20000),
                 P("save_as", "path?", None, doc="write the bytes there (body is then None)"),
                 P("method", "str+", "GET"), P("headers", "headers?", None), P("body", "str?", None),
                 P("cache", "str?", None), P("credentials", "str?", None), P("integrity", "str?", None),
                 P("keepalive", "bool?", None), P("mode", "str?", None), P("redirect", "str?", None),
                 P("referrer", "str?", None), P("referrer_policy", "str?", None)],
  "{ok, status, status_text, url, headers, body, saved_path}",
  "window.fetch in the Page: its cookies, Origin and CORS rules apply. A non-2xx status is returned, not raised.",
  """
res = await page.fetch("/search.html?q=kettle")
print(res["ok"], res["status"], res["headers"].get("content-type"))
""", errors=("FetchFailed", "EgoTimeout"))

M("Page.webmcp_tools", [], "[{name, description, input_schema, annotations}]",
  "The tools the page registers for agents through WebMCP (navigator.modelContext); [] when it registers none.",
  """
await page.goto("https://shop.example/wishlist.html")
for t in await page.webmcp_tools():
    print(t["name"], t["description"], t["input_schema"])
""", errors=("TaskSpaceUserInControl",),
  details="Chromium has no navigator.modelContext of its own yet: ego_browser gives secure top-level pages a "
          "small one that only keeps what the page registers (provideContext, registerTool, unregisterTool, "
          "clearContext); EGO_BROWSER_WEBMCP=0 turns it off. The snapshot header and learn_context() list "
          "the tools too.")
M("Page.call_webmcp_tool", [P("name", "str+", doc="as listed by webmcp_tools()"),
                            P("args", "dict?", None, doc="the tool's input, checked against its input_schema"),
                            "*", P("timeout", "ms>0", 30000)],
  "{tool, result, text, data}",
  "Run one of the page's WebMCP tools and return what it answered: result as the tool returned it, text its "
  "text content joined, data that text parsed when it is JSON.",
  """
await page.goto("https://shop.example/wishlist.html")
res = await page.call_webmcp_tool("add_to_wishlist", {"product": "Travel Kettle", "quantity": 2})
print(res["text"], res["data"])
""", errors=("WebMcpToolNotFound", "WebMcpBadArguments", "WebMcpToolFailed", "EgoTimeout"))

# -- evaluate, cdp, close -----------------------------------------------------------------------

M("Page.evaluate", [P("js", "js", doc="an expression, or a function source called with arg"),
                    P("arg", "json", OMIT, doc="one JSON value, only for a function")],
  "JSON value", "Evaluate JavaScript in the page's main world (a function is called with arg and awaited). "
  "Never stales refs.",
  """
print(await page.evaluate("document.title"))
print(await page.evaluate("(sel) => document.querySelectorAll(sel).length", "a"))
""", errors=("PageScriptError", "PageEvaluationTimeout", "InvalidArgument"))
M("Page.cdp", [P("method", "str+"), P("params", "dict?", None), "*", P("timeout", "ms>0", 30000)], "dict",
  "A raw CDP command on the Page's session; afterwards every ref is stale. Scoped to this tab: methods that reach "
  "other tabs or the whole browser are refused (CdpMethodRefused).",
  """
res = await page.cdp("Runtime.evaluate", {"expression": "1 + 1", "returnByValue": True})
print(res["result"]["value"])
""", errors=("CdpError", "CdpMethodRefused", "TaskSpaceUserInControl", "EgoTimeout"),
  details="Allowed: the page-scoped domains (Accessibility, Animation, Audits, Autofill, CacheStorage, Console, CSS, "
          "Debugger, DeviceOrientation, DOM, DOMDebugger, DOMSnapshot, DOMStorage, Emulation, EventBreakpoints, "
          "Fetch, FileSystem, HeapProfiler, IndexedDB, Input, Inspector, IO, LayerTree, Log, Media, Network, "
          "Overlay, Page, Performance, PerformanceTimeline, Preload, Profiler, Runtime, Schema, Security, Storage, "
          "WebAudio, WebAuthn) plus Target.getTargetInfo, Browser.getVersion, Browser.getWindowForTarget, "
          "Browser.setPermission/grantPermissions/resetPermissions, SystemInfo.getInfo/getFeatureState and "
          "Memory.getDOMCounters*; every other method (Target.*, Browser.close, Tracing.*, an unknown domain ...) "
          "raises CdpMethodRefused (EGO_CDP_METHOD_REFUSED) before anything is sent. A targetId, sessionId, "
          "browserContextId or windowId argument must name this tab (or its frames) and its space's context; "
          "clearing every cookie or the cache (Network.clearBrowserCookies, Storage.clearCookies ...) needs an "
          "isolated space; download behaviour is the host's (refused). A person-held space raises TaskSpaceUserInControl, and "
          "input is re-checked right before it is sent.")
M("Page.close", [], "None",
  "Close the tab (confirmed gone), opening an unmanaged about:blank tab if it was the space's last; the label is "
  "retired.",
  """
extra = await task.new_page()
await extra.close()
""")

# the page's network (and the Request class) are declared apart, loaded with the Page
from . import spec_network  # noqa: E402,F401

__all__: list[str] = []
_ = OMIT
