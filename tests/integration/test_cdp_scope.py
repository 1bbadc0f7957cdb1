"""Raw CDP stays within its space (issue 9, point 4).

Two real spaces: A (plain) and B (isolated, its own browser context). Every escape an
adversarial probe found from A's ``task.cdp``/``page.cdp`` is refused with
``EGO_CDP_METHOD_REFUSED``, and each test checks that the effect did not happen in B.
"""

from __future__ import annotations

import json

import pytest

import ego_browser
from ego_browser.errors import CdpMethodRefused, TaskSpaceUserInControl
from tests.server import Response

B_PAGE = "<input id=f><p id=state>untouched</p><button id=open onclick=\"window.open('/scope-b-popup')\">open</button>"


@pytest.fixture(scope="module")
async def spaces(host, server):
    # one pair for the module: every test leaves B as it found it (that is what they check)
    a = await ego_browser.task_space("cdp-scope-a")
    b = await ego_browser.task_space("cdp-scope-b", isolated=True)
    server.page("/scope-b-popup", "<p>popup</p>", title="B popup")
    await b.page("p1").goto(server.page("/scope-b", B_PAGE, title="B secret"))
    await a.page("p1").goto(server.page("/scope-a", "<p>a</p>", title="A page"))
    yield a, b
    for space in (a, b):
        try:
            await host.handle("spaces.give_back", {"space": space.space_id})
            await space.finish(keep=[])
        except ego_browser.EgoError:
            pass


def _context(host, space) -> str:
    return host.store.space(space.space_id).context_id


async def _b_unchanged(b) -> None:
    page = b.page("p1")
    state = await page.evaluate(
        "[document.querySelector('#state').textContent, document.querySelector('#f').value, typeof window.pwned]"
    )
    assert state == ["untouched", "", "undefined"], state


def _refused(info, method: str, reason: str | None = None) -> None:
    err = info.value
    assert err.code == "EGO_CDP_METHOD_REFUSED" and err.method == method, (err.code, err.method, str(err))
    if reason is not None:
        assert err.reason == reason, (err.reason, str(err))


async def test_attach_and_message_into_another_space_refused(spaces):
    a, b = spaces
    target = b.page("p1").target_id
    script = json.dumps({"id": 1, "method": "Runtime.evaluate",
                         "params": {"expression": "window.pwned = 1; document.querySelector('#state').textContent = 'x'"}})
    for send in (a.cdp, a.page("p1").cdp):
        with pytest.raises(CdpMethodRefused) as info:
            attached = await send("Target.attachToTarget", {"targetId": target})
            await send("Target.sendMessageToTarget", {"sessionId": attached["sessionId"], "message": script})
        _refused(info, "Target.attachToTarget")
        with pytest.raises(CdpMethodRefused) as info:
            await send("Target.sendMessageToTarget", {"targetId": target, "message": script})
        _refused(info, "Target.sendMessageToTarget")
    await _b_unchanged(b)


async def test_typing_into_a_taken_over_space_refused(spaces, host):
    a, b = spaces
    target = b.page("p1").target_id
    await b.page("p1").focus("#f")
    await host.handle("spaces.take_over", {"space": b.space_id})
    typed = json.dumps({"id": 1, "method": "Input.insertText", "params": {"text": "typed by A"}})
    with pytest.raises(CdpMethodRefused) as info:
        attached = await a.cdp("Target.attachToTarget", {"targetId": target, "flatten": False})
        await a.cdp("Target.sendMessageToTarget", {"sessionId": attached["sessionId"], "message": typed})
    _refused(info, "Target.attachToTarget", "browser_wide")
    # B's own raw CDP is gated too while the person holds it
    with pytest.raises(TaskSpaceUserInControl):
        await b.cdp("Target.getTargets")
    with pytest.raises(TaskSpaceUserInControl):
        await b.page("p1").cdp("Input.insertText", {"text": "typed by B"})
    await host.handle("spaces.give_back", {"space": b.space_id})
    await _b_unchanged(b)


async def test_closing_another_spaces_tab_refused(spaces):
    a, b = spaces
    target = b.page("p1").target_id
    for send in (a.cdp, a.page("p1").cdp):
        with pytest.raises(CdpMethodRefused) as info:
            await send("Target.closeTarget", {"targetId": target})
        assert info.value.reason in ("other_space", "not_allowed") and info.value.method == "Target.closeTarget"
    with pytest.raises(CdpMethodRefused) as info:
        await a.cdp("Target.activateTarget", {"targetId": target})
    _refused(info, "Target.activateTarget", "other_space")
    assert info.value.argument == "targetId"
    assert target in [t["target_id"] for t in await b.tabs()]
    await _b_unchanged(b)


