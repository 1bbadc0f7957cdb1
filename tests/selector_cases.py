"""Hand-written differential cases for the selector engine, and the two-browser harness.

Each case loads one fixture page in Playwright (the oracle, on /usr/bin/chromium) and in a
Chromium driven by our Connection + engine, and compares the matched elements by the
``data-eid`` stamp SETUP_JS puts on every element (shadow content included). A case is
``Case(fixture, ours, theirs=None, n=None)``: ``theirs`` is the Playwright spelling when it
differs (role selectors, case-insensitive ``name*=``), ``n`` the expected match count when the
case should not be vacuous.

Shadow roots are declared with ``<template data-shadow="open|closed">`` inside the host;
SETUP_JS attaches them (nested too) in both browsers, so the two DOMs are identical.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

CHROMIUM = "/usr/bin/chromium"
PW_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

SETUP_JS = """() => {
  const attach = (root) => {
    for (const t of Array.from(root.querySelectorAll('template[data-shadow]'))) {
      const host = t.parentElement || (t.parentNode && t.parentNode.host);
      if (!host || host.shadowRoot) continue;
      let sr = null;
      try { sr = host.attachShadow({mode: t.getAttribute('data-shadow') || 'open'}); } catch (e) { sr = null; }
      t.remove();
      if (!sr) continue;  // the parser moved the template under an element without shadow support
      sr.appendChild(t.content.cloneNode(true));
      attach(sr);
    }
  };
  attach(document);
  let n = 0;
  const stamp = (root) => {
    for (const el of root.querySelectorAll('*')) {
      el.setAttribute('data-eid', String(n++));
      if (el.shadowRoot) stamp(el.shadowRoot);
    }
  };
  stamp(document);
  return n;
}"""

EID = "el => el.getAttribute('data-eid')"


@dataclass(frozen=True)
class Case:
    fixture: str
    ours: str
    theirs: str | None = None
    n: int | None = None

    @property
    def id(self) -> str:
        extra = f"|{self.theirs}" if self.theirs and self.theirs.startswith("pw:") else ""
        return f"{self.fixture}:{self.ours}{extra}"


HEAD = "<head><title>Title text here</title><style>.gone{display:none}</style></head>"

FIXTURES: dict[str, str] = {
    "text": HEAD + """<body>
<div id=t1>
  <button id=b1>Save   Changes</button>
  <button id=b2>save changes</button>
  <button id=b3>Save&nbsp;changes</button>
  <span id=zw>Sa&#8203;ve&#173;d</span>
  <span>  padded   text  </span>
  <p>Hello <b>World</b> again</p>
  <div class=outer>Outer <span>inner text</span> tail</div>
  <div class=split><span>split</span><span>word</span></div>
  <label>Label <input type=submit value="Submit me"></label>
  <input type=button value="  Button   value ">
  <input type=reset value="Reset it">
  <input type=text value="text value">
  <script>var scriptText = "hidden script";</script>
  <noscript>noscript words</noscript>
  <div class=comment>a<!-- comment -->b</div>
  <div class=br>Foo<br>Bar</div>
  <p>Mixed CASE words</p>
  <p class=quote>He said "hi" and 'bye'</p>
  <p class=gt>a >> b arrows</p>
  <p class=esc>back\\slash</p>
  <textarea>area text</textarea>
  <select><option>Option one</option><option>Option two</option></select>
  <div class=empty></div>
  <div class=ws>   </div>
  <div class=imm>first<span>mid</span>last</div>
  <div class=imm2>  Exact  action  </div>
  <div class=imm3>Exact action<span>child</span></div>
  <ul><li>Item <em>one</em></li><li>Item two</li><li>item THREE</li></ul>
</div>
</body>""",
    "shadow": HEAD + """<body>
<div id=outer class=host>
  <template data-shadow="open">
    <span class=inner>Shadow span</span>
    <button class=sbtn>Shadow button</button>
    <div class=host2>
      <template data-shadow="open"><button class=deep>Deep button</button><p class=dp>deep text here</p>
        <div class=host3><template data-shadow="open"><a href="/deepest" class=deepest>Deepest link</a></template></div>
      </template>
    </div>
    <slot></slot>
  </template>
  <span class=light>Light child</span>
</div>
<button class=lbtn>Light button</button>
<div id=closed><template data-shadow="closed"><button>Closed button</button></template></div>
<section id=sec><div id=h3 class=host><template data-shadow="open"><ul><li>one</li><li>two</li></ul><input aria-label="Shadow field"></template></div></section>
<p class=after>After all</p>
<div id=h4><template data-shadow="open"><span>action in shadow</span><button>Shadow ACTION</button></template>host light</div>
</body>""",
    "nth": HEAD + """<body>
<button class=dup style="display:none">Dup</button>
<button class=dup>Dup</button>
<button class=dup disabled>Dup</button>
<a href="/path" class=l1>first link</a>
<a href="/path#frag" class=l2>second link</a>
<a href="/other" class=l3>other link</a>
<a href="https://example.com/abs">absolute</a>
<a>no href</a>
<map name=m><area href="/path" alt="area link"></map>
<div id=h class=dup><template data-shadow="open"><button class=dup>Dup</button></template></div>
<p class=dup>Dup</p>
</body>""",
    "role": HEAD + """<body>
<button>Save</button>
<button>save</button>
<button>Save draft</button>
<button aria-label="Increment counter">+</button>
<div role=button>Div button</div>
<button style="display:none">Hidden save</button>
<button aria-hidden="true">Aria hidden</button>
<button style="visibility:hidden">Invisible</button>
<a href="/a">Link one</a>
<a href="/b">Link  two</a>
<a>Not a link</a>
<h1>Main heading</h1>
<h2>Sub heading</h2>
<label>Email <input id=email type=text></label>
<input aria-label="Search box" type=search>
<input type=checkbox id=cb><label for=cb>Accept terms</label>
<textarea aria-label="Notes"></textarea>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Logo image">
<ul><li>first item</li><li>second item</li></ul>
<div id=h><template data-shadow="open"><button>Shadow save</button><a href="/s">Shadow link</a></template></div>
<nav aria-label="Primary"><a href="/n">Nav link</a></nav>
<input type=submit value="Send form">
<button>Save <span>all</span></button>
<span id=ext>External label</span><button aria-labelledby=ext>ignored text</button>
<button><img alt="Picture save" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></button>
<style>.pseudo::before{content:"Before "}</style><button class=pseudo>pseudo</button>
<button title="Titled"></button>
<a href="/c" aria-label="Labelled link">x</a>
<div role="button" aria-label="Role labelled">y</div>
<span role="link button">multi role</span>
</body>""",
    # the in-page role classification (sure / surely other / unsure); where Playwright and
    # Chromium disagree (inert, SVG links, contenteditable, date inputs, modal dialogs) see
    # test_selectors_engine.py::test_role_classification_agrees_with_chromium
    "role_classify": HEAD + """<body>
