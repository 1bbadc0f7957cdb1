"""Repeat variants of the ego traces (issue 28 §7): the agent gets faster on every repeat.

For a task, the *first* attempt explores as ``trace_ego`` does and ends with ``task.learn`` and
``task.save_tool`` (verified in a fresh space) instead of finishing; the *next* attempts, with
other parameters (another record, another price), are what an agent does that starts from the
tool listing: one round that opens the start page (its snapshot header names the learned tool
and its parameters) and one that calls the tool and reads the answer. A *restart* attempt does
the same after the host was stopped. Each attempt is judged on the app's own state.

Only the catalog task has its variants here so far; ``VARIANTS`` lists the parameters of each
attempt. The timings are the benchmark's; ``tests/integration/test_task_traces.py`` runs the
variants once so they keep working.
"""

from __future__ import annotations

import json
import re

from agents import EgoAgent, TraceFailed
from trace_ego import HEAD, loc, ref

__all__ = ["VARIANTS", "catalog_first", "catalog_again", "check_catalog"]

#: the attempts of each task: the first explores and learns, the others use the tool
VARIANTS = {
    "catalog": [
        {"product": "Aurora Desk Lamp", "price": "64.50", "stock": "12"},
        {"product": None, "price": "19.90", "stock": "7"},   # None: the app's second product
        {"product": None, "price": "250.00", "stock": "40"},  # the app's third product (after a host restart)
    ],
}


def _r(agent: EgoAgent, space: str, body: str) -> str:
    return agent.round(HEAD.format(space=space) + body)


def catalog_first(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    """The exploring attempt (as ``trace_ego.catalog``), ending with learning the tool."""
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(locators=True, interactive=True))\n")
    search = loc(out, "textbox", "Search")
    out = _r(agent, space, f"""
await page.fill({search!r}, {task['product']!r})
await page.press({search!r}, "Enter")
await page.wait_for_url("**q=*")
await page.click('loc=role:link[name="{task['product']}"]')
await page.wait_for_url("**/change/")
await page.wait_for_load_state()
print(await page.snapshot(scope='full_page', interactive=True))
""")
    price, show = ref(out, "textbox", "Price"), ref(out, "link", "Show")
    out = _r(agent, space, f"""
await page.fill({price!r}, {task['price']!r})
await page.click({show!r})
print(await page.snapshot(scope='full_page', interactive=True))
""")
    stock, save = ref(out, "spinbutton", "Stock"), ref(out, "button", "Save and continue editing")
    out = _r(agent, space, f"""
await page.fill({stock!r}, {task['stock']!r})
await page.click({save!r})
await page.wait_for_selector("text=was changed successfully")
print(await page.input_value("#id_price"))
""")
    answer = out.strip().splitlines()[-1]
    # the run worked and will repeat: keep it (verified in a fresh space with the same values)
    out = _r(agent, space, """
draft = await task.learn("edit_product", params={"search": "product", "price": "price", "stock": "stock"})
saved = await task.save_tool("edit_product")
print(saved["verified"], saved["version"])
await task.finish(keep=[])
""")
    if not out.startswith("True"):
        raise TraceFailed(f"the tool was not saved verified:\n{out[-2000:]}")
    return answer


def catalog_again(agent: EgoAgent, url: str, space: str, task: dict) -> str:
    """A later attempt: the snapshot header names the tool; one call does the task."""
    out = _r(agent, space, f"await page.goto({url!r})\nprint(await page.snapshot(interactive=True))\n")
    m = re.search(r"^\[learned tools: .*\bedit_product\(([^)]*)\)", out, re.M)
    if not m:
        raise TraceFailed(f"no learned tool in the snapshot header:\n{out[:2000]}")
    args = {"product": task["product"], "price": task["price"], "stock": task["stock"]}
    out = _r(agent, space, f"""
result = await tools.edit_product(page, **{json.dumps(args)})
print(result["read"]["message"])
print(await page.input_value("#id_price"))
await task.finish(keep=[])
""")
    return out.strip().splitlines()[-1]


def fill_variants(app: object) -> list[dict]:
    """The attempts' parameters, the products of ``None`` entries taken from the app's list."""
    names = [p["name"] for p in getattr(app, "products") if p["name"] != VARIANTS["catalog"][0]["product"]]
    out, i = [], 0
    for v in VARIANTS["catalog"]:
        if v["product"] is None:
            v = {**v, "product": names[i]}
            i += 1
        out.append(v)
    return out


def check_catalog(app: object, task: dict, answer: object) -> tuple[bool, str]:
    """``CatalogApp.check`` for any product: its price and stock saved, 'Save and continue'
    used, the answer the saved price; the other fields as they were."""
    p = next(q for q in getattr(app, "products") if q["name"] == task["product"])
    orig = getattr(app, "original")[p["id"]]
    problems = []
    if p["price"] != task["price"]:
        problems.append(f"price {p['price']}")
    if str(p["stock"]) != task["stock"]:
        problems.append(f"stock {p['stock']}")
    for key in ("name", "category", "status", "description", "reorder", "slug"):
        if p[key] != orig[key]:
            problems.append(f"{key} changed to {p[key]!r}")
    if (p["id"], "_continue") not in getattr(app, "saves"):
        problems.append("not saved with 'Save and continue editing'")
    if str(answer).strip() != task["price"]:
        problems.append(f"reported price {answer!r}")
    return not problems, "; ".join(problems) or "ok"
