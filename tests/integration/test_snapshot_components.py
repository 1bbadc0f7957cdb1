"""Web components in the snapshot: controls in open shadow roots, slotted content, nested shadow
roots and display: contents hosts (a JupyterLab-like toolbar), nameless menu items and silent
separators; refs to them act on the right element; the fidelity oracle counts them.

Issue 29, findings 1 and 6 (``snapshot_pages.COMPONENTS``).
"""

from __future__ import annotations

import json
import re

from ego_browser.snapshot import RefLedger
from ego_browser.snapshot import fidelity
from ego_browser.snapshot.engine import settle
from ego_browser.snapshot.twin import parse_snapshot

from tests import snapshot_pages
from tests.integration.test_snapshot_browser import conn, open_page, page, site, snap  # noqa: F401 (fixtures)

TOOLBAR = ('button "New Folder"', 'button "Upload"', 'button "Save"', 'button "Run"', 'button "Restart"',
           'combobox "Cell type"', 'textbox "Filter files"', 'tab "Launcher"', 'tab "Untitled.ipynb"', 'button "Close all"')


def _ref(text: str, line_start: str) -> int:
    m = re.search(re.escape(line_start) + r"(?: \[[a-z]+(?:=[^\]]*)?\])* \[ref=(\d+)", text)
    assert m, (line_start, text)
    return int(m.group(1))


async def test_controls_in_web_components_show_with_refs_in_every_mode(page, site):
    await open_page(page, site.url("/components"))
    led = RefLedger("b")
    for kw in ({"scope": "full_page"}, {}, {"interactive": True}, {"scope": "full_page", "interactive": True}):
        text = await snap(page, led, **kw)
        for control in TOOLBAR:
            _ref(text, control)  # present, with a ref
        # the toolbar frames its controls (it used to print bare, nothing under it)
        lines = text.split("\n")
        at = next(i for i, ln in enumerate(lines) if ln.strip() == 'toolbar "file browser"')
        assert "New Folder" in lines[at + 1] or "New Folder" in lines[at + 2], (kw, text)


async def test_refs_of_shadow_controls_act_on_them(task, server):
    url = server.page("/h29a-components", snapshot_pages.COMPONENTS)
    p = task.page("p1")
    await p.goto(url)
    text = await p.snapshot()
    for label, said in (("Save", "did Save"), ("Run", "did Run"), ("Restart", "did Restart"),
                        ("New Folder", "did New Folder"), ("Close all", "did close all")):
        await p.click("@%d" % _ref(text, 'button "%s"' % label))
        assert await p.evaluate("document.getElementById('out').textContent") == said
    await p.select_option("@%d" % _ref(text, 'combobox "Cell type"'), "Markdown")
    assert await p.evaluate("document.getElementById('out').textContent") == "did type Markdown"
    assert 'combobox "Cell type" [collapsed]' in (after := await p.snapshot()) and ": Markdown" in after
    await p.fill("@%d" % _ref(text, 'textbox "Filter files"'), "ipynb")
    assert await p.evaluate("document.getElementById('out').textContent") == "did filter ipynb"
    # a selector reaches the same node: find() names it with the snapshot's ref
    found = await p.find('role=button[name="Restart"]')
    assert [f["ref"] for f in found] == ["@%d" % _ref(text, 'button "Restart"')], found
    await p.click("@%d" % _ref(text, 'tab "Untitled.ipynb"'))
    assert await p.evaluate("document.activeElement.textContent") == "Untitled.ipynb"


async def test_nameless_refs_carry_their_text_and_silent_separators_get_none(page, site):
    await open_page(page, site.url("/components"))
    text = await snap(page, RefLedger("b"), scope="full_page", interactive=True)
    menu = text.split('menu "Context"', 1)[1].split("\n")[1:]
    items = [re.sub(r"\[ref=\d+\]", "[ref]", ln.strip()) for ln in menu if ln.strip()]
    assert items == ["listitem [ref]: Open Enter", "listitem [ref]: Rename F2", "listitem [ref]: Theme"], text
    full = await snap(page, RefLedger("c"), scope="full_page")
    # the separators are still shown, without refs (nothing says what acting on them would do)
    assert "separator" in full
    assert len(re.findall(r"listitem \[ref=", full)) == 3, full