<button>plain</button>
<button aria-pressed="true">pressed</button>
<button aria-haspopup="menu">popup</button>
<button disabled>disabled</button>
<button style="display:none">none</button>
<div style="display:none"><button>in none</button></div>
<button style="visibility:hidden">vis hidden</button>
<div style="visibility:hidden"><button style="visibility:visible">vis again</button></div>
<button style="opacity:0">transparent</button>
<button style="width:0;height:0;padding:0;border:0;overflow:hidden">zero</button>
<div aria-hidden="true"><button>aria hidden parent</button></div>
<div aria-hidden="false"><button>aria not hidden</button></div>
<button><span role=button>nested role</span></button>
<a href="/x"><button>button in link</button></a>
<div role=img><button>in img role</button></div>
<details><summary>sum</summary><button>closed details</button></details>
<details open><summary>sum2</summary><button>open details</button></details>
<div role=button>div btn</div>
<div role="BUTTON">upper role</div>
<div role="link button">link first</div>
<div role="foo button">invalid first</div>
<span role="none button">none first</span>
<button role=link>button as link</button>
<a href="/y" role=button>link as button</a>
<a role=button>anchor no href as button</a>
<input type=button value="in button">
<input type=submit value="in submit">
<input type=reset>
<input type=image alt="img input" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<input type=hidden value=h>
<input type=text aria-label="t1">
<input aria-label="t2">
<input type=email aria-label="t3">
<input type=password aria-label="pw">
<input type=foo aria-label="bad type">
<input type=text role=button aria-label="text as button">
<input type=search aria-label="s1">
<input type=search list=dl aria-label="s2"><datalist id=dl><option value=a></datalist>
<input type=text list=dl aria-label="t list">
<input type=text list=nope aria-label="t bad list">
<input type=number aria-label="n1">
<input type=range aria-label="r1">
<input type=checkbox aria-label="c1">
<input type=checkbox switch aria-label="sw1">
<input type=radio aria-label="rd1">
<textarea aria-label="ta"></textarea>
<select aria-label="sel1"><option>a</option></select>
<select multiple aria-label="sel2"><option>a</option></select>
<select size=3 aria-label="sel3"><option>a</option></select>
<h1>h one</h1><h3 style="display:none">h hidden</h3><h6>h six</h6>
<div role=heading aria-level=2>div heading</div>
<a href="/z">link z</a><a>no href</a><a href="">empty href</a>
<div role=tab>tab 1</div><div role=tablist><div role=tab>tab 2</div></div>
<div role=menuitem>lone menuitem</div>
<div role=switch aria-checked=false>div switch</div>
<div id=sh><template data-shadow="open"><button>shadow btn</button><slot></slot></template><button>slotted btn</button></div>
<div id=sh2><template data-shadow="open"><p>no slot</p></template><button>unslotted btn</button></div>
<my-el role=button>custom with role</my-el>
<table><tr><td><button>cell button</button></td></tr></table>
<label>Lbl <button>label button</button></label>
<fieldset disabled><button>fieldset button</button></fieldset>
</body>""",
    "css": HEAD + """<body>
<main id=main>
  <form id=f1 class="form primary">
    <input name=q type=text placeholder="Search">
    <input name=x type=hidden value=1>
    <input type=checkbox checked name=c1>
    <input type=radio name=r value=a><input type=radio name=r value=b checked>
    <button type=submit class="btn primary">Go</button>
    <button type=button class="btn" disabled>Off</button>
    <select name=s><option value=1>One</option><option value=2 selected>Two</option></select>
  </form>
  <table id=tbl>
    <thead><tr><th>Name</th><th>Qty</th></tr></thead>
    <tbody>
      <tr class=row><td>Apple</td><td>1</td></tr>
      <tr class="row odd"><td>Pear</td><td>2</td></tr>
      <tr class=row><td>Plum</td><td>3</td></tr>
    </tbody>
  </table>
  <ul class=list><li class=a>A</li><li class=b>B</li><li class="a b">AB</li><li>none</li></ul>
  <div data-value=":has-text(">weird attr</div>
  <div data-x="a b" data-y="1">attrs</div>
  <div id="123">numeric id</div>
  <div class="x:y">colon class</div>
  <p lang=en-US>english</p>
  <article><h2>Title</h2><p>para 1</p><p>para 2</p></article>
</main>
<div id=sh class=host><template data-shadow="open"><div class=row><span class=cell>shadow cell</span></div><p>shadow para</p></template></div>
<footer><p>foot</p></footer>
</body>""",
    "has": HEAD + """<body>
<div class=card id=c1><h3>First card</h3><p>Save changes here</p><button><span>Save</span> changes</button></div>
<div class=card id=c2><h3>Second card</h3><button>Cancel</button></div>
<section><div><div><span>deeply nested phrase</span></div></div></section>
<button id=only-label aria-label="Close"></button>
<button id=own>Save</button>
<button id=child><span>Save</span></button>
<p>can't stop</p>
<p>AB</p>
<div class=wrap>Docs <a href="/docs">Docs link</a></div>
</body>""",

    # issue 13: what agents write (role= with states, text regexes, pseudo filters anywhere,
    # :has() through shadow roots, chains between engines, tables without headers)
    "agent": HEAD + """<body>
<header><nav aria-label="Main"><a href="/home">Home</a><a href="/books">Books</a><a href="/cart" aria-current="page">Cart (3)</a></nav></header>
<main>
<h1>Store</h1>
<section class=results aria-label="Results">
  <h2>12 books found</h2>
  <article class=card data-testid=card-1><h3>Dune</h3><p class=price>$9.99</p><button>Add to cart</button><button aria-pressed="true">Saved</button></article>
  <article class=card data-testid=card-2><h3>Emma</h3><p class=price>$4.50</p><button disabled>Add to cart</button><button aria-pressed="false">Save</button></article>
  <article class=card data-testid=card-3 style="display:none"><h3>Hidden book</h3><button>Add to cart</button></article>
  <article class=card data-testid=card-4><h3>1 book left</h3><p class=price>$1</p><a href="/b4">Details</a></article>
