"""Leaner looks on printed snapshots (issue 30): link targets, grep, deltas across documents.

The property tests hold the rule that no text and no control is lost: every line of the new
document is printed, or sits in a landmark collapsed to one line that the previous document
printed with the same text (refs aside).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ego_browser import InvalidArgument
from ego_browser.snapshot.looks import LANDMARKS, document_delta, grep_lines, lean_urls, summary

PAGE_A = """root
 banner
  link "Home" [ref=1]
  link "Sign out" [ref=2]
 navigation "Sidebar"
  link "Orders" [ref=3]
  link "Customers" [ref=4]
 main
  heading "Orders" [level=1]
  row
   link "#1001" [ref=5]
   button "Edit" [ref=6]
 contentinfo
  text "© Example"
"""

PAGE_B = """root
 banner
  link "Home" [ref=7]
  link "Sign out" [ref=8]
 navigation "Sidebar"
  link "Orders" [ref=9]
  link "Customers" [ref=10]
 main
  heading "Order #1001" [level=1]
  textbox "Note" [ref=11]
  button "Save" [ref=12]
 contentinfo
  text "© Example"
"""


def test_lean_urls_keep_a_target_only_where_the_name_does_not_tell_it():
    role = ["link", "link", "link", "link", "link", "link", "button"]
    name = ["Home", "Edit", "Edit", "", "Docs", "Mail us", "Go"]
    url = ["/home", "/o/1/edit", "/o/2/edit", "/icon", "https://docs.example/x", "mailto:a@b.c", ""]
    # another site: its host only (mailto: and the like: the scheme)
    assert lean_urls(role, name, url) == ["", "/o/1/edit", "/o/2/edit", "/icon", "docs.example", "mailto:", ""]
    assert lean_urls(["link", "link"], ["Edit", "Edit"], ["https://a.example/1", "https://b.example/1"]) == [
        "https://a.example/1", "https://b.example/1"]  # a shared name keeps the whole target
    # two links with the same name and the same target: the name says it
    assert lean_urls(["link", "link"], ["Next", "Next"], ["/p/2", "/p/2"]) == ["", ""]


def test_grep_prints_matches_under_what_locates_them():
    out = grep_lines(PAGE_B.strip(), "save")
    assert out.split("\n") == ["root", " main", '  heading "Order #1001" [level=1]', '  button "Save" [ref=12]',
                               "[grep save: 1 of 13 lines match]"]
    pattern = r'/^\s*link "(Orders|#\d+)"/'
    rx = grep_lines(PAGE_A.strip(), pattern)
    assert '  link "Orders" [ref=3]' in rx and '   link "#1001" [ref=5]' in rx and "   row" not in rx.split("\n")[0]
    assert 'heading "Orders"' in rx and rx.endswith(f"[grep {pattern}: 2 of 14 lines match]")
    # the ref itself is not searched: "ref" matches nothing, "1001" matches the link's name only
    assert grep_lines(PAGE_A.strip(), "ref").endswith("[grep ref: no line matches; 14 lines searched]")
    assert grep_lines(PAGE_A.strip(), "/SIGN/i").count("Sign out") == 1
    with pytest.raises(InvalidArgument, match="not a valid regular expression"):
        grep_lines(PAGE_A, "/(/")


def test_summary_counts_what_a_saved_look_holds():
    assert summary(PAGE_A.strip()) == f"14 lines, {len(PAGE_A.strip().encode())} B, 6 refs, 1 headings, 4 landmarks"


def test_a_new_document_collapses_the_landmarks_it_shares():
    text, n = document_delta(PAGE_A.strip(), PAGE_B.strip())
    assert n == 2
    lines = text.split("\n")
    assert ' banner = unchanged (3 lines, @7-@8 were @1-@2)' in lines
    assert ' navigation "Sidebar" = unchanged (3 lines, @9-@10 were @3-@4)' in lines
    # changed parts in full; a landmark of two lines or fewer prints as it is
    assert '  heading "Order #1001" [level=1]' in lines and '  button "Save" [ref=12]' in lines
    assert ' contentinfo' in lines and '  text "© Example"' in lines
    assert document_delta(PAGE_A.strip(), "root\n main\n  text \"x\"") is None
    # refs carried across the navigation (the same numbers): no "were"
    same = document_delta(PAGE_A.strip(), PAGE_A.strip().replace('"Orders" [level=1]', '"Other" [level=1]'))
    assert same is not None and ' banner = unchanged (3 lines, @1-@2)' in same[0].split("\n")


# -- property: nothing lost --------------------------------------------------------------------

_ROLES = ["link", "button", "text", "heading", "textbox", "list", "listitem"]
_NAMES = ["Home", "Orders", "Save", "x", "Ünï", "say \\\"hi\\\""]


@st.composite
def _documents(draw):
    """Two printed documents sharing some landmarks (refs renumbered or not)."""
    pool = []
    for _ in range(draw(st.integers(1, 4))):
        role = draw(st.sampled_from(sorted(LANDMARKS)))
        kids = draw(st.lists(st.tuples(st.sampled_from(_ROLES), st.sampled_from(_NAMES), st.integers(1, 2)),
                             min_size=0, max_size=4))
        pool.append((role, draw(st.sampled_from(["", ' "Side"'])), kids))

    def render(blocks, start):
        ref = start
        out = ["root"]
        for role, nm, kids in blocks:
            out.append(f" {role}{nm}")
            for r, name, d in kids:
                mark = ""
                if r in ("link", "button", "textbox"):
                    mark = f" [ref={ref}]"
                    ref += 1
                out.append(" " * (1 + d) + f'{r} "{name}"{mark}')
        return "\n".join(out)

    old = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
    new = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
    return render(old, 1), render(new, draw(st.sampled_from([1, 50])))


_COLLAPSED = re.compile(r"^( *)(.*) = unchanged \((\d+) lines")
_PLAIN = re.compile(r"(?<=\[)ref=\d+(?:, )?")


def _plain(line: str) -> str:
    return _PLAIN.sub("", line).replace(" []", "").strip()


@settings(max_examples=200, deadline=None)
@given(_documents())
def test_no_text_and_no_control_is_lost_across_documents(docs):
    old, new = docs
    found = document_delta(old, new)
    if found is None:
        return
    text, _ = found
    new_lines = new.split("\n")
    old_plain = [_plain(ln) for ln in old.split("\n")]
    pos = 0
    for line in text.split("\n"):
        m = _COLLAPSED.match(line)
        if m is None:
            assert line == new_lines[pos]
            pos += 1
            continue
        count = int(m.group(3))
        block = new_lines[pos: pos + count]
        assert _plain(block[0]) == m.group(2).strip()
        # the same lines, refs aside, were printed by the previous document
        plain = [_plain(x) for x in block]
        assert any(old_plain[i: i + count] == plain for i in range(len(old_plain)))
        refs = [int(r) for x in block for r in re.findall(r"\[ref=(\d+)", x)]
        if refs:
            assert f"@{min(refs)}" in line and (f"@{max(refs)}" in line)
        pos += count
    assert pos == len(new_lines)


def test_one_line_parser_for_grep_deltas_and_diffs():
    """grep, document deltas and changes=True read a printed tree with the same parser."""
    from ego_browser.snapshot import modes
    from ego_browser.snapshot.looks import line_parents

    assert modes.line_parents is line_parents
    lines = ["root", " main", '  "a"', "  list", '   "b"', ' "c"']
    assert line_parents(lines) == [-1, 0, 1, 1, 3, 0]
    assert line_parents([]) == []
