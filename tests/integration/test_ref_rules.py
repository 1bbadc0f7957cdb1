"""Ref rules on real Chromium: a ref never acts on another element (issue 29 finding 2),
follows a node a single-page app replaced by an identical one (finding 3), and survives a
navigation where its node did (issue 30 point 2). Pages: ``tests/ref_pages.py``."""

from __future__ import annotations

import re

import pytest

from ego_browser import StaleRef
from tests.ref_pages import REPLACED_EDITOR, REUSED_MENU, site_page

REF = re.compile(r"\[ref=([0-9]+)")


def ref_of(text: str, needle: str) -> int:
    for line in text.splitlines():
        if needle in line:
            m = REF.search(line)
            assert m, line
            return int(m.group(1))
    raise AssertionError(f"{needle!r} not in snapshot:\n{text}")


# -- finding 2: a menu that re-uses its nodes -------------------------------------------------


async def test_ref_of_a_relabelled_menu_item_is_stale_and_runs_nothing(task, server):
    url = server.page("/refs-menu", REUSED_MENU)
    page = task.page("p1")
    await page.goto(url)
    await page.click("#file")
    rename = ref_of(await page.snapshot(), 'menuitem "Rename"')
    await page.click("#file")  # the menu closes on nothing: open it for the folder instead
    await page.click("#folder")  # the same <li> now reads "New Folder"
    with pytest.raises(StaleRef) as err:
        await page.click(f"@{rename}", timeout=2000)
    assert err.value.code == "EGO_STALE_REF"
    assert 'was menuitem "Rename"' in err.value.message and 'menuitem "New Folder"' in err.value.message
    assert await page.evaluate("document.getElementById('log').textContent") == "nothing ran"
    # the node prints under a new number; the old one stays stale
    text = await page.snapshot()
    new_folder = ref_of(text, 'menuitem "New Folder"')
    assert new_folder != rename
    with pytest.raises(StaleRef):
        await page.click(f"@{rename}", timeout=2000)
    await page.click(f"@{new_folder}")
    assert await page.evaluate("document.getElementById('log').textContent") == "ran New Folder"


async def test_snapshot_renumbers_a_relabelled_node(task, server):
    url = server.page("/refs-menu2", REUSED_MENU)
    page = task.page("p1")
    await page.goto(url)
    await page.click("#file")
    rename = ref_of(await page.snapshot(), 'menuitem "Rename"')
    await page.click("#folder")
    text = await page.snapshot()
    assert ref_of(text, 'menuitem "New Folder"') != rename
    with pytest.raises(StaleRef, match='now menuitem "New Folder"'):
        await page.click(f"@{rename}", timeout=2000)


# -- finding 3: an editor replaced after load ------------------------------------------------


async def test_ref_follows_an_identical_replacement(task, server):
    url = server.page("/refs-editor", REPLACED_EDITOR)
    page = task.page("p1")
    await page.goto(url)
    text = await page.snapshot()
    editor = ref_of(text, 'textbox "Code editor"')
    await page.evaluate("replaceEditor('Cell 1', 'Code editor')")
    await page.fill(f"@{editor}", "print(2)")
    await page.click("#run")
    assert await page.evaluate("document.getElementById('out').textContent") == "ran: print(2)"
    # the next look prints the new node under the same number
    assert ref_of(await page.snapshot(), 'textbox "Code editor"') == editor


async def test_replacement_with_another_name_is_stale_and_named(task, server):
    url = server.page("/refs-editor2", REPLACED_EDITOR)
    page = task.page("p1")
    await page.goto(url)
    editor = ref_of(await page.snapshot(), 'textbox "Code editor"')
    await page.evaluate("replaceEditor('Cell 1', 'Plain editor')")
    with pytest.raises(StaleRef) as err:
        await page.fill(f"@{editor}", "print(2)", timeout=2000)
    assert 'at its place now: textbox "Plain editor"' in err.value.message
    # never the editor of the other cell, which has the same role at another place
    assert await page.evaluate("document.querySelector('[aria-label=\"Cell 2\"] .editor').textContent") == "# notes"


