"""Playwright scripts of the SPA set (app_spa.py): what an agent writes when it knows the app.

Locators by role and name pierce open shadow roots; actions wait for their target, so the
script needs no settle wait of its own beyond waiting for the result it reads.
"""

from __future__ import annotations

import re


async def _open(page, url: str) -> None:
    await page.goto(url)
    await page.get_by_role("listbox", name="Files").get_by_role("option").first.wait_for()


async def _editor(page):
    # the placeholder (a read-only textarea saying "Loading…") is replaced once the model is there
    editor = page.locator('[role=textbox][aria-label="Editor"][contenteditable=true]')
    await editor.wait_for()
    return editor


async def _output(page) -> str:
    out = page.get_by_role("region", name="Output").locator("pre")
    await out.filter(has_text=re.compile(r"\S")).wait_for()
    return (await out.inner_text()).strip()


async def spa_run(page, url: str, task: dict) -> str:
    await _open(page, url)
    await page.get_by_role("button", name="New File").click()
    await page.get_by_role("dialog", name="New file").get_by_role("button", name="Create").click()
    await (await _editor(page)).fill(task["code"])
    await page.get_by_role("button", name="Save").click()
    await page.get_by_text("Saved", exact=True).wait_for()
    await page.get_by_role("button", name="Run").click()
    return await _output(page)


async def spa_rename(page, url: str, task: dict) -> str:
    await _open(page, url)
    await page.get_by_role("option", name=task["old"], exact=True).click(button="right")
    await page.locator(".menu:not([hidden]) li", has_text="Rename").click()
    dialog = page.get_by_role("dialog", name="Rename file")
    await dialog.get_by_role("textbox", name="Name").fill(task["new"])
    await dialog.get_by_role("button", name="Rename").click()
    await page.get_by_role("option", name=task["new"], exact=True).wait_for()
    return task["new"]


async def spa_folder(page, url: str, task: dict) -> str:
    await _open(page, url)
    await page.get_by_role("button", name="New Folder").click()
    dialog = page.get_by_role("dialog", name="New folder")
    await dialog.get_by_role("textbox", name="Name").fill(task["folder"])
    await dialog.get_by_role("button", name="Create").click()
    await page.get_by_role("option", name=task["folder"], exact=True).dblclick()
    await page.get_by_role("link", name=task["folder"], exact=True).wait_for()
    await page.get_by_role("listbox", name="Files").click(button="right")
    await page.locator(".menu:not([hidden]) li", has_text="New File").click()
    dialog = page.get_by_role("dialog", name="New file")
    await dialog.get_by_role("textbox", name="Name").fill(task["file"])
    await dialog.get_by_role("button", name="Create").click()
    await (await _editor(page)).fill(task["text"])
    await page.get_by_role("button", name="Save").click()
    await page.get_by_text("Saved", exact=True).wait_for()
    return task["file"]


async def spa_edit(page, url: str, task: dict) -> str:
    await _open(page, url)
    await page.get_by_role("option", name=task["file"], exact=True).dblclick()
    editor = await _editor(page)
    code = await editor.inner_text()
    await editor.fill(code.replace(task["old"], task["new"]))
    await page.get_by_role("button", name="Save").click()
    await page.get_by_text("Saved", exact=True).wait_for()
    await page.get_by_role("button", name="Run").click()
    return await _output(page)


async def spa_theme(page, url: str, task: dict) -> str:
    await _open(page, url)
    await page.get_by_role("menuitem", name="Settings").click()
    await page.locator(".menu:not([hidden]) li", has_text="Theme").click()
    await page.locator(".menu:not([hidden]) li", has_text=task["theme"]).click()
    await page.get_by_text(f"Theme: {task['theme']}").wait_for()
    return task["theme"]


SCRIPTS = {"spa_run": spa_run, "spa_rename": spa_rename, "spa_folder": spa_folder, "spa_edit": spa_edit,
           "spa_theme": spa_theme}
