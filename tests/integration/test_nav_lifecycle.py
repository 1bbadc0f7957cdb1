"""Permission prompts hand the space to the person; closing the runtime rejects what is pending."""

from __future__ import annotations

import asyncio
import os
import tempfile

import pytest

import ego_browser
from ego_browser import EgoError, TaskSpaceUserInControl


@pytest.mark.parametrize("call, reason", [
    ("navigator.geolocation.getCurrentPosition(() => {}, () => {})", "location"),
    ("Notification.requestPermission()", "notifications"),
])
async def test_permission_prompt_hands_space_to_user(task, server, call, reason):
    page = task.page("p1")
    server.page("/perm-" + reason, "<p>x</p>")
    # an origin of its own: Chromium remembers a prompt dismissed for an origin (other tests ask
    # 127.0.0.1 for the location too), and a permission no longer "prompt" is no hand-over
    await page.goto(server.url("/perm-" + reason, host="localhost"))
    await page.evaluate(f"() => {{ {call}; return 1 }}")
    # the prompt reaches the host from the page (a binding call): wait for its outcome, with a
    # deadline a loaded machine cannot miss
    deadline = asyncio.get_running_loop().time() + 30
    while asyncio.get_running_loop().time() < deadline:
        spaces = {s["id"]: s for s in await ego_browser.list_task_spaces()}
        if spaces[task.space_id]["ownership"] == "user":
            break
        await asyncio.sleep(0.05)
    with pytest.raises(TaskSpaceUserInControl) as info:
        await page.evaluate("1")
    assert info.value.reason == reason
    await task._channel.call("spaces.give_back", {"space": task.space_id})
    assert await page.evaluate("1") == 1


async def test_closing_embedded_runtime_rejects_pending(monkeypatch, server):
    home = tempfile.mkdtemp(prefix="ego-test-lifecycle-")
    monkeypatch.setenv("EGO_BROWSER_HOME", home)
    async with ego_browser.embedded() as h:
        task = await ego_browser.task_space("lifecycle")
        page = task.page("p1")
        await page.goto(server.page("/life", "<input type=file id=f>"))
        popup = page.wait_for_event("popup", timeout=60000)
        download = page.wait_for_event("download", timeout=60000)
        chooser = page.wait_for_file_chooser(timeout=60000)
        url = asyncio.ensure_future(page.wait_for_url("**/never", timeout=60000))
        await asyncio.sleep(0.2)  # let every waiter reach the host
        assert not any(t.done() for t in (popup, download, chooser, url))
    results = await asyncio.wait_for(asyncio.gather(popup, download, chooser, url, return_exceptions=True), 10)
    for r in results:
        assert isinstance(r, (EgoError, asyncio.CancelledError)), r
    assert h.browser.on_target_created == [] or all(
        getattr(cb, "__self__", None) is h for cb in h.browser.on_target_created
    )
    assert not [d for d in os.listdir(tempfile.gettempdir()) if d.startswith("ego-browser-download-")
                and os.path.getmtime(os.path.join(tempfile.gettempdir(), d)) > os.path.getmtime(home)]
