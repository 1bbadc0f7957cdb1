"""Differential tests: our selector engine against Playwright (the oracle) on the same HTML.

Both browsers run once per module (see selector_cases.Oracle); each case compares the ordered
``data-eid`` lists of the matched elements.
"""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("playwright.async_api")
if not os.path.exists("/usr/bin/chromium"):  # pragma: no cover
    pytest.skip("needs /usr/bin/chromium", allow_module_level=True)

from tests.selector_cases import CASES, FIXTURES, Oracle  # noqa: E402

pytestmark = pytest.mark.peers


@pytest.fixture(scope="module")
def oracle():
    o = Oracle()
    try:
        yield o
    finally:
        o.close()


def test_case_count() -> None:
    assert len(CASES) >= 500  # issue 13: every form agents write, against Playwright
    assert len({c.id for c in CASES}) == len(CASES), "duplicate cases"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_playwright(oracle: Oracle, case) -> None:
    oracle.load(FIXTURES[case.fixture])
    theirs = oracle.theirs(case.theirs or case.ours)
    ours = oracle.ours(case.ours)
    assert ours == theirs, f"{case.ours!r}: ours {ours} != Playwright {theirs}"
    if case.n is not None:
        assert len(ours) == case.n
    if case.ours.startswith(("loc=role:", "role=")) or ">>" in case.ours:
        # the count path (no handles; for roles, an in-page count when every candidate is sure;
        # for chains, the page's count of the last step)
        assert oracle.ours_count(case.ours) == len(theirs), f"{case.ours!r}: count differs"


# ------------------------------------------------------------------------------ random DOMs

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WORDS = ["Save", "save", "SAVE", "changes", "Changes", "ok", "OK", "go", "Go on", "x"]
SPACES = [" ", "  ", "\n", "&nbsp;", "", "&#8203;", "\t "]
TAGS = ["div", "span", "p", "button", "a", "section", "li", "b", "label"]
SHADOW_OK = {"div", "span", "p", "section"}
CLASSES = ["a", "b", "c"]

texts = st.lists(st.tuples(st.sampled_from(SPACES), st.sampled_from(WORDS)), min_size=1, max_size=3).map(
    lambda parts: "".join(s + w for s, w in parts) + ("" if len(parts) % 2 else " ")
)


@st.composite
def element(draw, depth: int = 0) -> str:
    tag = draw(st.sampled_from(TAGS))
    classes = draw(st.lists(st.sampled_from(CLASSES), max_size=2, unique=True))
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    children: list[str] = []
    n = 0 if depth >= 3 else draw(st.integers(0, 3))
    for _ in range(n):
        kind = draw(st.sampled_from(["text", "el", "el", "comment", "input"]))
        if kind == "text":
            children.append(draw(texts))
        elif kind == "comment":
            children.append("<!-- c -->")
        elif kind == "input":
            children.append(f'<input type="{draw(st.sampled_from(["button", "submit", "text"]))}" value="{draw(texts)}">')
        else:
            children.append(draw(element(depth + 1)))
    if tag in SHADOW_OK and depth < 3 and draw(st.booleans()):
        inner = "".join(draw(st.lists(element(depth + 1), min_size=1, max_size=2)))
        mode = draw(st.sampled_from(["open", "open", "closed"]))
        children.insert(0, f'<template data-shadow="{mode}">{inner}</template>')
    return f"<{tag}{attrs}>{''.join(children)}</{tag}>"


def _compound(draw) -> str:
    tag = draw(st.sampled_from(["", "*"] + TAGS))
    cls = draw(st.sampled_from(["", ".a", ".b", ".c", ".a.b", ":first-child", ":not(.a)"]))
    return (tag + cls) or "*"


@st.composite
def selector(draw) -> str:
    kind = draw(st.sampled_from(["text", "exact", "css", "css", "hastext", "textis", "list", "xpath",
                                 "textre", "pseudo", "has", "chain", "chain"]))
    word = draw(st.sampled_from(WORDS + ["save changes", "go on", "ok go", "e c"]))
    word = draw(st.sampled_from([word, word.upper(), f"  {word} "]))
    if kind == "text":
        sel = f"text={word}"
    elif kind == "exact":
        sel = f'text="{word}"'
    elif kind in ("css", "hastext", "textis"):
        parts = [_compound(draw) for _ in range(draw(st.integers(1, 3)))]
        sel = parts[0]
        for p in parts[1:]:
            sel += draw(st.sampled_from([" ", " > ", " + ", " ~ "])) + p
        if kind == "hastext":
            sel += f':has-text("{word}")'
        elif kind == "textis":
            sel += f':text-is("{word}")'
    elif kind == "textre":
        sel = f"text=/{re.escape(word.strip()) or 'x'}/" + draw(st.sampled_from(["", "i"]))
    elif kind == "pseudo":
        sel = _compound(draw) + draw(st.sampled_from([f':text("{word}")', f':has-text("{word}")', ":visible"]))
        sel += draw(st.sampled_from(["", " " + _compound(draw), " > " + _compound(draw)]))
    elif kind == "has":
        sel = _compound(draw) + f":has({draw(st.sampled_from(['', '> ', '+ ', '~ ']))}{_compound(draw)})"
    elif kind == "chain":
        parts = [draw(st.sampled_from([_compound(draw), f"text={word}", f'text="{word.strip()}"', "xpath=.//span",
                                       "nth=0", "nth=-1", f':has-text("{word}")']))
                 for _ in range(draw(st.integers(2, 3)))]
        sel = _compound(draw) + "".join(" >> " + p for p in parts)
    elif kind == "list":
        sel = ", ".join(_compound(draw) for _ in range(draw(st.integers(2, 3))))
    else:
        sel = draw(st.sampled_from(["//div", "//span", "//*[@class='a']", "//li//b", "(//button)[1]"]))
    if draw(st.integers(0, 4)) == 0:
        sel += f" >> nth={draw(st.sampled_from([0, 1, 2, -1, 7]))}"
    return sel


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(body=st.lists(element(), min_size=1, max_size=4), selectors=st.lists(selector(), min_size=1, max_size=6))
def test_random_doms_match_playwright(oracle: Oracle, body: list[str], selectors: list[str]) -> None:
    html = "<head><title>t</title></head><body>" + "".join(body) + "</body>"
    oracle.load(html)
    for sel in selectors:
        theirs = oracle.theirs(sel)
        ours = oracle.ours(sel)
        assert ours == theirs, f"{sel!r} on {html}: ours {ours} != Playwright {theirs}"
        if os.environ.get("EGO_SEL_STATS"):
            print("STAT", len(ours), sel)
