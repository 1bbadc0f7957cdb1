"""Playwright scripts, one per task: what an agent writes when it already knows the page.

Run as its own process (``python trace_pw.py TASK URL DATA_JSON``), like an agent running a
script it wrote: it launches Chromium on our binary, does the task with Playwright's
recommended locators (labels, roles, visible text from the task; no ids), and prints one JSON
line ``{"answer": ..., "task_seconds": ...}`` where ``task_seconds`` excludes the launch.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import peers  # noqa: E402


async def orders(page, url: str, task: dict) -> str:
    await page.goto(url)
    await page.get_by_label("Username").fill(task["user"])
    await page.get_by_label("Password").fill(task["password"])
    await page.get_by_role("button", name="Log in").click()
    await page.get_by_role("link", name="Orders", exact=True).first.click()
    await page.get_by_role("link", name=task["status"], exact=True).click()
    await page.wait_for_url(re.compile(r"status="))
    await page.get_by_role("link", name=task["country"], exact=True).click()
    await page.wait_for_url(re.compile(r"country="))
    await page.get_by_label("Search:").fill(task["search"])
    await page.get_by_label("Search:").press("Enter")
    await page.wait_for_url(re.compile(r"q="))
    total = 0
    while True:
        heads = [h.strip() for h in await page.locator("table thead th").all_text_contents()]
        col = heads.index("Express")
        cells = await page.locator(f"table tbody tr td:nth-child({col + 1}), table tbody tr th:nth-child({col + 1})").all_inner_texts()
        total += sum(1 for c in cells if c.strip() == "Yes")
        nxt = page.get_by_role("link", name="Next ›")
        if not await nxt.count():
            return str(total)
        url_before = page.url
        await nxt.click()
        await page.wait_for_url(lambda u: u != url_before)


async def booking(page, url: str, task: dict) -> str:
    await page.goto(url)
    await page.get_by_label("Organisation").fill(task["company"])
    await page.get_by_label("Contact email").fill(task["email"])
    await page.get_by_label("Phone").fill(task["phone"])
    await page.get_by_label("Country").select_option(task["country"])
    await page.get_by_role("button", name="Next").click()
    await page.wait_for_load_state()
    if await page.get_by_text("international format").count():
        await page.get_by_label("Phone").fill(task["phone_fixed"])
        await page.get_by_role("button", name="Next").click()
    await page.wait_for_url("**/step2/")
    await page.get_by_label("Event date").fill(task["date"])
    await page.get_by_label("Number of guests").fill(task["guests"])
    await page.get_by_label("Room").select_option(label=task["room"])
    for label in task["services"]:
        await page.get_by_label(label).check()
    await page.get_by_role("button", name="Next").click()
    await page.wait_for_url("**/step3/")
    await page.get_by_label("Floor plan").set_input_files(task["file_path"])
    await page.get_by_label("Notes").fill(task["notes"])
    await page.get_by_label("I accept").check()
    await page.get_by_role("button", name="Submit request").click()
    await page.wait_for_url("**/done/**")
    return await page.locator("p", has_text="booking request").inner_text()


async def catalog(page, url: str, task: dict) -> str:
    await page.goto(url)
    await page.get_by_label("Search:").fill(task["product"])
    await page.get_by_label("Search:").press("Enter")
    await page.wait_for_url(re.compile(r"q="))
    await page.get_by_role("link", name=task["product"], exact=True).click()
    await page.wait_for_url("**/change/")
    await page.get_by_label("Price").fill(task["price"])
    await page.get_by_role("link", name="Show").click()
    await page.get_by_label("Stock").fill(task["stock"])
    await page.get_by_role("button", name="Save and continue editing").click()
    await page.get_by_text("was changed successfully").wait_for()
    return await page.get_by_label("Price").input_value()


async def comments(page, url: str, task: dict) -> str:
    await page.goto(url)
    await page.get_by_label("Search:").fill(task["author"])
    await page.get_by_label("Search:").press("Enter")
    await page.wait_for_url(re.compile(r"q="))
    boxes = page.get_by_role("checkbox", name=re.compile(rf" by {re.escape(task['author'])}$"))
    for i in range(await boxes.count()):
        await boxes.nth(i).check()
    await page.get_by_role("combobox", name="Action").select_option(label="Delete selected comments")
    await page.get_by_role("button", name="Go").click()
    await page.get_by_role("button", name=re.compile("^Yes")).click()
    await page.get_by_text("Successfully deleted").wait_for()
    return await page.get_by_text("Successfully deleted").inner_text()


async def tickets(page, url: str, task: dict) -> str:
    await page.goto(url)
    await page.get_by_role("link", name=task["ticket"], exact=True).click()
    await page.wait_for_url("**/change/")
    await page.get_by_role("combobox", name="Customer").fill(task["customer_typed"])
    await page.get_by_role("option", name=task["customer"], exact=True).click()
    async with page.expect_popup() as info:
        await page.get_by_role("link", name="Look up assignee").click()
    popup = await info.value
    async with popup.expect_event("close"):
        await popup.get_by_role("link", name=task["agent"], exact=True).click()
    await page.get_by_role("button", name="Save").click()
    await page.get_by_text("was changed successfully").wait_for()
    return await page.get_by_text("was changed successfully").inner_text()


SCRIPTS = {"orders": orders, "booking": booking, "catalog": catalog, "comments": comments, "tickets": tickets}


def _spa() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import trace_pw_spa  # the SPA set

    SCRIPTS.update(trace_pw_spa.SCRIPTS)


_spa()


async def main(name: str, url: str, data: dict) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=peers.CHROMIUM, args=peers.FLAGS[1:], headless=True)
        try:
            page = await browser.new_page()
            t0 = time.perf_counter()
            answer = await SCRIPTS[name](page, url, data)
            seconds = time.perf_counter() - t0
        finally:
            await browser.close()
    print(json.dumps({"answer": answer, "task_seconds": seconds}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
