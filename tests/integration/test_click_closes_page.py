"""A click whose handler closes its own page (a lookup popup picking a value) returns its receipt."""

from __future__ import annotations


async def test_a_click_that_closes_its_popup_returns(task, server):
    # as a related-object lookup does: the popup's link calls its opener, which closes the popup
    server.page("/pick", "<a href='#' id=pick onclick=\"opener.pick(window, 'alice'); return false\">alice</a>")
    url = server.page("/form", (
        "<input id=v><a id=look href='/pick' onclick=\"window.open('/pick', 'lookup', 'width=400,height=300'); return false\">"
        "Look up</a><script>window.pick = (w, v) => { document.getElementById('v').value = v; w.close(); }</script>"
    ))
    page = task.page("p1")
    await page.goto(url)
    for _ in range(10):
        async with page.expect_event("popup") as info:
            await page.click("#look")
        popup = await info.value
        await popup.wait_for_load_state()
        await popup.click("#pick")  # the page closes itself while the click is being delivered
        await page.wait_for_function("() => document.getElementById('v').value === 'alice'")
        await page.evaluate("document.getElementById('v').value = ''")


async def test_a_click_whose_press_closes_the_page_returns(task, server):
    # the page is gone before the button is released: the release cannot be delivered, and the
    # click still did what it was for
    server.page("/pick-down", "<a href='#' id=pick onmousedown=\"opener.pick(window, 'bob')\">bob</a>")
    url = server.page("/form-down", (
        "<input id=v><a id=look href='#' onclick=\"window.open('/pick-down', 'lookup', 'width=400,height=300'); return false\">"
        "Look up</a><script>window.pick = (w, v) => { document.getElementById('v').value = v; w.close(); }</script>"
    ))
    page = task.page("p1")
    await page.goto(url)
    async with page.expect_event("popup") as info:
        await page.click("#look")
    popup = await info.value
    await popup.wait_for_load_state()
    await popup.click("#pick")
    assert await page.evaluate("document.getElementById('v').value") == "bob"
    assert popup.label not in [p.label for p in await task.pages()]


async def test_the_release_after_a_press_that_closed_the_page(task, server):
    """The race itself, made certain: the page is closed between the press and the release."""
    from ego_browser.client.channel import current_channel

    url = server.page("/race", "<button id=b onmousedown='window.pressed = 1'>b</button>")
    page = await task.new_page()
    await page.goto(url)
    host = current_channel().host
    driver = next(d for d in host.drivers.values() if d.target_id == page.target_id)
    conn = driver.conn  # the page's own browser connection (host.browser.conn routes the host's calls)
    send = conn.send

    async def closing_send(method, params=None, **kw):
        res = await send(method, params, **kw)
        if method == "Input.dispatchMouseEvent" and (params or {}).get("type") == "mousePressed":
            await send("Target.closeTarget", {"targetId": driver.target_id})
            await driver.wait_until(lambda: driver.closed, timeout=30)
        return res

    conn.send = closing_send
    try:
        receipt = await page.click("#b")
    finally:
        del conn.send
    assert receipt is not None
    assert page.label not in [p.label for p in await task.pages()]
