"""Navigation does what the agent meant (issue 11.2): actions wait for the navigations they start,
load-state and URL waits follow the new document, expect_navigation, snapshots during load,
header titles after a navigation, and the default viewport."""

from __future__ import annotations

import threading

import pytest

from ego_browser import EgoTimeout

from tests.server import Response


def _form_app(server, prefix: str, *, delay: float = 0.4):
    """A form that POSTs to itself-redirecting handler: the saved count is server-side state."""
    state = {"saved": 0}
    lock = threading.Lock()

    def form(_req):
        with lock:
            n = state["saved"]
        return Response(f"<!doctype html><title>Form {n}</title><p id=n>saved {n}</p>"
                        f"<form method=post action={prefix}/save><input name=v value=x>"
                        f"<button id=go>Save</button></form>")

    def save(_req):
        with lock:
            state["saved"] += 1
        # slow on purpose: the POST is still in flight when a careless client moves on
        return Response("", status=303, headers={"Location": f"{prefix}/form"}, delay=delay)

    server.route(f"{prefix}/form", form)
    server.route(f"{prefix}/save", save)
    return server.url(f"{prefix}/form"), state


async def test_link_click_waits_for_the_new_document_to_commit(task, server):
    server.route("/na-next", Response("<title>Next</title>next page", delay=0.6))
    url = server.page("/na-link", "<a id=l href='/na-next'>go</a>")
    page = task.page("p1")
    await page.goto(url)
    receipt = await page.click("#l")
    assert receipt.navigation == {"url": server.url("/na-next"), "committed": True}
    assert await page.url() == server.url("/na-next")


async def test_a_click_returns_at_the_commit_while_the_new_page_is_busy(task, server):
    """The click waits for the commit, not for the new document's scripts: Chromium answers
    the old document's commands (the hit read, the handles' release) only once the renderer is
    free again, and a click that waited for them returned after the new page's first scripts.
    Here the new page's first script is a synchronous request the server holds until the click
    has returned (it gives up by itself after 10 s, which only a click that waits would see)."""
    release, answered = threading.Event(), threading.Event()

    def block(_req):
        release.wait(10)
        answered.set()
        return Response("ok", content_type="text/plain")

    server.route("/na-block", block)
    server.route("/na-busy", Response("<title>Busy</title><script>const x = new XMLHttpRequest();"
                                      "x.open('GET', '/na-block', false); x.send();</script><p>busy</p>"))
    url = server.page("/na-commit", "<a id=l href='/na-busy' style='display:block;height:40px'>go</a>")
    page = task.page("p1")
    await page.goto(url)
    try:
        receipt = await page.click("#l")
        early = not answered.is_set()
    finally:
        release.set()
    assert early, "the click returned only after the new page's script had run"
    assert receipt.navigation == {"url": server.url("/na-busy"), "committed": True}
    await page.wait_for_load_state("load")
    assert await page.title() == "Busy"


async def test_form_post_redirecting_to_the_same_url(task, server):
    url, state = _form_app(server, "/na-post")
    page = task.page("p1")
    await page.goto(url)
    receipt = await page.click("#go")
    assert receipt.navigation["committed"] is True
    assert state["saved"] == 1
    await page.wait_for_load_state("load")
    assert await page.evaluate("document.getElementById('n').textContent") == "saved 1"
    assert await page.url() == url


async def test_goto_right_after_a_submit_click_keeps_the_post(task, server):
    url, state = _form_app(server, "/na-keep")
    other = server.page("/na-other", "other", title="Other")
    page = task.page("p1")
    for attempt in range(3):
        await page.goto(url)
        await page.click("#go")
        await page.goto(other)  # no EGO_NAVIGATION_FAILED net::ERR_ABORTED, and the POST was not dropped
        assert state["saved"] == attempt + 1
        assert await page.title() == "Other"


async def test_js_navigation_from_a_click(task, server):
    server.route("/na-js-next", Response("<title>JS next</title>js", delay=0.5))
    url = server.page("/na-js", "<button id=b onclick=\"location.href='/na-js-next'\">go</button>")
    page = task.page("p1")
    await page.goto(url)
    receipt = await page.click("#b")
    assert receipt.navigation["committed"] is True
    assert await page.url() == server.url("/na-js-next")


async def test_enter_in_a_form_and_keyboard_press_wait_too(task, server):
    url, state = _form_app(server, "/na-enter")
    page = task.page("p1")
    await page.goto(url)
    receipt = await page.press("input[name=v]", "Enter")
    assert receipt.navigation["committed"] is True and state["saved"] == 1
    await page.wait_for_load_state()
    await page.focus("input[name=v]")
    receipt = await page.keyboard.press("Enter")
    assert receipt.navigation["committed"] is True and state["saved"] == 2


async def test_mouse_click_waits_for_its_navigation(task, server):
    server.route("/na-mouse-next", Response("<title>M</title>m", delay=0.5))
    url = server.page("/na-mouse", "<a id=l href='/na-mouse-next' style='display:block;width:200px;height:50px'>go</a>")
    page = task.page("p1")
    await page.goto(url)
    box = await page.evaluate("(() => { const r = document.getElementById('l').getBoundingClientRect();"
                              " return {x: r.x + 10, y: r.y + 10}; })()")
    receipt = await page.mouse.click(box["x"], box["y"])
    assert receipt.navigation["committed"] is True
    assert await page.url() == server.url("/na-mouse-next")


