"""Declarations: top-level functions (API.md §2, §12) and ``TaskSpace`` (§3)."""

from __future__ import annotations

from .spec import OMIT, M, P, cls, prop

# -- top-level functions ----------------------------------------------------------------------

M("task_space", [P("name_or_id", "str|int", doc="a name (reused or created) or an existing space id"), "*",
                 P("profile_id", "str?", None, doc="profile of a new space (see profiles()); None: default"),
                 P("isolated", "bool", False, doc="a throw-away browser context (cookies, storage) instead of a "
                                                  "profile's; not with a profile_id")],
  "TaskSpace",
  "Reuse the Agent-owned space of that name or create one whose single tab is managed Page p1; an int opens an "
  "existing space.",
  """
task = await task_space("kettle-research")
page = task.page("p1")
print(task.space_id, page.label)
""",
  errors=("TaskSpaceNotFound", "TaskSpaceUserInControl", "ProfileNotFound", "InvalidArgument"),
  details="A handed-off space, or one the person took over, is still returned (its ownership says so): reading "
          "its pages is allowed, actions raise TaskSpaceUserInControl, and task.wait_for_control() waits for it; a "
          "user-owned space of that name (the person's own, or left by finish) raises TaskSpaceUserInControl (reason "
          "user_owned). profile_id is only for a new name; the space then starts with "
          "that profile's cookies, local storage and site permissions, shared with the profile's other spaces, and what "
          "it changes stays in the profile when it finishes. An unknown or removed profile raises ProfileNotFound.")

M("list_task_spaces", [], "list[{id, name, task_id, ownership, created_by, recent_tab_titles, isolated, status, reason, "
                         "browser}]",
  'Every task space; ownership is "agent", "agentDelegatedToUser" or "user"; reason says why a space is not the '
  'agent\'s ("needs_you": ask_human() waits for the person, "handed_off", "manual_takeover", "user_owned" ...). browser says where the space\'s '
  'pages live: "local", "cdp URL", or "grid NODE session ID" on a Selenium Grid (docs/scale-out.md).',
  """
for space in await list_task_spaces():
    print(space["id"], space["name"], space["ownership"], space["status"])
""")

M("claim_task_space", [P("space_id", "int", doc="the space's id")], "TaskSpace",
  "Only after the user has approved: take over a user-owned or inactive space (for example one left by finish) and "
  "set its ownership to agent. The tab active at that moment becomes user_page(); existing tabs stay unmanaged.",
  """
done = await task.finish(keep=["p1"])   # the space stays listed, now user-owned
# ... later, once the user has agreed:
task = await claim_task_space(done["space_id"])
print(task.ownership, task.user_page())
""",
  errors=("TaskSpaceNotFound", "TaskSpaceUserInControl"),
  details="A space the person took over (spaces take-over; reason manual_takeover) cannot be claimed: it raises "
          "TaskSpaceUserInControl until the person gives it back (spaces give-back ID).")

M("take_over_task_space", [P("space_id", "int", doc="the space's id")], "TaskSpace",
  "Only after the user has approved: resume an Agent-owned space after hand_off(). If control had been delegated, "
  "the active tab becomes user_page().",
  """
await task.hand_off()
# ... the person logs in, then tells you to continue:
task = await take_over_task_space(task.space_id)
print(task.ownership)
""",
  errors=("TaskSpaceNotFound",))

M("profiles", [], "list[{id, name, is_default, created_from, source_version}]",
  "The browser profiles a new space can use (ids are unique): default (the browser's own) and those the person "
  "created or imported (created_from names the source browser profile; None for a new empty one).",
  """
for profile in await profiles():
    print(profile["id"], profile["name"], profile["is_default"], profile["created_from"])
""",
  details="Only the person manages profiles, from the command line: ego-browser profiles [list | new NAME "
          "| rm ID | import --from chrome[:PROFILE] | --from-dir DIR [--name NAME]] (--json for JSON).")

