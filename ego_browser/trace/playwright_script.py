"""``trace export --as playwright``: a space's journal as a Playwright (Python, sync) script.

Each successful action becomes one Playwright call on the stable locator the journal computed
when it ran (``js/utility/journal_target.js``: test id, id, label, field name, role and name,
link address; never a ref). An action with no such locator uses the selector as given when
Playwright reads it the same way, else it is written as a comment saying why it is not
replayed. Values typed into password fields (``[password]``) and secrets (``[secret:NAME]``)
are read from environment variables. The script ends by checking the last page's URL, so
it is a test a developer can keep.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["playwright_script", "locator_code"]

_SIMPLE = {"page.click": "click", "page.dblclick": "dblclick", "page.hover": "hover", "page.tap": "tap",
           "page.check": "check", "page.uncheck": "uncheck"}
_ROLE = re.compile(r'^role=([\w-]+)\[name=(".*")\]$')


def _q(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def locator_code(target: dict[str, Any] | None, page: str = "page") -> str | None:
    """The Playwright locator expression for a journaled target; None if none is stable."""
    if not target:
        return None
    found = target.get("locator")
    if isinstance(found, str):
        kind, _, rest = found.partition("=")
        if kind == "data-testid":
            return f"{page}.get_by_test_id({_q(rest)})"
        if kind == "id":
            return f"{page}.locator({_q(f'[id={_q(rest)}]')})"
        if kind == "label":
            return f"{page}.get_by_label({_q(json.loads(rest))}, exact=True)"
        if kind == "css":
            return f"{page}.locator({_q(rest)})"
        if kind == "loc" and rest.startswith("href:"):
            return f"{page}.locator({_q(f'a[href={_q(rest[5:])}]')})"
        role = _ROLE.match(found)
        if role:
            return f"{page}.get_by_role({_q(role.group(1))}, name={_q(json.loads(role.group(2)))}, exact=True)"
    given = target.get("given")
    if isinstance(given, str) and given and not given.lstrip().startswith("@"):
        return f"{page}.locator({_q(given)})"  # ego_browser's selectors are Playwright's (css, text=, >> nth=)
    if target.get("role") and target.get("name"):
        return f"{page}.get_by_role({_q(target['role'])}, name={_q(target['name'])}, exact=True)"
    return None


def _value(value: Any) -> str:
    """A value as Python source: a masked password or secret becomes an environment variable."""
    if value == "[password]":
        return 'os.environ["EGO_REPLAY_PASSWORD"]'
    if isinstance(value, str):
        secret = re.fullmatch(r"\[secret:([A-Za-z0-9_]+)\]", value)
        if secret:
            return f"os.environ[{_q(secret.group(1))}]"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return _q(value) if isinstance(value, (str, int, float, bool)) or value is None else repr(value)


def _call(a: dict[str, Any], page: str) -> str | None:
    """One action as a line of Playwright; None if it has no Playwright equivalent here."""
    op, value = a["op"], a.get("value")
    loc = locator_code(a.get("target"), page)
    if op == "page.goto":
        return f"{page}.goto({_q(value)})"
    if op in ("page.reload", "page.go_back", "page.go_forward"):
        return f"{page}.{op.split('.')[1]}()"
    if op.startswith("keyboard."):
        fn = {"keyboard.type": "type", "keyboard.press": "press", "keyboard.insert_text": "insert_text"}[op]
        return f"{page}.keyboard.{fn}({_value(value)})"
    if loc is None:
        return None
    if op in _SIMPLE:
        return f"{loc}.{_SIMPLE[op]}()"
    if op == "page.fill":
        return f"{loc}.fill({_value(value)})"
    if op == "page.type":
        return f"{loc}.press_sequentially({_value(value)})"
    if op == "page.press":
        return f"{loc}.press({_value(value)})"
    if op == "page.select_option":
        return f"{loc}.select_option({_value(value)})"
    if op == "page.set_checked":
        return f"{loc}.set_checked({_value(bool(value))})"
    if op == "page.wait_for_selector":
        return f"{loc}.wait_for(state={_q(value or 'visible')})"
    return None


def _page_var(label: str, pages: dict[str, str], lines: list[str]) -> str:
    if label not in pages:
        var = "page" if not pages else f"page_{re.sub(r'[^A-Za-z0-9_]', '_', label)}"
        if pages:
            lines.append(f"    {var} = page.context.new_page()  # {label}")
        pages[label] = var
    return pages[label]


def playwright_script(journal: dict[str, Any], *, space_name: str | None = None) -> str:
    """The script for ``journal`` (``task.journal()``'s shape), every kept round in order."""
    lines: list[str] = []
    pages: dict[str, str] = {}
    last: tuple[str, str] | None = None
    rounds = journal.get("rounds") or []
    for r in rounds:
        lines.append(f"    # round {r['n']} ({r.get('status')})")
        actions = [a for a in r.get("actions") or []]
        for i, a in enumerate(actions):
            if a["op"] in ("page.accept_dialog", "page.dismiss_dialog", "page.snapshot"):
                continue  # a dialog's answer goes before the action that opened it; a look changes nothing
            if a["op"] == "task.set_status":
                lines.append(f"    # note: {str(a.get('value') or '')[:200]}".replace("\n", " ").rstrip())
                continue
            page = _page_var(str(a.get("page") or "p1"), pages, lines)
            if a.get("outcome") != "ok":
                lines.append(f"    # not replayed: {a['op']} failed when recorded ({a.get('error')})")
                continue
            nxt = actions[i + 1] if i + 1 < len(actions) else None
            if a.get("dialog") and nxt is not None and nxt["op"] in ("page.accept_dialog", "page.dismiss_dialog"):
                how = (f"d.accept({_value(nxt.get('value'))})" if nxt["op"] == "page.accept_dialog" and nxt.get("value")
                       else "d.accept()" if nxt["op"] == "page.accept_dialog" else "d.dismiss()")
                lines.append(f'    {page}.once("dialog", lambda d: {how})')
            code = _call(a, page)
            if code is None:
                lines.append(f"    # not replayed: {a['op']} on {_q((a.get('target') or {}).get('given'))}: "
                             "no stable locator or no Playwright equivalent")
                continue
            lines.append(f"    {code}")
            if a.get("url_after"):
                last = (page, str(a["url_after"]))
    if last is not None:
        lines.append(f"    {last[0]}.wait_for_load_state()")
        lines.append(f"    expect({last[0]}).to_have_url({_q(last[1])})")
    if not lines:
        lines.append("    pass")
    title = f"space {journal.get('space_id')}" + (f" ({space_name})" if space_name else "")
    numbers = [r["n"] for r in rounds]
    span = f"rounds {numbers[0]}-{numbers[-1]}" if numbers else "no rounds"
    return _TEMPLATE.format(title=title, span=span, body="\n".join(lines))


_TEMPLATE = '''"""Replays {title}, {span}: exported by `ego-browser trace export --as playwright`.

Run: python THIS_FILE [--executable /usr/bin/chromium] [--headed] [--browser-arg=--no-sandbox ...]
Passwords typed when it was recorded are read from EGO_REPLAY_PASSWORD; secrets from their names.
"""

import argparse
import os

from playwright.sync_api import Page, expect, sync_playwright


def replay(page: Page) -> None:
{body}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--executable", help="a Chromium to run (default: Playwright's own)")
    parser.add_argument("--headed", action="store_true")
    parser.add_argument("--browser-arg", action="append", default=[], help="a command-line switch for Chromium")
    args = parser.parse_args()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.executable, headless=not args.headed,
                                     args=args.browser_arg)
        try:
            replay(browser.new_context().new_page())
        finally:
            browser.close()


if __name__ == "__main__":
    main()
'''