async def test_opening_a_tab_in_another_spaces_context_refused(spaces, host):
    a, b = spaces
    context = _context(host, b)

    async def b_tabs() -> list[str]:
        return sorted(t["targetId"] for t in (await b.cdp("Target.getTargets"))["targetInfos"] if t["type"] == "page")

    before = await b_tabs()
    with pytest.raises(CdpMethodRefused) as info:
        await a.cdp("Target.createTarget", {"url": "about:blank", "browserContextId": context})
    _refused(info, "Target.createTarget", "other_space")
    assert info.value.argument == "browserContextId"
    assert await b_tabs() == before
    # B's own createTarget lands in B's context (not the shared default one) and joins B
    made = await b.cdp("Target.createTarget", {"url": "about:blank"})
    assert made["targetId"] in await b_tabs()
    assert made["targetId"] in [t["target_id"] for t in await b.tabs()]
    assert made["targetId"] not in [t["targetId"] for t in (await a.cdp("Target.getTargets"))["targetInfos"]]
    await b.cdp("Target.closeTarget", {"targetId": made["targetId"]})


async def test_listing_targets_and_contexts_shows_only_the_space(spaces, host, server):
    a, b = spaces
    infos = (await a.cdp("Target.getTargets"))["targetInfos"]
    urls = [t["url"] for t in infos]
    assert server.url("/scope-a") in urls
    assert not [u for u in urls if "/scope-b" in u], urls
    assert {t["targetId"] for t in infos if t["type"] == "page"} == {a.page("p1").target_id}
    assert _context(host, b) not in (await a.cdp("Target.getBrowserContexts"))["browserContextIds"]
    assert (await b.cdp("Target.getBrowserContexts"))["browserContextIds"] == [_context(host, b)]
    b_urls = [t["url"] for t in (await b.cdp("Target.getTargets"))["targetInfos"]]
    assert server.url("/scope-b") in b_urls and server.url("/scope-a") not in b_urls
    with pytest.raises(CdpMethodRefused) as info:
        await a.cdp("Target.getTargetInfo", {"targetId": b.page("p1").target_id})
    _refused(info, "Target.getTargetInfo", "other_space")


async def test_browser_close_refused(spaces):
    a, b = spaces
    for send in (a.cdp, a.page("p1").cdp):
        with pytest.raises(CdpMethodRefused) as info:
            await send("Browser.close")
        _refused(info, "Browser.close")
    await _b_unchanged(b)
    assert await b.page("p1").title() == "B secret"


async def test_discover_targets_off_refused_and_popups_still_adopted(spaces):
    a, b = spaces
    for send in (a.cdp, a.page("p1").cdp):
        with pytest.raises(CdpMethodRefused) as info:
            await send("Target.setDiscoverTargets", {"discover": False})
        _refused(info, "Target.setDiscoverTargets")
    receipt = await b.page("p1").click("#open")
    assert len(receipt.popups) == 1, receipt.popups
    popup = b.page(receipt.popups[0]["label"])
    await popup.wait_for_load_state()
    assert await popup.title() == "B popup"
    await popup.close()  # B's window gets its focus back (paste needs a focused document)


