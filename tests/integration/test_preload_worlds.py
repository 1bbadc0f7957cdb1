"""Our isolated worlds come ready with each new document (driver/preload.py).

The first action and the first snapshot of a document used to create their world and install
their helpers first (two more renderer round trips on every page an agent reaches). Proved by
what the host sends, not by the clock: after a navigation, a snapshot, a click on a ref, a fill
and a selector lookup send no ``Page.createIsolatedWorld`` and no separate install; a document
that existed before the page was attached still gets its worlds the old way.
"""

from __future__ import annotations

import re

from tests.cdp_recorder import record_cdp

FORM = ("<h1>Form</h1><input id=name aria-label=Name><button id=go onclick=\"document.title='clicked '"
        " + document.querySelector('#name').value\">Go</button>"
        "<iframe srcdoc=\"<button id=inner onclick='this.textContent=1'>in</button>\"></iframe>")


def _installs(rec) -> list[str]:
    """World creations and helper installs the host sent (a helper call that installs first
    carries the whole program, which defines ``__egoActions``/``__egoSel``/``__egoSnap``)."""
    out = []
    for s in rec.sent:
        if s.method == "Page.createIsolatedWorld":
            out.append(s.method)
        text = str(s.params.get("expression", "")) + str(s.params.get("functionDeclaration", ""))
        if re.search(r"globalThis\.__ego(Actions|Sel|Snap) = ", text):
            out.append(s.method + " (install)")
    return out


async def test_a_new_document_needs_no_world_creation_or_install(host, task, server):
    page = task.page("p1")
    server.page("/pw-form", FORM)
    await page.goto(server.url("/pw-form"))
    await page.wait_for_function("() => document.querySelector('iframe').contentDocument?.querySelector('#inner')")
    with record_cdp(host) as rec:
        snap = await page.snapshot()
        ref = re.search(r'button "Go" \[ref=(\d+)', snap).group(1)
        await page.fill("#name", "Ada")
        await page.click("@" + ref)
        assert await page.title() == "clicked Ada"
        await page.click("#inner")  # a same-process child frame's worlds are preloaded too
        found = await page.find("text=Form")
        assert found and found[0]["role"] == "heading"
        assert 'button "1"' in await page.snapshot()  # the inner click landed
    assert _installs(rec) == [], _installs(rec)


async def test_a_document_from_before_the_attach_still_gets_its_worlds(host, task, server):
    """The page's first document was loaded before the host attached (an adopted tab has one):
    the helpers are installed on first use, as they were before preloading."""
    page = task.page("p1")
    server.page("/pw-old", FORM)
    await page.goto(server.url("/pw-old"))
    row = next(r for r in host.store.pages(page.space_id) if r.label == page.label)
    driver = host.drivers[row.target_id]
    # forget the preloaded worlds, as a driver attached to this document afterwards would
    for frame in driver.frames.frames():
        frame.utility_context = frame.snapshot_context = None
        frame.installed = set()
    with record_cdp(host) as rec:
        await page.fill("#name", "Grace")
        await page.click("#go")
        assert await page.title() == "clicked Grace"
        assert 'button "Go"' in await page.snapshot()
    assert "Page.createIsolatedWorld" in rec.methods()


async def test_a_focused_field_has_a_steady_caret_and_the_page_is_otherwise_unchanged(host, task, server):
    """A blinking caret repaints its page twice a second (issue 31 §2: ~6 ms of CPU a second per
    space while an agent that filled a field thinks or waits for its turn): the caret is steady."""
    page = task.page("p1")
    server.page("/pw-caret", "<input id=name aria-label=Name><p id=out>-</p>"
                "<script>document.querySelector('#out').textContent = getComputedStyle(document.body).color</script>")
    await page.goto(server.url("/pw-caret"))
    await page.fill("#name", "Ada")
    assert await page.evaluate("document.activeElement.id") == "name"
    assert await page.evaluate("getComputedStyle(document.activeElement).caretAnimation") == "manual"
    assert await page.evaluate("document.querySelector('#name').value") == "Ada"
    assert "rgb(0, 0, 0)" in await page.snapshot()  # the page's own styles and script ran as before