M("secret", [P("name", "str+", doc="the name the person stored it under (ego-browser secrets set NAME)")],
  "Secret",
  'A marker for the person\'s stored secret NAME, to pass as the text of page.fill, page.keyboard.type or '
  'keyboard.insert_text: the host types the value and the round never sees it (it prints as [secret:NAME]).',
  """
token = secret("shop")
print(token)  # [secret:shop]; in a real log-in: await page.fill("#password", token)
""", call="sync", errors=("InvalidArgument", "SecretNotFound"),
  details="The person stores secrets outside any round: ego-browser secrets set NAME (the value from a "
          "hidden prompt or stdin), secrets list (names only), secrets rm NAME. The value is masked as "
          "[secret:NAME] in everything the host answers (receipts, snapshots, find(), evaluate results, console "
          "events, errors) and in its log; an unknown name raises SecretNotFound (EGO_SECRET_NOT_FOUND) when typed. "
          "See docs/security.md, \"Secrets\".")

M("help", [P("name", "any", None, doc='a member ("Page.click") or topic ("selectors"); case-insensitive')], "None",
  'Print the overview, or one member or topic: "TaskSpace", "Page.click", "Page.keyboard.press", "selectors", "locators", '
  '"snapshot", "errors", "learnings", "runner". An unknown name prints "Unknown help topic: <name>" and the '
  "closest names.",
  """
help("page.click")
""", call="sync")

M("expect", [P("actual", "any", doc="a Locator (page.locator(...), page.get_by_*(...)) or a Page"),
             P("message", "str?", None, doc="put before the failure message")],
  "LocatorAssertions | PageAssertions",
  "Playwright's web-first assertions, each awaited and retried until it holds or timeout= ms (default 5000) pass: "
  "on a Locator to_be_visible, to_be_hidden, to_have_text, to_contain_text (a str, re.Pattern or a list for every "
  "match), to_have_value, to_be_checked, to_be_enabled, to_be_disabled, to_have_attribute, to_have_count; on a "
  "Page to_have_url, to_have_title. .not_ negates. A failure raises AssertionFailed (EGO_ASSERTION_FAILED, also an "
  "AssertionError) with expected and actual.",
  """
await expect(page.get_by_role("heading", level=1)).to_have_text("Kettle & Co.")
await expect(page.locator("#count")).not_.to_have_text("3")
await expect(page).to_have_title(re.compile("Home"))
""", call="sync", errors=("AssertionFailed", "InvalidArgument", "SelectorAmbiguous"),
  details="A missing element fails every assertion but not_.to_be_visible and to_be_hidden (as Playwright's). "
          "A Locator matching several elements raises SelectorAmbiguous at once, except for to_have_count and the "
          "list forms of to_have_text / to_contain_text.")

M("embedded", [], "async context manager",
  "Run the host inside the calling process instead of the background host (tests, benchmarks, library use); API "
  "calls inside the block use it. Not a runner global.",
  """
import asyncio
import ego_browser

async def main():
    async with ego_browser.embedded():
        task = await ego_browser.task_space("library-use")
        page = task.page("p1")
        await page.goto("https://shop.example/")
        print(await page.title())
        await task.finish(keep=[])

asyncio.run(main())
""", call="asynccm", errors=("BrowserUnavailable",))

M("site_skills", [P("url", "str?", None, doc="defaults to the URL of page=, else the page used last"), "*",
                  P("page", "any", None, doc="a Page whose URL to use")],
  "list[{id, name, domains, dir}]", "Every site-learnings pack matching the URL's host, sorted by id.",
  """
for pack in await site_skills("https://shop.example/cart.html"):
    print(pack["id"], pack["domains"])
""")

M("learn_context", [P("url", "str?", None, doc="as in site_skills"), "*", P("page", "any", None, doc="as in site_skills")],
  "{url, sites: [{id, name}], knowledge: [{site_id, file, content}], tools: [{site_id, name, kind, description, args, "
  "returns, example}], problems: [str]}",
  "The notes and tools of every pack for the URL. A broken pack is skipped and described in problems. Tools you "
  "learned on the URL's site (task.learn) are listed too, with kind \"learned\", their args (the recorded values), "
  "stale, trusted, verified and postcondition; call one with await tools.NAME(page, ...).",
  """
ctx = await learn_context("https://shop.example/")
for tool in ctx["tools"]:
    print(tool["site_id"], tool["name"], tool["kind"], tool["description"])
""")

M("run_site_tool", [P("site_id", "str+", doc="the pack id"), P("tool", "str+", doc="a node tool of its manifest"), "/",
                    "**args"],
  "the tool's result",
  "Run a pack's Python tool as callable(ctx, **args) (awaited if a coroutine); the module is loaded fresh every call. "
  "ctx has site_id, pack_dir, page (the page= argument) and the top-level API functions.",
  """
result = await run_site_tool("shop", "search", query="kettle", page=page)
print(result["count"], [row["name"] for row in result["results"]])
""", errors=("SiteNotFound", "SiteToolNotFound", "SitePackInvalid"))

