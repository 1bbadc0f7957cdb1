"""Declarations: ``Page.mouse``, ``Page.keyboard``, ``FileChooser``, ``Download`` and the value types
(API.md §5-§8)."""

from __future__ import annotations

from .spec import M, P, add_keyword, cls, prop

_BUTTON = ("left", "middle", "right")
_LABEL = P("label", "str?", None, doc="text shown beside the on-screen pointer")
_DOWNLOAD = """
await page.goto("https://shop.example/checkout.html")
waiter = page.wait_for_event("download")
await page.click("text=Export orders")
download = await waiter
"""

# -- Page.mouse -----------------------------------------------------------------------------------

cls("Page.mouse", "Trusted mouse input in viewport CSS px. Position and held buttons last one process (start (0, 0)); "
    "events carry keyboard.down modifiers.", "print(page.mouse)")
M("Page.mouse.click", [P("x", "number"), P("y", "number"), "*", P("button", _BUTTON, "left"),
                       P("click_count", "clicks", 1), P("delay", "delay", 0), _LABEL,
                       P("no_wait_after", "bool", False, doc="do not wait for a navigation the click starts")],
  "ActionReceipt", "Move to (x, y), press and release; a navigation it starts is waited for until it commits.",
  """
box = await page.evaluate("(() => { const r = document.querySelector('#q').getBoundingClientRect(); "
                          "return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
await page.mouse.click(box["x"], box["y"])
""", errors=("FileChooserOpened",))
M("Page.mouse.move", [P("x", "number"), P("y", "number"), "*", P("steps", "steps", 1, doc="interpolated segments"),
                      _LABEL],
  "None", "Move the pointer from its current position in steps.", "await page.mouse.move(120, 80, steps=5)")
M("Page.mouse.down", ["*", P("button", _BUTTON, "left"), P("click_count", "clicks", 1)], "None",
  "Press a button at the current position.",
  """
await page.mouse.move(50, 50)
await page.mouse.down()
await page.mouse.move(200, 50, steps=4)
await page.mouse.up()
""")
M("Page.mouse.up", ["*", P("button", _BUTTON, "left"), P("click_count", "clicks", 1)], "None",
  "Release a button at the current position.", "await page.mouse.down()\nawait page.mouse.up()")
M("Page.mouse.wheel", [P("delta_x", "wheel"), P("delta_y", "wheel"), "*", _LABEL], "None",
  "Scroll with a wheel event at the current position (move over the scroll container first in each process).",
  """
await page.goto("https://shop.example/search.html?q=kettle")
await page.mouse.move(200, 200)
await page.mouse.wheel(0, 300)
""")

# -- Page.keyboard --------------------------------------------------------------------------------

cls("Page.keyboard", 'Trusted keyboard input. Key names follow Playwright ("a", "Enter", "Shift+Tab", "ControlOrMeta+A", '
    '"KeyA", "Numpad1"); named keys ignore case. An unknown key raises InvalidArgument with a hint.',
    "print(page.keyboard)")
M("Page.keyboard.down", [P("key", "key")], "None", "Hold a key down (it modifies later presses and mouse events).",
  """
await page.focus("#q")
await page.keyboard.down("Shift")
await page.keyboard.press("KeyK")
await page.keyboard.up("Shift")
""", errors=("InvalidArgument",))
M("Page.keyboard.up", [P("key", "key")], "None", "Release a held key.",
  'await page.keyboard.down("Alt")\nawait page.keyboard.up("Alt")', errors=("InvalidArgument",))
M("Page.keyboard.press", [P("key", "key", doc='a key or chord: "Enter", "Control+A", "+"'), "*",
                          P("delay", "delay", 0),
                          P("no_wait_after", "bool", False, doc="do not wait for a navigation the key starts")],
  "ActionReceipt", "Key down, then up after delay ms; a navigation it starts (Enter in a form) is waited for "
  "until it commits.",
  """
await page.focus("#q")
await page.keyboard.type("kettle")
await page.keyboard.press("Enter")
await page.wait_for_url(re.compile(r"/search\\.html\\?q=kettle"))
""", errors=("InvalidArgument", "FileChooserOpened"))
M("Page.keyboard.type", [P("text", "typed|secret", doc='the text, or secret("NAME") (see Page.fill)'), "*",
                         P("delay", "delay", 0, doc="ms between characters")], "None",
  "One trusted keydown/keyup per character on the US layout (\\n is Enter, \\t is Tab); other characters are "
  "inserted as text.",
  'await page.focus("#q")\nawait page.keyboard.type("Kettle 1.7 L", delay=10)')
M("Page.keyboard.insert_text", [P("text", "text|secret", doc='the text, or secret("NAME") (see Page.fill)')], "None",
  "One native text insertion with no key events.",
  'await page.focus("#q")\nawait page.keyboard.insert_text("Wasserkocher")')
