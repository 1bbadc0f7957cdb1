"""Pages for the snapshot tests, served on 127.0.0.1 (port 0); ``localhost`` gives a second site.

``serve()`` yields a :class:`Site`; ``site.url(path)`` is same-site, ``site.cross(path)`` is
cross-site (an out-of-process iframe when embedded in a 127.0.0.1 page).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tests.server import Response, TestServer

__all__ = ["PAGES", "Site", "serve", "catalog_page"]


def _doc(title: str, body: str) -> str:
    return f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head><body>{body}</body></html>"


def catalog_page(rows: int = 500) -> str:
    out = ["<h1>Inventory</h1><table id=inventory><thead><tr><th>Item</th><th>Description</th><th>Action</th>"
           "<th>Quantity</th></tr></thead><tbody>"]
    for i in range(rows):
        out.append(
            f"<tr id=row-{i}><td><a href=\"/item/{i}\">Item {i}</a></td>"
            f"<td>Description of item number {i}, in stock</td>"
            f"<td><button type=button data-row={i}>Add {i}</button></td>"
            f"<td><input type=text name=qty-{i} aria-label=\"Quantity {i}\" value=\"\"></td></tr>"
        )
    out.append("</tbody></table>")
    return _doc("Large table", "".join(out))


FORMS = _doc("Forms", """
<main><h1>Checkout</h1>
<form id=checkout>
 <label for=email>Email</label> <input id=email type=email placeholder="you@example.com">
 <label>Full name <input name=fullname></label>
 <input type=search placeholder="Search products" title="Search">
 <input type=password aria-labelledby=pwlabel> <span id=pwlabel>Secret code</span>
 <textarea name=notes placeholder="Notes"></textarea>
 <select name=sort aria-label="Sort by"><option value=price_asc>Price ascending</option><option value=new>Newest</option></select>
 <fieldset><legend>Shipping</legend>
  <label><input type=radio name=ship value=std checked> Standard</label>
  <label><input type=radio name=ship value=exp> Express</label>
 </fieldset>
 <label><input type=checkbox id=terms> I accept the <a href="/terms">terms</a></label>
 <input type=number aria-label=Quantity value=1> <input type=range aria-label=Volume>
 <input type=submit value="Place order"> <button type=button disabled>Disabled action</button>
 <input type=hidden name=token value=x>
 <div contenteditable=true aria-label="Editor">Edit me</div>
 <div tabindex=0>Focusable block</div>
 <button type=button aria-label="Close dialog">X</button>
 <button type=button title="Help tooltip"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Help"></button>
 <a href="/same">Same link</a> <a href="/same">Same link</a>
 <a href="/unique?x=1">Unique link</a>
</form></main>
""")

LISTS = _doc("Lists", """
<nav aria-label=Primary><ul><li><a href=/a>Alpha</a></li><li><a href=/b>Beta</a></li></ul></nav>
<ol><li>First step</li><li>Second <b>bold</b> step</li></ol>
<details open><summary>More info</summary><p>Hidden depths</p></details>
<dialog open aria-label="Choose category"><p>Pick one</p><button type=button>Books</button><button type=button>Music</button></dialog>
<p style="display:none">Never shown</p><p aria-hidden=true>Also hidden</p>
<p>Visible <span style="visibility:hidden">invisible</span> text</p>
<table><tr><th>Key</th><th>Value</th></tr><tr><td>Colour</td><td>Blue</td></tr><tr><td></td><td>Empty left</td></tr></table>
""")

SHADOW = _doc("Shadow", """
<h1>Shadow host</h1><div id=host1></div>
<script>
const h1 = document.getElementById('host1');
const r1 = h1.attachShadow({mode: 'open'});
r1.innerHTML = '<p>Outer shadow text</p><button id=outer-btn>Outer shadow button</button><div id=host2></div>';
const r2 = r1.getElementById('host2').attachShadow({mode: 'open'});
r2.innerHTML = '<label>Deep field <input id=deep-input></label><button>Deep shadow button</button>';
</script>
""")

# web components as toolkits build them (JupyterLab's toolbars, a widget library's menus): controls
# in open shadow roots, light-DOM content shown through <slot>s (display: contents), shadow roots
# nested in shadow roots, hosts that are display: contents, a menu whose labels sit in child
# elements, and separators that are focusable but say nothing
COMPONENTS = _doc("Components", """
<h1>Notebook</h1>
<jp-toolbar aria-label="file browser">
  <tb-button title="New Folder"></tb-button>
  <tb-button>Upload</tb-button>
  <tb-group><tb-button>Save</tb-button></tb-group>
