"""No action waits on a dead frame, a background tab or a dialog (issue 11 point 0).

Each case is proved without the clock: the CDP commands the host sent are recorded
(``tests/cdp_recorder.py``) and the test checks that none went to a frame that is gone, that
pointer input never reached a hidden tab, and that no request ran into its deadline.
"""

from __future__ import annotations

import asyncio

from tests.cdp_recorder import record_cdp

BUTTON = "<button id=b style='width:200px;height:60px' onclick='window.n = (window.n || 0) + 1'>b</button>"
FORM = BUTTON + "<input id=i><select id=s><option>a</option><option>b</option></select>"


def _driver(host, page):
    row = next(r for r in host.store.pages(page.space_id) if r.label == page.label)
    return host.drivers[row.target_id]


async def _visibility(driver) -> str:
    # straight to the page's session: the public calls would bring the tab to the front
    res = await driver.session.send("Runtime.evaluate", {"expression": "document.visibilityState",
                                                         "returnByValue": True}, timeout=10.0)
    return res["result"]["value"]


async def test_frames_of_an_old_document_leave_the_tree(host, task, server):
    """Same-origin iframes and cross-origin OOPIFs (localhost vs 127.0.0.1), loaded twice:
    after the next navigation the tree holds the main frame alone, and element actions on the
    frame-less page send nothing to any frame but the main one and never wait for one."""
    page = task.page("p1")
    server.page("/st-f", "<p>inner</p>")
    oop = server.url("/st-f", host="localhost")
    server.page("/st-frames", f"<iframe src='/st-f'></iframe><iframe src='{oop}'></iframe>")
    server.page("/st-plain", FORM)
    await page.goto(server.url("/st-frames?n=0"))
    await page.wait_for_function("() => document.querySelectorAll('iframe').length == 2")
    driver = _driver(host, page)
    await driver.wait_until(lambda: len(driver.frames.frames()) == 3, timeout=20.0)
    await page.goto(server.url("/st-frames?n=1"))
    await driver.wait_until(lambda: len(driver.frames.frames()) == 3, timeout=20.0)
    await page.goto(server.url("/st-plain"))
    main = driver.frames.main
    assert [f.frame_id for f in driver.frames.frames()] == [main.frame_id]
    with record_cdp(host) as rec:
        await page.click("#b")
        await page.hover("#b")
        await page.fill("#i", "typed")
        assert await page.select_option("#s", "b") == ["b"]
        assert [r["tag"] for r in await page.find("#b")] == ["button"]
    assert await page.evaluate("[window.n, document.querySelector('#i').value]") == [1, "typed"]
    framed = {s.params.get("frameId") for s in rec.sent if "frameId" in s.params}
    assert framed <= {main.frame_id}, f"commands sent to frames that are gone: {framed - {main.frame_id}}"
    assert rec.timed_out() == []
    assert driver.stats["frame_swap_waits"] == 0


async def test_frame_that_cannot_answer_is_dropped_at_once(host, task, server):
    """A frame the browser no longer knows (its id answers "No frame for given id found") is
    forgotten on the first refusal: no wait, and the next action does not ask it again."""
    from ego_browser.driver.frames import Frame

    page = task.page("p1")
    await page.goto(server.page("/st-ghost", BUTTON))
    driver = _driver(host, page)
    main = driver.frames.main
    ghost = Frame("0123456789ABCDEF0123456789ABCDEF", main.frame_id, driver.session, loader_id="GHOST")
    driver.frames._frames[ghost.frame_id] = ghost
    with record_cdp(host) as rec:
        await page.click("#b")
        await page.click("#b")
    asked = [s for s in rec.sent if s.params.get("frameId") == ghost.frame_id]
    assert len(asked) == 1 and asked[0].outcome == "error"
    assert driver.frames.get(ghost.frame_id) is None
    assert driver.stats["frame_swap_waits"] == 0 and driver.stats["frames_gone"] == 1
    assert await page.evaluate("window.n") == 2