</section>
<table id=plain><tr><td>Alpha</td><td>10</td></tr><tr><td>Beta</td><td>20</td></tr><tr><td>Gamma ray</td><td>30</td></tr></table>
<table id=data><caption>Totals</caption><thead><tr><th>Item</th><th>Sum</th></tr></thead><tbody><tr><td>Tea</td><td>3</td></tr><tr><td>Coffee</td><td>4</td></tr></tbody></table>
<form id=f aria-label="Checkout">
  <label>Email <input type=email name=email placeholder="you@example.com"></label>
  <label><input type=checkbox name=gift checked> Gift wrap</label>
  <label><input type=checkbox name=news> Newsletter</label>
  <input type=checkbox id=mix aria-label="Mixed box">
  <div role=checkbox aria-checked="mixed" aria-label="Aria mixed" tabindex=0></div>
  <label><input type=radio name=ship value=std checked> Standard</label>
  <label><input type=radio name=ship value=exp> Express</label>
  <select aria-label="Country"><option>France</option><option selected>Japan</option></select>
  <fieldset disabled><legend>Old</legend><button type=button>Legacy</button></fieldset>
  <button type=submit>Place order</button>
  <button type=button aria-expanded="false" aria-controls=more>More options</button>
  <button type=button aria-expanded="true">Less options</button>
  <div role=button aria-disabled="true">Aria off</div>
</form>
<div role=tablist><div role=tab aria-selected="true">First tab</div><div role=tab aria-selected="false">Second tab</div></div>
<ul class=todo><li>Buy milk</li><li>Read <b>Dune</b> again</li><li class=done>Call Bob</li><li><span>Nested item</span></li></ul>
<div role=heading aria-level=4>Aria four</div>
<div id=host><template data-shadow="open"><section class=inner><a href="/s1">Shadow link</a><button>Shadow add</button><p>Price $7</p></template></div>
<div id=invisible style="visibility:hidden"><button>Ghost</button></div>
<p class=count>Showing 3 of 12 items</p>
<p class=count>Showing 12 of 12 items</p>
<div data-test-id=legacy>Legacy test id</div><div data-test=older>Older test</div>
</main>
<footer><p>Contact: help@example.com</p></footer>
</body>""",
    # issue 29: a code editor's highlighted lines (text split over inline spans), links whose
    # text is split with no whitespace, a header cell in a row of data cells
    "spa": HEAD + """<body>
