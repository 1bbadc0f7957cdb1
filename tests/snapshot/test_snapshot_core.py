"""Snapshot core: compaction rules, Cython == pure-Python twin, idempotence (no browser)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ego_browser.snapshot import twin
from ego_browser.snapshot.engine import truncate

try:
    from ego_browser import _snapshot as cy
except ImportError:  # pragma: no cover - extension not built
    cy = None

CORES = [twin] + ([cy] if cy is not None else [])
ROLES = ["root", "text", "container", "button", "link", "textbox", "img", "canvas", "svg", "iframe", "cell",
         "listitem", "heading", "row", "table", "list", "checkbox", "option", "paragraph"]
STATES = st.sampled_from(["", "", "", "[checked]", "[level=2]", "[checked=mixed] [disabled]", "[selected]",
                          "[collapsed] [required] [invalid] [readonly] [focused]"])
VALUES = st.sampled_from(["", "", "typed text", "a: b ] c", "x…"])
TEXTS = st.sampled_from(["", " ", "\u00a0", "\u200b", "\u200b \u200d", "hello", "a  b", 'say "hi"', "back\\slash",
                         "multi\nline\ttext", " lead", "trail ", "ünï cödé", "\u2028x", "\x1f", "Ω\u00a0Ω"])


@st.composite
def trees(draw, max_nodes=60):
    n = draw(st.integers(min_value=1, max_value=max_nodes))
    depth = [0]
    role = ["root"]
    for _ in range(n - 1):
        d = draw(st.integers(min_value=1, max_value=depth[-1] + 1))
        depth.append(d)
        role.append(draw(st.sampled_from(ROLES[1:])))
    name = [draw(TEXTS) if r in ("text", "container", "button", "link", "cell") else draw(st.sampled_from(["", "N"]))
            for r in role]
    flags = [draw(st.sampled_from([0, 0, 1])) if r not in ("text",) else 0 for r in role]
    key = [("f", "l", i) if flags[i] else None for i in range(n)]
    url = [draw(st.sampled_from(["", "http://x/y"])) if r == "link" else "" for r in role]
    loc = [draw(st.sampled_from(["", "css:#a", 'role:button[name="N"]'])) if flags[i] else "" for i, r in enumerate(role)]
    # the walker gives no state or value to an unnamed ref-less container (nothing would show it)
    state = [draw(STATES) if r not in ("text", "root") and (r != "container" or flags[i]) else ""
             for i, r in enumerate(role)]
    value = [draw(VALUES) if r in ("textbox", "cell") else "" for r in role]
    return depth, role, name, flags, key, url, loc, state, value


def render(core, t, refs=None, start=1, marks=True, locs=True):
    refs = {} if refs is None else refs
    return core.render_tree(*t, refs, start, marks, locs)


@pytest.mark.skipif(cy is None, reason="Cython extension not built")
@settings(max_examples=400, deadline=None)
@given(trees())
def test_cython_equals_twin(t):
    r1, r2 = {}, {}
    assert cy.render_tree(*t, r1, 7, True, True) == twin.render_tree(*t, r2, 7, True, True)
    assert r1 == r2
    assert cy.render_tree(*t, {}, 1, False, False) == twin.render_tree(*t, {}, 1, False, False)


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.__name__)
@settings(max_examples=300, deadline=None)
@given(t=trees())
def test_second_pass_changes_nothing(core, t):
    text, _, shown = render(core, t)
    again = twin.parse_snapshot(text)
    refs = again[9]
    text2, _, shown2 = core.render_tree(*again[:9], refs, 10**6, True, True)
    assert text2 == text
    assert shown2 == shown


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.__name__)
def test_compaction_rules(core):
    #        depth role         name     flags
    rows = [
        (0, "root", "", 0),
        (1, "container", "", 0),      # wrapper with one child -> replaced by the child
        (2, "container", "", 0),
        (3, "heading", "Title", 0),
        (1, "text", "  \u00a0 ", 0),  # whitespace/NBSP only -> dropped
        (1, "text", "\u200b\u200d", 0),  # zero-width only -> dropped
        (1, "container", "", 0),      # empty after compaction -> dropped
        (2, "text", " ", 0),
        (1, "container", "", 0),      # two children: kept (grouping)
        (2, "text", "one", 0),
        (2, "text", "two", 0),
        (1, "container", "", 0),      # second group stays distinct
        (2, "text", "three", 0),
        (2, "text", "four", 0),
        (1, "cell", "", 0),           # semantic, kept even when empty
        (1, "img", "", 0),
        (1, "svg", "", 0),
        (1, "canvas", "", 0),
        (1, "container", "", 1),      # ref-bearing container kept
        (1, "container", "Named", 0),  # named container kept
        (1, "text", '  a  "q"  \\ ', 0),
    ]
    t = (
        [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
        [("k", i) if r[3] else None for i, r in enumerate(rows)], [""] * len(rows), [""] * len(rows),
        [""] * len(rows), [""] * len(rows),
    )
    text, nxt, shown = render(core, t)
    assert text == "\n".join([
        "root",
        ' heading "Title"',
        " container",
        '  "one"',
        '  "two"',
        " container",
        '  "three"',
        '  "four"',
        " cell",
        " img",
        " svg",
        " canvas",
        " container [ref=1]",
        ' container "Named"',
        ' "a \\"q\\" \\\\"',
    ])
    assert nxt == 2 and shown == [1]


def _table(rows):
    """(depth, role, name, flags, state, value) rows -> a node table."""
    return (
        [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
        [("k", i) if r[3] else None for i, r in enumerate(rows)], [""] * len(rows), [""] * len(rows),
        [r[4] for r in rows], [r[5] for r in rows],
    )


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.__name__)
def test_lone_cells_and_list_items_print_their_child_in_place(core):
    t = _table([
        (0, "root", "", 0, "", ""),
        (1, "table", "", 0, "", ""),
        (2, "row", "", 0, "", ""),
        (3, "cell", "", 0, "", ""),        # one link: the link takes the cell's place
        (4, "link", "Item", 1, "", ""),
        (3, "cell", "Text", 0, "", ""),    # named: kept
        (3, "cell", "", 0, "", ""),        # empty: kept (the column is still there)
        (3, "cell", "", 0, "", ""),        # two children: kept
        (4, "button", "A", 1, "", ""),
        (4, "button", "B", 1, "", ""),
        (3, "cell", "", 0, "[selected]", ""),  # has a state: kept
        (4, "text", "x", 0, "", ""),
        (1, "list", "", 0, "", ""),
        (2, "listitem", "", 0, "", ""),
        (3, "link", "Home", 1, "", ""),
        (1, "cell", "", 0, "", ""),        # not in a row: kept
        (2, "text", "stray", 0, "", ""),
    ])
    text, _, _ = render(core, t)
    assert text == "\n".join([
        "root", " table", "  row", '   link "Item" [ref=1]', '   cell "Text"', "   cell", "   cell",
        '    button "A" [ref=2]', '    button "B" [ref=3]', "   cell [selected]", '    "x"',
        " list", '  link "Home" [ref=4]', " cell", '  "stray"',
    ])


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.__name__)
def test_a_bare_paragraph_of_one_node_prints_that_node_in_place(core):
    """A paragraph of one text was two lines (``paragraph``, then the text): 4% of a Debian docs
    page's bytes. Its text (or its one link) takes its place; a paragraph of several nodes, or with
    a ref or a state of its own, stays."""
    t = _table([
        (0, "root", "", 0, "", ""),
        (1, "paragraph", "", 0, "", ""),   # one text: the text line alone
        (2, "text", "Run a command.", 0, "", ""),
        (1, "paragraph", "", 0, "", ""),   # several nodes: kept
        (2, "text", "Part of the", 0, "", ""),
        (2, "link", "git(1)", 1, "", ""),
        (1, "paragraph", "", 1, "", ""),   # a ref of its own: kept
        (2, "text", "Click me", 0, "", ""),
        (1, "list", "", 0, "", ""),
        (2, "paragraph", "", 0, "", ""),   # in a list: the listitem rule sees through it
        (3, "listitem", "", 0, "", ""),
        (4, "link", "Home", 1, "", ""),
        (1, "paragraph", "", 0, "", ""),   # blank text only: an empty paragraph line, as before
        (2, "text", " ", 0, "", ""),
    ])
    text, _, _ = render(core, t)
    assert text == "\n".join([
        "root", ' "Run a command."', " paragraph", '  "Part of the"', '  link "git(1)" [ref=1]',
        " paragraph [ref=2]", '  "Click me"', " list", '  link "Home" [ref=3]', " paragraph",
    ])
    again, _, _ = render(core, twin.parse_snapshot(text)[:9], refs=twin.parse_snapshot(text)[9])
    assert again == text


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.__name__)
def test_state_marks_and_value_placement(core):
    t = _table([
        (0, "root", "", 0, "", ""),
        (1, "heading", "Top", 0, "[level=1]", ""),
        (1, "checkbox", "Remember me", 1, "[checked] [disabled]", ""),
        (1, "textbox", "Email", 1, "[focused]", "a@b.c"),
        (1, "combobox", "Sort", 1, "[collapsed]", "Newest"),
        (2, "option", "Newest", 0, "[selected]", ""),
    ])
    text, _, _ = render(core, t)
    assert text == "\n".join([
        "root", ' heading "Top" [level=1]', ' checkbox "Remember me" [checked] [disabled] [ref=1]',
        ' textbox "Email" [focused] [ref=2]: a@b.c', ' combobox "Sort" [collapsed] [ref=3]: Newest',
        '  option "Newest" [selected]',
    ])
    text, _, _ = render(core, t, marks=False)
    assert ' textbox "Email" [focused]: a@b.c' in text.split("\n")


@pytest.mark.parametrize("core", CORES, ids=lambda c: c.__name__)
def test_refs_keep_numbers_and_metadata_order(core):
    t = ([0, 1, 1], ["root", "link", "button"], ["", "Terms", "Go"], [0, 1, 1], [None, "a", "b"],
         ["", "https://x/terms", ""], ["", "href:/terms", ""], ["", "", ""], ["", "", ""])
    refs = {"b": 4}
    text, nxt, shown = render(core, t, refs, start=5)
    assert text == 'root\n link "Terms" [ref=5, loc=href:/terms, url=https://x/terms]\n button "Go" [ref=4]'
    assert (nxt, shown, refs) == (6, [5, 4], {"b": 4, "a": 5})
    text, _, _ = render(core, t, refs, start=6, marks=False, locs=False)
    assert text == 'root\n link "Terms" [url=https://x/terms]\n button "Go"'


def test_truncate_cuts_at_line_boundary():
    text = "\n".join(f"line {i} " + "x" * 20 for i in range(100))
    out = truncate(text, 500)
    assert len(out) <= 500
    body, note = out.rsplit("\n", 1)
    assert text.startswith(body + "\n")
    cut = len(text) - len(body)
    assert f"cut {cut} chars" in note and "lines" in note
    assert truncate(text, None) == text and truncate(text, len(text)) == text


# -- modes (snapshot/modes.py) -------------------------------------------------------------------


def test_interactive_table_keeps_actions_and_what_locates_them():
    from ego_browser.snapshot.modes import interactive_table

    t = _table([
        (0, "root", "", 0, "", ""),
        (1, "container", "", 0, "", ""),
        (2, "heading", "Orders", 0, "[level=1]", ""),
        (2, "paragraph", "", 0, "", ""),
        (3, "text", "prose nobody acts on", 0, "", ""),
        (2, "form", "Search", 0, "", ""),
        (3, "container", "", 0, "", ""),
        (4, "textbox", "Query", 1, "", "kettle"),
        (2, "table", "", 0, "", ""),
        (3, "row", "", 0, "", ""),
        (4, "cell", "Order 17", 0, "", ""),
        (4, "cell", "", 0, "", ""),
        (5, "button", "Cancel", 1, "", ""),
        (3, "row", "", 0, "", ""),      # no action in it: gone with its cells
        (4, "cell", "Total", 0, "", ""),
        (2, "list", "", 0, "", ""),      # nothing to act on: gone
        (3, "listitem", "", 0, "", ""),
        (4, "text", "x", 0, "", ""),
    ])
    text, _, _ = render(twin, interactive_table(*t))
    assert text == "\n".join([
        "root", ' heading "Orders" [level=1]', ' form "Search"', '  textbox "Query" [ref=1]: kettle', " table",
        "  row", '   cell "Order 17"', '   button "Cancel" [ref=2]',
    ])


def test_diff_lines_marks_pairs_and_context():
    from ego_browser.snapshot.modes import diff_lines

    old = ["root", " main", "  form", '   textbox "Email" [ref=3]', '   checkbox "Agree" [ref=4]', "  list",
           '   text "a"', '   text "b"', " footer", '  text "end"']
    new = ["root", " main", "  form", '   textbox "Email" [ref=3]: x@y.z', '   checkbox "Agree" [ref=4]', "  list",
           '   text "a"', '   text "c"', " footer", '  text "end"']
    lines, counts = diff_lines(old, new)
    assert counts == {"added": 1, "removed": 1, "changed": 1}
    assert lines == ["  root", "   main", "    form", '~    textbox "Email" [ref=3]: x@y.z', "    list",
                     '-    text "b"', '+    text "c"']
    assert diff_lines(old, old) == ([], {"added": 0, "removed": 0, "changed": 0})
    # too much changed: no diff (the caller prints the whole snapshot)
    many = [f'text "{i}"' for i in range(5000)]
    assert diff_lines(many, [s + "!" for s in many]) is None


def test_interactive_nameless_refs_carry_the_text_left_out():
    """Issue 29 (6): a menu item whose label sits in child elements printed as a bare
    ``listitem [ref=N]``; it carries that text as its value. A kept descendant keeps its own
    text, an iframe does not carry its document, a node with a name or value carries nothing."""
    from ego_browser.snapshot.modes import interactive_table

    t = _table([
        (0, "root", "", 0, "", ""),
        (1, "list", "", 0, "", ""),
        (2, "listitem", "", 1, "", ""),
        (3, "container", "", 0, "", ""),
        (4, "text", " Rename ", 0, "", ""),
        (3, "text", "F2", 0, "", ""),
        (2, "listitem", "", 1, "", ""),
        (3, "text", "Open with", 0, "", ""),
        (3, "button", "More", 1, "", ""),
        (4, "text", "hidden by the button's line", 0, "", ""),
        (2, "listitem", "Named", 1, "", ""),
        (3, "text", "not carried", 0, "", ""),
        (2, "iframe", "", 1, "", ""),
        (3, "root", "", 0, "", ""),
        (4, "text", "frame text", 0, "", ""),
        (2, "listitem", "", 1, "", ""),
        (3, "text", "x" * 150, 0, "", ""),
    ])
    text, _, _ = render(twin, interactive_table(*t))
    assert text.split("\n") == [
        "root", " listitem [ref=1]: Rename F2", " listitem [ref=2]: Open with", '  button "More" [ref=3]',
        ' listitem "Named" [ref=4]', " iframe [ref=5]", " listitem [ref=6]: " + "x" * 99 + "\u2026",
    ]