async def test_opener_is_brought_to_front_after_a_popup(host, task, server):
    """A click that opens a popup hides its opener (the popup comes to the front). The next
    click on the opener activates the opener's tab before any pointer input."""
    page = task.page("p1")
    server.page("/st-pop-target", "<p>popup</p>")
    await page.goto(server.page("/st-pop", BUTTON + "<button id=o onclick=\"window.open('/st-pop-target')\">o</button>"))
    receipt = await page.click("#o")
    assert [p["label"] for p in receipt.popups] == ["p2"]
    driver = _driver(host, page)
    popup = task.page("p2")
    await popup.wait_for_load_state()
    assert await _visibility(driver) == "hidden"
    with record_cdp(host) as rec:
        await page.click("#b")
        await page.click("#b")
    sent = [(s.method, s.params.get("targetId"), s.session_id) for s in rec.sent]
    activate = sent.index(("Target.activateTarget", driver.target_id, None))
    first_input = next(i for i, s in enumerate(sent) if s[0] == "Input.dispatchMouseEvent")
    assert activate < first_input
    assert [m for m, *_ in sent].count("Target.activateTarget") == 1  # only when not already in front
    assert await _visibility(driver) == "visible"
    assert await page.evaluate("window.n") == 2


async def test_hidden_tab_is_brought_to_front_before_pointer_input(host, task, server):
    """The host's record of the front tab can be wrong (the person clicked another tab): the
    element's document says it is hidden, and the action activates its tab first."""
    page = task.page("p1")
    await page.goto(server.page("/st-hidden", BUTTON))
    other = await task.new_page()
    await other.goto(server.page("/st-hidden-other", "<p>other</p>"))
    await page.evaluate("1")  # p1 in front, as the host knows
    driver = _driver(host, page)
    other_driver = _driver(host, other)
    # the person brings the other tab to the front, behind the host's back
    await host.browser.conn.send("Target.activateTarget", {"targetId": other_driver.target_id})
    await driver.wait_until(lambda: True, timeout=1.0)
    assert await _visibility(driver) == "hidden"
    with record_cdp(host) as rec:
        await page.hover("#b")
        await page.click("#b")
    sent = [(s.method, s.params.get("targetId")) for s in rec.sent]
    activate = sent.index(("Target.activateTarget", driver.target_id))
    first_input = next(i for i, s in enumerate(sent) if s[0] == "Input.dispatchMouseEvent")
    assert activate < first_input
    assert await _visibility(driver) == "visible"
    assert await page.evaluate("window.n") == 1


async def test_dialog_receipt_waits_for_nothing(host, task, server):
    """A click whose handler calls alert() returns its receipt as soon as the dialog opens:
    no request of the action is left to run into its deadline behind the blocked renderer."""
    page = task.page("p1")
    await page.goto(server.page("/st-alert", "<button id=a style='width:200px;height:60px' "
                                "onclick=\"alert('hi'); window.after = 1\">a</button>"))
    for _ in range(2):
        with record_cdp(host) as rec:
            receipt = await page.click("#a")
            assert receipt.dialog is not None and receipt.dialog["message"] == "hi"
            assert rec.timed_out() == []
        assert await page.accept_dialog() is True
    assert await page.evaluate("window.after") == 1


async def test_dialog_with_a_popup_in_front(host, task, server):
    """The issue's worst case: a popup in front, then an alert from the opener (once past the
    host's 8 s deadline): activation first, then a receipt that waits for no request."""
    page = task.page("p1")
    server.page("/st-pd-target", "<p>popup</p>")
    await page.goto(server.page("/st-pd", "<button id=a style='width:200px;height:60px' onclick=\"alert('x')\">a</button>"
                                "<button id=o onclick=\"window.open('/st-pd-target')\">o</button>"))
    assert [p["label"] for p in (await page.click("#o")).popups] == ["p2"]
    driver = _driver(host, page)
    with record_cdp(host) as rec:
        receipt = await page.click("#a")
        assert receipt.dialog is not None and receipt.dialog["message"] == "x"
        assert rec.timed_out() == []
    assert ("Target.activateTarget", driver.target_id) in [(s.method, s.params.get("targetId")) for s in rec.sent]
    assert await page.accept_dialog() is True


# -- snapshot, find and refs: no stalls (issue 12 point 4) ----------------------------------


