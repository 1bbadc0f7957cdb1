"""JavaScript dialogs stay under agent control (BEHAVIOURS.md B150–B152, dialog requirement)."""

from __future__ import annotations

import pytest

from ego_browser import InvalidState, NavigationBlocked

from tests.nav_helpers import click

BUTTON = "<button id=b style='width:200px;height:60px' onclick=\"{js}\">go</button>"


async def test_b150_no_dialog(task, server):
    page = task.page("p1")
    await page.goto(server.page("/b150", "<p>x</p>"))
    assert await page.accept_dialog() is False
    assert await page.dismiss_dialog() is False
    assert await page.evaluate("1 + 1") == 2


async def test_b151_prompt_in_receipt_and_accept(host, task, server):
    page = task.page("p1")
    url = server.page("/b151", BUTTON.format(js="window.answer = prompt('Name?', 'guest')"))
    await page.goto(url)
    page.events()
    receipt = await click(host, page, "#b")
    assert receipt.dialog == {"type": "prompt", "message": "Name?", "default_prompt": "guest", "url": url}
    assert any(e["method"] == "Page.javascriptDialogOpening" for e in page.events())
    assert (await page.info()) == {"dialog": receipt.dialog}
    assert await page.accept_dialog("agent") is True
    closed = [e for e in page.events() if e["method"] == "Page.javascriptDialogClosed"]
    assert closed and closed[-1]["params"]["result"] is True and closed[-1]["params"]["userInput"] == "agent"
    assert await page.evaluate("window.answer") == "agent"
    assert await page.accept_dialog() is False


async def test_b152_confirm_dismiss_and_alert(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/b152", BUTTON.format(js="window.ok = confirm('Sure?')")
                                + "<button id=a style='width:200px;height:60px' onclick=\"alert('Hello'); window.after = 1\">a</button>"))
    receipt = await click(host, page, "#b")
    assert receipt.dialog["type"] == "confirm" and receipt.dialog["message"] == "Sure?"
    assert await page.dismiss_dialog() is True
    assert await page.evaluate("window.ok") is False
    assert await page.dismiss_dialog() is False
    receipt = await click(host, page, "#a")
    assert receipt.dialog["type"] == "alert" and receipt.dialog["message"] == "Hello"
    assert await page.accept_dialog() is True
    assert await page.evaluate("window.after") == 1


async def test_open_dialog_never_hangs_other_ops(host, task, server):
    """Every page op fails fast (or routes around) while a dialog blocks the renderer."""
    page = task.page("p1")
    await page.goto(server.page("/dlg-fast", BUTTON.format(js="confirm('block?')")))
    receipt = await click(host, page, "#b")
    assert receipt.dialog["type"] == "confirm"
    for call in (
        page.evaluate("1"),
        page.wait_for_function("() => true", timeout=5000),
        page.wait_for_selector("#b", timeout=5000),
        page.fetch("/dlg-fast"),
        page.screenshot(),
        page.goto(server.url("/dlg-fast")),
    ):
        with pytest.raises(InvalidState, match="accept_dialog"):
            await call
    assert "dialog" in await page.info()
    assert await page.url() == server.url("/dlg-fast")
    assert await page.title() == "Test"
    assert await page.accept_dialog() is True
    assert await page.evaluate("2") == 2


async def test_dialog_opened_during_evaluate(task, server):
    page = task.page("p1")
    await page.goto(server.page("/dlg-eval", "<p>x</p>"))
    with pytest.raises(InvalidState, match="opened while it ran"):
        await page.evaluate("() => { window.r = confirm('from script'); return 1 }")
    assert (await page.info())["dialog"]["message"] == "from script"
    assert await page.accept_dialog() is True
    assert await page.evaluate("window.r") is True


async def test_beforeunload_dialog_in_receipt(host, task, server):
    page = task.page("p1")
    await page.goto(server.page("/dlg-bu", BUTTON.format(js="window.clicked = 1")
                                + "<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; })</script>"))
    await click(host, page, "#b")  # sticky user activation: Chromium only asks after a gesture
    # goto does not return as if it had navigated: it says what stopped it, the dialog stays open
    with pytest.raises(NavigationBlocked) as info:
        await page.goto(server.page("/dlg-bu-next", "<p>next</p>"))
    assert info.value.dialog is not None and info.value.dialog["type"] == "beforeunload"
    assert (await page.info())["dialog"]["type"] == "beforeunload"
    assert await page.accept_dialog() is True
    await page.wait_for_url("**/dlg-bu-next", timeout=5000)


async def test_dialog_survives_the_round(rounds, server):
    """A dialog open when a round ends stays open; the next round sees and handles it."""
    url = server.page("/dlg-rounds", "<p>x</p>")
    first = rounds.run(
        "task = await task_space('dialog-rounds')\n"
        "page = task.page('p1')\n"
        f"await page.goto({url!r})\n"
        "await page.evaluate(\"setTimeout(() => { window.r = confirm('keep me') }, 0); 1\")\n"
        "await page.wait_for_timeout(200)\n"
        "print(await page.info())\n"
    )
    assert first.returncode == 0, first.stderr
    assert "keep me" in first.stdout
    second = rounds.run(
        "task = await task_space('dialog-rounds')\n"
        "page = task.page('p1')\n"
        "print((await page.info())['dialog']['message'])\n"
        "print(task.ownership)\n"
        "print(await page.accept_dialog())\n"
        "print(await page.evaluate('window.r'))\n"
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["keep", "me", "agent", "True", "True"]


async def test_dialogs_reopened_at_once_stay_in_sync(host, task, server):
    """A handler that alerts again right away (issue 9 point 11): each accept_dialog() handles
    one dialog and the next shows at once; never False while one blocks the page, and the
    page navigates afterwards."""
    page = task.page("p1")
    await page.goto(server.page("/dlg-loop", BUTTON.format(
        js="for (let i = 1; i <= 4; i++) alert('n' + i); window.done = 1")
        + "<button id=c style='width:200px;height:60px' "
          "onclick=\"let k = 0; while (!confirm('sure ' + k)) k++; window.k = k\">c</button>"))
    receipt = await click(host, page, "#b")
    assert receipt.dialog["message"] == "n1"
    for i in range(1, 5):
        assert (await page.info())["dialog"]["message"] == f"n{i}"
        assert await page.accept_dialog() is True
    assert "dialog" not in await page.info()
    assert await page.accept_dialog() is False
    assert await page.evaluate("window.done") == 1
    receipt = await click(host, page, "#c")
    assert receipt.dialog["message"] == "sure 0"
    assert await page.dismiss_dialog() is True
    assert (await page.info())["dialog"]["message"] == "sure 1"
    assert await page.dismiss_dialog() is True
    assert await page.accept_dialog() is True
    assert await page.evaluate("window.k") == 2
    await page.goto(server.page("/dlg-loop-next", "<p>next</p>"))
    assert await page.url() == server.url("/dlg-loop-next")