M("Page.keyboard.paste", [P("content", "paste", doc='a str or {"text": str, "html": str or None}')],
  "ActionReceipt", "Paste through the clipboard with the platform shortcut (the clipboard is restored).",
  'await page.focus("#q")\nawait page.keyboard.paste("steel kettle")', errors=("FileChooserOpened",))

# -- FileChooser ----------------------------------------------------------------------------------

cls("FileChooser", "A native file chooser the page opened, intercepted (no system dialog): from "
    "wait_for_file_chooser() or expect_file_chooser().", "")
prop("FileChooser.page", "Page", "The Page that opened the chooser.", "")
M("FileChooser.is_multiple", [], "bool", "True if the input accepts several files.", "", call="sync")
M("FileChooser.set_files", [P("files", "files")], "ActionReceipt",
  "Set the files (once; a second call raises InvalidState).", "", errors=("InvalidState", "InvalidArgument"))

# -- Download -------------------------------------------------------------------------------------

cls("Download", "A download started by a Page, from wait_for_event(\"download\"); its temp folder "
    "($TMPDIR/ego-browser-download-*) is removed at process exit.", _DOWNLOAD + "print(download)")
M("Download.page", [], "Page", "The Page the download came from.", _DOWNLOAD + "print(download.page().label)",
  call="sync")
M("Download.url", [], "str", "The download's URL.", _DOWNLOAD + "print(download.url())", call="sync")
M("Download.suggested_filename", [], "str", "The Content-Disposition (or URL) file name.",
  _DOWNLOAD + "print(download.suggested_filename())", call="sync")
M("Download.save_as", [P("path", "path", doc="an absolute file path; parent folders are created")], "None",
  "Wait for completion and copy the file there.",
  _DOWNLOAD + """import os, tempfile
target = os.path.join(tempfile.mkdtemp(), "exports", "orders.csv")
await download.save_as(target)
with open(target) as f:
    print(f.read())
""", errors=("InvalidArgument", "DownloadFailed"),
  rules=(("not _abspath(path)", "download.save_as requires an absolute file path", "path", "an absolute file path"),))
M("Download.path", [], "str", "Wait for completion; the temp file of this process.",
  _DOWNLOAD + "print(await download.path())", errors=("DownloadFailed",))
M("Download.failure", [], "str | None", 'None, or why it failed ("canceled", "download did not start", ...).',
  _DOWNLOAD + "print(await download.failure())")
M("Download.cancel", [], "None", "Cancel the download if it is still running.", _DOWNLOAD + "await download.cancel()")
M("Download.delete", [], "None", "Remove the temp file and its folder (a saved copy stays).",
  _DOWNLOAD + "await download.delete()")

# -- value types ----------------------------------------------------------------------------------

cls("ActionReceipt", "Frozen dataclass returned by goto, reload, click, dblclick, hover, drag_and_drop, fill, focus, "
    "press, set_input_files, mouse.click, keyboard.press, keyboard.paste and FileChooser.set_files.",
    """
receipt = await page.goto("https://shop.example/")
print(receipt.popups, receipt.dialog)
""")
prop("ActionReceipt.popups", "list[{label, target_id}]",
     "Tabs this action opened, adopted as agent Pages (task.page(label)); empty if none.", "")
prop("ActionReceipt.dialog", "{type, message, default_prompt, url} | None",
     "A JS dialog the action opened; it stays open until accept_dialog()/dismiss_dialog().", "")
prop("ActionReceipt.navigation", "{url, committed, error?} | None",
     "The navigation a click, dblclick, press, mouse.click or keyboard.press started: waited for until committed "
     "(committed False: it ended without a new document, e.g. 204, a download or an error); None if none.", "")
cls("UnmanagedPage", "Frozen dataclass for a tab without a label (from tabs() or user_page()); no methods: pass it "
    "to task.adopt().", "")
prop("UnmanagedPage.space_id", "int", "The space of the tab.", "")
prop("UnmanagedPage.target_id", "str", "The tab's CDP target id.", "")
prop("UnmanagedPage.opened_by", "str", '"agent" or "unknown".', "")

# -- the agent's note on its actions (issue 14) ---------------------------------------------------

#: every action a person may want explained while it runs (the dashboard shows it over the live
#: view); it travels in the request's envelope and changes nothing in what the action does
NOTE_ACTIONS = (
    "Page.goto", "Page.reload", "Page.click", "Page.dblclick", "Page.hover", "Page.drag_and_drop", "Page.check",
    "Page.uncheck", "Page.set_checked", "Page.fill", "Page.select_option", "Page.focus", "Page.press",
    "Page.mouse.click", "Page.mouse.move", "Page.mouse.wheel", "Page.keyboard.press", "Page.keyboard.type",
)
add_keyword(NOTE_ACTIONS, P("note", "str?", None,
                            doc="what this action is for, in a few words: the person watching the dashboard sees "
                                "it while the action runs"))

__all__: list[str] = []