async def test_snapshot_find_screenshot_fail_at_once_while_a_dialog_is_open(host, task, server):
    """After a goto whose page alerts while loading, snapshot/find/screenshot fail at once with
    the dialog error every other call gives (B151); info() reports the dialog."""
    import pytest

    from ego_browser import InvalidState

    page = task.page("p1")
    receipt = await page.goto(server.page("/st-dlg-load", "<button id=b>b</button><script>alert('loading')</script>"))
    assert receipt.dialog is not None and receipt.dialog["message"] == "loading"
    with record_cdp(host) as rec:
        for call in (page.snapshot(), page.find("#b"), page.find("text=b"), page.screenshot(),
                     page.snapshot(scope="full_page")):
            with pytest.raises(InvalidState, match="accept_dialog"):
                await call
        assert (await page.info())["dialog"]["message"] == "loading"
    # nothing was sent that would wait behind the dialog
    assert [s.method for s in rec.sent if s.method not in ("Target.activateTarget",)] == []
    assert await page.accept_dialog() is True
    assert "button" in await page.snapshot()


async def test_snapshot_when_a_dialog_opens_during_it(host, task, server):
    """A dialog that opens while the snapshot runs ends it at once with the dialog error."""
    import pytest

    from ego_browser import InvalidState

    page = task.page("p1")
    await page.goto(server.page("/st-dlg-mid", "<p>x</p>"))
    await page.evaluate("setTimeout(() => alert('mid'), 0); 1")
    try:
        text = await page.snapshot()
    except InvalidState as exc:
        assert "accept_dialog" in str(exc)
    else:
        # the snapshot was faster than the timer: the dialog is open now, the next one fails
        assert "x" in text
        await page.wait_for_timeout(50)
        with pytest.raises(InvalidState, match="accept_dialog"):
            await page.snapshot()
    assert await page.accept_dialog() is True


async def test_refs_into_a_gone_frame_are_stale(host, task, server):
    """A ref into an iframe whose document went away is EGO_STALE_REF, for actions and find,
    whether the iframe navigated or the page around it did."""
    import re

    import pytest

    from ego_browser import StaleRef

    page = task.page("p1")
    server.page("/st-ref-inner", "<button id=ib>inner</button>")
    server.page("/st-ref-inner2", "<p>moved on</p>")
    oop = server.url("/st-ref-inner", host="localhost")
    server.page("/st-ref-outer", f"<iframe id=f1 src='/st-ref-inner'></iframe><iframe id=f2 src='{oop}'></iframe>")
    await page.goto(server.url("/st-ref-outer"))
    await page.wait_for_selector("text=inner >> nth=1")

    async def inner_refs() -> list[str]:
        text = await page.snapshot(scope="full_page")
        return re.findall(r'button "inner" \[ref=(\d+)', text)

    refs = await inner_refs()
    assert len(refs) == 2
    # the iframes navigate
    await page.evaluate("document.querySelector('#f1').src = '/st-ref-inner2'; 1")
    await page.evaluate(f"document.querySelector('#f2').src = {server.url('/st-ref-inner2', host='localhost')!r}; 1")
    await page.wait_for_selector("text=moved on >> nth=1")
    for ref in refs:
        with pytest.raises(StaleRef):
            await page.click(f"@{ref}", timeout=5000)
        with pytest.raises(StaleRef):
            await page.find(f"@{ref}")
    # the page around the frames navigates (twice through framed pages, as in issue 11)
    await page.goto(server.url("/st-ref-outer"))
    await page.wait_for_selector("text=inner >> nth=1")
    refs = await inner_refs()
    await page.goto(server.url("/st-ref-outer?again"))
    await page.goto(server.page("/st-ref-plain", BUTTON))
    with record_cdp(host) as rec:
        for ref in refs:
            with pytest.raises(StaleRef):
                await page.click(f"@{ref}", timeout=5000)
            with pytest.raises(StaleRef):
                await page.hover(f"@{ref}", timeout=5000)
    assert rec.timed_out() == []


def _mutation_waits(sent):
    return [s for s in sent if s.method == "Runtime.evaluate" and "nextMutation" in s.params.get("expression", "")]


