"""Unit and property tests of the selector parser (API.md §9)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ego_browser.errors import InvalidSelector
from ego_browser.selectors.parse import (
    CssComplex,
    ParsedSelector,
    RefSelector,
    TextFilter,
    css_unescape_string,
    normalize_whitespace,
    parse_selector,
)


def p(s: str):
    return parse_selector(s)


def invalid(s: str) -> InvalidSelector:
    with pytest.raises(InvalidSelector) as info:
        parse_selector(s)
    err = info.value
    assert err.code == "EGO_INVALID_SELECTOR"
    assert err.selector == s
    assert err.detail
    return err


# ---------------------------------------------------------------------------------- refs


@pytest.mark.parametrize("s,ref", [("@21", 21), ("ref=21", 21), ("21", 21), (" @7 ", 7), ("ref = 3", 3), ("0", 0)])
def test_refs(s: str, ref: int) -> None:
    r = p(s)
    assert isinstance(r, RefSelector)
    assert r.ref == ref and r.source == s


def test_bracket_ref_is_css() -> None:
    r = p("[ref=21]")
    assert isinstance(r, ParsedSelector) and r.kind == "css"
    assert r.css == (CssComplex(("[ref=21]",), ()),)


@pytest.mark.parametrize("s", ["@abc", "@", "@21x", "ref=abc", "ref=", "@21 >> nth=0", "21 >> nth=1", "ref=2 >> nth=0"])
def test_bad_refs(s: str) -> None:
    invalid(s)


# ---------------------------------------------------------------------------------- text


def test_text_unquoted() -> None:
    r = p("text=save changes")
    assert (r.kind, r.text, r.exact) == ("text", "save changes", False)


def test_text_space_after_equals_is_unquoted() -> None:
    r = p('text= "x"')
    assert (r.kind, r.text, r.exact) == ("text", ' "x"', False)


@pytest.mark.parametrize(
    "s,text",
    [
        ('text="Exact"', "Exact"),
        ("text='Exact'", "Exact"),
        ('"Exact"', "Exact"),
        ("'Exact'", "Exact"),
        ('text="a \\"b\\""', 'a "b"'),
        ("text='can\\'t'", "can't"),
        ('text="back\\\\slash"', "back\\slash"),
        ('text=""', ""),
    ],
)
def test_text_quoted(s: str, text: str) -> None:
    r = p(s)
    assert (r.kind, r.text, r.exact) == ("text", text, True)


@pytest.mark.parametrize("s", ["text=", "text=   "])
def test_text_invalid(s: str) -> None:
    invalid(s)


def test_text_with_lone_slash_is_text() -> None:
    assert p("text=/x").text == "/x"


def test_quoted_text_protects_chain_operator() -> None:
    r = p('text="a >> b"')
    assert r.text == "a >> b" and r.nth is None
    r = p('text="a >> b" >> nth=1')
    assert r.text == "a >> b" and r.nth == 1


# ---------------------------------------------------------------------------------- nth


@pytest.mark.parametrize("s,nth", [(".a >> nth=0", 0), (".a >> nth=-1", -1), (".a>>nth=3", 3), ("text=x >> nth = 2", 2)])
def test_nth(s: str, nth: int) -> None:
    assert p(s).nth == nth


@pytest.mark.parametrize(
    "s",
    [".a >> nth=-2", ".a >> nth=x", ".a >> nth=", "nth=1", ">> nth=1", ".a >> nth=1.5", ".a >> ", "@3 >> .a",
     ".a >> @3", ".a >> >> .b", "visible=true >> .a"],
)
def test_nth_invalid(s: str) -> None:
    invalid(s)


# ---------------------------------------------------------------------------------- engines


@pytest.mark.parametrize("s", ["css:light=a", "foo=bar", "*css=a", "internal:text=x"])
def test_unknown_engines(s: str) -> None:
    err = invalid(s)
    assert "engine" in err.detail


@pytest.mark.parametrize("s", ["//a", "(//a)[1]", "xpath=//b", "..", "xpath= //b"])
def test_xpath(s: str) -> None:
    r = p(s)
    assert r.kind == "xpath" and r.xpath


def test_css_prefixes() -> None:
    assert p("css=#id").css == p("#id").css == p("loc=css:#id").css
    assert p("a[href=x]").kind == "css"
    assert p("input:not([x=y])").kind == "css"


# ---------------------------------------------------------------------------------- locators


def test_role() -> None:
    r = p("loc=role:button")
    assert (r.kind, r.role, r.name, r.name_op) == ("role", "button", None, None)
    r = p('loc=role:button[name="Save"]')
    assert (r.role, r.name, r.name_op) == ("button", "Save", "=")
    r = p("loc=role:Link[name*='x \\' y']")
    assert (r.role, r.name, r.name_op) == ("link", "x ' y", "*=")
    r = p('loc=role:button[name="Save"] >> nth=-1')
    assert r.nth == -1


@pytest.mark.parametrize(
    "s",
    ["loc=role:button[pressed=true]", 'loc=role:button[name^="x"]', "loc=role:button[name=x]",
     'loc=role:button[name="x" i]', "loc=role:", "loc=role:[name='x']", 'loc=role:button[name="x"', "loc=foo:x",
     "loc=nothing", "loc=href:", "loc=css:", 'loc=role:button[level="1"]'],
)
def test_locator_invalid(s: str) -> None:
    invalid(s)


def test_href() -> None:
    r = p("loc=href:/terms")
    assert (r.kind, r.href) == ("href", "/terms")
    assert p("loc=href:https://x.test/a?b=1#c >> nth=0").href == "https://x.test/a?b=1#c"


# ---------------------------------------------------------------------------------- CSS


def test_compounds_and_combinators() -> None:
    (cx,) = p("div.a  >  span ~ b + i em").css
    assert cx.compounds == ("div.a", "span", "b", "i", "em")
    assert cx.combinators == (">", "~", "+", " ")
    assert cx.full == "div.a > span ~ b + i em"


def test_selector_list() -> None:
    r = p("button, a.x , li")
    assert [cx.compounds for cx in r.css] == [("button",), ("a.x",), ("li",)]


def test_parens_brackets_strings_escapes_are_opaque() -> None:
    (cx,) = p('div:is(.a > .b, .c) [data-x="a > b, c"] .x\\31 23 a\\ b').css
    assert cx.compounds == ("div:is(.a > .b, .c)", '[data-x="a > b, c"]', ".x\\31 23", "a\\ b")


def test_text_filters() -> None:
    (cx,) = p('button:has-text("save changes")').css
    assert cx.compounds == ("button",) and cx.filters == (TextFilter("has", "save changes"),)
    (cx,) = p(":text-is('')").css
    assert cx.compounds == ("*",) and cx.filters == (TextFilter("is", ""),)
    (cx,) = p('div > .a:has-text("x"):text-is("y")').css
    assert cx.compounds == ("div", ".a") and [f.kind for f in cx.filters] == ["has", "is"]


@pytest.mark.parametrize(
    "s,text",
    [(':text-is("can\\\'t")', "can't"), (':text-is("\\41 B")', "AB"), (':has-text("\\000041")', "A"),
     (":has-text('a\\\"b')", 'a"b'), (':has-text("x\\\ny")', "xy")],
)
def test_filter_escapes(s: str, text: str) -> None:
    assert p(s).css[0].filters[0].text == text


def test_pseudo_filters_in_any_compound() -> None:
    (cx,) = p('a:has-text("x") b').css
    assert cx.compounds == ("a", "b") and cx.compound_filters == ((TextFilter("has", "x"),), ())
    assert cx.general and not cx.filters
    (cx,) = p('a:has-text("x").b').css
    assert cx.compounds == ("a.b",) and cx.filters == (TextFilter("has", "x"),)
    a, b = p('button, a:text("Docs")').css
    assert not a.filters and b.filters == (TextFilter("text", "Docs"),)
    # a CSS string: a regex backslash is doubled (as in Playwright)
    (cx,) = p(r'li:text-matches("\\d+ books?", "i"):visible').css
    assert cx.filters == (TextFilter("matches", r"\d+ books?", "i"), TextFilter("visible"))


def test_has_is_playwrights_relative_selector() -> None:
    (cx,) = p("section:has(> a.x, b c)").css
    (f,) = cx.filters
    assert f.kind == "sel" and [i.lead for i in f.inner] == [">", None]
    assert f.inner[1].compounds == ("b", "c")
    # inside a native pseudo-class :has() stays native
    (cx,) = p("div:not(:has(a))").css
    assert cx.compounds == ("div:not(:has(a))",) and not cx.filters


def test_chains() -> None:
    r = p("div >> text=Save >> nth=1 >> role=button[name=\"Go\"] >> nth=-1")
    assert r.kind == "chain" and r.nth == -1
    assert [s.kind for s in r.steps] == ["css", "text", "nth", "role"]
    assert r.steps[2].nth == 1 and r.steps[3].name == "Go"
    assert p(".a >> .b").to_spec()["steps"][1]["k"] == "css"
    assert p("a >> visible=false").steps[1].visible is False


@pytest.mark.parametrize(
    "s,fields",
    [
        ('role=button[name="Save"]', {"role": "button", "name": "Save", "name_op": "=", "name_exact": True}),
        ('role=button[name="save" i]', {"name": "save", "name_exact": False}),
        ("role=button[name='a  b' s]", {"name": "a b", "name_exact": True}),
        ('role=link[name*="doc"]', {"name_op": "*=", "name_exact": True}),
        ("role=button[name=/^sa+ve$/i]", {"name": "^sa+ve$", "name_op": "re", "name_flags": "i"}),
        ("role=heading[level=2]", {"states": (("level", 2.0),)}),
        ("role=checkbox[checked]", {"states": (("checked", True),)}),
        ('role=checkbox[checked="mixed"]', {"states": (("checked", "mixed"),)}),
        ("role=button[disabled=false][pressed]", {"states": (("disabled", False), ("pressed", True))}),
        ("role=Button", {"role": "button"}),
        ("role=option[selected=true]", {"states": (("selected", True),)}),
        ("role=button[expanded=false]", {"states": (("expanded", False),)}),
    ],
)
def test_playwright_role(s: str, fields: dict) -> None:
    r = p(s)
    assert r.kind == "role"
    for k, v in fields.items():
        assert getattr(r, k) == v, (k, getattr(r, k))


@pytest.mark.parametrize(
    "s,fragment",
    [
        ("role=button[checked]", "only supported for roles"),
        ("role=checkbox[checked=maybe]", "must be one of"),
        ("role=heading[level=x]", "number"),
        ("role=button[foo]", "unknown attribute"),
        ("role=button[name]", "needs a value"),
        ("role=button[include-hidden]", "not supported"),
        ("role=[name=x]", "needs a role"),
        ('role=button[name="x"', "expected ']'"),
        ("role=button[name*=/x/]", "regular expression"),
        ("role=button[name=/(?<n>x)/]", "not supported here"),
    ],
)
def test_playwright_role_invalid(s: str, fragment: str) -> None:
    assert fragment in invalid(s).detail


def test_text_regex_and_attribute_engines() -> None:
    r = p("text=/\\d+ books?/i")
    assert r.kind == "text" and r.regex == ("\\d+ books?", "i")
    assert r.to_spec() == {"k": "text", "re": "\\d+ books?", "flags": "i"}
    assert p("id=main").css[0].compounds == ('[id="main"]',)
    assert p('data-testid=a"b').css[0].compounds == ('[data-testid="a\\"b"]',)


def test_lookalike_in_attribute_is_css() -> None:
    r = p('[data-value=":has-text("]')
    assert r.css[0].compounds == ('[data-value=":has-text("]',) and not r.css[0].filters
    r = p("[data-value=:has-text]")
    assert not r.css[0].filters


def test_scope_becomes_root() -> None:
    assert p(":scope > body").css[0].compounds == (":root", "body")


@pytest.mark.parametrize(
    "s,fragment",
    [
        ("#123", '[id="123"]'),
        ("div #1a", '[id="1a"]'),
        ("#-1", '[id="-1"]'),
        (':not(:has-text("x"))', "nested"),
        (":has()", "needs a selector"),
        ("a:visible(1)", "no argument"),
        ('a:text-matches("x", "i", "g")', "pattern"),
        ("a:has-text(x)", "quoted"),
        ('a:has-text("x", "y")', "one"),
        ("a:has-text", "quoted"),
        ("a:nth-match(1)", "Playwright-only"),
        ("a:near(b)", "Playwright-only"),
        ("> a", "combinator"),
        ("a >", "combinator"),
        ("a > > b", "combinator"),
        ("a,,b", "empty"),
        ("a,", "empty"),
        ("a:is(b", "unbalanced"),
        ("a)", "')'"),
        ("a[x", "'['"),
        ('a[x="y]', "unterminated"),
        ("a{}", "unsupported"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_css_invalid(s: str, fragment: str) -> None:
    err = invalid(s)
    assert fragment in err.detail


def test_non_string() -> None:
    with pytest.raises(InvalidSelector):
        parse_selector(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidSelector):
        parse_selector(12)  # type: ignore[arg-type]


def test_parsed_passthrough_and_cache() -> None:
    r = p(".a")
    assert parse_selector(r) is r
    assert p(".a") is r


def test_to_spec() -> None:
    spec = p('ul > li:has-text("x")').to_spec()
    assert spec == {"k": "css", "list": [{"full": "ul > li", "c": ["ul", "li"], "k": [">"], "f": [["has", "x"]]}]}
    assert p('text="a"').to_spec() == {"k": "text", "text": "a", "strict": True}
    assert p("//a").to_spec() == {"k": "xpath", "xpath": "//a"}
    assert p("loc=href:/x").to_spec() == {"k": "href", "href": "/x"}


# ---------------------------------------------------------------------------------- helpers


def test_normalize_whitespace() -> None:
    assert normalize_whitespace("  a \u00a0\n b\u200bc\u00ad  ") == "a bc"
    assert normalize_whitespace("\ufeffx\u3000y") == "x y"


def test_css_unescape() -> None:
    assert css_unescape_string("\\41 B") == "AB"
    assert css_unescape_string("\\0") == "\ufffd"
    assert css_unescape_string("\\d800 ") == "\ufffd"
    assert css_unescape_string("a\\") == "a"
    assert css_unescape_string("\\\\") == "\\"


# ---------------------------------------------------------------------------------- properties

_alphabet = st.sampled_from(list("ab@#.:[]()\"'\\>+~,= */-_0123456789\n\t") + ["text=", "css=", "loc=", "role:", "nth=",
                                                                           ">>", ":has-text(", ":text-is(", "xpath=",
                                                                           "//", "ref=", "href:", "css:", "\u00a0"])


@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.text(), st.lists(_alphabet, max_size=20).map("".join)))
def test_any_string_parses_or_raises_invalid_selector(s: str) -> None:
    try:
        r = parse_selector(s)
    except InvalidSelector as err:
        assert err.selector == s and isinstance(err.detail, str) and err.detail
        return
    assert isinstance(r, (ParsedSelector, RefSelector))
    if isinstance(r, ParsedSelector):
        r.to_spec()
        if r.kind == "css":
            for cx in r.css:
                assert cx.compounds and all(c.strip() for c in cx.compounds)
                assert len(cx.combinators) == len(cx.compounds) - 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30))
def test_quoted_text_roundtrip(text: str) -> None:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    r = parse_selector(f'text="{escaped}"')
    assert isinstance(r, ParsedSelector) and r.exact and r.text == text