M("run_site_browser_tool", [P("site_id", "str+", doc="the pack id"), P("tool", "str+", doc="a browser tool"), "/", "*",
                            P("page", "Page", doc="the Page to run it in"), "**args"],
  "the tool's JSON result",
  "Run a pack's JS file as the body of an async function whose parameter args holds the keyword arguments, in page, "
  "under evaluate rules.",
  """
await page.goto("https://shop.example/search.html?q=kettle")
rows = await run_site_browser_tool("shop", "read_results", page=page)
print(rows)
""", errors=("SiteNotFound", "SiteToolNotFound", "SitePackInvalid", "PageScriptError"))

# -- TaskSpace --------------------------------------------------------------------------------

cls("TaskSpace", "An agent's own group of tabs (its own window) in the shared browser. Get one from task_space().",
    """
task = await task_space("kettle-research")
print(task)
""")
prop("TaskSpace.space_id", "int", "The space's numeric id.", "print(task.space_id)")
prop("TaskSpace.id", "int", "Alias of space_id.", "assert task.id == task.space_id")
prop("TaskSpace.name", "str", "The space's name.", "print(task.name)")
prop("TaskSpace.ownership", "str", 'Ownership when the object was made: "agent", "agentDelegatedToUser" or "user".',
     "print(task.ownership)")
prop("TaskSpace.isolated", "bool", "True if the space has its own browser context.", "print(task.isolated)")

M("TaskSpace.page", [P("label", "str+", doc='a managed label such as "p1"')], "Page",
  "The Page with this label (lazy: the label is checked on first use); one object per label per process.",
  """
page = task.page("p1")
print(await page.url())
""", call="sync", errors=("PageNotFound",))

M("TaskSpace.user_page", [], "Page | UnmanagedPage | None",
  "The tab that was active at the last claim or take-over.", "print(task.user_page())", call="sync")

M("TaskSpace.pages", [], "list[Page]", "The managed Pages (reconciled with the live tabs).",
  """
print([p.label for p in await task.pages()])
""")

M("TaskSpace.tabs", [], "list[{target_id, label, page, title, url, active, opened_by}]",
  "Every tab of the space, managed (label set) or not (label None, page an UnmanagedPage). In an agent-controlled "
  "space, tabs opened by managed Pages are adopted first.",
  """
for tab in await task.tabs():
    print(tab["label"], tab["opened_by"], tab["url"])
""")

M("TaskSpace.new_page", [], "Page",
  'Open a new tab at about:blank as the next label pN (opened_by "agent").',
  """
cart = await task.new_page()
await cart.goto("https://shop.example/cart.html")
print(cart.label, await cart.title())
""", errors=("PageBudgetReached",))

M("TaskSpace.adopt", [P("unmanaged", "unmanaged", doc="an UnmanagedPage from tabs() or user_page()"), "*",
                      P("label", "str?", None, doc="a permanent label (default: the next pN)")],
  "Page", "Make an unmanaged tab a managed Page (it keeps its opened_by). The budget is checked.",
  """
done = await task.finish(keep=["p1"])
task = await claim_task_space(done["space_id"])
tab = task.user_page()              # unmanaged after the claim
shop = await task.adopt(tab, label="shop")
print(shop.label, shop.opened_by)
""", errors=("PageBudgetReached", "InvalidArgument"))

M("TaskSpace.release", [P("label", "str+", doc="the label of an adopted Page")], "UnmanagedPage",
  'Give an adopted tab (opened_by "unknown") back to the user; the tab stays open. Agent Pages are closed, not '
  "released.",
  """
for tab in await task.tabs():
    if tab["label"] and tab["opened_by"] == "unknown":   # a tab the user opened, adopted earlier
        print(await task.release(tab["label"]))
""", errors=("InvalidArgument", "PageNotFound"))

_HANDED_BACK = "{note, url, title, before: {url, title} | None, changed: [str], held_ms, resumed_after_ms}"