@pytest.mark.parametrize("method, params", [
    ("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}),
    ("Target.exposeDevToolsProtocol", "B"),
    ("Target.attachToBrowserTarget", {}),
    ("Target.disposeBrowserContext", "B-context"),
    ("Target.createBrowserContext", {}),
    ("Target.autoAttachRelated", "B-related"),
    ("Target.detachFromTarget", "B"),
    ("Browser.crash", {}),
    ("Browser.crashGpuProcess", {}),
    ("Browser.getBrowserCommandLine", {}),
    ("Browser.setDownloadBehavior", "B-downloads"),
    ("Browser.setDownloadBehavior", {"behavior": "default"}),
    ("Browser.grantPermissions", "B-grant"),
    ("Browser.executeBrowserCommand", {"commandId": "openTabSearch"}),
])
async def test_browser_level_escapes_refused(spaces, host, method, params):
    a, b = spaces
    target, context = b.page("p1").target_id, _context(host, b)
    params = {
        "B": {"targetId": target},
        "B-context": {"browserContextId": context},
        "B-related": {"targetId": target, "waitForDebuggerOnStart": False},
        "B-downloads": {"behavior": "deny", "browserContextId": context},
        "B-grant": {"permissions": ["geolocation"], "browserContextId": context},
    }.get(params, params) if isinstance(params, str) else params
    with pytest.raises(CdpMethodRefused) as info:
        await a.cdp(method, params)
    _refused(info, method)
    assert target in [t["target_id"] for t in await b.tabs()]
    await _b_unchanged(b)


@pytest.mark.parametrize("method, params", [
    ("Tracing.start", {}),
    ("SystemInfo.getProcessInfo", {}),
    ("Target.getTargets", {}),
    ("Target.createTarget", {"url": "about:blank"}),
    ("Network.clearBrowserCookies", {}),
    ("Storage.getCookies", "B-context"),
    ("Extensions.loadUnpacked", {"path": "/nonexistent"}),
    ("Some.unknownDomainMethod", {}),
])
async def test_page_cdp_keeps_to_its_page(spaces, host, method, params):
    a, b = spaces
    if params == "B-context":
        params = {"browserContextId": _context(host, b)}
    with pytest.raises(CdpMethodRefused) as info:
        await a.page("p1").cdp(method, params)
    _refused(info, method)
    await _b_unchanged(b)


async def test_in_scope_raw_cdp_still_works(spaces, host):
    a, b = spaces
    version = await a.cdp("Browser.getVersion")
    assert version["product"]
    own = await a.cdp("Target.getTargetInfo", {"targetId": a.page("p1").target_id})
    assert own["targetInfo"]["title"] == "A page"
    window = await a.cdp("Browser.getWindowForTarget", {"targetId": a.page("p1").target_id})
    bounds = await a.cdp("Browser.getWindowBounds", {"windowId": window["windowId"]})
    assert "bounds" in bounds
    b_window = await b.cdp("Browser.getWindowForTarget", {"targetId": b.page("p1").target_id})
    if b_window["windowId"] != window["windowId"]:
        with pytest.raises(CdpMethodRefused) as info:
            await a.cdp("Browser.setWindowBounds", {"windowId": b_window["windowId"], "bounds": {"left": 5}})
        _refused(info, "Browser.setWindowBounds", "other_space")
    # resetting permissions clears a whole context: an isolated space's own one only
    await b.cdp("Browser.resetPermissions")
    with pytest.raises(CdpMethodRefused) as info:
        await a.cdp("Browser.resetPermissions")
    _refused(info, "Browser.resetPermissions", "shared_context")
    granted = await b.page("p1").cdp("Browser.grantPermissions", {"permissions": ["geolocation"]})
    assert granted == {}
    res = await a.page("p1").cdp("Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
    assert res["result"]["value"] == "A page"
    me = await a.page("p1").cdp("Target.getTargetInfo")
    assert me["targetInfo"]["targetId"] == a.page("p1").target_id


async def test_download_behaviour_is_the_hosts(spaces, server):
    """Download behaviour's events flag belongs to the CDP session: set through task.cdp it
    would silence every space's download events. Refused, even for an isolated space's own
    context, and downloads keep being reported."""
    a, b = spaces
    for space in (a, b):
        for method, params in (("Browser.setDownloadBehavior", {"behavior": "default"}),
                               ("Browser.cancelDownload", {"guid": "x"})):
            with pytest.raises(CdpMethodRefused) as info:
                await space.cdp(method, params)
            _refused(info, method, "browser_wide")
        with pytest.raises(CdpMethodRefused) as info:
            await space.page("p1").cdp("Page.setDownloadBehavior", {"behavior": "deny"})
        _refused(info, "Page.setDownloadBehavior", "browser_wide")
    server.route("/scope-dl/file", Response(b"data", content_type="application/octet-stream",
                                            headers={"Content-Disposition": 'attachment; filename="f.bin"'}))
    page = a.page("p1")
    await page.goto(server.page("/scope-dl", "<a id=d href='/scope-dl/file' style='display:block;"
                                "width:200px;height:40px'>download</a>"))
    waiter = page.wait_for_event("download", timeout=10000)
    await page.click("#d")
    download = await waiter
    assert download.suggested_filename() == "f.bin"
    await download.delete()
    await page.goto(server.url("/scope-a"))


async def test_paste_grants_the_clipboard_to_its_own_page_only(spaces, server):
    """keyboard.paste grants clipboard access for the paste: to the page's origin in its own
    space's context, never to every origin of the user's default context."""
    a, b = spaces
    query = "navigator.permissions.query({name: 'clipboard-read'}).then(p => p.state)"
    pb = b.page("p1")
    await pb.focus("#f")
    await pb.keyboard.paste("pasted in B")
    assert await pb.evaluate("document.querySelector('#f').value") == "pasted in B"
    assert await pb.evaluate(query) == "granted"
    pa = a.page("p1")
    await pa.goto(server.url("/scope-a", host="localhost"))
    try:
        assert await pa.evaluate(query) != "granted", "the user's default context got B's clipboard grant"
    finally:
        await pb.evaluate("document.querySelector('#f').value = ''")
        await pa.goto(server.url("/scope-a"))
