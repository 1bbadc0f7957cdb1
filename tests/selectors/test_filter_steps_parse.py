"""The filter steps Locator.filter() compiles to (issue 34): has-text=, has-not-text=, has=,
has-not= parse into engine steps, and malformed ones are InvalidSelector naming the part."""

from __future__ import annotations

import pytest

from ego_browser.errors import InvalidSelector
from ego_browser.selectors.parse import parse_selector


def _last(selector: str) -> dict:
    return parse_selector(selector).to_spec()["steps"][-1]


def test_text_filters():
    assert _last('li >> has-text="Tea"i') == {"k": "filter", "not": False, "text": "Tea", "strict": False}
    assert _last('li >> has-text="Tea"') == {"k": "filter", "not": False, "text": "Tea", "strict": True}
    assert _last('li >> has-text="Tea"s')["strict"] is True
    assert _last("li >> has-not-text=/te+a/i") == {"k": "filter", "not": True, "re": "te+a", "flags": "i"}
    assert _last('li >> has-text="a \\"quoted\\" >> b"i')["text"] == 'a "quoted" >> b'
    assert _last("li >> has-text=plain words")["text"] == "plain words"


def test_has_filters_carry_the_inner_chain():
    step = _last('li >> has="role=button[name=\\"Buy\\"] >> nth=0"')
    assert step["k"] == "filter" and step["not"] is False
    assert [s["k"] for s in step["steps"]] == ["role", "nth"]
    step = _last('li >> has-not="span.x"')
    assert step["not"] is True and [s["k"] for s in step["steps"]] == ["css"]
    nested = _last('ul >> has="li >> has-text=\\"tea\\"i"')
    assert [s["k"] for s in nested["steps"]] == ["css", "filter"]


def test_and_or_run_from_the_root():
    step = _last('li >> or="role=link"')
    assert step["mode"] == "or" and [s["k"] for s in step["steps"]] == ["role"]
    assert _last('li >> and=".x >> nth=0"')["mode"] == "and"
    assert "mode" not in _last('li >> has="b"')


@pytest.mark.parametrize("selector, says", [
    ('has-text="x"i', "has-text= must follow a selector"),
    ('has="li"', "has= must follow a selector"),
    ('or="li"', "or= must follow a selector"),
    ("li >> has=li", "JSON-quoted selector"),
    ('li >> has="@3"', "not a ref"),
    ('li >> has=""', "empty selector"),
    ('li >> has-text="unterminated\\"i', "badly quoted"),
])
def test_bad_filters_are_invalid_selectors(selector, says):
    with pytest.raises(InvalidSelector) as info:
        parse_selector(selector)
    assert info.value.code == "EGO_INVALID_SELECTOR"
    assert says in str(info.value), str(info.value)