</jp-toolbar>
<jp-toolbar aria-label="notebook actions"><kernel-controls></kernel-controls><cell-type></cell-type></jp-toolbar>
<tab-strip><div role=tab tabindex=0 aria-selected=true>Launcher</div><div role=tab tabindex=-1 aria-selected=false>Untitled.ipynb</div></tab-strip>
<p id=out>nothing yet</p>
<div role=menu aria-label="Context"><ul class=menu>
  <li class=item tabindex=-1 data-cmd=open><div class=icon></div><div class=label>Open</div><div class=key>Enter</div></li>
  <li class=item tabindex=-1 data-cmd=rename><div class=icon></div><div class=label>Rename</div><div class=key>F2</div></li>
  <li class=sep role=presentation tabindex=-1><hr></li>
  <li class=item tabindex=-1 data-cmd=theme><div class=icon></div><div class=label>Theme</div></li>
  <li class=sep role=presentation tabindex=-1></li>
</ul></div>
<script>
const out = document.getElementById('out');
const said = (t) => { out.textContent = 'did ' + t; };
customElements.define('jp-toolbar', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.setAttribute('role', 'toolbar');
    this.attachShadow({mode: 'open'}).innerHTML =
      '<style>:host{display:flex;gap:4px}</style><div part=region><slot name=start></slot><slot></slot></div>';
  }
});
customElements.define('tb-button', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const t = this.getAttribute('title');
    const r = this.attachShadow({mode: 'open'});
    r.innerHTML = '<style>:host{display:contents}</style><button part=control type=button>' +
      '<span class=icon></span><span class=content><slot></slot></span></button>';
    const b = r.querySelector('button');
    if (t) { b.setAttribute('aria-label', t); b.style.minWidth = '20px'; b.style.minHeight = '10px'; }
    b.addEventListener('click', () => said(t || this.textContent.trim()));
  }
});
customElements.define('tb-group', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({mode: 'open'}).innerHTML = '<style>:host{display:contents}</style><slot></slot>';
  }
});
customElements.define('kernel-controls', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    // a shadow root holding hosts with shadow roots of their own
    this.attachShadow({mode: 'open'}).innerHTML =
      '<tb-group><tb-button>Run</tb-button><tb-button>Restart</tb-button></tb-group>';
  }
});
customElements.define('tab-strip', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const r = this.attachShadow({mode: 'open'});
    r.innerHTML = '<div role=tablist aria-label=Documents><slot></slot></div><div role=button tabindex=0>Close all</div>';
    r.querySelector('[role=button]').addEventListener('click', () => said('close all'));
  }
});
customElements.define('cell-type', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const r = this.attachShadow({mode: 'open'});
    r.innerHTML = '<slot name=label></slot><select aria-label="Cell type"><option>Code</option>' +
      '<option>Markdown</option><option>Raw</option></select><input aria-label="Filter files">';
    r.querySelector('input').addEventListener('input', (e) => said('filter ' + e.target.value));
    r.querySelector('select').addEventListener('change', (e) => said('type ' + e.target.value));
  }
});
for (const li of document.querySelectorAll('.menu .item')) li.addEventListener('click', () => said(li.dataset.cmd));
</script>
""")

COMPACT = _doc("Compact", """
<div><div><div><h2>Wrapped heading</h2></div></div></div>
<div>   </div><div>&nbsp;&nbsp;</div><div>&#8203;&#8205;</div><span></span>
<div><p>Group one A</p><p>Group one B</p></div>
<div><p>Group two A</p><p>Group two B</p></div>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Logo">
<svg width=20 height=20><circle cx=10 cy=10 r=5></circle></svg>
<canvas width=20 height=20></canvas>
<table><tr><td></td><td>Cell</td></tr></table>
<iframe src="/inner_a" title="Inner A"></iframe>
""")


STATES = _doc("States", """
<h1>Account</h1><h3>Preferences</h3><div role=heading aria-level=4>Aria heading</div><div role=heading>Plain aria heading</div>
<form>
 <input type=checkbox id=remember checked aria-label="Remember me"> <input type=checkbox id=news aria-label="Newsletter">
 <input type=checkbox id=some aria-label="Some selected">
 <div role=checkbox aria-checked=true tabindex=0>Aria ticked</div><div role=checkbox aria-checked=mixed tabindex=0>Aria partly</div>
 <div role=switch aria-checked=false tabindex=0>Aria switch</div>
 <input type=radio name=size value=s aria-label=Small> <input type=radio name=size value=l checked aria-label=Large>
 <button type=button disabled>Off</button> <button type=button aria-disabled=true>Aria off</button>
 <fieldset disabled><legend>Locked</legend><input aria-label="Locked field" value=locked></fieldset>
 <button type=button aria-expanded=true>Menu open</button> <button type=button aria-expanded=false>Menu shut</button>
 <details><summary>Closed details</summary><p>Inside</p></details>
 <details open><summary>Open details</summary><p>Shown inside</p></details>
 <button type=button aria-pressed=true>Bold</button> <button type=button aria-pressed=false>Italic</button>
 <label>Title <input id=title value="Initial title"></label>
 <label>Notes <textarea id=notes>first line
