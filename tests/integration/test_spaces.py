"""Task spaces, ownership, labels and the page budget (BEHAVIOURS.md section A)."""

from __future__ import annotations

import asyncio

import pytest

import ego_browser
from ego_browser import (
    InvalidArgument,
    PageBudgetReached,
    PageClosed,
    PageNotFound,
    PageReleased,
    ProfileNotFound,
    TaskSpaceNotFound,
    TaskSpaceUserInControl,
    UnmanagedPage,
)


async def test_b1_new_space_has_one_tab_p1_reused_by_goto(task, server):
    url = server.page("/b1", "<h1>one</h1>", title="B1")
    tabs = await task.tabs()
    assert [(t["label"], t["opened_by"]) for t in tabs] == [("p1", "agent")]
    before = tabs[0]["target_id"]
    await task.page("p1").goto(url)
    tabs = await task.tabs()
    assert len(tabs) == 1 and tabs[0]["target_id"] == before
    assert await task.page("p1").title() == "B1"


async def test_b2_profiles(host):
    found = await ego_browser.profiles()
    assert found and all(isinstance(p["id"], str) and p["id"] for p in found)
    assert all(isinstance(p["name"], str) and isinstance(p["is_default"], bool) for p in found)
    assert len({p["id"] for p in found}) == len(found)
    assert sum(p["is_default"] for p in found) == 1


async def test_b3_b4_b5_profile_id_rules(task, space_name):
    pid = (await ego_browser.profiles())[0]["id"]
    with pytest.raises(InvalidArgument, match="already exists"):
        await ego_browser.task_space(task.name, profile_id=pid)
    with pytest.raises(InvalidArgument, match="new task-space name"):
        await ego_browser.task_space(task.space_id, profile_id=pid)
    with pytest.raises(ProfileNotFound, match="Profile not found") as info:
        await ego_browser.task_space(space_name + "-new", profile_id="nope")
    assert info.value.code == "EGO_PROFILE_NOT_FOUND"
    assert space_name + "-new" not in [s["name"] for s in await ego_browser.list_task_spaces()]


async def test_b6_list_items(task):
    items = await ego_browser.list_task_spaces()
    mine = [i for i in items if i["id"] == task.space_id]
    assert len(mine) == 1
    for item in items:
        assert isinstance(item["id"], int) and isinstance(item["task_id"], str) and isinstance(item["name"], str)
        assert item["ownership"] in ("agent", "agentDelegatedToUser", "user")
        assert set(item) >= {"created_by", "recent_tab_titles", "isolated", "status"}


async def test_b7_hand_off_then_take_over(task):
    await task.hand_off()
    again = await ego_browser.take_over_task_space(task.space_id)
    await again.wait_for_control(interval=100, timeout=5000)
    up = again.user_page()
    assert up is not None and up.target_id == (await task.tabs())[0]["target_id"]


async def test_b30_hand_off_gates_actions_but_not_waits(task, server):
    url = server.page("/b30", "<button>b</button>")
    await task.page("p1").goto(url)
    await task.hand_off()
    with pytest.raises(TaskSpaceUserInControl) as info:
        await task.page("p1").evaluate("1")
    assert info.value.reason == "handed_off"
    with pytest.raises(TaskSpaceUserInControl):
        await task.page("p1").goto(url)
    await task.page("p1").wait_for_timeout(10)
    await ego_browser.take_over_task_space(task.space_id)
    assert await task.page("p1").evaluate("1 + 1") == 2


async def test_b8_finish_keep_all(host, space_name, server):
    t = await ego_browser.task_space(space_name)
    await t.page("p1").goto(server.page("/b8", "kept"))
    report = await t.finish(keep="all")
    assert report["closed_space"] is False and report["closed_labels"] == [] and "p1" in report["kept_labels"]
    listed = {s["id"]: s for s in await ego_browser.list_task_spaces()}
    assert listed[t.space_id]["ownership"] == "user"
    with pytest.raises(TaskSpaceUserInControl):
        await t.page("p1").evaluate("1")


