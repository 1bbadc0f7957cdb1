"""Raw CDP's cookie, storage and permission methods stay in the space's context (issue 31,
point 5).

The person's own cookie lives in the shared default context. An isolated space's
``Storage.getCookies`` once read that whole jar; a plain space could clear another origin's
cookies and data for every space and the person, or grant a permission to every site.
"""

from __future__ import annotations

import pytest

import ego_browser
from ego_browser.errors import CdpMethodRefused

PERSON = {"name": "person_sid", "value": "the-persons-login", "domain": "person.example", "path": "/"}


@pytest.fixture
async def spaces(host, server):
    a = await ego_browser.task_space("cdp-storage-plain")
    b = await ego_browser.task_space("cdp-storage-isolated", isolated=True)
    url = server.page("/cdp-storage", "<p>storage</p>", title="storage")
    await a.page("p1").goto(url)
    await b.page("p1").goto(url)
    await host.browser.conn.send("Storage.setCookies", {"cookies": [PERSON]}, timeout=10.0)
    yield a, b, server.url("/").rstrip("/")
    for space in (a, b):
        try:
            await space.finish(keep=[])
        except ego_browser.EgoError:
            pass


async def _persons_cookie(host) -> list[dict]:
    jar = await host.browser.conn.send("Storage.getCookies", {}, timeout=10.0)
    return [c for c in jar["cookies"] if c["name"] == PERSON["name"]]


def _refused(info, method: str) -> None:
    assert info.value.code == "EGO_CDP_METHOD_REFUSED" and info.value.method == method
    assert info.value.reason == "shared_context", info.value.reason


async def test_an_isolated_space_reads_only_its_own_cookie_jar(spaces, host):
    _a, b, origin = spaces
    await b.page("p1").cdp("Network.setCookie", {"name": "mine", "value": "b", "url": origin + "/"})
    jar = await b.page("p1").cdp("Storage.getCookies")
    names = {c["name"] for c in jar["cookies"]}
    assert "mine" in names and PERSON["name"] not in names
    assert await _persons_cookie(host)  # the person's cookie is there, just not B's to read


async def test_a_plain_space_cannot_clear_another_origins_cookies_or_data(spaces, host):
    a, b, origin = spaces
    page = a.page("p1")
    for method, params in [
        ("Storage.clearDataForOrigin", {"origin": "http://person.example", "storageTypes": "all"}),
        ("Network.deleteCookies", {"name": PERSON["name"], "domain": "person.example"}),
        ("Network.deleteCookies", {"name": PERSON["name"], "url": "http://person.example/"}),
        ("Storage.clearDataForStorageKey", {"storageKey": "http://person.example/", "storageTypes": "all"}),
    ]:
        with pytest.raises(CdpMethodRefused) as info:
            await page.cdp(method, params)
        _refused(info, method)
    assert await _persons_cookie(host)
    # its own origin's are its own to clear
    await page.cdp("Network.setCookie", {"name": "own", "value": "a", "url": origin + "/"})
    await page.cdp("Network.deleteCookies", {"name": "own", "url": origin + "/"})
    await page.cdp("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "local_storage"})
    # an isolated space owns its context: clearing there touches nobody else
    await b.page("p1").cdp("Storage.clearDataForOrigin", {"origin": "http://person.example", "storageTypes": "cookies"})
    assert await _persons_cookie(host)


async def test_a_grant_without_an_origin_is_refused_in_a_shared_context(spaces):
    a, b, origin = spaces
    with pytest.raises(CdpMethodRefused) as info:
        await a.page("p1").cdp("Browser.grantPermissions", {"permissions": ["geolocation"]})
    _refused(info, "Browser.grantPermissions")
    with pytest.raises(CdpMethodRefused) as info:
        await a.cdp("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "granted"})
    _refused(info, "Browser.setPermission")
    assert await a.page("p1").cdp("Browser.grantPermissions", {"permissions": ["geolocation"], "origin": origin}) == {}
    assert await b.page("p1").cdp("Browser.grantPermissions", {"permissions": ["geolocation"]}) == {}
