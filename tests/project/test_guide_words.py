"""The guide and help("snapshot") teach the snapshot's defaults in fewer words than before issue 30.

Counted at commit b36cbcc (the last before issue 30's lean looks), with ``str.split()``:
help("snapshot") 471 words; the guide's snapshot paragraphs ("The snapshot is the page as text"
up to "## Refs and loc=") 94 and that section's first paragraph 68.
"""

from __future__ import annotations

from ego_browser.schema.render import help_text
from ego_browser.schema.topics import GUIDE

HELP_BEFORE = 471
GUIDE_BEFORE = 94 + 68


def _guide_snapshot_words() -> int:
    looks = GUIDE[GUIDE.index("The snapshot is the page as text"):GUIDE.index("## Refs and loc=")]
    refs = GUIDE[GUIDE.index("## Refs and loc="):]
    refs = refs[:refs.index("```")]
    return len(looks.split()) + len(refs.split())


def test_help_snapshot_is_shorter_than_before_issue_30():
    assert len(help_text("snapshot").split()) < HELP_BEFORE


def test_the_guide_teaches_snapshots_in_fewer_words_than_before_issue_30():
    assert _guide_snapshot_words() < GUIDE_BEFORE
