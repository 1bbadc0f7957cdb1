"""Confirmation rules (issue 32, point 2): a click on a control the person listed becomes a hand-off;
the person's "yes" lets that one click through, anything else does not, and the agent's wait for
the answer raises ``EGO_CONSENT_REFUSED`` with the person's note."""

from __future__ import annotations

import asyncio

import pytest

import ego_browser
from ego_browser.errors import ConsentRefused, ConsentRequired
from ego_browser.states import Ownership

PAGE = """<button id="search" onclick="window.searched = (window.searched || 0) + 1">Search</button>
<button id="place" onclick="window.placed = (window.placed || 0) + 1">Place order</button>"""


async def _answer(host, t, note: str) -> dict:
    waiting = asyncio.create_task(t.wait_for_control(timeout=60000))
    while not host.handoffs.waiting(t.space_id):
        await asyncio.sleep(0.02)
    await host.handle("spaces.give_back", {"space": t.space_id, "note": note})
    return await asyncio.wait_for(waiting, 30)


async def _refuse(host, t, note: str = "no") -> ConsentRefused:
    """The person says no: the agent's wait for the answer raises, carrying their note."""
    with pytest.raises(ConsentRefused) as refused:
        await _answer(host, t, note)
    assert refused.value.code == "EGO_CONSENT_REFUSED" and refused.value.note == note
    return refused.value


async def test_a_click_the_person_listed_waits_for_their_yes(host, server):
    t = await ego_browser.task_space("consent")
    try:
        page = t.page("p1")
        await page.goto(server.page("/consent.html", PAGE, title="Shop"))
        await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None,
                                            "click": ["place order|buy now"]})
        await page.click("#search")  # not listed: as before
        with pytest.raises(ConsentRequired, match="Place order") as asked:
            await page.click("#place")
        assert asked.value.code == "EGO_CONSENT_REQUIRED" and asked.value.rule == "place order|buy now"
        row = host.store.space(t.space_id)
        assert row.ownership == Ownership.DELEGATED and row.reason == "needs_consent"
        assert "Place order" in row.status
        refused = await _refuse(host, t)
        assert refused.action == 'click "Place order"' and "do not repeat it" in refused.message
        with pytest.raises(ConsentRequired):  # a no is a no: asked again
            await page.click("#place")
        assert (await _answer(host, t, "yes"))["note"] == "yes"
        await page.click("#place")  # the one click the person allowed
        with pytest.raises(ConsentRequired):  # and only that one
            await page.click("#place")
        await _refuse(host, t)
        assert await page.evaluate("[window.searched, window.placed || 0]") == [1, 1]
    finally:
        await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None, "click": None})
        await t.finish(keep=[])


async def _set(host, t, **rules) -> None:
    await host.handle("guard.confirm", {"space_id": t.space_id, "profile_id": None, "click": None, **rules})


async def _held(host, t) -> str:
    """The question of the request held for the person (the space waits for them)."""
    while host.store.space(t.space_id).reason != "needs_consent":
        await asyncio.sleep(0.02)
    return host.store.space(t.space_id).status


FORM = """<form method="post" action="/order"><input name="item" value="book">
<input id="card" name="card" autocomplete="cc-number"><button id="go">Send</button></form>"""


async def test_a_form_post_to_a_listed_host_is_held_until_the_person_answers(host, server):
    server.route("/order", "<title>Ordered</title>done")
    t = await ego_browser.task_space("consent-post")
    try:
        page = t.page("p1")
        url = server.page("/form.html", FORM, title="Form")
        await page.goto(url)
        before = server.count("/order")  # the server is the session's
        await _set(host, t, post=["127.0.0.1"])
        # a click on the submit button: no rule names the control, the request itself is held
        with pytest.raises(ConsentRequired, match="send a form") as asked:
            await page.click("#go")
        assert asked.value.code == "EGO_CONSENT_REQUIRED"
        assert "send a form (POST) to http://127.0.0.1" in await _held(host, t)
        assert host.store.space(t.space_id).ownership == Ownership.DELEGATED
        refused = await _refuse(host, t, "no, not this shop")
        assert refused.action.startswith("send a form (POST) to http://127.0.0.1") and "not this shop" in refused.message
        assert server.count("/order") == before  # nothing reached the server
        assert await page.evaluate("location.pathname") == "/form.html"
        # form.submit() from evaluate: held the same way, and a yes lets it through by itself
        await page.evaluate("document.forms[0].submit()")
        assert "send a form" in await _held(host, t)
        assert server.count("/order") == before
        back = await _answer(host, t, "yes")
        assert back["note"] == "yes"
        await page.wait_for_url("**/order")
        assert server.count("/order") == before + 1
        # a GET, and a post elsewhere, are not asked about
        await page.goto(url)
        assert host.store.space(t.space_id).ownership == Ownership.AGENT
        # fetch from the page: held, and refused on no (the page sees a network error)
        pending = asyncio.create_task(page.evaluate(
            "fetch('/order', {method: 'POST', body: 'x=1'}).then(() => 'sent', () => 'refused')"))
        with pytest.raises(ConsentRequired):
            await pending
        await _held(host, t)
        await _refuse(host, t)
        assert server.count("/order") == before + 1
    finally:
        await _set(host, t)
        await t.finish(keep=[])


async def test_a_download_waits_for_the_yes_and_a_no_cancels_it(host, server):
    from tests.server import Response

    server.route("/report.csv", Response(b"a,b\n1,2\n", content_type="text/csv",
                                         headers={"Content-Disposition": "attachment; filename=report.csv"}))
    t = await ego_browser.task_space("consent-download")
    try:
        page = t.page("p1")
        await page.goto(server.page("/files.html", '<a id="get" href="/report.csv">Report</a>', title="Files"))
        await _set(host, t, downloads=True)
        with pytest.raises(ConsentRequired, match="download"):
            await page.click("#get")
        assert "download http://127.0.0.1" in await _held(host, t)
        assert not host.features.downloads.records  # nothing saved while it waits
        await _refuse(host, t)
        assert not host.features.downloads.records  # cancelled
        assert await page.evaluate("location.pathname") == "/files.html"
        waiter = page.wait_for_event("download", timeout=60000)
        with pytest.raises(ConsentRequired):
            await page.click("#get")
        await _held(host, t)
        await _answer(host, t, "yes")
        download = await waiter
        assert download.suggested_filename() == "report.csv"
    finally:
        await _set(host, t)
        await t.finish(keep=[])


async def test_purchases_ask_for_buy_controls_and_card_numbers(host, server):
    server.route("/order", "<title>Ordered</title>done")
    t = await ego_browser.task_space("consent-purchase")
    try:
        page = t.page("p1")
        url = server.page("/shop.html", FORM + '<button id="buy" onclick="window.bought = 1">Buy now</button>',
                          title="Shop")
        await page.goto(url)
        before = server.count("/order")  # the server is the session's
        await _set(host, t, purchases=True)
        with pytest.raises(ConsentRequired, match="Buy now"):  # a control named like a purchase
            await page.click("#buy")
        await _refuse(host, t)
        # a card number typed in, then Enter: the post carrying it is held; on no nothing is sent
        await page.fill("#card", "4111 1111 1111 1111")
        with pytest.raises(ConsentRequired, match="payment card"):
            await page.press("#card", "Enter")
        await _held(host, t)
        await _refuse(host, t)
        assert server.count("/order") == before
        # a form without a card number posts as before
        await page.fill("#card", "")
        await page.click("#go")
        assert server.count("/order") == before + 1
        assert await page.evaluate("window.bought || 0") == 0
    finally:
        await _set(host, t)
        await t.finish(keep=[])