async def test_b9_finish_keep_nothing_closes_the_space(host, space_name):
    t = await ego_browser.task_space(space_name)
    report = await t.finish(keep=[])
    assert report == {"space_id": t.space_id, "closed_space": True, "kept_labels": [], "closed_labels": ["p1"],
                      "preserved_unmanaged": 0}
    assert t.space_id not in [s["id"] for s in await ego_browser.list_task_spaces()]


async def test_b10_finish_keep_one_then_claim(host, space_name, server):
    t = await ego_browser.task_space(space_name)
    kept_url = server.page("/b10-kept", "kept")
    await t.page("p1").goto(server.page("/b10-closed", "closed"))
    p2 = await t.new_page()
    await p2.goto(kept_url)
    report = await t.finish(keep=[p2.label])
    assert report["closed_space"] is False and report["kept_labels"] == ["p2"]
    assert "p1" in report["closed_labels"] and report["preserved_unmanaged"] == 0
    claimed = await ego_browser.claim_task_space(t.space_id)
    urls = [tab["url"] for tab in await claimed.tabs()]
    assert kept_url in urls and server.url("/b10-closed") not in urls
    await claimed.finish(keep=[])


async def test_finish_rejects_unknown_label_before_closing(task):
    with pytest.raises(PageNotFound):
        await task.finish(keep=["p42"])
    assert len(await task.tabs()) == 1


async def test_b11_two_spaces_in_parallel(host, space_name, server):
    a = await ego_browser.task_space(space_name + "-a")
    b = await ego_browser.task_space(space_name + "-b")
    ua, ub = server.page("/b11a", "a"), server.page("/b11b", "b")
    await asyncio.gather(a.page("p1").goto(ua), b.page("p1").goto(ub))
    ia, ib = await asyncio.gather(a.page("p1").info(), b.page("p1").info())
    assert ia["url"] == ua and ib["url"] == ub
    await asyncio.gather(a.finish(keep=[]), b.finish(keep=[]))


async def test_b13_tabs_and_pages_shapes(task):
    p2 = await task.new_page()
    assert p2.label == "p2" and isinstance(p2.target_id, str) and p2.space_id == task.space_id
    tabs = await task.tabs()
    assert all(set(t) == {"target_id", "label", "page", "title", "url", "active", "opened_by"} for t in tabs)
    for t in tabs:
        if t["label"] is not None:
            assert t["page"].target_id == t["target_id"]
    assert [p.label for p in await task.pages()] == ["p1", "p2"]
    assert not hasattr(task, "list_pages")
    assert task.page("p2") is p2, "one Page object per label per process"


async def test_b16_close_retires_the_label(task, server):
    p1 = task.page("p1")
    p2 = await task.new_page()
    await p1.close()
    assert "p1" not in [t["label"] for t in await task.tabs()]
    with pytest.raises(PageClosed, match="page p1 was closed"):
        await task.page("p1").goto(server.url("/"))
    p3 = await task.new_page()
    assert p3.label == "p3", "labels are never reused"
    assert p2.label == "p2"


async def test_b26_every_method_of_a_closed_page_raises(task):
    p = await task.new_page()
    await p.close()
    for call in (p.url(), p.title(), p.info(), p.evaluate("1"), p.reload(), p.goto("about:blank"),
                 p.wait_for_load_state(), p.cdp("Page.enable"), p.wait_for_timeout(1), p.close()):
        with pytest.raises(PageClosed, match=f"page {p.label} was closed"):
            await call
    with pytest.raises(PageClosed):
        p.events()


async def test_b17_tab_closed_outside_the_api(task):
    p2 = await task.new_page()
    await task.cdp("Target.closeTarget", {"targetId": p2.target_id})
    for _ in range(100):
        if p2.target_id not in [t["target_id"] for t in await task.tabs()]:
            break
        await asyncio.sleep(0.02)
    assert p2.target_id not in [t["target_id"] for t in await task.tabs()]
    with pytest.raises(PageClosed, match="page p2 was closed"):
        await task.page("p2").url()
    p3 = await task.new_page()
    assert p3.label == "p3"