M("TaskSpace.wait_for_control", ["*", P("interval", "ms>0", 20000, doc="ignored (kept for older scripts): the wait "
                                                                          "ends on the give-back itself"),
                                 P("timeout", "ms>0", 600000, doc="overall limit; may exceed the usual request "
                                                                  "deadline")],
  _HANDED_BACK,
  "Wait until the agent controls the space again (never takes control itself); returns the person's note and "
  "where the active tab is (url, title) at once if it already does.",
  """
await task.wait_for_control(timeout=60000)
""", errors=("EgoTimeout", "ConsentRefused"),
  details="Works on a space the person holds: task_space(name) returns such a space (reading its pages is allowed, "
          "actions raise TaskSpaceUserInControl), so a new round can wait for it. Wakes within a second of "
          "spaces give-back ID [--note TEXT] or the dashboard's Give back; before is what the tab showed when "
          "ask_human() handed it over, changed lists \"url\"/\"title\" when they differ. On EgoTimeout the space "
          "stays with the person. After an action raised ConsentRequired it is the person's answer: it returns on "
          "their yes (note \"yes\") and raises ConsentRefused (action, note) on anything else, also in a later "
          "round when they answered before the wait began.")

M("TaskSpace.ask_human", [P("reason", "text500", doc="what the person should do, shown in spaces, the dashboard "
                                                     "and a desktop notification"), "*",
                          P("wait", "bool", True, doc="wait for the give-back; False returns at once (a later "
                                                      "round calls wait_for_control())"),
                          P("timeout", "ms>0", 600000, doc="how long to wait; at most about 24 days, past the "
                                                           "usual request deadline")],
  _HANDED_BACK + " (and waiting)",
  "Hand the space to the person for something only they can do (a log-in, a 2FA code, a CAPTCHA) and wait until "
  "they give it back; returns their note and what changed.",
  """
asked = await task.ask_human("Please confirm the kettle choice", wait=False)
print(asked["url"], asked["waiting"])
await take_over_task_space(task.space_id)   # (here only: the example takes the space back itself)
""", errors=("TaskSpaceUserInControl", "EgoTimeout"),
  details="The space shows \"needs you\" (ownership agentDelegatedToUser, reason needs_you, the reason as its "
          "status) in spaces and the dashboard, and notify-send sends a desktop notification where one is "
          "installed. The agent's other calls on the space stop and its actions raise TaskSpaceUserInControl "
          "until the person gives it back (ego-browser spaces give-back ID --note TEXT, or Give back in the "
          "dashboard); the call then returns within a second: {note, url, title, before, changed, held_ms, "
          "resumed_after_ms}. On EgoTimeout the space stays with the person: wait again with wait_for_control().")

M("TaskSpace.hand_off", [], "None",
  "Hand the space to the person; gated calls then raise TaskSpaceUserInControl (reason handed_off) until "
  "take_over_task_space(). Calls still running on the space stop with that error too.",
  """
await task.set_status("Please log in, then tell me to continue")
await task.hand_off()
""")

M("TaskSpace.set_allowed_domains", [P("domains", "list", doc="host patterns: example.com, *.example.com (it and "
                                                             "its subdomains), host:port")],
  "{domains, set_by}",
  "Fence the space in: from now on its pages reach only these hosts (navigations, redirects, popups, iframes, "
  "forms, fetch/XHR/WebSocket, workers and service workers). An agent may only narrow the list in force.",
  """
print(await task.set_allowed_domains(["127.0.0.1", "*.example.com"]))
""", errors=("InvalidArgument", "NavigationNotAllowed", "TaskSpaceUserInControl"),
  details="A navigation outside the list fails with NavigationNotAllowed (EGO_NAVIGATION_NOT_ALLOWED; attributes url and "
          "rule, which names the list): page.goto before anything is sent, an action whose navigation, redirect "
          "or popup the list stopped after it ran. Other requests outside it fail in the page as a network error. "
          "The person sets, widens or lifts a space's list, or a profile's default for its spaces, with ego-browser "
          "allow (--space ID | --profile ID) [DOMAIN ... | --any]. See docs/security.md, "
          "\"Domain allowlists\".")
M("TaskSpace.allowed_domains", [], "{domains, set_by}",
  "The allowlist in force for the space (domains None: no list); set_by is \"space\", \"profile\" or None.",
  """
print(await task.allowed_domains())
""")