second line</textarea></label>
 <input type=search aria-label=Find value=kettles>
 <input type=number aria-label=Count value=3> <input type=range aria-label=Level min=0 max=10 value=7>
 <progress aria-label=Upload max=100 value=40></progress>
 <select aria-label=Colour><option>Red</option><option selected>Green</option><option disabled>Grey</option></select>
 <select aria-label=Sizes multiple size=3><option selected>S</option><option>M</option><option selected>L</option></select>
 <input aria-label="Required field" required> <input aria-label="Read only" readonly value=fixed>
 <input aria-label="Bad field" aria-invalid=true value=oops>
 <input type=password aria-label=Password value=hunter2>
 <input aria-label="Long value" value="%s">
 <div role=tablist><div role=tab aria-selected=true tabindex=0>First tab</div><div role=tab aria-selected=false tabindex=-1>Second tab</div></div>
 <div role=slider aria-label="Aria slider" aria-valuenow=30 aria-valuemin=0 aria-valuemax=100 tabindex=0 style="width:80px;height:8px"></div>
 <div role=progressbar aria-label="Aria progress" aria-valuenow=60></div>
</form>
<p>Icon links: <a href="/broken"><img src="/missing.png" alt="" width=0 height=0></a><a href="/ok">Reachable</a>
<a href="/zero" style="display:inline-block;width:0;height:0;overflow:hidden">Zero box</a></p>
<script>
document.getElementById('some').indeterminate = true;
document.getElementById('title').value = 'Harbor of Lanterns';  // typed, not the attribute
document.getElementById('notes').value = 'typed notes\\nsecond';
</script>
""" % ("x" * 150))


def frames_page(cross: str) -> str:
    return _doc("Frames", f"""
<h1>Frames host</h1><button>Host button</button>
<iframe id=fa src="/inner_a" title="Same origin"></iframe>
<iframe id=fb src="{cross}/inner_b" title="Cross origin"></iframe>
<iframe id=fn src="/nest1" title="Nest one" style="width:600px;height:300px"></iframe>
<div style="height:3000px"></div>
<iframe id=lazy loading=lazy src="/inner_lazy" title="Lazy frame"></iframe>
<p>Bottom text far below</p>
""")


INNER_A = _doc("A", "<p>Inner A text</p><button id=frame-btn onclick=\"this.textContent='clicked'\">Run</button><input id=field>")
INNER_B = _doc("B", "<p>Inner B text</p><button id=frame-btn>Run</button><input id=field>")
INNER_LAZY = _doc("L", "<p>Lazy content</p><button>Lazy button</button>")


def nest1(cross: str) -> str:
    return _doc("N1", f"<p>Nest one text</p><iframe src=\"{cross}/nest2\" title=\"Nest two\" style=\"width:500px;height:250px\"></iframe>")


def nest2(base: str) -> str:
    return _doc("N2", f"<p>Nest two text</p><iframe src=\"{base}/inner_c\" title=\"Nest three\"></iframe>")


INNER_C = _doc("C", "<p>Deepest text</p><button>Deep button</button>")


class Site:
    """The snapshot pages on the suite's server; ``other`` is the same server under another host
    name (a cross-origin frame)."""

    def __init__(self, server: TestServer) -> None:
        self.server = server
        self.port = server.port
        self.base = f"http://127.0.0.1:{self.port}"
        self.other = f"http://localhost:{self.port}"

    @property
    def hits(self) -> dict[str, int]:
        return self.server.hits()

    def url(self, path: str) -> str:
        return self.base + path

    def cross(self, path: str) -> str:
        return self.other + path

    def page(self, req: Any) -> Response:
        pages = {
            "/forms": FORMS, "/lists": LISTS, "/shadow": SHADOW, "/compact": COMPACT,
            "/frames": frames_page(self.other), "/inner_a": INNER_A, "/inner_b": INNER_B,
            "/inner_lazy": INNER_LAZY, "/nest1": nest1(self.other), "/nest2": nest2(self.base),
            "/inner_c": INNER_C, "/catalog": catalog_page(), "/states": STATES, "/components": COMPONENTS,
        }
        body = pages.get(req.path)
        if body is None:
            body = _doc("Other", f"<h1>{req.path}</h1>")
        return Response(body, headers={"Cache-Control": "no-store"})


PAGES = ["/forms", "/lists", "/shadow", "/compact", "/frames", "/catalog", "/states", "/components"]


@contextlib.contextmanager
def serve() -> Iterator[Site]:
    server = TestServer()
    site = Site(server)
    server.fallback = site.page
    try:
        yield site
    finally:
        server.close()