async def test_no_wait_after_returns_before_the_commit(task, server):
    release = threading.Event()

    def held(_req):
        release.wait(20)  # answered only when the test says so
        return Response("<title>Held</title>held")

    server.route("/na-held", held)
    url = server.page("/na-nowait", "<a id=l href='/na-held'>go</a>")
    page = task.page("p1")
    await page.goto(url)
    try:
        receipt = await page.click("#l", no_wait_after=True)
        assert receipt.navigation is None
        assert await page.url() == url  # the new document cannot have committed yet
    finally:
        release.set()
    # wait_for_load_state follows the pending navigation, not the old document
    await page.wait_for_load_state("load")
    assert await page.title() == "Held"


async def test_wait_for_load_state_waits_for_the_new_document(task, server):
    url, state = _form_app(server, "/na-wls", delay=0.8)
    page = task.page("p1")
    await page.goto(url)
    await page.click("#go", no_wait_after=True)
    await page.wait_for_load_state("load")
    assert state["saved"] == 1
    assert await page.evaluate("document.getElementById('n').textContent") == "saved 1"


async def test_wait_for_url_waits_for_load_by_default(task, server):
    server.route("/na-img.png", Response(b"\x89PNG", content_type="image/png", delay=0.8))
    server.page("/na-slow-load", "<img src='/na-img.png'>slow", title="Slow load")
    url = server.page("/na-url", "<a id=l href='/na-slow-load'>go</a>")
    page = task.page("p1")
    await page.goto(url)
    await page.click("#l", no_wait_after=True)
    await page.wait_for_url("**/na-slow-load")
    assert await page.evaluate("document.readyState") == "complete"
    # wait_until="commit" returns without waiting for the image
    await page.goto(url)
    await page.click("#l")
    await page.wait_for_url("**/na-slow-load", wait_until="commit")


async def test_expect_navigation(task, server):
    server.route("/na-exp-img.png", Response(b"\x89PNG", content_type="image/png", delay=0.5))
    server.page("/na-exp-next", "<img src='/na-exp-img.png'>next", title="Exp next")
    url = server.page("/na-exp", "exp")
    page = task.page("p1")
    await page.goto(url)
    async with page.expect_navigation() as info:
        await page.evaluate("setTimeout(() => location.assign('/na-exp-next'), 100)")
    assert await info.value == server.url("/na-exp-next")
    assert await page.evaluate("document.readyState") == "complete"
    # a URL matcher skips navigations to other URLs
    server.page("/na-exp-mid", "<script>setTimeout(() => location.assign('/na-exp-next?b'), 200)</script>mid")
    async with page.expect_navigation(url="**/na-exp-next?b", wait_until="commit") as info:
        await page.evaluate("location.assign('/na-exp-mid')")
    assert await info.value == server.url("/na-exp-next?b")
    with pytest.raises(EgoTimeout):
        async with page.expect_navigation(timeout=300):
            pass


async def test_snapshot_during_load_is_not_a_bare_root(task, server):
    head = b"<!doctype html><html><head><title>Streaming</title></head><body><h1>Top part</h1>"
    server.route("/na-stream", Response(head, chunks=[(1.0, b"<button>Late button</button></body></html>")]))
    page = task.page("p1")
    await page.goto(server.url("/na-stream"), wait_until="commit")
    text = await page.snapshot()
    header, _, body = text.partition("\n")
    assert "Late button" in body or header.endswith("(loading)"), text
    assert 'p1 "Streaming"' in header
    assert "Top part" in body


async def test_header_title_is_the_new_documents_after_a_click(task, server):
    page = task.page("p1")
    for i in range(5):
        server.route(f"/na-title-{i}", Response(f"<title>Title {i}</title><a id=l href='/na-title-{i + 1}'>next</a>",
                                                delay=0.2))
    server.route("/na-title-5", Response("<title>Title 5</title>end", delay=0.2))
    await page.goto(server.url("/na-title-0"))
    for i in range(1, 6):
        await page.click("#l")
        header = (await page.snapshot()).split("\n", 1)[0]
        assert header.startswith(f'[p1 "Title {i}"'), header


async def test_default_viewport_and_per_space_size(task, server, host):
    url = server.page("/na-vp", "vp")
    page = task.page("p1")
    await page.goto(url)
    info = await page.info()
    assert (info["w"], info["h"]) == (1280, 720)
    p2 = await task.new_page()
    await task.set_viewport(900, 600)
    info2 = await p2.info()
    assert (info2["w"], info2["h"]) == (900, 600)
    info1 = await page.info()
    assert (info1["w"], info1["h"]) == (900, 600)
    await p2.close()


async def test_a_click_right_after_a_navigation_waits_for_the_page_scripts(task, server):
    """The guide's shop: a click lands on a button whose handler a script below it attaches;
    while that script is still on its way the document is not parsed and the click waits."""
    import asyncio

    release = threading.Event()
    handler = ("document.getElementById('b').addEventListener('click', "
               "() => { document.getElementById('s').textContent = 'clicked'; });")
    server.route("/na-late.js", Response("", content_type="text/javascript", chunks=[(release, handler.encode())]))
    server.page("/na-product", "<p id=s>idle</p><button id=b>Add</button><script src=/na-late.js></script>")
    page = task.page("p1")
    await page.goto(server.page("/na-shop", "<a id=l href='/na-product'>product</a>"))
    try:
        await page.click("#l")  # waits for the product page to commit, not for its scripts
        click = asyncio.ensure_future(page.click("#b", timeout=20000))
        done, _ = await asyncio.wait({click}, timeout=2)
        assert not done, "the click acted before the page's scripts had run"
    finally:
        release.set()
    await click
    assert await page.evaluate("document.getElementById('s').textContent") == "clicked"