M("TaskSpace.finish", ["*", P("keep", "keep", doc='"all" or a list of managed labels to leave open')],
  "{space_id, closed_space, kept_labels, closed_labels, preserved_unmanaged}",
  "End the task: close the agent Pages not kept and delete the ledger. With keep=[] and no unmanaged tab left the "
  "whole space closes; otherwise it stays listed and becomes user-owned.",
  """
result = await task.finish(keep=[])
print(result["closed_space"], result["closed_labels"])
""", errors=("PageNotFound",))

M("TaskSpace.set_viewport", [P("width", "px"), P("height", "px")], "None",
  "Viewport size in CSS px of this space's pages (open and future; default 1280x720). Lasts as long as the host.",
  """
await task.set_viewport(1600, 900)
print(await task.page("p1").info())
""")
M("TaskSpace.set_status", [P("text", "text500", doc='the progress text the user sees; "" clears it')], "None",
  "Set the user-visible progress text (list_task_spaces() reports it as status).",
  """
await task.set_status("Comparing kettle prices")
""")

M("TaskSpace.journal", ["*", P("rounds", "list?", None, doc="round numbers to read (default: all that are kept)")],
  "{format, space_id, caps, rounds: [{n, started, ended, script, status, error, actions: [{seq, round, op, page, "
  "target, value, url_before, url_after, navigation, dialog, popups, download, outcome, error, started, ms, "
  "requests, note, picture_before, picture_after, snapshot?}]}]}",
  "What the space did, round by round: each round's script and outcome, each action's target (as given and as "
  "resolved: role, name, the stable locator computed when it ran), value, URLs before and after and what it "
  "caused. Read-only; task.learn distils tools from it.",
  """
journal = await task.journal()
for r in journal["rounds"]:
    print(r["n"], r["status"], [(a["op"], (a["target"] or {}).get("locator")) for a in r["actions"]])
""",
  details="Values typed into password fields read [password]; values passed as secrets read [secret:NAME]; "
          "neither is ever stored. Bounded per space (caps says how); a finished space's journal goes with it unless "
          "a tool was learned from it. The format is documented in docs/learning.md.")

M("TaskSpace.export_trace", [P("path", "abspath", doc="the file to write (its folder must exist)"), "*",
                             P("format", ("zip", "playwright"), "zip",
                               doc="zip: the trace with an offline viewer; playwright: a replay script"),
                             P("rounds", "list?", None, doc="round numbers to export (default: all that are kept)"),
                             P("video", "bool", False, doc="put a captioned video of the actions in the zip too")],
  "{path, bytes, rounds, actions, pictures}",
  "Write the space's trace: zip (index.html opens offline: rounds -> actions with their targets, values, URLs, "
  "pictures before and after, requests, dialogs, popups, downloads, errors and timings) or playwright (a Python "
  "script that replays the actions with stable locators and checks the last URL).",
  """
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "trace.zip")
print((await task.export_trace(path))["actions"])
""",
  details="The CLI does the same: ego-browser trace export SPACE --output trace.zip [--as playwright]. "
          "Pictures are taken after each action (EGO_BROWSER_TRACE_PICTURES=0 turns them off); caps and rotation "
          "are in docs/trace.md.", errors=("TraceUnwritable", "VideoUnavailable"))

M("TaskSpace.record_video", [P("path", "abspath", doc="the .webm file to write (its folder must exist)"), "*",
                             P("rounds", "list?", None, doc="round numbers to show (default: all that are kept)")],
  "{path, bytes, frames, seconds}",
  "Write what the space did as a WebM video that plays in Chromium: the picture after each action, captioned with "
  "its round, action, target and value (or error). Made with Debian's ffmpeg.",
  """
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "space.webm")
print((await task.record_video(path))["frames"])
""",
  details="A space without pictures (a Grid space's browser, EGO_BROWSER_TRACE_PICTURES=0) raises "
          "EGO_VIDEO_UNAVAILABLE, as does a machine without ffmpeg; a failed encoding writes nothing and keeps the "
          "trace.", errors=("TraceUnwritable", "VideoUnavailable"))