async def test_an_action_retry_ends_when_the_page_changes(host, task, server):
    """Between two attempts an action waits for the page to change, its back-off pause (0, 20,
    100, 100, 500 ms) only the longest wait: an element added during the 500 ms pause is
    clicked at that mutation, not at the pause's end."""
    page = task.page("p1")
    await page.goto(server.page("/st-late", "<p id=top>wait</p>"))
    with record_cdp(host) as rec:
        click = asyncio.ensure_future(page.click("#late", timeout=20000))
        # the fourth wait between attempts is the 500 ms one: add the button while it is pending
        await rec.until(lambda sent: len(_mutation_waits(sent)) >= 4 and _mutation_waits(sent)[3].outcome == "pending")
        await page.evaluate("""() => {
            const b = document.createElement('button');
            b.id = 'late'; b.textContent = 'late'; b.style = 'width:120px;height:40px';
            b.onclick = () => { window.clicked = true; };
            document.body.appendChild(b);
        }""")
        await click
    waits = _mutation_waits(rec.sent)
    assert waits[3].outcome == "ok" and waits[3].result["result"]["value"] is True, waits[3]
    # the wait armed before the attempt that clicked is dropped unanswered when it succeeds
    assert [w.outcome for w in waits[4:]] in ([], ["pending"]), "the click waited again after the button was added"
    assert await page.evaluate("window.clicked") is True


_ADD_LATE = """(() => {
    const b = document.createElement('button');
    b.id = 'late'; b.textContent = 'late'; b.style = 'width:120px;height:40px';
    b.onclick = () => { window.clicked = true; };
    document.body.appendChild(b);
})()"""


async def _settled(host, page) -> None:
    """Until Chromium's last lifecycle event of the page (``networkIdle``) is in: a later event
    would end a pending pause as a change of the page, and the tests below look at what ended it."""
    driver = host.drivers[page.target_id]
    await driver.wait_until(lambda: driver.frames.main is not None and "networkIdle" in driver.frames.main.lifecycle,
                            timeout=20)


def _add_late_behind(looks: list, nth: int):
    """An ``after_send`` hook: the ``nth`` look for ``#late`` gets the command adding the button
    right behind it, so the page adds it after that look and before any command the host sends
    once the look is answered."""

    def hook(entry, send):
        if entry.method == "Runtime.evaluate" and "__egoSel" in entry.params.get("expression", "") \
                and "#late" in entry.params["expression"] and "nextMutation" not in entry.params["expression"]:
            looks.append(entry)
            if len(looks) == nth:
                return send("Runtime.evaluate", {"expression": _ADD_LATE}, session_id=entry.session_id)
        return None

    return hook


async def test_an_element_added_while_a_retry_looks_ends_its_pause(host, task, server):
    """The wait between two attempts is armed before the attempt looks: an element added just
    after the fifth look reached the page (the 500 ms pause follows it) ends that pause at once,
    where a wait armed after the look would miss the change and run to its timer (an
    autocomplete's options arrive like this, from a fetch)."""
    page = task.page("p1")
    await page.goto(server.page("/st-race", "<p id=top>wait</p>"))
    await _settled(host, page)
    looks: list = []
    with record_cdp(host, after_send=_add_late_behind(looks, 5)) as rec:
        await page.click("#late", timeout=20000)
    waits = _mutation_waits(rec.sent)
    # one wait per look after the first (whose pause is 0): the fourth is the fifth look's
    assert len(looks) >= 5 and len(waits) >= 4
    assert waits[3].outcome == "ok" and waits[3].result["result"]["value"] is True, \
        f"the pause after the fifth look did not end at the button: {waits[3]}"
    assert await page.evaluate("window.clicked") is True


async def test_an_element_added_while_wait_for_selector_looks_ends_its_pause(host, task, server):
    """wait_for_selector arms its wait for a change before each look: the element added right
    after the first look ends the first pause at once, not at its timer."""
    page = task.page("p1")
    await page.goto(server.page("/st-race-wait", "<p id=top>wait</p>"))
    await _settled(host, page)
    looks: list = []
    with record_cdp(host, after_send=_add_late_behind(looks, 1)) as rec:
        assert await page.wait_for_selector("#late", timeout=20000) is True
    waits = _mutation_waits(rec.sent)
    assert waits and waits[0].outcome == "ok" and waits[0].result["result"]["value"] is True, \
        f"the pause after the first look did not end at the element: {waits[0]}"
    assert len(looks) == 2