async def test_b19_budget(task):
    await task.new_page()
    await task.new_page()
    with pytest.raises(PageBudgetReached, match=r"Page budget reached \(3/3\)") as info:
        await task.new_page()
    assert info.value.count == 3 and info.value.limit == 3 and info.value.space_id == task.space_id
    assert len([t for t in await task.tabs() if t["label"]]) == 3


async def test_b20_popup_past_the_budget_is_adopted(task, server):
    url = server.page("/b20", "<a id=pop target=_blank href='/b20-child'>open</a>")
    server.page("/b20-child", "child", title="Child")
    await task.page("p1").goto(url)
    await task.new_page()
    await task.new_page()
    await task.page("p1").evaluate("window.open('/b20-child', '_blank'); 1")
    for _ in range(200):
        if len(await task.pages()) == 4:
            break
        await asyncio.sleep(0.02)
    pages = await task.pages()
    assert [p.label for p in pages] == ["p1", "p2", "p3", "p4"]
    assert (await task.tabs())[-1]["opened_by"] == "agent"
    with pytest.raises(PageBudgetReached, match=r"\(4/3\)"):
        await task.new_page()


async def _unmanaged(task) -> UnmanagedPage:
    """An unmanaged tab of the space: the blank tab left when its last page closes."""
    await task.page("p1").close()
    tabs = await task.tabs()
    assert len(tabs) == 1 and tabs[0]["label"] is None
    return tabs[0]["page"]


async def test_b21_b22_b23_adopt_and_release(task, server):
    handle = await _unmanaged(task)
    assert isinstance(handle, UnmanagedPage) and handle.target_id
    for name in ("snapshot", "goto", "close"):
        assert not hasattr(handle, name)
    page = await task.adopt(handle, label="borrowed")
    assert page.label == "borrowed" and page.opened_by == "unknown"
    await page.goto(server.page("/b22", "borrowed page", title="Borrowed"))
    assert await page.title() == "Borrowed"
    assert await page.snapshot() if hasattr(page, "snapshot") else True
    with pytest.raises(InvalidArgument, match="not an unmanaged tab"):
        await task.adopt(handle, label="other")
    await page.close()  # its last tab again: a fresh unmanaged blank tab appears
    blank = next(t["page"] for t in await task.tabs() if t["label"] is None)
    with pytest.raises(InvalidArgument, match="already in use"):
        await task.adopt(blank, label="borrowed")


async def test_b24_release_of_an_agent_page_is_refused(task):
    p2 = await task.new_page()
    with pytest.raises(InvalidArgument, match="was created by the agent; close it instead"):
        await task.release(p2.label)