# -- issue 30 point 2: refs across a navigation ----------------------------------------------


def _site(server):
    a, b = server.url("/refs-site/a"), server.url("/refs-site/b")
    links = {"Orders": a, "Customers": b}
    server.page("/refs-site/a", site_page("Orders", links, "<button>Export orders</button>"))
    server.page("/refs-site/b", site_page("Customers", links, "<button>Invite customer</button>"))
    return a, b


async def test_shared_chrome_keeps_its_refs_across_pages(task, server):
    a, b = _site(server)
    page = task.page("p1")
    await page.goto(a)
    one = await page.snapshot()
    kept = {n: ref_of(one, n) for n in ('link "Acme admin"', 'button "Sign out"', 'link "Orders"',
                                        'link "Customers"', 'link "Help"')}
    profile, export = ref_of(one, 'link "Profile"'), ref_of(one, 'button "Export orders"')
    customers = kept['link "Customers"']
    await page.click(f"@{customers}")
    await page.wait_for_url(b)
    two = await page.snapshot(scope="full_page")
    assert {n: ref_of(two, n) for n in kept} == kept
    # another target, another main: new numbers; the old ones are stale
    assert ref_of(two, 'link "Profile"') != profile
    invite = ref_of(two, 'button "Invite customer"')
    assert invite not in kept.values() and invite != export
    with pytest.raises(StaleRef):
        await page.click(f"@{export}", timeout=2000)
    with pytest.raises(StaleRef):
        await page.click(f"@{profile}", timeout=2000)
    # a carried ref acts on the new document's node
    orders = kept['link "Orders"']
    await page.click(f"@{orders}")
    await page.wait_for_url(a)


async def test_carried_ref_acts_before_the_next_look(task, server):
    a, b = _site(server)
    page = task.page("p1")
    await page.goto(a)
    one = await page.snapshot()
    orders = ref_of(one, 'link "Orders"')
    await page.goto(b)
    await page.click(f"@{orders}")  # no snapshot of b: the ref is carried when used
    await page.wait_for_url(a)
    # the link the ref followed in b carries on to a again
    assert ref_of(await page.snapshot(), 'link "Orders"') == orders


async def test_replacement_among_identical_nodes_is_not_guessed(task, server):
    url = server.page("/refs-twins", "<ul><li><button id=one>Delete</button></li><li><button id=two>Delete</button>"
                      "</li></ul><script>window.hits = []; document.addEventListener('click',"
                      " e => hits.push(e.target.id || 'new'));</script>")
    page = task.page("p1")
    await page.goto(url)
    text = await page.snapshot()
    first, second = [int(m) for m in re.findall(r'button "Delete" \[ref=(\d+)', text)]
    await page.evaluate("{const o = document.getElementById('one'); const n = o.cloneNode(true); n.id = '';"
                        " o.replaceWith(n);} 1")
    with pytest.raises(StaleRef) as err:
        await page.click(f"@{first}", timeout=2000)
    assert "2 like it at its place" in err.value.message and f"@{second}" in err.value.message
    assert await page.evaluate("hits") == []
    await page.click(f"@{second}")
    assert await page.evaluate("hits") == ["two"]


async def test_find_hands_out_a_new_number_for_a_relabelled_node(task, server):
    url = server.page("/refs-menu3", REUSED_MENU)
    page = task.page("p1")
    await page.goto(url)
    await page.click("#file")
    rename = ref_of(await page.snapshot(), 'menuitem "Rename"')
    await page.click("#folder")
    rows = await page.find("role=menuitem")
    ref = next(r["ref"] for r in rows if r["name"] == "New Folder")
    assert ref != f"@{rename}"
    await page.click(ref)
    assert await page.evaluate("document.getElementById('log').textContent") == "ran New Folder"