<pre id=c1><span class=k>print</span>(<span class=n>base</span> + x)</pre>
<div class=cm-line id=c2><span class=tok>print</span><span class=tok>(base + x)</span></div>
<div id=wrap><div id=c3><span>total</span> <b>due</b></div></div>
<p id=c4>Total: <b>5</b></p>
<button id=c5><span>Save</span> <span>changes</span></button>
<div id=c6>Save changes</div>
<ul><li><span>Run</span> <kbd>all</kbd></li><li>Run</li></ul>
<nav><a id=l1 href="#a"><b>Open</b><i>Report</i></a> <a id=l2 href="#b"><span>New</span><span>Folder</span></a>
<a id=l3 href="#c"><span>Up</span> <span>load</span></a> <a id=l4 href="#d">Down<em>load</em>s</a></nav>
<table id=t1><tr><th>Name</th><td>notes.txt</td></tr><tr><th>Size</th><td>4 KB</td></tr></table>
<table id=t2><tr><th>File</th><th>Kind</th></tr><tr><td>a.py</td><td>code</td></tr></table>
<table id=t3><tr><td>one</td><th>Head</th><td></td></tr><tr><td>x</td><td>y</td><td>z</td></tr></table>
<table id=t4><tr><td>id</td><th>Owner</th><th>Group</th></tr><tr><td>1</td><td>me</td><td>staff</td></tr></table>
<table id=t5><tr><th>Blank</th><td> </td></tr><tr><td>a</td><td>b</td></tr></table>
<table id=t6><tr><th>Solo</th></tr></table>
</body>""",
}


def _c(fixture: str, *rows: Any) -> list[Case]:
    out = []
    for row in rows:
        if isinstance(row, str):
            out.append(Case(fixture, row))
        else:
            out.append(Case(fixture, *row))
    return out


CASES: list[Case] = [
    # --- text=: unquoted (case-insensitive substring, smallest matches) ---------------------
    *_c(
        "text",
        ("text=save changes", None, 3),
        "text=SAVE CHANGES",
        "text=  save    changes  ",
        "text=Save changes",
        "text=save",
        ("text=saved", None, 1),
        "text=sa",
        "text=padded text",
        ("text=hello world", None, 1),
        "text=world",
        "text=world again",
        "text=inner text",
        "text=outer inner",
        "text=outer",
        "text=splitword",
        "text=split word",
        "text=submit me",
        "text=button value",
        "text=reset it",
        "text=text value",
        "text=hidden script",
        "text=noscript",
        "text=title text",
        "text=ab",
        "text=foobar",
        "text=mixed case",
        'text=said "hi"',
        "text=said 'hi'",
        'text= "hi"',
        "text=area text",
        "text=option one",
        "text=option",
        "text=item",
        "text=item one",
        "text=item three",
        "text=firstmid",
        "text=midlast",
        "text=exact action",
        ("text=nomatchatall", None, 0),
        "text=back\\slash",
        # --- text="...": quoted (case-sensitive, one immediate run) ------------------------
        ('text="Save Changes"', None, 1),
        'text="save changes"',
        'text="Save changes"',
        ('text="Saved"', None, 1),
        'text="Save"',
        'text="padded text"',
        'text="Hello"',
        # issue 29: exact text split over inline elements matches the smallest element whose
        # whole text it is (Playwright's getByText(exact=True)); its text= alone finds nothing
        ('text="Hello World again"', "pw:locator('text=\"Hello World again\"')"
                                     ".or_(page.get_by_text('Hello World again', exact=True))", 1),
        'text="World"',
        'text="again"',
        'text="Outer"',
        'text="tail"',
        'text="inner text"',
        'text="Submit me"',
        'text="Button value"',
        'text="ab"',
        'text="Foo"',
        'text="Bar"',
        'text="first"',
        'text="mid"',
        'text="last"',
        'text="Exact action"',
        'text="exact action"',
        'text="Item"',
        'text="Item two"',
        'text=""',
        "text='Item two'",
        "text='He said \"hi\" and \\'bye\\''",
        'text="He said \\"hi\\" and \'bye\'"',
        '"Item two"',
        "'Item two'",
        '"Exact action"',
        'text="a >> b arrows"',
        'text="back\\\\slash"',
        # --- :has-text / :text-is on this fixture -------------------------------------------
        'button:has-text("save changes")',
        'button:has-text("SAVE")',
        ':has-text("hello world")',
        'p:has-text("world")',
        'div:has-text("inner")',
        'li:has-text("item")',
        'li:text-is("Item")',
        'li:text-is("Item two")',
        'span:text-is("padded text")',
        'div:text-is("")',
        ':text-is("mid")',
        'div:text-is("first")',
        'div:text-is("last")',
        'input:has-text("submit")',
        'input:text-is("Submit me")',
        'select:has-text("option two")',
        'option:text-is("Option two")',
        'script:has-text("hidden")',
        'title:has-text("title")',
        'body:has-text("save changes")',
        'html:has-text("mixed")',
    ),
    # --- shadow DOM -----------------------------------------------------------------------------
    *_c(
        "shadow",
        ("button", None, 4),
        "span",
        "#outer button",
        "#outer > button",
        "#outer > .host2 > button",
        ".host2 button",
        "div button",
        "div > button",
        ".host button",
        "#outer span",
        "#outer > span",
        ".inner + button",
        ".inner ~ div",
        ".inner ~ div button",
        ".deep",
        ".deep + p",
        ".deepest",
        "a",
        "#outer a",
        ".host3 > a",
        "li",
        "section li",
        "section > div > ul > li",
        "ul > li:first-child",
        "li:nth-child(2)",
        "input",
        'input[aria-label="Shadow field"]',
        "p",
        "*",
        "div",
        "#closed button",
        "body > div",
        "body div button",
        ".light",
        "slot",
        ("text=button", None, 3),
        "text=shadow",
        "text=deep",
        "text=deepest link",
        'text="Deep button"',
        "text=closed",
        "text=light child",
        "text=one",
        "text=host light",
        "text=action",
        'button:has-text("shadow")',
        'div:has-text("deep text")',
        ':has-text("deepest")',
        '#h4:has-text("shadow ACTION")',
        'div:has-text("action in shadow")',
        '#outer:text-is("Light child")',
        'p:text-is("deep text here")',
        "button, a",
        "a, button",
        "p, li",
        "span, .deep, li",
        "div > button, section li",
        "button >> nth=0",
        "button >> nth=1",
        "button >> nth=3",
        "button >> nth=-1",
        "button >> nth=10",
        "text=button >> nth=2",
        "text=button >> nth=-1",
        "//button",
        "//div",
        "xpath=//*[@id='outer']/span",
        "xpath=//section//div",
    ),
    # --- nth, duplicates, href --------------------------------------------------------------
    *_c(
        "nth",
        (".dup", None, 6),
        ".dup >> nth=0",
        ".dup >> nth=1",
        ".dup >> nth=4",
        ".dup >> nth=5",
        ".dup >> nth=-1",
        "button.dup >> nth=-1",
        "text=dup",
        "text=dup >> nth=0",
        "text=dup >> nth=-1",
        "text=dup >> nth=2",
        'text="Dup" >> nth=1',
        "a >> nth=-1",
        "a >> nth=0",
        ("a[href] >> nth=100", None, 0),
        "//button >> nth=1",
        "xpath=//a >> nth=-1",
        "p >> nth=0",
        "p >> nth=-1",
        "area",
        "text=link",
    ),
    # --- role: ours loc=role:, Playwright role= -----------------------------------------------
    *_c(
        "role",
        ("loc=role:button", "role=button", 13),
        ('loc=role:button[name="Save"]', 'role=button[name="Save"]', 1),
        ('loc=role:button[name="save"]', 'role=button[name="save"]', 1),
        ('loc=role:button[name="Save draft"]', 'role=button[name="Save draft"]'),
        ('loc=role:button[name="Save all"]', 'role=button[name="Save all"]'),
        ('loc=role:button[name*="save"]', 'role=button[name*="save" i]', 6),
        ('loc=role:button[name*="SAVE"]', 'role=button[name*="save" i]'),
        ('loc=role:button[name*="increment COUNTER"]', 'role=button[name*="increment counter" i]', 1),
        ('loc=role:button[name="Increment counter"]', 'role=button[name="Increment counter"]'),
        ('loc=role:button[name="Div button"]', 'role=button[name="Div button"]'),
        ('loc=role:button[name="Hidden save"]', 'role=button[name="Hidden save"]', 0),
        ('loc=role:button[name="Aria hidden"]', 'role=button[name="Aria hidden"]', 0),
        ('loc=role:button[name="Invisible"]', 'role=button[name="Invisible"]', 0),
        ('loc=role:button[name="Send form"]', 'role=button[name="Send form"]'),
        ('loc=role:button[name="Shadow save"]', 'role=button[name="Shadow save"]'),
        ("loc=role:link", "role=link", 6),
        ('loc=role:link[name="Link two"]', 'role=link[name="Link two"]'),
        ('loc=role:link[name="Link  two"]', 'role=link[name="Link  two"]'),
        ('loc=role:link[name*="link"]', 'role=link[name*="link" i]'),
        ("loc=role:heading", "role=heading"),
        ('loc=role:heading[name="Sub heading"]', 'role=heading[name="Sub heading"]'),
        ("loc=role:textbox", "role=textbox"),
        ('loc=role:textbox[name="Email"]', 'role=textbox[name="Email"]'),
        ('loc=role:textbox[name="Notes"]', 'role=textbox[name="Notes"]'),
        ('loc=role:searchbox[name="Search box"]', 'role=searchbox[name="Search box"]'),
        ('loc=role:checkbox[name="Accept terms"]', 'role=checkbox[name="Accept terms"]'),
        ('loc=role:img[name="Logo image"]', 'role=img[name="Logo image"]'),
        ("loc=role:listitem", "role=listitem"),
        ('loc=role:navigation[name="Primary"]', 'role=navigation[name="Primary"]'),
        ('loc=role:button[name="External label"]', 'role=button[name="External label"]', 1),
        ('loc=role:button[name="Picture save"]', 'role=button[name="Picture save"]', 1),
        ('loc=role:button[name*="picture"]', 'role=button[name*="picture" i]', 1),
        ('loc=role:button[name="Before pseudo"]', 'role=button[name="Before pseudo"]', 1),
        ('loc=role:button[name*="before PSEUDO"]', 'role=button[name*="before pseudo" i]', 1),
        ('loc=role:button[name="Titled"]', 'role=button[name="Titled"]', 1),
        ('loc=role:link[name="Labelled link"]', 'role=link[name="Labelled link"]', 1),
        ('loc=role:button[name="Role labelled"]', 'role=button[name="Role labelled"]', 1),
        ('loc=role:button[name="ignored text"]', 'role=button[name="ignored text"]', 0),
        ('loc=role:link[name="multi role"]', 'role=link[name="multi role"]', 1),
        ('loc=role:button[name*="e"]', 'role=button[name*="e" i]'),
        ('loc=role:button[name=""]', 'role=button[name=""]'),
        ("loc=role:button >> nth=0", "role=button >> nth=0"),
        ("loc=role:button >> nth=-1", "role=button >> nth=-1"),
        ("loc=role:link >> nth=3", "role=link >> nth=3"),
        ("loc=role:button >> nth=50", "role=button >> nth=50"),
    ),
    # --- role classification in page (no name: sure elements skip Chromium's AX) --------------
    *_c(
        "role_classify",
        ("loc=role:button", "role=button"),
        ("loc=role:link", "role=link"),
        ("loc=role:textbox", "role=textbox"),
        ("loc=role:searchbox", "role=searchbox"),
        ("loc=role:combobox", "role=combobox"),
        ("loc=role:listbox", "role=listbox"),
        ("loc=role:spinbutton", "role=spinbutton"),
        ("loc=role:slider", "role=slider"),
        ("loc=role:checkbox", "role=checkbox"),
        ("loc=role:switch", "role=switch"),
        ("loc=role:radio", "role=radio"),
        ("loc=role:heading", "role=heading"),
        ("loc=role:tab", "role=tab"),
        ("loc=role:menuitem", "role=menuitem"),
        ("loc=role:img", "role=img"),
        ("loc=role:option", "role=option"),
        ("loc=role:button >> nth=0", "role=button >> nth=0"),
        ("loc=role:button >> nth=-1", "role=button >> nth=-1"),
        ("loc=role:button >> nth=7", "role=button >> nth=7"),
        ("loc=role:link >> nth=1", "role=link >> nth=1"),
        ('loc=role:button[name="plain"]', 'role=button[name="plain"]', 1),
        ('loc=role:button[name*="btn"]', 'role=button[name*="btn" i]'),
        ('loc=role:button[name=""]', 'role=button[name=""]'),
    ),
    # --- general CSS --------------------------------------------------------------------------
    *_c(
        "css",
        ("input", None, 5),
        "form input[type=radio]",
        "input:checked",
        "input[name=r]:checked",
        "button:disabled",
        "button:not(:disabled)",
        ".btn.primary",
        "form.form.primary > button",
        "#f1 > *",
        "select > option:checked",
        "tbody > tr:nth-child(odd) td:first-child",
        "tr.odd td",
        "tr + tr",
        "tr ~ tr > td:last-child",
        "th",
        "table td:nth-of-type(2)",
        "li.a",
        "li.a.b",
        "li:not(.a)",
        "li:is(.a, .b)",
        "ul li:where(.b)",
        "li:nth-last-child(1)",
        "ul:has(> li.b)",
        "article:has(h2) p",
        '[data-value=":has-text("]',
        '[data-x="a b"]',
        "[data-x~=b]",
        '[data-x^="a "]',
        "[data-y]",
        '[lang|="en"]',
        '[id="123"]',
        ".x\\:y",
        "p:empty",
        "main p",
        "main > p",
        ":root > body > footer p",
        "body > *",
        "html body main form button[type=submit]",
        ".row",
        ".row .cell",
        "#sh .row > .cell",
        "#sh > div > span",
        "div span",
        "*:not(tr):not(td) > span",
        "p:first-of-type",
        "p, h2",
        "h2, p",
        "td, th",
        ":scope > body",
        ":scope p",
        "css=.row",
        "css=form > input",
        ("loc=css:#f1 button", "#f1 button"),
        ("loc=css:tr.odd", "css=tr.odd"),
        'tr:has-text("pear")',
        'td:text-is("Plum")',
        '.row:has-text("plum")',
        'tbody tr:has-text("3")',
        'li:has-text("a")',
        'li:text-is("AB")',
        'p:has-text("para")',
        'div:has-text("attrs")',
        ".row >> nth=-1",
        "td >> nth=5",
        "xpath=//tr[@class='row']",
        "//td[text()='Pear']",
        "(//li)[2]",
        "xpath=//p[contains(., 'para')]",
        "xpath=//input[@type='radio'][2]",
    ),
    # --- :has-text and :text-is rules ---------------------------------------------------------
    *_c(
        "has",
        ('button:has-text("save changes")', None, 1),
        ('button:text-is("Save")', None, 1),
        ':text-is("Save")',
        'span:text-is("Save")',
        ':has-text("save changes")',
        ':has-text("deeply nested")',
        'div:has-text("deeply nested")',
        'section :has-text("phrase")',
        '.card:has-text("first")',
        '.card:has-text("card")',
        '.card:has-text("cancel")',
        '#c1 :has-text("save")',
        '#only-label:text-is("")',
        'button:text-is("")',
        ':text-is("can\\\'t stop")',
        "p:text-is('can\\'t stop')",
        'p:text-is("\\41 B")',
        'p:has-text("\\61 b")',
        'p:has-text(\'CAN\')',
        ".wrap:has-text('docs')",
        "a:has-text('docs')",
        'div:has-text("Docs link")',
        'h3:text-is("Second card")',
        'h3:text-is("second card")',
        'h3:has-text("SECOND")',
        ':text-is("Cancel")',
        "text=save",
        'text="Save"',
        "text=changes",
        'text="changes"',
        "text=docs",
        'text="Docs"',
        "text=nested phrase",
        'button:has-text("save") >> nth=1',
        'button:has-text("save") >> nth=-1',
        'button:text-is("Save") >> nth=0',
    ),
]


# --- issue 13 point 4: what agents write, each compared with Playwright as written -----------
_AGENT_ROLES = [
    "role=button", "role=link", "role=heading", "role=checkbox", "role=radio", "role=cell", "role=row",
    "role=table", "role=columnheader", "role=listitem", "role=tab", "role=combobox", "role=textbox",
    "role=navigation", "role=region", "role=form", "role=article", "role=list", "role=option",
    'role=button[name="Add to cart"]', 'role=button[name="add to cart"]', 'role=button[name="add to cart" i]',
    'role=button[name="Add to cart" s]', 'role=button[name*="cart"]', 'role=button[name*="CART" i]',
    'role=button[name^="Add"]', 'role=button[name$="options"]', 'role=button[name~="to"]',
    'role=button[name|="Add"]', "role=button[name=/^add/i]", "role=button[name=/options$/]",
    "role=button[name=/sav(e|ed)/i]", 'role=link[name="Cart (3)"]', "role=link[name=/cart/i]",
    'role=heading[name="12 books found"]', "role=heading[level=1]", "role=heading[level=2]",
    "role=heading[level=3]", "role=heading[level=4]", "role=heading[level=3][name=/dune/i]",
    "role=checkbox[checked]", "role=checkbox[checked=true]", "role=checkbox[checked=false]",
    'role=checkbox[checked="mixed"]', "role=checkbox[checked=mixed]", "role=radio[checked]",
    "role=radio[checked=false]", 'role=checkbox[name="Gift wrap"][checked]', "role=button[pressed]",
    "role=button[pressed=false]", "role=button[pressed=true]", "role=button[disabled]",
    "role=button[disabled=false]", "role=button[disabled=true]", "role=button[expanded]",
    "role=button[expanded=false]", "role=button[expanded=true]", "role=tab[selected]",
    "role=tab[selected=false]", "role=option[selected]", "role=option[selected=false]",
    'role=cell[name="Beta"]', 'role=cell[name*="ray"]', "role=cell[name=/^\\d+$/]",
    'role=cell[name="Tea"]', 'role=columnheader[name="Sum"]', 'role=table[name="Totals"]',
    'role=textbox[name="Email"]', 'role=combobox[name="Country"]', 'role=navigation[name="Main"]',
    'role=region[name="Results"]', 'role=form[name="Checkout"]', 'role=listitem[name*="milk"]',
    "role=button >> nth=0", "role=button >> nth=-1", "role=button[name*=\"cart\" i] >> nth=1",
    "role=cell >> nth=3", "role=checkbox >> nth=-1",
]
_AGENT_TEXT = [
    "text=/\\d+ books?/", "text=/\\d+ books? found/i", "text=/^Dune$/", "text=/dune/i", "text=/DUNE/",
    "text=/^\\$\\d+\\.\\d\\d$/", "text=/showing \\d+ of 12/i", "text=/Showing (3|12) of/", "text=/cart/i",
    "text=/^Add to cart$/", "text=/^add/im", "text=/book left|books found/", "text=/Gamma\\s+ray/",
    "text=/@example\\.com/", "text=/^$/", "text=/e/", "text=/Shadow/", "text=/Price \\$7/",
    "text=/[A-Z]{4}/", "text=/milk|Bob/", "text=/Legacy/i", "text=/^Read Dune again$/",
    'text="Add to cart"', "text=add to cart", "text='Dune'",
]
_AGENT_CSS = [
    'button:text("add to cart")', ':text("dune")', 'li:text("buy")', 'h3:text("book")', ':text("Shadow")',
    'button:text-matches("^add", "i")', 'p:text-matches("\\\\$\\\\d")', ':text-matches("books? (found|left)")',
    'li:text-matches("^call", "i")', 'article:has-text("dune") button', 'article:has-text("emma") > button',
    '.card:has-text("book") h3', 'section:has-text("dune") article:has-text("$4") button',
    'li:has-text("dune") b', 'form:has-text("gift") label:has-text("news") input', 'tr:has-text("beta") td',
    'table:has-text("totals") td:text-is("Tea")', ':has-text("store") > h1', 'main > :has-text("12 books") h2',
    "button:visible", ".card:visible", "article:visible h3", "button:not(:disabled):visible",
    "#invisible button:visible", 'h3:visible:has-text("book")', "li:visible", "a:visible",
    "section:has(a)", "article:has(button)", "article:has(> p.price)", "article:has(a[href])",
    "div:has(a)", "div:has(button)", "#host:has(section a)", "main section:has(h2)", "ul:has(li.done)",
    "tr:has(td)", "tr:has(th)", "table:has(caption)", "form:has(input:checked)", "label:has(input[type=radio]:checked)",
    "article:has(h3):has(button[disabled])", "li:has(+ li.done)", "li:has(~ li > span)", "h3:has(+ p)",
    "section:has(.card h3)", "article:not(:has(a))", ":has(> h1)", "div:has(p:text('Price'))",
    "div:has(:text-matches('\\\\$7'))", "id=plain", "id=plain td", "data-testid=card-2",
    "data-testid=card-3", "data-test-id=legacy", "data-test=older",
]
_AGENT_CHAINS = [
    ".card >> text=Add to cart", ".card >> role=button", ".card >> role=button[name*=\"save\" i]",
    'article >> role=heading[level=3]', "role=article >> role=button", "role=region >> role=link",
    "#plain >> role=cell", "#plain >> role=row >> nth=1 >> role=cell", "role=row >> nth=2 >> role=cell >> nth=0",
    "role=table >> role=cell", 'role=table[name="Totals"] >> role=cell', "form >> role=checkbox[checked]",
    "form >> role=radio >> nth=1", "role=form >> text=Gift", "role=navigation >> text=/cart/i",
    "section >> article >> h3", "section >> text=/\\$\\d/", "text=Dune >> xpath=..", ".todo >> li >> nth=1 >> b",
    ".todo >> li >> b", "xpath=//article >> css=button", "xpath=//article >> xpath=//button",
    "//section >> //h3", "article >> nth=1 >> button", "article >> nth=-1 >> a",
    "article >> visible=true >> h3", "article >> visible=false", "button >> visible=false", "button >> visible=true >> nth=2",
    "#host >> a", "#host >> role=link", "#host >> text=shadow add", "#host >> section >> p",
    "role=link >> nth=2", "role=link >> visible=true", "main >> role=button >> nth=0",
    ".card >> nth=0 >> role=button >> nth=1", "id=f >> role=button[expanded=false]", "id=f >> label >> input",
    "data-testid=card-1 >> role=button[pressed]", "data-testid=card-4 >> role=link", "tr >> td >> nth=0",
    "table >> tr >> td:has-text(\"a\")", "li >> text=again", 'li >> text="Dune"', "li >> text=/^Dune$/",
    "text=Buy milk >> xpath=ancestor::ul", "header >> nav >> a >> nth=-1", "footer >> text=/help@/",
    ".card:has-text(\"emma\") >> role=button[disabled]", "role=button >> text=Add", "role=tab >> text=/first/i",
]
CASES += [Case("agent", sel) for sel in _AGENT_ROLES + _AGENT_TEXT + _AGENT_CSS + _AGENT_CHAINS]
# the same forms on the older fixtures (shadow roots, has/text rules, roles, duplicates)
CASES += _c(
    "shadow",
    "#outer >> button", "#outer >> role=button", "#outer >> text=deep", ".host2 >> .deep", "section >> li",
    "div:has(.deep)", "div:has(a.deepest)", "section:has(input)", ":has(> .inner)", "#outer:has(slot)",
    "role=button[name=/shadow/i]", "role=link", "text=/deep(est)?/", "text=/^Deep button$/",
    'button:text("shadow")', "#h4 >> text=/action/i", "#outer >> section", "div >> nth=2 >> button",
    "#closed >> button", "role=listitem >> text=two",
)
CASES += _c(
    "has",
    ".card >> button", ".card >> role=button", ".card >> text=save", '.card:has-text("first") >> button',
    "div:has(button)", "div:has(> h3)", "section:has(span)", 'div:has(:text("phrase"))',
    "button:text('save')", ":text('save changes')", 'p:text-matches("can.t")', "text=/save changes/i",
    "text=/^Save$/", "role=button[name=/save/i]", 'role=button[name="Close"]', "#c1 >> text=/save/i >> nth=0",
)
CASES += _c(
    "nth",
    ".dup >> nth=1 >> xpath=..", "a >> nth=0 >> xpath=following-sibling::a", "role=link[name*=\"link\" i]",
    "role=button >> nth=1", "text=dup >> visible=true", ".dup:visible", "button:visible", "role=button[disabled]",
    "#h >> .dup", "#h >> role=button",
)
CASES += _c(
    "css",
    "#tbl >> role=cell", "#tbl >> role=columnheader", "role=row >> nth=1", 'role=cell[name="Pear"]',
    "tr:has(td:text-is('Plum'))", "tbody:has(tr.odd)", "form:has(button[disabled])", "form >> role=checkbox[checked]",
    "form >> role=radio[checked=false]", "role=combobox", "role=option[selected]", "article >> p >> nth=-1",
    "#sh >> .cell", "div:has(> span.cell)", "ul >> li.a >> nth=1", "main >> text=/para \\d/",
    "text=/^(Apple|Pear)$/", 'td:text-matches("^P")', "role=list >> role=listitem", "role=listitem[name=/^a/i]",
)



# --- issue 29: exact text across inline elements, split link names, th roles ----------------
def _exact(sel: str, text: str, within: str | None = None) -> Case:
    """Exact text as Playwright's immediate-text rule or its getByText(exact=True) (the smallest
    element whose whole text is ``text``): the union of the two."""
    by_text = f"page.get_by_text({text!r}, exact=True)"
    if within is not None:
        by_text = f"page.locator({within!r}).and_({by_text})"
    return Case("spa", sel, f"pw:locator({sel!r}).or_({by_text})")


CASES += [
    Case("spa", 'text="print(base + x)"', 'internal:text="print(base + x)"s', 2),
    Case("spa", "text='print(base + x)'", 'internal:text="print(base + x)"s', 2),
    Case("spa", 'pre:text-is("print(base + x)")', 'pre >> internal:text="print(base + x)"s', 1),
    Case("spa", '.cm-line:text-is("print(base + x)")', '.cm-line >> internal:text="print(base + x)"s', 1),
    Case("spa", '#c1 >> text="print(base + x)"', '#c1 >> internal:text="print(base + x)"s', 1),
    _exact('text="Save changes"', "Save changes"), _exact('text="total due"', "total due"),
    _exact('text="Total:"', "Total:"), _exact('text="Total: 5"', "Total: 5"), _exact('text="Run all"', "Run all"),
    _exact('text="Run"', "Run"), _exact('text="print"', "print"), _exact('text="Down loads"', "Down loads"),
    _exact('text="Downloads"', "Downloads"), _exact('text="OpenReport"', "OpenReport"),
    _exact(':text-is("Save changes")', "Save changes"), _exact(':text-is("total due")', "total due"),
    _exact('div:text-is("total due")', "total due", "div"), _exact('li:text-is("Run all")', "Run all", "li"),
    _exact('button:text-is("Save changes")', "Save changes", "button"),
    _exact(':text-is("print(base + x)")', "print(base + x)"),
    Case("spa", 'role=link[name="OpenReport"]', None, 1), Case("spa", 'role=link[name="NewFolder"]', None, 1),
    Case("spa", 'role=link[name="Up load"]', None, 1), Case("spa", 'role=link[name="Downloads"]', None, 1),
    Case("spa", 'role=link[name="Open Report"]', None, 0), Case("spa", "role=link[name*=\"report\" i]", None, 1),
    Case("spa", "role=link", None, 4), Case("spa", "role=columnheader"), Case("spa", "role=rowheader"),
    Case("spa", 'role=columnheader[name="File"]'), Case("spa", 'role=rowheader[name="Name"]'),
    Case("spa", "#t1 >> role=rowheader"), Case("spa", "#t3 >> role=columnheader"), Case("spa", "role=cell"),
    Case("spa", "#t4 >> role=columnheader", None, 1), Case("spa", "#t4 >> role=rowheader", None, 1),
    Case("spa", 'role=columnheader[name="Group"]', None, 1), Case("spa", 'role=rowheader[name="Group"]', None, 0),
    Case("spa", "#t5 >> role=columnheader", None, 1), Case("spa", 'role=columnheader[name="Blank"]', None, 1),
    Case("spa", "#t6 >> role=cell", None, 0), Case("spa", "#t6 >> role=columnheader", None, 0),
    Case("spa", "role=gridcell"), Case("spa", "role=columnheader >> nth=-1"),
]

# --- page.get_by_*: our selector strings against Playwright's own builders --------------------
def _by(fixture: str, call: str) -> Case:
    from ego_browser.selectors import locators

    method, _, rest = call.partition("(")
    ours = eval(f"locators.{method.replace('get_', '')}({rest}", {"locators": locators, "re": re})  # noqa: S307
    return Case(fixture, ours, "pw:" + call)


_GET_BY = [
    'get_by_role("button")', 'get_by_role("button", name="add to cart")', 'get_by_role("button", name="Add")',
    'get_by_role("button", name="Add to cart", exact=True)', 'get_by_role("button", name="add to cart", exact=True)',
    'get_by_role("button", name=re.compile("^sav", re.I))', 'get_by_role("button", name="save")',
    'get_by_role("button", pressed=True)', 'get_by_role("button", disabled=True)', 'get_by_role("button", expanded=False)',
    'get_by_role("checkbox", checked=True)', 'get_by_role("checkbox", checked=False)', 'get_by_role("radio", checked=True)',
    'get_by_role("heading", level=3)', 'get_by_role("heading", name="dune")', 'get_by_role("heading", level=2, name="books")',
    'get_by_role("link", name="cart")', 'get_by_role("link", name=re.compile(r"cart \\(\\d\\)", re.I))',
    'get_by_role("cell", name="beta")', 'get_by_role("cell", name="Gamma ray", exact=True)', 'get_by_role("tab", selected=True)',
    'get_by_role("option", selected=True)', 'get_by_role("textbox", name="email")', 'get_by_role("combobox", name="country")',
    'get_by_role("navigation")', 'get_by_role("region", name="results")', 'get_by_role("listitem", name="milk")',
    'get_by_text("add to cart")', 'get_by_text("Add to cart", exact=True)', 'get_by_text("dune")', 'get_by_text("Dune", exact=True)',
    'get_by_text("dune", exact=True)', 'get_by_text("showing 3")', 'get_by_text(re.compile(r"\\d+ books?"))',
    'get_by_text(re.compile("^call", re.I))', 'get_by_text("Read Dune again", exact=True)', 'get_by_text("Shadow")',
    'get_by_text("  Buy   milk ")', 'get_by_text("Gamma ray")', 'get_by_text("$9.99")', 'get_by_text("help@example.com")',
    'get_by_label("email")', 'get_by_label("Email", exact=True)', 'get_by_label("gift")', 'get_by_label("Gift wrap", exact=True)',
    'get_by_label("newsletter")', 'get_by_label("mixed")', 'get_by_label("Country")', 'get_by_label("results")',
    'get_by_label(re.compile("^check", re.I))', 'get_by_label("main")', 'get_by_label("standard")',
    'get_by_placeholder("you@")', 'get_by_placeholder("YOU@EXAMPLE")', 'get_by_placeholder("you@example.com", exact=True)',
    'get_by_placeholder("you@", exact=True)', 'get_by_test_id("card-1")', 'get_by_test_id("card-3")', 'get_by_test_id("card")',
]
CASES += [_by("agent", call) for call in _GET_BY]
CASES += [_by("role", call) for call in [
    'get_by_role("button", name="save")', 'get_by_role("button", name="Save", exact=True)', 'get_by_role("link")',
    'get_by_text("save")', 'get_by_text("Save", exact=True)', 'get_by_label("email")', 'get_by_label("notes")',
    'get_by_label("Accept terms", exact=True)', 'get_by_label("search box")', 'get_by_role("checkbox", name="accept")',
]]


class Oracle:
    """Playwright and our engine side by side, each on its own /usr/bin/chromium, driven from
    a private event loop thread so that sync (hypothesis) tests can use it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="selector-oracle", daemon=True)
        self.thread.start()
        self._html: str | None = None
        self.tmp = tempfile.mkdtemp(prefix="ego-sel-")
        self.browser_proc = None
        self.run(self._start())

    def run(self, coro, timeout: float = 60.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _start(self) -> None:
        from playwright.async_api import async_playwright

        from ego_browser.browser.launcher import launch_chromium
        from ego_browser.cdp.connection import Connection
        from ego_browser.selectors.standalone import PageFrames, open_page

        self.browser_proc = launch_chromium(os.path.join(self.tmp, "profile"))
        self.conn = await Connection.connect(self.browser_proc.ws_url)
        self.session, _ = await open_page(self.conn)
        self.frames = PageFrames(self.session)
        self.pw = await async_playwright().start()
        self.pw_browser = await self.pw.chromium.launch(executable_path=CHROMIUM, args=PW_ARGS)
        self.pw_page = await self.pw_browser.new_page()

    def close(self) -> None:
        async def stop() -> None:
            try:
                await self.pw_browser.close()
                await self.pw.stop()
            finally:
                await self.conn.close()

        try:
            self.run(stop(), timeout=30)
        finally:
            if self.browser_proc is not None:
                self.browser_proc.terminate()
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
            if not self.thread.is_alive():
                self.loop.close()  # its selector and self-pipe sockets (ResourceWarnings otherwise)
            shutil.rmtree(self.tmp, ignore_errors=True)

    # -- pages ---------------------------------------------------------------------------------

    def load(self, html: str) -> None:
        if html == self._html:
            return
        self._html = None
        self.run(self._load(html))
        self._html = html

    async def _load(self, html: str) -> None:
        full = html if html.lstrip().lower().startswith(("<head", "<!doctype", "<html")) else "<body>" + html + "</body>"
        await self.pw_page.set_content(full)
        n1 = await self.pw_page.evaluate(SETUP_JS)
        frames = await self.frames.frames()
        await self.session.send("Page.setDocumentContent", {"frameId": frames[0].frame_id, "html": full})
        r = await self.session.send(
            "Runtime.evaluate", {"expression": f"({SETUP_JS})()", "returnByValue": True}
        )
        n2 = r["result"]["value"]
        assert n1 == n2, f"fixture DOMs differ: {n1} vs {n2} elements"

    # -- queries -------------------------------------------------------------------------------

    def ours(self, selector: str) -> list[str]:
        return self.run(self._ours(selector))

    async def _ours(self, selector: str) -> list[str]:
        from ego_browser.selectors import engine

        res = await engine.resolve(
            self.frames, selector, describe=False, backend_ids=False, project=EID, object_group="difftest"
        )
        await self.session.send("Runtime.releaseObjectGroup", {"objectGroup": "difftest"})
        return [m.info["project"] for m in res.matches]

    def ours_count(self, selector: str) -> int:
        from ego_browser.selectors import engine

        return self.run(engine.count(self.frames, selector))

    def theirs(self, selector: str) -> list[str]:
        if selector.startswith("pw:"):  # Playwright's own locator builder, e.g. pw:get_by_role("button")
            locator = eval("page." + selector[3:], {"page": self.pw_page, "re": re})  # noqa: S307 - test data
        else:
            locator = self.pw_page.locator(selector)
        return self.run(locator.evaluate_all(f"els => els.map({EID})"))