M("TaskSpace.learn", [P("name", "str+", doc="the tool's name, a Python identifier (add_book)"), "*",
                      P("rounds", "list?", None, doc="round numbers to learn from (default: every round kept)"),
                      P("params", "dict?", None, doc="renames of the parameters found: {\"title\": \"book_title\"}"),
                      P("levers", "bool", True, doc="use the site's levers (a GET form's URL, the JSON API the page "
                                                    "called); False keeps the steps the run took on the page")],
  "{name, origin, path_prefix, source, params, postcondition, rounds, lever, warnings, space_id, profile_id, "
  "isolated, draft_file}",
  "Distil the space's journal into a draft tool: an async run(page, ...) whose parameters are the values typed or "
  "chosen (named from the fields' labels), whose steps use stable locators only and which ends by checking what the "
  "last page showed. Nothing is saved: read (and edit) source, then task.save_tool.",
  """
await page.fill("#q", "kettle")
await page.click('role=button[name="Search"]')
draft = await task.learn("find_products", params={"search_products": "query"})
print(draft["lever"])
print(draft["source"])
""",
  errors=("LearnJournalEmpty", "LearnRoundFailed", "LearnNameTaken", "LearnUnknownParam", "LearnedToolInvalid"),
  details="A GET form whose result URL carries the typed values becomes one goto of that URL, a form the page "
          "posts to a JSON API one page.fetch of that API, and a single-page app's commands that each called its "
          "JSON API (new, save, run) those calls in order (lever says which); levers=False keeps the page's steps "
          "(an API that needs what the journal does not keep, a token in a header). warnings names what is not replayed "
          "(actions on a popup or another tab): edit the source if the task needs them. "
          "The journal of the last round learned from must have succeeded; a parameter renamed must have appeared; "
          "a name shipped with ego_browser for the site is refused.")

M("TaskSpace.save_tool", [P("name", "str+", doc="the name given to task.learn"), "*",
                          P("source", "str?", None, doc="the edited source (default: the draft's)"),
                          P("args", "dict?", None, doc="values for the verifying run (default: the recorded ones)"),
                          P("skip_verify", "str?", None, doc="the reason not to verify (kept with the tool)")],
  "{name, site_id, version, verified, file, result, verify_skipped}",
  "Run the draft once in a fresh space of the same profile and check its post-condition; only then save it in the "
  "site's learned pack (a new version when it exists, the old one kept). Then: await tools.NAME(page, ...).",
  """
await page.fill("#q", "kettle")
await page.click('role=button[name="Search"]')
await task.learn("search_shop")
saved = await task.save_tool("search_shop", args={"search_products": "toaster"})
print(saved["version"], saved["verified"])
print(await tools.search_shop(page, search_products="kettle"))
""",
  errors=("LearnVerifyFailed", "LearnedToolInvalid", "LearnNameTaken", "InvalidArgument"),
  details="A failed run or invalid source saves nothing and leaves an existing tool as it was. skip_verify "
          "(a run would buy something twice) saves unverified, with the reason kept.")

M("TaskSpace.cdp", [P("method", "str+", doc="a Target.* or Browser.* method"), P("params", "dict?", None), "*",
                    P("timeout", "ms>0", 30000)],
  "dict", "A raw browser-level CDP command (Target.* and Browser.* only), scoped to this space's tabs and browser "
  "context; returns the result.",
  """
version = await task.cdp("Browser.getVersion")
print(version["product"])
""", errors=("InvalidArgument", "CdpMethodRefused", "TaskSpaceUserInControl", "CdpError", "EgoTimeout"),
  details="Allowed: Target.getTargets and Target.getBrowserContexts (listing only this space's tabs, frames and "
          "context), Target.getTargetInfo, createTarget, closeTarget, activateTarget, Browser.getVersion, "
          "getWindowForTarget, getWindowBounds, setWindowBounds, setContentsSize, setPermission, grantPermissions "
          "and resetPermissions. Every other Target.*/Browser.* method "
          "(Browser.close, Browser.crash, Target.attachToTarget, sendMessageToTarget, setDiscoverTargets, "
          "setAutoAttach, exposeDevToolsProtocol, create/disposeBrowserContext, setDownloadBehavior: downloads are the "
          "host's ...) raises CdpMethodRefused "
          "(EGO_CDP_METHOD_REFUSED; attributes method, argument, reason) before anything is sent; other domains "
          "raise InvalidArgument (use Page.cdp). A targetId, browserContextId or windowId must be this space's; "
          "in an isolated space an omitted browserContextId means its own context. A tab made by "
          "Target.createTarget joins the space as an unmanaged tab (see tabs(), adopt()). resetPermissions "
          "needs an isolated space (the default context is shared with the user). A person-held space raises TaskSpaceUserInControl.")

# TaskSpace.route/unroute are declared with the page's network
from . import spec_network  # noqa: E402,F401

__all__: list[str] = []
_ = OMIT