async def test_b23_release_then_adopt_again(task, host, server):
    # a tab the agent did not open: the person's tab in a claimed space
    tid = (await host.browser.conn.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    host.store.add_page(task.space_id, "#" + tid, tid, "unknown", state="unmanaged")
    handle = next(t["page"] for t in await task.tabs() if t["target_id"] == tid)
    page = await task.adopt(handle, label="borrowed")
    assert page.opened_by == "unknown"
    await page.goto(server.page("/b23", "x"))
    released = await task.release("borrowed")
    assert released.target_id == tid
    tabs = {t["target_id"]: t for t in await task.tabs()}
    assert tabs[tid]["label"] is None
    with pytest.raises(PageReleased, match="page borrowed was released"):
        await page.url()
    again = await task.adopt(released, label="again")
    assert again.target_id == tid and await again.url() == server.url("/b23")


async def test_b27_b28_isolated_spaces_do_not_share_cookies(host, space_name, server):
    def set_cookie(req):
        from tests.server import Response

        return Response("<title>c</title>set", headers={"Set-Cookie": "k=" + req.query.split("=", 1)[1] + "; Path=/"})

    server.route("/b27-set", set_cookie)
    server.page("/b27-read", "read")
    iso = await ego_browser.task_space(space_name + "-iso", isolated=True)
    plain = await ego_browser.task_space(space_name + "-plain")
    other = await ego_browser.task_space(space_name + "-other")
    try:
        await iso.page("p1").goto(server.url("/b27-set?v=iso"))
        await plain.page("p1").goto(server.url("/b27-set?v=plain"))
        await other.page("p1").goto(server.url("/b27-read"))
        await iso.page("p1").goto(server.url("/b27-read"))
        assert await iso.page("p1").evaluate("document.cookie") == "k=iso"
        shared = (await other.page("p1").evaluate("document.cookie")).split("; ")
        assert "k=plain" in shared, "default spaces share cookies"
        assert "k=iso" not in shared, "an isolated space's cookie stays in its space"
        listed = {s["id"]: s for s in await ego_browser.list_task_spaces()}
        assert listed[iso.space_id]["isolated"] is True and listed[plain.space_id]["isolated"] is False
        with pytest.raises(InvalidArgument):
            await ego_browser.task_space(plain.name, isolated=True)
        assert (await ego_browser.task_space(iso.name)).space_id == iso.space_id
        assert (await ego_browser.task_space(iso.name, isolated=True)).space_id == iso.space_id
    finally:
        for t in (iso, plain, other):
            await t.finish(keep=[])


async def test_b29_status_text(task):
    await task.set_status("Comparing prices")
    item = next(s for s in await ego_browser.list_task_spaces() if s["id"] == task.space_id)
    assert item["status"] == "Comparing prices"
    await task.set_status("")
    item = next(s for s in await ego_browser.list_task_spaces() if s["id"] == task.space_id)
    assert item["status"] is None
    with pytest.raises(InvalidArgument):
        await task.set_status("x" * 501)


async def test_b31_unknown_label_and_space(task):
    with pytest.raises(PageNotFound, match="page label not found: p99"):
        await task.page("p99").url()
    with pytest.raises(TaskSpaceNotFound, match="task space not found"):
        await ego_browser.take_over_task_space(987654)
    with pytest.raises(TaskSpaceNotFound):
        await ego_browser.task_space(987654)


async def test_person_take_over_blocks_the_agent(task, host):
    await host.handle("spaces.take_over", {"space": task.space_id})
    with pytest.raises(TaskSpaceUserInControl) as info:
        await task.page("p1").evaluate("1")
    assert info.value.reason == "manual_takeover"
    with pytest.raises(TaskSpaceUserInControl):
        await task.new_page()
    await host.handle("spaces.give_back", {"space": task.space_id})
    assert await task.page("p1").evaluate("2") == 2


async def test_user_owned_name_is_not_reused(host, space_name):
    t = await ego_browser.task_space(space_name)
    await t.finish(keep="all")
    with pytest.raises(TaskSpaceUserInControl) as info:
        await ego_browser.task_space(space_name)
    assert info.value.reason == "user_owned"


async def test_task_cdp_only_target_and_browser(task):
    assert "targetInfos" in await task.cdp("Target.getTargets")
    with pytest.raises(InvalidArgument):
        await task.cdp("Runtime.evaluate", {"expression": "1"})


async def test_b12_claimed_space_keeps_earlier_tabs_unmanaged(host, space_name):
    made = await host.handle("spaces.create", {"name": space_name})
    assert made["ownership"] == "user"
    with pytest.raises(TaskSpaceUserInControl):
        await ego_browser.task_space(space_name)
    task = await ego_browser.claim_task_space(made["id"])
    tabs = await task.tabs()
    assert [(t["label"], t["opened_by"]) for t in tabs] == [(None, "unknown")]
    assert isinstance(task.user_page(), UnmanagedPage)
    p = await task.new_page()
    assert p.label == "p1" and p.space_id == task.space_id and isinstance(p.target_id, str)
    await task.finish(keep=[])


async def test_b25_reads_do_not_activate_but_actions_do(task, server):
    url = server.page("/b25", "<input id=i>")
    a = task.page("p1")
    await a.goto(url)
    b = await task.new_page()
    await b.goto(url)

    async def active() -> str:
        return next(t["label"] for t in await task.tabs() if t["active"])

    await b.evaluate("1")
    assert await active() == b.label
    for read in (a.url(), a.title(), a.info(), a.wait_for_timeout(1)):
        await read
    assert await active() == b.label
    assert await b.evaluate("document.visibilityState") == "visible"
    await a.fill("#i", "x")
    assert await active() == a.label
    await b.keyboard.press("a")
    assert await active() == b.label
    await a.mouse.move(1, 1)
    assert await active() == a.label