async def test_fidelity_oracle_counts_shadow_and_slotted_content(page, site):
    """The oracle's controls come from Chromium's AX tree as well as the DOM, open shadow roots
    and slots included: 7 native controls and 3 ARIA ones (two slotted tabs, a shadow button)."""
    await open_page(page, site.url("/components"))
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page")
    await settle(led)
    m = await fidelity.measure(page, led, text.split("\n", 1)[1])
    assert m["controls_total"] == 10 and m["controls_bound"] == 10, m["control_misses"]
    texts = await fidelity._visible_texts(page.frames()[0])
    for t in ("Upload", "Save", "Run", "Restart", "Launcher", "Close all"):
        assert t in texts
    assert m["text_found"] == m["text_total"], m["text_misses"]


# -- no text, no control lost: random component trees --------------------------------------------

# a node: text | [tag, kids] | ["host", contents, shadow kids (may hold "<slot>"), light kids]
_BUILD = r"""(spec) => {
  const mk = (n) => {
    if (typeof n === 'string') {
      if (n === '<slot>') return document.createElement('slot');
      return document.createTextNode(n);
    }
    if (n[0] === 'host') {
      const h = document.createElement('div');
      const r = h.attachShadow({mode: 'open'});
      if (n[1]) { const s = document.createElement('style'); s.textContent = ':host{display:contents}'; r.append(s); }
      for (const k of n[2]) r.append(mk(k));
      for (const k of n[3]) h.append(mk(k));
      return h;
    }
    const el = document.createElement(n[0]);
    if (n[0] === 'a') el.href = '/x';
    if (n[0] === 'li') el.tabIndex = -1;
    if (n[0] === 'i') el.style.display = 'contents';
    for (const k of n[1]) el.append(mk(k));
    return el;
  };
  document.body.replaceChildren(...spec.map(mk));
}"""

_WORDS = ["alpha", "Beta", "gamma delta", " ", "x", "Save", "Run it"]
_TAGS = ["div", "span", "button", "a", "li", "p", "b", "i"]


def _trees():
    from hypothesis import strategies as st

    leaf = st.one_of(st.sampled_from(_WORDS), st.just("<slot>"))
    return st.lists(st.recursive(
        leaf,
        lambda kids: st.one_of(
            st.tuples(st.sampled_from(_TAGS), st.lists(kids, max_size=3)).map(list),
            st.tuples(st.just("host"), st.booleans(), st.lists(kids, max_size=3), st.lists(kids, max_size=3)).map(list)),
        max_leaves=20), min_size=1, max_size=4)


def _given_trees():
    from hypothesis import HealthCheck, given, settings

    return lambda f: settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))(
        given(tree=_trees())(f))


def _example(tree):
    from hypothesis import example

    return example(tree=tree)


# a slot that is a light child of a host with no slot of its own shows nothing: the oracle counted
# the outer host's text as shown (found in a fresh-clone run; alpha has no box, innerText is empty)
@_example([["host", False, [["host", False, [], ["<slot>"]]], ["alpha"]]])
@_given_trees()
async def test_no_text_and_no_control_lost_in_component_trees(page, site, tree):
    """Slots, display: contents hosts, nested shadow roots: every text the page shows is printed
    and every control the oracle counts (DOM and AX tree) has a ref."""
    if not page.frames() or not (page.frames()[0].url or "").startswith(site.base):
        await open_page(page, site.url("/compact"))
    await page.evaluate(f"({_BUILD})({json.dumps(tree)})")
    await page.refresh()  # the page's own iframe is gone
    led = RefLedger("b")
    text = await snap(page, led, scope="full_page")
    await settle(led)
    m = await fidelity.measure(page, led, text.split("\n", 1)[1])
    assert m["text_found"] == m["text_total"], (m["text_misses"], tree, text)
    assert m["controls_bound"] == m["controls_total"], (m["control_misses"], tree, text)
    assert parse_snapshot(text.split("\n", 1)[1])
